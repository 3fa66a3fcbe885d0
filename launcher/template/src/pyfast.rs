//! The drop-in wrapper's per-call work done in native code (hand-written, not generated).
//!
//! Takes, once per launch site, the site's record layout (what `<symbol>__packed` reads, see
//! the `__packed` record in launcher/NOTES.md), the address of its `__packed` function, its
//! symbol and the torch dtype objects in dtype-code order; gives a Python builtin function
//! `f(stream, grid, args)` that reads each tensor's device, pointer, dtype, shape and strides
//! through the CPython C API, packs the record on the stack and calls `__packed`: what the
//! wrapper's `_tl_fast_N` does in Python, without the interpreter's per-operation cost (on
//! the H200 host that layer took more than the launch itself).
//!
//! `f` returns True after a launch; False, with nothing launched, when an argument is not
//! what the record expects (a tensor not on CUDA, another rank, an unknown dtype, a value out
//! of its type's range), so that the wrapper's checked path decides and reports; and raises
//! RuntimeError when the launcher returns an error, with the message `_tl_check` gives.
//!
//! `tl_py_dispatch` goes one step further: the stand-in for `ct.launch` at a launch site,
//! `g(stream, grid, kernel, args)`, which host code calls directly. It picks the site's `f`
//! by the kernel object's identity and runs it without a Python call; whatever `f` leaves
//! (and every call while the module's `CHECK_GRID` is true) goes to the module's
//! `_tl_launch_checked`. So a launch from host code costs no Python frame of the wrapper's.
//!
//! The CPython functions are looked up with `dlsym` in the running process when the first
//! site is made, so the library keeps no undefined symbols and still loads in a process
//! without Python. Only stable-ABI functions are used (Python 3.10 and later), and
//! `PyObject_VectorcallMethod` where the interpreter has it. The module stands alone (it
//! gets the launcher's functions by address), so tests build it with plain `rustc`.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::OnceLock;

#[repr(C)]
pub struct PyObject {
    _opaque: [u8; 0],
}

type Obj = *mut PyObject;
type FastCall = unsafe extern "C" fn(Obj, *const Obj, isize) -> Obj;
type Packed = unsafe extern "C" fn(*const u8) -> i32;
type LastError = unsafe extern "C" fn() -> *const c_char;
type Destructor = unsafe extern "C" fn(Obj);

#[repr(C)]
struct PyMethodDef {
    name: *const c_char,
    meth: FastCall,
    flags: c_int,
    doc: *const c_char,
}

// SAFETY: the definition is immutable after it is built and only read by CPython.
unsafe impl Send for PyMethodDef {}
unsafe impl Sync for PyMethodDef {}

const METH_FASTCALL: c_int = 0x0080;
const RTLD_DEFAULT: *mut c_void = std::ptr::null_mut();
const CAPSULE: &CStr = c"transpiler.launch_site";

extern "C" {
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}

/// The CPython functions this module calls, found in the running process.
struct Api {
    get_attr: unsafe extern "C" fn(Obj, Obj) -> Obj,
    call_no_args: unsafe extern "C" fn(Obj) -> Obj,
    /// `PyObject_VectorcallMethod` (public since 3.9): a method call without the bound
    /// method object `get_attr` + `call_no_args` make.
    call_method: Option<unsafe extern "C" fn(Obj, *const Obj, usize, Obj) -> Obj>,
    long_as_i64: unsafe extern "C" fn(Obj) -> i64,
    long_as_u64: unsafe extern "C" fn(Obj) -> u64,
    float_as_f64: unsafe extern "C" fn(Obj) -> f64,
    is_true: unsafe extern "C" fn(Obj) -> c_int,
    seq_size: unsafe extern "C" fn(Obj) -> isize,
    seq_item: unsafe extern "C" fn(Obj, isize) -> Obj,
    tuple_size: unsafe extern "C" fn(Obj) -> isize,
    tuple_item: unsafe extern "C" fn(Obj, isize) -> Obj,
    err_occurred: unsafe extern "C" fn() -> Obj,
    err_clear: unsafe extern "C" fn(),
    err_set_string: unsafe extern "C" fn(Obj, *const c_char),
    bool_from: unsafe extern "C" fn(std::ffi::c_long) -> Obj,
    incref: unsafe extern "C" fn(Obj),
    decref: unsafe extern "C" fn(Obj),
    bytes_as_string: unsafe extern "C" fn(Obj) -> *const c_char,
    unicode_as_utf8: unsafe extern "C" fn(Obj, *mut isize) -> *const c_char,
    capsule_new: unsafe extern "C" fn(*mut c_void, *const c_char, Destructor) -> Obj,
    capsule_pointer: unsafe extern "C" fn(Obj, *const c_char) -> *mut c_void,
    cfunction_new: unsafe extern "C" fn(*const PyMethodDef, Obj, Obj) -> Obj,
    cfunction_self: unsafe extern "C" fn(Obj) -> Obj,
    call: unsafe extern "C" fn(Obj, Obj, Obj) -> Obj,
    tuple_new: unsafe extern "C" fn(isize) -> Obj,
    tuple_set: unsafe extern "C" fn(Obj, isize, Obj) -> c_int,
    dict_get: unsafe extern "C" fn(Obj, Obj) -> Obj,
    none: Obj,
    runtime_error: Obj,
    type_error: Obj,
    names: Names,
    method: PyMethodDef,
    dispatch_method: PyMethodDef,
}

// SAFETY: the pointers are process-wide CPython objects and functions, used with the GIL held.
unsafe impl Send for Api {}
unsafe impl Sync for Api {}

/// Interned attribute names.
struct Names {
    cuda_stream: Obj,
    get_device: Obj,
    data_ptr: Obj,
    dtype: Obj,
    shape: Obj,
    stride: Obj,
    check_grid: Obj,
    launch_checked: Obj,
}

static API: OnceLock<Option<Api>> = OnceLock::new();

unsafe fn symbol<T: Copy>(name: &CStr) -> Option<T> {
    let found = dlsym(RTLD_DEFAULT, name.as_ptr());
    if found.is_null() {
        return None;
    }
    // SAFETY: `T` is the function-pointer (or pointer) type of the named C symbol.
    Some(std::mem::transmute_copy::<*mut c_void, T>(&found))
}

unsafe fn data_object(name: &CStr) -> Option<Obj> {
    // The symbol is a `PyObject *` variable: read it.
    let slot: *mut Obj = symbol::<*mut Obj>(name)?;
    Some(*slot)
}

unsafe fn load_api() -> Option<Api> {
    let intern: unsafe extern "C" fn(*const c_char) -> Obj =
        symbol(c"PyUnicode_InternFromString")?;
    let name = |text: &CStr| intern(text.as_ptr());
    Some(Api {
        get_attr: symbol(c"PyObject_GetAttr")?,
        call_no_args: symbol(c"PyObject_CallNoArgs")?,
        call_method: symbol(c"PyObject_VectorcallMethod"),
        long_as_i64: symbol(c"PyLong_AsLongLong")?,
        long_as_u64: symbol(c"PyLong_AsUnsignedLongLong")?,
        float_as_f64: symbol(c"PyFloat_AsDouble")?,
        is_true: symbol(c"PyObject_IsTrue")?,
        seq_size: symbol(c"PySequence_Size")?,
        seq_item: symbol(c"PySequence_GetItem")?,
        tuple_size: symbol(c"PyTuple_Size")?,
        tuple_item: symbol(c"PyTuple_GetItem")?,
        err_occurred: symbol(c"PyErr_Occurred")?,
        err_clear: symbol(c"PyErr_Clear")?,
        err_set_string: symbol(c"PyErr_SetString")?,
        bool_from: symbol(c"PyBool_FromLong")?,
        incref: symbol(c"Py_IncRef")?,
        decref: symbol(c"Py_DecRef")?,
        bytes_as_string: symbol(c"PyBytes_AsString")?,
        unicode_as_utf8: symbol(c"PyUnicode_AsUTF8AndSize")?,
        capsule_new: symbol(c"PyCapsule_New")?,
        capsule_pointer: symbol(c"PyCapsule_GetPointer")?,
        cfunction_new: symbol(c"PyCFunction_NewEx")?,
        cfunction_self: symbol(c"PyCFunction_GetSelf")?,
        call: symbol(c"PyObject_Call")?,
        tuple_new: symbol(c"PyTuple_New")?,
        tuple_set: symbol(c"PyTuple_SetItem")?,
        dict_get: symbol(c"PyDict_GetItemWithError")?,
        // `Py_None` is the address of this object, not a variable holding one.
        none: symbol::<Obj>(c"_Py_NoneStruct")?,
        runtime_error: data_object(c"PyExc_RuntimeError")?,
        type_error: data_object(c"PyExc_TypeError")?,
        names: Names {
            cuda_stream: name(c"cuda_stream"),
            get_device: name(c"get_device"),
            data_ptr: name(c"data_ptr"),
            dtype: name(c"dtype"),
            shape: name(c"shape"),
            stride: name(c"stride"),
            check_grid: name(c"CHECK_GRID"),
            launch_checked: name(c"_tl_launch_checked"),
        },
        method: PyMethodDef {
            name: c"tl_launch_site".as_ptr(),
            meth: site_call,
            flags: METH_FASTCALL,
            doc: c"f(stream, grid, args): one packed launch; False leaves it to the checked path."
                .as_ptr(),
        },
        dispatch_method: PyMethodDef {
            name: c"tl_launch".as_ptr(),
            meth: dispatch_call,
            flags: METH_FASTCALL,
            doc: c"f(stream, grid, kernel, args): `ct.launch` at one launch site.".as_ptr(),
        },
    })
}

/// One field of the record, in order.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Field {
    /// A tensor of this rank: `u64` data, `i32` dtype, `i64` shape and strides.
    Array(usize),
    /// A scalar or constant with its `struct` format character.
    Scalar(u8),
    /// The grid as three `i64` (only where the grid is a parameter).
    Grid,
}

/// What a site's builtin function needs (the capsule behind it owns one).
struct Site {
    fields: Vec<Field>,
    packed: Packed,
    /// The library's `tl_last_error`: the message of a failed `packed` call.
    last_error: LastError,
    symbol: String,
    /// Torch dtype objects by dtype code (a reference each, released with the site).
    dtypes: Vec<Obj>,
    record_len: usize,
}

/// Parses `A1,A2,i,f,G` (see `Field`).
fn parse_layout(text: &str) -> Option<Vec<Field>> {
    text.split(',')
        .filter(|part| !part.is_empty())
        .map(|part| match part.as_bytes() {
            [b'A', rank @ ..] => std::str::from_utf8(rank)
                .ok()?
                .parse()
                .ok()
                .filter(|r| (1..=8).contains(r))
                .map(Field::Array),
            [b'G'] => Some(Field::Grid),
            [c] if b"iqIQhHbB?fd".contains(c) => Some(Field::Scalar(*c)),
            _ => None,
        })
        .collect()
}

fn scalar_size(c: u8) -> usize {
    match c {
        b'q' | b'Q' | b'd' => 8,
        b'i' | b'I' | b'f' => 4,
        b'h' | b'H' => 2,
        _ => 1,
    }
}

fn record_len(fields: &[Field]) -> usize {
    12 + fields
        .iter()
        .map(|f| match f {
            Field::Array(rank) => 12 + 16 * rank,
            Field::Scalar(c) => scalar_size(*c),
            Field::Grid => 24,
        })
        .sum::<usize>()
}

/// `tl_py_fast((layout: bytes, packed: int, last_error: int, symbol: str, dtypes: tuple))`:
/// the builtin function of one launch site (`packed` and `last_error` are the addresses of
/// `<symbol>__packed` and `tl_last_error`). Called through `ctypes.PyDLL` (the GIL held) with a
/// `py_object` result; NULL with an exception set when the site cannot be made.
#[no_mangle]
pub unsafe extern "C" fn tl_py_fast(config: Obj) -> Obj {
    entry_point(config, make_site, c"tl_py_fast: bad site description")
}

/// What `tl_py_fast` and `tl_py_dispatch` share: `make`'s function, or NULL with a
/// TypeError saying `refusal` (whatever a lookup raised on the way, the caller gets this).
unsafe fn entry_point(config: Obj, make: unsafe fn(&Api, Obj) -> Option<Obj>, refusal: &CStr) -> Obj {
    let Some(api) = API.get_or_init(|| load_api()).as_ref() else {
        return std::ptr::null_mut();
    };
    match std::panic::catch_unwind(|| make(api, config)) {
        Ok(Some(function)) => function,
        _ => {
            (api.err_clear)();
            (api.err_set_string)(api.type_error, refusal.as_ptr());
            std::ptr::null_mut()
        }
    }
}

/// A builtin function of `method` whose `self` is a capsule that owns `data` (`destructor`
/// frees it with the function).
unsafe fn builtin(
    api: &Api,
    method: &PyMethodDef,
    data: *mut c_void,
    name: &CStr,
    destructor: Destructor,
) -> Option<Obj> {
    let capsule = (api.capsule_new)(data, name.as_ptr(), destructor);
    if capsule.is_null() {
        return None;
    }
    let function = (api.cfunction_new)(method, capsule, std::ptr::null_mut());
    (api.decref)(capsule);
    (!function.is_null()).then_some(function)
}

unsafe fn make_site(api: &Api, config: Obj) -> Option<Obj> {
    if (api.tuple_size)(config) != 5 {
        return None;
    }
    let item = |i| (api.tuple_item)(config, i);
    let layout = (api.bytes_as_string)(item(0));
    if layout.is_null() {
        return None;
    }
    let fields = parse_layout(CStr::from_ptr(layout).to_str().ok()?)?;
    let address = (api.long_as_u64)(item(1));
    if address == 0 || !(api.err_occurred)().is_null() {
        return None;
    }
    let packed: Packed = std::mem::transmute::<usize, Packed>(address as usize);
    let address = (api.long_as_u64)(item(2));
    if address == 0 || !(api.err_occurred)().is_null() {
        return None;
    }
    let last_error: LastError = std::mem::transmute::<usize, LastError>(address as usize);
    let mut size = 0isize;
    let text = (api.unicode_as_utf8)(item(3), &mut size);
    if text.is_null() {
        return None;
    }
    let symbol = String::from_utf8_lossy(std::slice::from_raw_parts(text as *const u8, size as usize))
        .into_owned();
    let dtype_table = item(4);
    let count = (api.tuple_size)(dtype_table);
    if count < 0 {
        return None;
    }
    let dtypes: Vec<Obj> = (0..count).map(|i| (api.tuple_item)(dtype_table, i)).collect();
    for dtype in &dtypes {
        (api.incref)(*dtype);
    }
    let record_len = record_len(&fields);
    let site = Box::new(Site { fields, packed, last_error, symbol, dtypes, record_len });
    builtin(api, &api.method, Box::into_raw(site) as *mut c_void, CAPSULE, drop_site)
}

unsafe extern "C" fn drop_site(capsule: Obj) {
    if let Some(api) = API.get().and_then(Option::as_ref) {
        let site = (api.capsule_pointer)(capsule, CAPSULE.as_ptr()) as *mut Site;
        if !site.is_null() {
            let site = Box::from_raw(site);
            for dtype in &site.dtypes {
                (api.decref)(*dtype);
            }
        }
    }
}

const DISPATCH: &CStr = c"transpiler.launch_dispatch";

/// What a launch site's `ct.launch` stand-in needs (the capsule behind it owns one).
struct Dispatch {
    /// The site number, passed on to `_tl_launch_checked` (a reference).
    site: Obj,
    /// The wrapper module's globals: `CHECK_GRID` and `_tl_launch_checked` are read from
    /// them at each call, so that setting either on the module still takes effect. (A
    /// reference cycle through the capsule, which the collector cannot see: a wrapper module
    /// is kept until the process ends, as imported modules are.)
    globals: Obj,
    /// Per kernel object this site launches with a packed record: the kernel (a reference),
    /// its `tl_py_fast` function (a reference, which keeps `site` alive) and that site.
    kernels: Vec<(Obj, Obj, *const Site)>,
}

/// `tl_py_dispatch((site: int, globals: dict, ((kernel, fast), ...)))`: the stand-in for
/// `ct.launch` at one launch site, `f(stream, grid, kernel, args)`. It packs and launches
/// in native code when `kernel` is one of the listed objects, `CHECK_GRID` is false and the
/// arguments fit the record; otherwise it returns `_tl_launch_checked(site, stream, grid,
/// kernel, args)`. The `fast` functions are ones `tl_py_fast` made. Called like `tl_py_fast`.
#[no_mangle]
pub unsafe extern "C" fn tl_py_dispatch(config: Obj) -> Obj {
    entry_point(config, make_dispatch, c"tl_py_dispatch: bad site description")
}

unsafe fn make_dispatch(api: &Api, config: Obj) -> Option<Obj> {
    if (api.tuple_size)(config) != 3 {
        return None;
    }
    let item = |i| (api.tuple_item)(config, i);
    let (site, globals, pairs) = (item(0), item(1), item(2));
    let count = (api.tuple_size)(pairs);
    if count < 0 {
        return None;
    }
    let mut kernels = Vec::new();
    for i in 0..count {
        let pair = (api.tuple_item)(pairs, i);
        if (api.tuple_size)(pair) != 2 {
            return None;
        }
        let (kernel, fast) = ((api.tuple_item)(pair, 0), (api.tuple_item)(pair, 1));
        let capsule = (api.cfunction_self)(fast);
        if capsule.is_null() {
            return None;
        }
        let packer = (api.capsule_pointer)(capsule, CAPSULE.as_ptr()) as *const Site;
        if packer.is_null() {
            return None;
        }
        kernels.push((kernel, fast, packer));
    }
    for object in [site, globals] {
        (api.incref)(object);
    }
    for (kernel, fast, _) in &kernels {
        (api.incref)(*kernel);
        (api.incref)(*fast);
    }
    let dispatch = Box::new(Dispatch { site, globals, kernels });
    builtin(api, &api.dispatch_method, Box::into_raw(dispatch) as *mut c_void, DISPATCH, drop_dispatch)
}

unsafe extern "C" fn drop_dispatch(capsule: Obj) {
    if let Some(api) = API.get().and_then(Option::as_ref) {
        let dispatch = (api.capsule_pointer)(capsule, DISPATCH.as_ptr()) as *mut Dispatch;
        if !dispatch.is_null() {
            let dispatch = Box::from_raw(dispatch);
            (api.decref)(dispatch.site);
            (api.decref)(dispatch.globals);
            for (kernel, fast, _) in &dispatch.kernels {
                (api.decref)(*kernel);
                (api.decref)(*fast);
            }
        }
    }
}

unsafe extern "C" fn dispatch_call(capsule: Obj, args: *const Obj, nargs: isize) -> Obj {
    let usage = c"launch(stream, grid, kernel, args)";
    let Some((api, dispatch, argv)) =
        call_parts::<Dispatch>(capsule, DISPATCH, args, nargs, 4, usage)
    else {
        return std::ptr::null_mut();
    };
    let check_grid = (api.dict_get)(dispatch.globals, api.names.check_grid);
    let checking = if check_grid.is_null() { 0 } else { (api.is_true)(check_grid) };
    if checking < 0 || !(api.err_occurred)().is_null() {
        return std::ptr::null_mut();
    }
    let packer = dispatch.kernels.iter().find(|(kernel, _, _)| *kernel == argv[2]);
    if let (0, Some((_, _, site))) = (checking, packer) {
        let outcome =
            std::panic::catch_unwind(|| launch(api, &**site, argv[0], argv[1], argv[3]));
        match outcome {
            Ok(Ok(())) => {
                (api.incref)(api.none);
                return api.none;
            }
            Ok(Err(Stop::Raised)) => return std::ptr::null_mut(),
            Ok(Err(Stop::Fallback)) | Err(_) => (api.err_clear)(),
        }
    }
    launch_checked(api, dispatch, argv)
}

/// `_tl_launch_checked(site, stream, grid, kernel, args)`, found in the module's globals.
unsafe fn launch_checked(api: &Api, dispatch: &Dispatch, argv: &[Obj]) -> Obj {
    let checked = (api.dict_get)(dispatch.globals, api.names.launch_checked);
    if checked.is_null() {
        if (api.err_occurred)().is_null() {
            (api.err_set_string)(api.runtime_error, c"the wrapper has no _tl_launch_checked".as_ptr());
        }
        return std::ptr::null_mut();
    }
    let call_args = (api.tuple_new)(5);
    if call_args.is_null() {
        return std::ptr::null_mut();
    }
    (api.incref)(checked); // borrowed from a dict the call may change
    for (i, value) in std::iter::once(dispatch.site).chain(argv.iter().copied()).enumerate() {
        (api.incref)(value); // the tuple takes this reference
        (api.tuple_set)(call_args, i as isize, value);
    }
    let result = (api.call)(checked, call_args, std::ptr::null_mut());
    (api.decref)(call_args);
    (api.decref)(checked);
    result
}

/// Why a call is not packed here: the checked path takes it (`Fallback`), or an exception
/// is already set (`Raised`).
enum Stop {
    Fallback,
    Raised,
}

/// What a builtin's call works on: the API, the data its capsule (named `name`) owns and its
/// `expected` positional arguments; None, with a TypeError showing `usage`, when the call
/// does not fit.
unsafe fn call_parts<'a, T>(
    capsule: Obj,
    name: &CStr,
    args: *const Obj,
    nargs: isize,
    expected: usize,
    usage: &CStr,
) -> Option<(&'static Api, &'a T, &'a [Obj])> {
    let api = API.get().and_then(Option::as_ref)?;
    let data = (api.capsule_pointer)(capsule, name.as_ptr()) as *const T;
    if data.is_null() || nargs != expected as isize {
        if (api.err_occurred)().is_null() {
            (api.err_set_string)(api.type_error, usage.as_ptr());
        }
        return None;
    }
    Some((api, &*data, std::slice::from_raw_parts(args, expected)))
}

unsafe extern "C" fn site_call(capsule: Obj, args: *const Obj, nargs: isize) -> Obj {
    let usage = c"tl_launch_site(stream, grid, args)";
    let Some((api, site, argv)) = call_parts::<Site>(capsule, CAPSULE, args, nargs, 3, usage)
    else {
        return std::ptr::null_mut();
    };
    let outcome = std::panic::catch_unwind(|| launch(api, site, argv[0], argv[1], argv[2]));
    match outcome {
        Ok(Ok(())) => (api.bool_from)(1),
        Ok(Err(Stop::Raised)) => std::ptr::null_mut(),
        Ok(Err(Stop::Fallback)) | Err(_) => {
            (api.err_clear)();
            (api.bool_from)(0)
        }
    }
}

/// The record, written field by field (little-endian, no padding).
struct Record {
    bytes: [u8; 4096],
    len: usize,
}

impl Record {
    fn put(&mut self, data: &[u8]) -> Result<(), Stop> {
        let end = self.len + data.len();
        self.bytes.get_mut(self.len..end).ok_or(Stop::Fallback)?.copy_from_slice(data);
        self.len = end;
        Ok(())
    }
}

/// A new reference, released when dropped.
struct Owned<'a> {
    api: &'a Api,
    obj: Obj,
}

impl Drop for Owned<'_> {
    fn drop(&mut self) {
        // SAFETY: `obj` is a new reference this guard owns; the GIL is held.
        unsafe { (self.api.decref)(self.obj) }
    }
}

unsafe fn owned(api: &Api, obj: Obj) -> Result<Owned<'_>, Stop> {
    if obj.is_null() {
        Err(Stop::Fallback)
    } else {
        Ok(Owned { api, obj })
    }
}

unsafe fn attr<'a>(api: &'a Api, obj: Obj, name: Obj) -> Result<Owned<'a>, Stop> {
    owned(api, (api.get_attr)(obj, name))
}

unsafe fn call_method<'a>(api: &'a Api, obj: Obj, name: Obj) -> Result<Owned<'a>, Stop> {
    if let Some(call) = api.call_method {
        const ONE_ARG: usize = 1; // `self` only; no PY_VECTORCALL_ARGUMENTS_OFFSET
        return owned(api, call(name, &obj, ONE_ARG, std::ptr::null_mut()));
    }
    let method = attr(api, obj, name)?;
    owned(api, (api.call_no_args)(method.obj))
}

/// An `int` (not a float: `struct` refuses those for integer fields) as i64.
unsafe fn int_value(api: &Api, obj: Obj) -> Result<i64, Stop> {
    let value = (api.long_as_i64)(obj);
    if value == -1 && !(api.err_occurred)().is_null() {
        return Err(Stop::Fallback);
    }
    Ok(value)
}

unsafe fn ints(api: &Api, tuple: Obj, rank: usize, record: &mut Record) -> Result<(), Stop> {
    if (api.tuple_size)(tuple) != rank as isize {
        return Err(Stop::Fallback);
    }
    for i in 0..rank {
        record.put(&int_value(api, (api.tuple_item)(tuple, i as isize))?.to_le_bytes())?;
    }
    Ok(())
}

unsafe fn launch(api: &Api, site: &Site, stream: Obj, grid: Obj, args: Obj) -> Result<(), Stop> {
    let names = &api.names;
    let params = site.fields.iter().filter(|f| **f != Field::Grid).count();
    if (api.seq_size)(args) != params as isize {
        return Err(Stop::Fallback);
    }
    let mut record = Record { bytes: [0; 4096], len: 0 };
    // Stream: `getattr(stream, "cuda_stream", stream) or 0`.
    let handle = match attr(api, stream, names.cuda_stream) {
        Ok(handle) => handle,
        Err(_) => {
            (api.err_clear)();
            (api.incref)(stream);
            owned(api, stream)?
        }
    };
    let stream_value = match (api.is_true)(handle.obj) {
        0 => 0,
        1 => {
            let value = (api.long_as_u64)(handle.obj);
            if !(api.err_occurred)().is_null() {
                return Err(Stop::Fallback);
            }
            value
        }
        _ => return Err(Stop::Fallback),
    };
    record.put(&stream_value.to_le_bytes())?;
    let device_at = record.len;
    record.put(&0i32.to_le_bytes())?;
    let mut device: Option<i64> = None;
    let mut index = 0isize;
    for field in &site.fields {
        match *field {
            Field::Array(rank) => {
                let tensor = owned(api, (api.seq_item)(args, index))?;
                index += 1;
                let on = int_value(api, call_method(api, tensor.obj, names.get_device)?.obj)?;
                if on < 0 || device.is_some_and(|d| d != on) {
                    return Err(Stop::Fallback);
                }
                device = Some(on);
                let pointer = call_method(api, tensor.obj, names.data_ptr)?;
                let pointer = (api.long_as_u64)(pointer.obj);
                if !(api.err_occurred)().is_null() {
                    return Err(Stop::Fallback);
                }
                record.put(&pointer.to_le_bytes())?;
                let dtype = attr(api, tensor.obj, names.dtype)?;
                let code = site.dtypes.iter().position(|d| *d == dtype.obj).ok_or(Stop::Fallback)?;
                record.put(&(code as i32).to_le_bytes())?;
                ints(api, attr(api, tensor.obj, names.shape)?.obj, rank, &mut record)?;
                ints(api, call_method(api, tensor.obj, names.stride)?.obj, rank, &mut record)?;
            }
            Field::Scalar(kind) => {
                let value = owned(api, (api.seq_item)(args, index))?;
                index += 1;
                scalar(api, kind, value.obj, &mut record)?;
            }
            Field::Grid => grid3(api, grid, &mut record)?,
        }
    }
    let device = device.ok_or(Stop::Fallback)?;
    record.bytes[device_at..device_at + 4].copy_from_slice(&(device as i32).to_le_bytes());
    debug_assert_eq!(record.len, site.record_len);
    let code = (site.packed)(record.bytes.as_ptr());
    if code == 0 {
        return Ok(());
    }
    let message = (site.last_error)();
    let message = if message.is_null() {
        "".into()
    } else {
        CStr::from_ptr(message).to_string_lossy()
    };
    let text = format!("{} failed (code {code}): {message}", site.symbol);
    let text = CString::new(text.replace('\0', " ")).unwrap_or_default();
    (api.err_set_string)(api.runtime_error, text.as_ptr());
    Err(Stop::Raised)
}

/// One scalar as `struct.pack` would write it with this format character; a value it would
/// refuse (out of range, not a number) leaves the call to the checked path.
unsafe fn scalar(api: &Api, kind: u8, value: Obj, record: &mut Record) -> Result<(), Stop> {
    match kind {
        b'f' | b'd' => {
            let number = (api.float_as_f64)(value);
            if number == -1.0 && !(api.err_occurred)().is_null() {
                return Err(Stop::Fallback);
            }
            if kind == b'd' {
                record.put(&number.to_le_bytes())
            } else if number.is_finite() && (number as f32).is_infinite() {
                Err(Stop::Fallback) // `struct` raises OverflowError here
            } else {
                record.put(&(number as f32).to_le_bytes())
            }
        }
        b'?' => {
            let truth = (api.is_true)(value);
            if truth < 0 {
                return Err(Stop::Fallback);
            }
            record.put(&[truth as u8])
        }
        b'Q' => {
            let number = (api.long_as_u64)(value);
            if !(api.err_occurred)().is_null() {
                return Err(Stop::Fallback);
            }
            record.put(&number.to_le_bytes())
        }
        _ => {
            let number = int_value(api, value)?;
            let (low, high) = match kind {
                b'i' => (i32::MIN as i64, i32::MAX as i64),
                b'I' => (0, u32::MAX as i64),
                b'h' => (i16::MIN as i64, i16::MAX as i64),
                b'H' => (0, u16::MAX as i64),
                b'b' => (i8::MIN as i64, i8::MAX as i64),
                b'B' => (0, u8::MAX as i64),
                _ => (i64::MIN, i64::MAX),
            };
            if number < low || number > high {
                return Err(Stop::Fallback);
            }
            let bytes = number.to_le_bytes();
            record.put(&bytes[..scalar_size(kind)])
        }
    }
}

/// `_tl_grid3(grid)`: a tuple or list of up to three ints, or one int; the rest are 1.
unsafe fn grid3(api: &Api, grid: Obj, record: &mut Record) -> Result<(), Stop> {
    let mut values = [1i64; 3];
    let size = (api.seq_size)(grid);
    if size < 0 {
        (api.err_clear)();
        values[0] = int_value(api, grid)?;
    } else if size > 3 {
        return Err(Stop::Fallback);
    } else {
        for (i, slot) in values.iter_mut().enumerate().take(size as usize) {
            let item = owned(api, (api.seq_item)(grid, i as isize))?;
            *slot = int_value(api, item.obj)?;
        }
    }
    for value in values {
        record.put(&value.to_le_bytes())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_parse_and_size_like_the_struct_format() {
        let fields = parse_layout("A1,A2,i,f,?,G").unwrap();
        assert_eq!(
            fields,
            vec![
                Field::Array(1),
                Field::Array(2),
                Field::Scalar(b'i'),
                Field::Scalar(b'f'),
                Field::Scalar(b'?'),
                Field::Grid
            ]
        );
        // struct.calcsize('<QiQiqqQiqqqqiif?qqq') == 12 + 28 + 44 + 4 + 4 + 1 + 24
        assert_eq!(record_len(&fields), 12 + 28 + 44 + 4 + 4 + 1 + 24);
        assert!(parse_layout("A9").is_none());
        assert!(parse_layout("x").is_none());
    }
}
