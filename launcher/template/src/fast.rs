//! The warm-launch fast path shared by every generated launcher (hand-written, not generated).
//!
//! Takes, per launch, a [`FastKey`] (everything that selects the compiled kernel and decides
//! cutile's launch-time validation: device, dtypes, exact shapes and strides, base-pointer
//! alignment, integer-scalar divisibility, constant values, the grid) and a [`Packet`] (the
//! kernel's arguments as the driver takes them: per tensor its pointer, `i32` shape and `i32`
//! strides, then the scalars, exactly what cutile's `KernelInputStored::push_kernel_args`
//! pushes). Gives a launch straight through `cuLaunchKernel` on the caller's stream and thread
//! when the same key already went through cutile's checked path once ([`FastCache::launch`]),
//! and remembers a key after such a checked launch ([`FastCache::remember`]).
//!
//! Why it is sound: cutile launches a kernel with block `(1, 1, 1)`, no dynamic shared memory
//! and the argument list above; its per-launch validation (element types, ranks, static
//! dimensions, hoisted launch checks) reads only the compiled kernel, the shapes and the grid,
//! all of which the key fixes, so a key that passed once passes again. The compiled function
//! comes from cutile's own kernel cache (`kernel_cache_slot` of the launch's
//! `l1_cache_key_on`), and its parameter list is checked against the packet with
//! `cuFuncGetParamInfo` before the key is remembered: a driver without that call, or any
//! disagreement, leaves the key on the checked path. `TRANSPILER_LAUNCHER_FAST=0` turns the
//! fast path off for the process.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use cutile::cuda_async::error::DeviceError;
use cutile::cuda_core::sys as cu;
use cutile::cuda_core::{Context, Function, Stream};
use cutile::cutile_compiler::specialization::DivHint;
use cutile::tile_kernel::{kernel_cache_slot, TileFunctionKey};

use crate::runtime::{SpecKey, TensorDesc, TlResult, LaunchError};

/// Words a [`FastKey`] holds; a launch whose key needs more always takes the checked path.
pub const KEY_WORDS: usize = 128;
/// Kernel parameters a [`Packet`] holds; more and the launch always takes the checked path.
pub const MAX_PARAMS: usize = 128;
/// Keys one launch site remembers (the oldest is forgotten first).
pub const SITE_CAPACITY: usize = 64;

static FAST_LAUNCHES: AtomicU64 = AtomicU64::new(0);
static CHECKED_LAUNCHES: AtomicU64 = AtomicU64::new(0);
static REMEMBERED: AtomicU64 = AtomicU64::new(0);
static REFUSED: AtomicU64 = AtomicU64::new(0);

/// Counters since the library was loaded, written to `out[0..4]`: launches through the fast
/// path, launches through cutile's checked path, keys remembered, keys refused (the function
/// could not be resolved or its parameters disagree with the packet).
///
/// # Safety
/// `out` is null or points to 4 writable `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn tl_fast_stats(out: *mut u64) -> i32 {
    if out.is_null() {
        return crate::runtime::TL_INVALID_ARGUMENT;
    }
    let values = [
        FAST_LAUNCHES.load(Ordering::Relaxed),
        CHECKED_LAUNCHES.load(Ordering::Relaxed),
        REMEMBERED.load(Ordering::Relaxed),
        REFUSED.load(Ordering::Relaxed),
    ];
    unsafe { std::ptr::copy_nonoverlapping(values.as_ptr(), out, values.len()) };
    crate::runtime::TL_OK
}

fn fast_enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var("TRANSPILER_LAUNCHER_FAST").map_or(true, |v| v != "0"))
}

/// The identity of one launch as far as the compiled kernel and its validation go; built on
/// the stack, compared as a slice of words.
pub struct FastKey {
    len: usize,
    overflow: bool,
    words: [u64; KEY_WORDS],
}

impl FastKey {
    #[inline]
    pub fn new(device: i32) -> Self {
        let mut key = Self { len: 0, overflow: false, words: [0; KEY_WORDS] };
        key.word(device as u64);
        key
    }
    #[inline]
    fn word(&mut self, value: u64) {
        if self.len < KEY_WORDS {
            self.words[self.len] = value;
            self.len += 1;
        } else {
            self.overflow = true;
        }
    }
    /// A tensor: dtype, rank, whether the pointer is null, its alignment (cutile's
    /// `DivHint::from_ptr`), exact shape and strides.
    #[inline]
    pub fn tensor(&mut self, desc: &TensorDesc) {
        let rank = desc.ndim.clamp(0, crate::runtime::MAX_RANK as i32) as usize;
        self.word(((desc.dtype as u32 as u64) << 32) | rank as u64);
        self.word(u64::from(desc.data == 0) << 8 | u64::from(desc.data.trailing_zeros().min(4)));
        for axis in 0..rank {
            self.word(desc.shape[axis] as u64);
        }
        for axis in 0..rank {
            self.word(desc.strides[axis] as u64);
        }
    }
    /// A raw pointer argument (a Triton translation's): the dtype code it points to, whether
    /// it is null and its alignment (cutile's `DivHint::from_ptr`, as the launch keys it).
    #[inline]
    pub fn pointer(&mut self, address: u64, dtype: i32) {
        self.word(((dtype as u32 as u64) << 32) | u64::from(address == 0) << 8
            | u64::from(address.trailing_zeros().min(4)));
    }
    /// An integer scalar argument: only its divisibility (cutile's `DivHint::from_value`)
    /// selects the kernel.
    #[inline]
    pub fn hint(&mut self, value: i64) {
        self.word(DivHint::from_value(value as i32).divisor as u64);
    }
    /// An integer or boolean constant (a generic of the entry): its value.
    #[inline]
    pub fn int(&mut self, value: i64) {
        self.word(value as u64);
    }
    /// A float constant: its bits (a variant may be chosen on it or fold it).
    #[inline]
    pub fn float(&mut self, value: f64) {
        self.word(value.to_bits());
    }
    #[inline]
    pub fn grid(&mut self, grid: (u32, u32, u32)) {
        self.word(u64::from(grid.0) << 32 | u64::from(grid.1));
        self.word(u64::from(grid.2));
    }
    fn words(&self) -> Option<&[u64]> {
        (!self.overflow).then(|| &self.words[..self.len])
    }
}

/// A kernel's arguments as `cuLaunchKernel` takes them: one 8-byte slot per parameter (the
/// value in its first bytes) and the parameter's size in bytes.
pub struct Packet {
    len: usize,
    overflow: bool,
    slots: [u64; MAX_PARAMS],
    sizes: [u8; MAX_PARAMS],
}

impl Packet {
    #[inline]
    pub fn new() -> Self {
        Self { len: 0, overflow: false, slots: [0; MAX_PARAMS], sizes: [0; MAX_PARAMS] }
    }
    #[inline]
    fn slot(&mut self, bits: u64, size: u8) {
        if self.len < MAX_PARAMS {
            self.slots[self.len] = bits;
            self.sizes[self.len] = size;
            self.len += 1;
        } else {
            self.overflow = true;
        }
    }
    /// A tensor as cutile pushes it: device pointer, shape, strides (`i32`, in elements).
    #[inline]
    pub fn tensor(&mut self, desc: &TensorDesc) {
        let rank = desc.ndim.clamp(0, crate::runtime::MAX_RANK as i32) as usize;
        self.slot(desc.data, 8);
        for axis in 0..rank {
            self.i32(desc.shape[axis] as i32);
        }
        for axis in 0..rank {
            self.i32(desc.strides[axis] as i32);
        }
    }
    #[inline]
    pub fn i32(&mut self, value: i32) {
        self.slot(value as u32 as u64, 4);
    }
    #[inline]
    pub fn u32(&mut self, value: u32) {
        self.slot(u64::from(value), 4);
    }
    #[inline]
    pub fn i64(&mut self, value: i64) {
        self.slot(value as u64, 8);
    }
    #[inline]
    pub fn u64(&mut self, value: u64) {
        self.slot(value, 8);
    }
    #[inline]
    pub fn i16(&mut self, value: i16) {
        self.slot(value as u16 as u64, 2);
    }
    #[inline]
    pub fn u16(&mut self, value: u16) {
        self.slot(u64::from(value), 2);
    }
    #[inline]
    pub fn i8(&mut self, value: i8) {
        self.slot(value as u8 as u64, 1);
    }
    #[inline]
    pub fn u8(&mut self, value: u8) {
        self.slot(u64::from(value), 1);
    }
    #[inline]
    pub fn bool(&mut self, value: bool) {
        self.slot(u64::from(value), 1);
    }
    #[inline]
    pub fn f32(&mut self, value: f32) {
        self.slot(u64::from(value.to_bits()), 4);
    }
    #[inline]
    pub fn f64(&mut self, value: f64) {
        self.slot(value.to_bits(), 8);
    }
    fn sizes(&self) -> Option<&[u8]> {
        (!self.overflow).then(|| &self.sizes[..self.len])
    }
}

impl Default for Packet {
    fn default() -> Self {
        Self::new()
    }
}

struct FastEntry {
    key: Box<[u64]>,
    function: cu::CUfunction,
    context: cu::CUcontext,
    /// Keeps the module loaded (cutile's cache holds it too).
    _keep: Arc<Function>,
}

// SAFETY: the raw handles are driver objects usable from any thread; `_keep` owns them.
unsafe impl Send for FastEntry {}

/// One launch site's remembered keys, and the functions it resolved per specialization.
pub struct FastCache {
    entries: Mutex<Vec<FastEntry>>,
    resolved: Mutex<Option<HashMap<SpecKey, Option<Arc<Function>>>>>,
}

impl FastCache {
    pub const fn new() -> Self {
        Self { entries: Mutex::new(Vec::new()), resolved: Mutex::new(None) }
    }

    /// Launches `packet` on `stream` if `key` was remembered; `Ok(false)` (nothing done) when
    /// it was not.
    ///
    /// # Safety
    /// As for the generated launchers: `stream` is null or a live stream of the key's device,
    /// and the tensors of the packet stay valid until the launched work completes.
    #[inline]
    pub unsafe fn launch(
        &self,
        key: &FastKey,
        packet: &Packet,
        stream: *mut c_void,
        grid: (u32, u32, u32),
    ) -> TlResult<bool> {
        let Some(words) = key.words() else { return Ok(false) };
        if packet.overflow {
            return Ok(false);
        }
        let found = {
            let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
            entries.iter().find(|e| &*e.key == words).map(|e| (e.function, e.context))
        };
        let Some((function, context)) = found else { return Ok(false) };
        unsafe { bind_context(context)? };
        let mut params = [std::ptr::null_mut::<c_void>(); MAX_PARAMS];
        for (slot, param) in packet.slots[..packet.len].iter().zip(params.iter_mut()) {
            *param = slot as *const u64 as *mut c_void;
        }
        let status = unsafe {
            cu::cuLaunchKernel(
                function,
                grid.0,
                grid.1,
                grid.2,
                1,
                1,
                1,
                0,
                stream as cu::CUstream,
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        };
        if status != cu::cudaError_enum_CUDA_SUCCESS {
            return Err(LaunchError::launch(format!("cuLaunchKernel failed: CUDA error {status}")));
        }
        FAST_LAUNCHES.fetch_add(1, Ordering::Relaxed);
        Ok(true)
    }

    /// After cutile launched `key` through its checked path: finds the compiled function
    /// (`resolve` gives cutile's cache key for this launch, computed on `probe`, a private
    /// stream) and remembers `key` when the function's parameters match `packet`.
    pub fn remember(
        &self,
        key: &FastKey,
        packet: &Packet,
        context: &Arc<Context>,
        spec: &SpecKey,
        resolve: impl FnOnce(&Arc<Stream>) -> Result<TileFunctionKey, DeviceError>,
    ) {
        CHECKED_LAUNCHES.fetch_add(1, Ordering::Relaxed);
        if !fast_enabled() {
            return;
        }
        let (Some(words), Some(sizes)) = (key.words(), packet.sizes()) else { return };
        let Some(function) = self.function(context, spec, sizes, resolve) else { return };
        let handle = unsafe { function.cu_function() };
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.iter().any(|e| &*e.key == words) {
            return;
        }
        if entries.len() >= SITE_CAPACITY {
            entries.remove(0);
        }
        entries.push(FastEntry {
            key: words.into(),
            function: handle,
            context: context.cu_ctx(),
            _keep: function,
        });
        REMEMBERED.fetch_add(1, Ordering::Relaxed);
    }

    /// The compiled function of `spec` whose parameters match `sizes`, resolved once per
    /// specialization (a refusal is remembered too, so it is not retried on every launch).
    fn function(
        &self,
        context: &Arc<Context>,
        spec: &SpecKey,
        sizes: &[u8],
        resolve: impl FnOnce(&Arc<Stream>) -> Result<TileFunctionKey, DeviceError>,
    ) -> Option<Arc<Function>> {
        if let Some(found) = self.resolved.lock().ok()?.as_ref().and_then(|m| m.get(spec)) {
            return found.clone();
        }
        let function = probe_stream(spec.device, context)
            .and_then(|probe| resolve(&probe).ok())
            .and_then(|cache_key| Some(kernel_cache_slot(&cache_key).get()?.0.function.clone()))
            .filter(|function| params_match(unsafe { function.cu_function() }, sizes));
        if function.is_none() {
            REFUSED.fetch_add(1, Ordering::Relaxed);
        }
        let mut resolved = self.resolved.lock().ok()?;
        resolved.get_or_insert_with(HashMap::new).insert(spec.clone(), function.clone());
        function
    }
}

impl Default for FastCache {
    fn default() -> Self {
        Self::new()
    }
}

/// Makes `context` current on this thread if it is not (what cutile's `bind_to_thread` does).
unsafe fn bind_context(context: cu::CUcontext) -> TlResult<()> {
    let mut current: cu::CUcontext = std::ptr::null_mut();
    let status = unsafe { cu::cuCtxGetCurrent(&mut current) };
    if status == cu::cudaError_enum_CUDA_SUCCESS && current == context {
        return Ok(());
    }
    let status = unsafe { cu::cuCtxSetCurrent(context) };
    if status != cu::cudaError_enum_CUDA_SUCCESS {
        return Err(LaunchError::launch(format!("cuCtxSetCurrent failed: CUDA error {status}")));
    }
    Ok(())
}

/// Whether `function` takes exactly the parameters of `sizes` (count and byte sizes), as
/// `cuFuncGetParamInfo` reports them; false when the driver cannot say.
fn params_match(function: cu::CUfunction, sizes: &[u8]) -> bool {
    for (index, &size) in sizes.iter().enumerate() {
        let (mut offset, mut actual) = (0usize, 0usize);
        let status = unsafe { cu::cuFuncGetParamInfo(function, index, &mut offset, &mut actual) };
        if status != cu::cudaError_enum_CUDA_SUCCESS || actual != usize::from(size) {
            return false;
        }
    }
    let (mut offset, mut actual) = (0usize, 0usize);
    let past_end = unsafe { cu::cuFuncGetParamInfo(function, sizes.len(), &mut offset, &mut actual) };
    past_end != cu::cudaError_enum_CUDA_SUCCESS
}

/// A stream of our own per device, for resolving cache keys without touching the caller's.
fn probe_stream(device: i32, context: &Arc<Context>) -> Option<Arc<Stream>> {
    static STREAMS: OnceLock<Mutex<HashMap<i32, Arc<Stream>>>> = OnceLock::new();
    let mut streams = STREAMS.get_or_init(Default::default).lock().ok()?;
    if let Some(stream) = streams.get(&device) {
        return Some(stream.clone());
    }
    let stream = context.new_stream().ok()?;
    streams.insert(device, stream.clone());
    Some(stream)
}

/// Reads a packed argument record (`tl_*__packed`): little-endian, no padding, in the order
/// the generated reader asks for the fields.
pub struct PacketReader {
    at: *const u8,
}

/// `reader.i32()` etc.: the next field of the record, of that type.
macro_rules! plain_readers {
    ($($ty:ident),*) => {
        impl PacketReader {
            $(
                #[inline]
                pub unsafe fn $ty(&mut self) -> $ty {
                    unsafe { self.take() }
                }
            )*
        }
    };
}

plain_readers!(u64, i64, i32, u32, i16, u16, i8, u8, f32, f64);

impl PacketReader {
    /// # Safety
    /// `packet` points to a record as long as the generated reader reads.
    pub unsafe fn new(packet: *const u8) -> Self {
        Self { at: packet }
    }
    #[inline]
    unsafe fn take<T: Copy>(&mut self) -> T {
        let value = unsafe { std::ptr::read_unaligned(self.at as *const T) };
        self.at = unsafe { self.at.add(std::mem::size_of::<T>()) };
        value
    }
    #[inline]
    pub unsafe fn bool(&mut self) -> bool {
        unsafe { self.take::<u8>() != 0 }
    }
    /// A tensor of rank `ndim`: `u64` data, `i32` dtype, `i64` shape x ndim, `i64` strides x
    /// ndim.
    #[inline]
    pub unsafe fn desc(&mut self, ndim: usize) -> TensorDesc {
        let mut desc = TensorDesc {
            data: unsafe { self.u64() },
            dtype: unsafe { self.i32() },
            ndim: ndim as i32,
            shape: [0; crate::runtime::MAX_RANK],
            strides: [0; crate::runtime::MAX_RANK],
        };
        for axis in 0..ndim {
            desc.shape[axis] = unsafe { self.i64() };
        }
        for axis in 0..ndim {
            desc.strides[axis] = unsafe { self.i64() };
        }
        desc
    }
}
