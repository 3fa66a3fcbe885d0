"""Host glue: what runs a translation from the original host code.

`abi` holds the C ABI's tables, `signatures` the Rust entries of a generated file read from
its manifests, `host_values` the symbolic evaluation of host code before a launch, `plan`
the launch plans (grid, generics, dispatch), `rust_launchers` the `extern "C"` launchers,
`pywrapper` the Python drop-in module, and `pyruntime.py` the launch runtime that the
wrapper carries (read as a package resource, not imported by the product).
`transpiler.emit_launcher` is the entry point.
"""

from importlib import resources


def pyruntime_text() -> str:
    """The text of the wrapper's launch runtime, as the wrapper carries it."""
    return resources.files(__package__).joinpath("pyruntime.py").read_text(encoding="utf-8")
