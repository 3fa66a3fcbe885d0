"""Launcher generator: `ct.launch` sites -> Rust C-ABI launchers and a Python drop-in wrapper.

The command-line glue (`emit_result`, for `--emit`) and the entry points of
`transpiler.hostglue`, re-exported here:

- `emit_rust_launchers(source, rust)` (`hostglue/rust_launchers.py`): Rust host code
  (`launcher.rs` of the crate that `launcher/build.sh` builds). Per launch site and kernel,
  an `extern "C"` function that takes the caller's `CUstream`, the device ordinal, one
  `TensorDesc` per array parameter and the scalars and constants (in the kernel's parameter
  order); computes the grid the way the Python host code does (`hostglue/host_values.py`
  evaluates the grid expression symbolically over a small subset of host Python; when it
  depends on anything else the function takes `grid_x, grid_y, grid_z` instead, and its doc
  comment says why); sets the generics from the constants and the dtypes
  (`hostglue/plan.py`); launches on the caller's stream; returns a `TL_*` code. A `..__grid`
  twin returns the translated grid without launching.
- `emit_pywrapper(source, rust)` (`hostglue/pywrapper.py`): a Python module with the file's
  host functions, copied, whose `ct.launch(...)` calls go to the built library instead of
  cuTile Python: a torch-callable drop-in for each host function (same arguments, same
  result).
- For Triton files (`kernel[grid](...)` launches): `emit_triton_launchers(plan)`
  (`hostglue/triton_launchers.py`, one launcher per Rust entry) and `emit_triton_pywrapper`
  (`hostglue/triton_pywrapper.py`: the host code with each `@triton.jit` kernel replaced by
  an object that binds a launch's arguments, runs its heuristics, autotuner and grid as
  Triton's host side does, and calls the launcher of the entry the call needs), over
  `plan_triton(text, path, rust)` (`hostglue/triton_plan.py`).
- `EMIT_KINDS` and `emit_path`, which the command line needs before it knows whether to emit
  anything else, live in `transpiler.emit_kinds`.

Nothing is imported or run: host code is read with libcst. The C ABI (`TensorDesc`, dtype
codes, error codes) is defined by `launcher/template/src/runtime.rs` (`hostglue/abi.py`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from transpiler.emit_kinds import EMIT_KINDS as EMIT_KINDS  # re-exported
from transpiler.emit_kinds import emit_path as emit_path  # re-exported
from transpiler.frontend.cutile_py import parse_source
from transpiler.frontend.triton import TritonFrontEnd
from transpiler.hostglue.abi import DEFAULT_ELEMENT_TYPES as DEFAULT_ELEMENT_TYPES
from transpiler.hostglue.abi import DTYPE_CODES as DTYPE_CODES
from transpiler.hostglue.abi import TORCH_DTYPES as TORCH_DTYPES
from transpiler.hostglue.host_values import HostEvaluator as HostEvaluator
from transpiler.hostglue.plan import GenericPlan as GenericPlan
from transpiler.hostglue.plan import KernelLaunch as KernelLaunch
from transpiler.hostglue.plan import LaunchPlan as LaunchPlan
from transpiler.hostglue.plan import plan_generics as plan_generics
from transpiler.hostglue.plan import plan_launches as plan_launches
from transpiler.hostglue.pywrapper import emit_pywrapper as emit_pywrapper
from transpiler.hostglue.rust_launchers import emit_rust_launchers as emit_rust_launchers
from transpiler.hostglue.rust_launchers import native_layout as native_layout
from transpiler.hostglue.rust_launchers import packable as packable
from transpiler.hostglue.rust_launchers import packed_format as packed_format
from transpiler.hostglue.signatures import GenericSig as GenericSig
from transpiler.hostglue.signatures import KernelSig as KernelSig
from transpiler.hostglue.signatures import ParamSig as ParamSig
from transpiler.hostglue.signatures import kernel_signatures as kernel_signatures
from transpiler.hostglue.triton_launchers import emit_triton_launchers
from transpiler.hostglue.triton_plan import plan_triton
from transpiler.hostglue.triton_pywrapper import emit_triton_pywrapper

if TYPE_CHECKING:
    from transpiler.driver import TranslationResult


# ---- command line --------------------------------------------------------------------------

def emit_result(result: TranslationResult, kind: str) -> TranslationResult:
    """`result` with its text replaced by the `--emit` output (kernels: unchanged)."""
    if kind == "kernels" or result.rust is None or result.source is None:
        return result
    if is_triton_source(result.source):
        plan = plan_triton(result.source, result.path, result.rust)
        text = (emit_triton_launchers(plan) if kind == "launcher"
                else emit_triton_pywrapper(result.source, plan))
        return replace(result, rust=text)
    source = parse_source(result.source, result.path)
    emit = emit_rust_launchers if kind == "launcher" else emit_pywrapper
    return replace(result, rust=emit(source, result.rust))


def is_triton_source(text: str) -> bool:
    """Whether the host glue of a file is Triton's: it imports triton and launches no
    `ct.launch` site (a file of both languages keeps the cuTile Python glue)."""
    return TritonFrontEnd().detect(text) and not parse_source(text, "<source>").launches
