//! A `cdylib` of translated cuTile Rust kernels and their C-ABI launchers.
//!
//! `launcher/build.sh KERNELS.rs LAUNCHER.rs OUTDIR` copies this template, places the
//! translated kernels (`python -m transpiler X.py`) in `src/kernels.rs` and the generated
//! launchers (`python -m transpiler X.py --emit launcher`) in `src/launcher.rs`, and builds.
//! `runtime` is the hand-written support both sides share; `fast` the warm-launch fast path;
//! `pyfast` the wrapper's per-call argument packing in native code; `ptrabi` the checks of
//! launchers whose kernels take raw pointers (Triton translations).

pub mod fast;
pub mod ptrabi;
pub mod pyfast;
pub mod runtime;

#[allow(clippy::all, unused, non_snake_case)]
pub mod kernels;

pub mod launcher;
