"""Host glue: what runs a translation from the original host code.

`abi` holds the C ABI's tables, `signatures` the Rust entries of a generated file read from
its manifests, `pyruntime.py` the launch runtime that `--emit pywrapper` copies into each
wrapper module (read as a package resource, not imported by the product). Host evaluation,
launch planning, the Rust launchers and the wrapper generator are still in
`transpiler.emit_launcher`.
"""

from importlib import resources


def pyruntime_text() -> str:
    """The text of the wrapper's launch runtime, as the wrapper carries it."""
    return resources.files(__package__).joinpath("pyruntime.py").read_text(encoding="utf-8")
