//! C-ABI support shared by every generated launcher (hand-written, not generated).
//!
//! Takes what a foreign caller (ctypes, C, C++) hands a launcher: raw CUDA stream handles,
//! device ordinals and [`TensorDesc`] descriptors of device memory it owns. Gives borrowed
//! cutile [`Tensor`]s over that memory (never freed here), the caller's stream wrapped for
//! cutile, Python-exact integer helpers for translated grid expressions, and error codes with
//! a per-thread message ([`tl_last_error`]) instead of panics.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::ffi::{c_char, c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, OnceLock};

use cutile::cuda_core::{Context, DType, DTypeId, Stream};
use cutile::cutile_compiler::specialization::{DivHint, SpecializationBits};
use cutile::tensor::Tensor;

/// Version of the C ABI below; bump on any layout or signature change.
pub const ABI_VERSION: i32 = 2;
/// Largest tensor rank a [`TensorDesc`] carries.
pub const MAX_RANK: usize = 8;

/// Success.
pub const TL_OK: i32 = 0;
/// A null or malformed argument (rank, shape, stride, grid out of range).
pub const TL_INVALID_ARGUMENT: i32 = 1;
/// A tensor's dtype is not one this launcher was built for, or breaks a dtype tie.
pub const TL_UNSUPPORTED_DTYPE: i32 = 2;
/// cutile or the CUDA driver refused the launch (compile error, launch check, driver error).
pub const TL_LAUNCH_FAILED: i32 = 3;
/// A panic inside cutile, caught at the C boundary.
pub const TL_PANIC: i32 = 4;

/// Element type codes of [`TensorDesc::dtype`] (stable; the Python wrapper maps torch dtypes).
pub const DT_BOOL: i32 = 0;
pub const DT_U8: i32 = 1;
pub const DT_I8: i32 = 2;
pub const DT_I16: i32 = 3;
pub const DT_I32: i32 = 4;
pub const DT_I64: i32 = 5;
pub const DT_F16: i32 = 6;
pub const DT_BF16: i32 = 7;
pub const DT_F32: i32 = 8;
pub const DT_F64: i32 = 9;
pub const DT_U16: i32 = 10;
pub const DT_U32: i32 = 11;
pub const DT_U64: i32 = 12;

/// A strided view of device memory owned by the caller.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TensorDesc {
    /// Device address of element 0 (a `CUdeviceptr`).
    pub data: u64,
    /// One of the `DT_*` codes.
    pub dtype: i32,
    /// Number of used entries in `shape` and `strides`.
    pub ndim: i32,
    pub shape: [i64; MAX_RANK],
    /// In elements, not bytes.
    pub strides: [i64; MAX_RANK],
}

/// Why a launch did not happen: a `TL_*` code and a message for [`tl_last_error`].
#[derive(Debug)]
pub struct LaunchError {
    pub code: i32,
    pub message: String,
}

impl LaunchError {
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(TL_INVALID_ARGUMENT, message)
    }
    pub fn launch(message: impl std::fmt::Display) -> Self {
        Self::new(TL_LAUNCH_FAILED, message.to_string())
    }
}

pub type TlResult<T> = Result<T, LaunchError>;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|slot| *slot.borrow_mut() = text);
}

/// Empties this thread's last error without allocating when it is already empty (the
/// common case: one success after another).
fn clear_last_error() {
    LAST_ERROR.with(|slot| {
        if !slot.borrow().as_bytes().is_empty() {
            *slot.borrow_mut() = CString::default();
        }
    });
}

/// The message of this thread's last failed call (empty after a success). Valid until the
/// thread's next launcher call.
#[no_mangle]
pub extern "C" fn tl_last_error() -> *const c_char {
    LAST_ERROR.with(|slot| slot.borrow().as_ptr())
}

/// [`ABI_VERSION`], so a wrapper can refuse a library built for another layout.
#[no_mangle]
pub extern "C" fn tl_abi_version() -> i32 {
    ABI_VERSION
}

/// Runs `body`, turning its error or panic into a `TL_*` code and the thread's last error.
pub fn ffi_call(body: impl FnOnce() -> TlResult<()>) -> i32 {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => {
            clear_last_error();
            TL_OK
        }
        Ok(Err(err)) => {
            set_last_error(&err.message);
            err.code
        }
        Err(payload) => {
            set_last_error(&format!("panic in the launcher: {}", panic_text(&*payload)));
            TL_PANIC
        }
    }
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "(no message)".to_string()
    }
}

/// Python's `a // b` on integers (rounds toward negative infinity); 0 when `b` is 0, which
/// no launch condition divides by (the kernel's own code would fail to compile first).
pub fn floor_div_i64(a: i64, b: i64) -> i64 {
    if b == 0 {
        return 0;
    }
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

/// Python's `a % b` on integers (the result takes the sign of `b`).
pub fn floor_mod_i64(a: i64, b: i64) -> i64 {
    a - floor_div_i64(a, b) * b
}

/// The cutile name of a `DT_*` code (`"f32"`, `"bf16"`, ...), as `.generics(..)` spells it.
pub fn dtype_name(code: i32) -> &'static str {
    match code {
        DT_BOOL => "bool",
        DT_U8 => "u8",
        DT_I8 => "i8",
        DT_I16 => "i16",
        DT_I32 => "i32",
        DT_I64 => "i64",
        DT_F16 => "f16",
        DT_BF16 => "bf16",
        DT_F32 => "f32",
        DT_F64 => "f64",
        DT_U16 => "u16",
        DT_U32 => "u32",
        DT_U64 => "u64",
        _ => "unknown",
    }
}

fn dtype_code(id: DTypeId) -> i32 {
    match id.as_str() {
        "bool" => DT_BOOL,
        "u8" => DT_U8,
        "i8" => DT_I8,
        "i16" => DT_I16,
        "i32" => DT_I32,
        "i64" => DT_I64,
        "f16" => DT_F16,
        "bf16" => DT_BF16,
        "f32" => DT_F32,
        "f64" => DT_F64,
        "u16" => DT_U16,
        "u32" => DT_U32,
        "u64" => DT_U64,
        _ => -1,
    }
}

/// The error for a dtype no dispatch arm covers.
pub fn unsupported_dtype(generic: &str, param: &str, code: i32, built: &[&str]) -> LaunchError {
    LaunchError::new(
        TL_UNSUPPORTED_DTYPE,
        format!(
            "`{param}` has dtype {} (code {code}); generic `{generic}` was built for {}",
            dtype_name(code),
            built.join(", ")
        ),
    )
}

/// Reads a descriptor pointer, checking it is non-null and has the kernel's rank.
///
/// # Safety
/// `ptr` is null or points to a valid `TensorDesc` for the duration of the call.
pub unsafe fn desc<'a>(ptr: *const TensorDesc, name: &str, ndim: usize) -> TlResult<&'a TensorDesc> {
    let Some(desc) = (unsafe { ptr.as_ref() }) else {
        return Err(LaunchError::invalid(format!("`{name}`: null tensor descriptor")));
    };
    if desc.ndim < 0 || desc.ndim as usize != ndim {
        return Err(LaunchError::invalid(format!(
            "`{name}`: the kernel takes a rank-{ndim} array, the descriptor has rank {}",
            desc.ndim
        )));
    }
    Ok(desc)
}

impl TensorDesc {
    /// `shape[axis]` (the translated `x.shape[axis]`).
    pub fn dim(&self, axis: usize) -> i64 {
        self.shape[axis]
    }
    /// The product of the shape (the translated `x.numel()`).
    pub fn numel(&self) -> i64 {
        self.shape[..self.ndim as usize].iter().product()
    }
    fn i32_vec(&self, values: &[i64], what: &str, name: &str) -> TlResult<Vec<i32>> {
        values[..self.ndim as usize]
            .iter()
            .map(|&v| {
                i32::try_from(v).map_err(|_| {
                    LaunchError::invalid(format!("`{name}`: {what} {v} does not fit cutile's i32"))
                })
            })
            .collect()
    }
    /// A cutile tensor over this memory, without taking ownership (dropping it frees nothing).
    ///
    /// # Safety
    /// The descriptor describes live device memory of `T` on `context`'s device that stays
    /// valid, and is not written by anyone else, until the launched work completes.
    pub unsafe fn borrow<T: DType>(&self, context: &Arc<Context>, name: &str) -> TlResult<Tensor<T>> {
        if self.dtype != dtype_code(T::DTYPE) {
            return Err(LaunchError::new(
                TL_UNSUPPORTED_DTYPE,
                format!("`{name}` has dtype {}, the kernel needs {}", dtype_name(self.dtype), T::DTYPE.as_str()),
            ));
        }
        let shape = self.i32_vec(&self.shape, "dimension", name)?;
        let strides = self.i32_vec(&self.strides, "stride", name)?;
        if shape.iter().any(|&d| d < 0) || strides.iter().any(|&s| s < 0) {
            return Err(LaunchError::invalid(format!("`{name}`: negative dimension or stride")));
        }
        if self.data == 0 && shape.iter().all(|&d| d > 0) {
            return Err(LaunchError::invalid(format!("`{name}`: null data pointer")));
        }
        Ok(unsafe { Tensor::<T>::borrow_raw_parts(self.data, context.clone(), shape, strides) })
    }
}

/// Checks that the descriptors bound to one element-type generic have the same dtype.
pub fn same_dtype(generic: &str, members: &[(&str, &TensorDesc)]) -> TlResult<i32> {
    let (first_name, first) = members[0];
    for (name, desc) in &members[1..] {
        if desc.dtype != first.dtype {
            return Err(LaunchError::new(
                TL_UNSUPPORTED_DTYPE,
                format!(
                    "generic `{generic}`: `{first_name}` is {} but `{name}` is {}",
                    dtype_name(first.dtype),
                    dtype_name(desc.dtype)
                ),
            ));
        }
    }
    Ok(first.dtype)
}

/// Checks a descriptor's dtype against a fixed one (a concrete element type, or a dtype the
/// host code ties to another tensor's).
pub fn expect_dtype(name: &str, desc: &TensorDesc, code: i32, why: &str) -> TlResult<()> {
    if desc.dtype == code {
        return Ok(());
    }
    Err(LaunchError::new(
        TL_UNSUPPORTED_DTYPE,
        format!("`{name}` has dtype {}, expected {} ({why})", dtype_name(desc.dtype), dtype_name(code)),
    ))
}

fn context_cache() -> &'static Mutex<HashMap<i32, Arc<Context>>> {
    static CACHE: OnceLock<Mutex<HashMap<i32, Arc<Context>>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

fn stream_cache() -> &'static Mutex<HashMap<(i32, usize), Arc<Stream>>> {
    static CACHE: OnceLock<Mutex<HashMap<(i32, usize), Arc<Stream>>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The device's primary context (the one PyTorch and the CUDA runtime use), retained once
/// per process and made current on this thread.
pub fn device_context(device: i32) -> TlResult<Arc<Context>> {
    let ordinal = usize::try_from(device)
        .map_err(|_| LaunchError::invalid(format!("device ordinal {device} is negative")))?;
    let mut cache = context_cache().lock().unwrap_or_else(|e| e.into_inner());
    let context = match cache.get(&device) {
        Some(context) => context.clone(),
        None => {
            let context = Context::new(ordinal).map_err(LaunchError::launch)?;
            cache.insert(device, context.clone());
            context
        }
    };
    drop(cache);
    context.bind_to_thread().map_err(LaunchError::launch)?;
    Ok(context)
}

/// The caller's `CUstream` (null: the legacy default stream) wrapped without ownership.
///
/// # Safety
/// `stream` is null or a live stream of `device` that outlives the launched work.
pub unsafe fn borrowed_stream(device: i32, stream: *mut c_void) -> TlResult<(Arc<Context>, Arc<Stream>)> {
    let context = device_context(device)?;
    let key = (device, stream as usize);
    let mut cache = stream_cache().lock().unwrap_or_else(|e| e.into_inner());
    let wrapped = cache
        .entry(key)
        .or_insert_with(|| unsafe { Stream::borrow_raw(stream, &context) })
        .clone();
    Ok((context, wrapped))
}

/// The device's multiprocessor count (the translated
/// `torch.cuda.get_device_properties(d).multi_processor_count`).
pub fn multiprocessor_count(device: i32) -> TlResult<i64> {
    let context = device_context(device)?;
    context.multiprocessor_count().map(i64::from).map_err(LaunchError::launch)
}

/// Everything cutile's specialization cache keys a compiled kernel on, as far as the caller's
/// arguments decide it: device, generics, per-tensor facts and integer-scalar divisibility.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SpecKey {
    pub device: i32,
    pub generics: Vec<String>,
    pub tensors: Vec<SpecializationBits>,
    pub scalars: Vec<DivHint>,
}

impl SpecKey {
    pub fn new(device: i32, generics: &[String]) -> Self {
        Self { device, generics: generics.to_vec(), tensors: Vec::new(), scalars: Vec::new() }
    }
    pub fn tensor<T: DType>(mut self, tensor: &Tensor<T>) -> Self {
        self.tensors.push(tensor.spec().clone());
        self
    }
    pub fn scalar(mut self, value: i64) -> Self {
        self.scalars.push(DivHint::from_value(value as i32));
        self
    }
}

/// Per launch site: the specializations already compiled, so only first launches pay for a
/// big stack.
pub struct WarmSet(Mutex<Option<HashSet<SpecKey>>>);

impl WarmSet {
    pub const fn new() -> Self {
        Self(Mutex::new(None))
    }
    fn contains(&self, key: &SpecKey) -> bool {
        let guard = self.0.lock().unwrap_or_else(|e| e.into_inner());
        guard.as_ref().is_some_and(|set| set.contains(key))
    }
    fn insert(&self, key: SpecKey) {
        let mut guard = self.0.lock().unwrap_or_else(|e| e.into_inner());
        guard.get_or_insert_with(HashSet::new).insert(key);
    }
}

impl Default for WarmSet {
    fn default() -> Self {
        Self::new()
    }
}

/// Stack for a launch that JIT-compiles: cutile's compiler recurses deeply, and the caller's
/// thread (a Python main thread: 8 MiB) may be too small for large kernels.
const COMPILE_STACK: usize = 256 * 1024 * 1024;

/// Runs `launch` on this thread when its specialization is warm, else on a scoped thread with
/// a large stack (the first launch compiles).
pub fn run_launch<F>(warm: &WarmSet, key: SpecKey, launch: F) -> TlResult<()>
where
    F: FnOnce() -> TlResult<()> + Send,
{
    if warm.contains(&key) {
        return launch();
    }
    let outcome = std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("tl-jit".into())
            .stack_size(COMPILE_STACK)
            .spawn_scoped(scope, launch)
            .map_err(|e| LaunchError::launch(format!("cannot start the compile thread: {e}")))?;
        handle.join().unwrap_or_else(|payload| {
            Err(LaunchError::new(TL_PANIC, format!("panic while compiling: {}", panic_text(&*payload))))
        })
    });
    if outcome.is_ok() {
        warm.insert(key);
    }
    outcome
}

/// A translated grid, checked into CUDA's range. `None` when a dimension is 0 (nothing to
/// launch).
pub fn grid3(values: [i64; 3]) -> TlResult<Option<(u32, u32, u32)>> {
    let mut out = [0u32; 3];
    for (slot, value) in out.iter_mut().zip(values) {
        *slot = u32::try_from(value)
            .map_err(|_| LaunchError::invalid(format!("grid dimension {value} is out of range")))?;
    }
    if out.contains(&0) {
        return Ok(None);
    }
    Ok(Some((out[0], out[1], out[2])))
}

/// Writes a grid to a caller's `int64_t[3]`.
///
/// # Safety
/// `out` is null or points to 3 writable `i64`s.
pub unsafe fn write_grid(out: *mut i64, grid: [i64; 3]) -> TlResult<()> {
    if out.is_null() {
        return Err(LaunchError::invalid("null grid output pointer"));
    }
    unsafe { std::ptr::copy_nonoverlapping(grid.as_ptr(), out, 3) };
    Ok(())
}

fn zero_division() -> LaunchError {
    LaunchError::invalid("integer division or modulo by zero in the grid expression")
}

/// Python's `a // b` (floor division).
pub fn floordiv(a: i64, b: i64) -> TlResult<i64> {
    if b == 0 {
        return Err(zero_division());
    }
    Ok(a.div_euclid(b) - if b < 0 && a.rem_euclid(b) != 0 { 1 } else { 0 })
}

/// Python's `a % b` (the sign of `b`).
pub fn pymod(a: i64, b: i64) -> TlResult<i64> {
    Ok(a - b * floordiv(a, b)?)
}

/// `ct.cdiv(a, b)`: `-(-a // b)`.
pub fn cdiv(a: i64, b: i64) -> TlResult<i64> {
    Ok(-floordiv(-a, b)?)
}

/// Python's `a << b` (an error where Python would outgrow i64).
pub fn shl(a: i64, b: i64) -> TlResult<i64> {
    let shift = u32::try_from(b).map_err(|_| LaunchError::invalid("negative shift count"))?;
    if shift >= 64 || (a << shift) >> shift != a {
        return Err(LaunchError::invalid("shift overflows i64"));
    }
    Ok(a << shift)
}

/// Python's `a >> b`.
pub fn shr(a: i64, b: i64) -> TlResult<i64> {
    let shift = u32::try_from(b).map_err(|_| LaunchError::invalid("negative shift count"))?;
    Ok(a >> shift.min(63))
}

/// Python's `a ** b` for a non-negative integer exponent.
pub fn ipow(a: i64, b: i64) -> TlResult<i64> {
    let exp = u32::try_from(b).map_err(|_| LaunchError::invalid("negative exponent"))?;
    a.checked_pow(exp).ok_or_else(|| LaunchError::invalid("power overflows i64"))
}

/// Python's `int.bit_length()`.
pub fn bit_length(a: i64) -> i64 {
    64 - i64::from(a.unsigned_abs().leading_zeros())
}
