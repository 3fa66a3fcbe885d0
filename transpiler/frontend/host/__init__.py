"""Reading host code without running it: the launches a file's host functions make.

`reader.discover(path, root)` is the entry point; `typical` (what made-up inputs look like),
`values` (abstract values), `interpreter` (the abstract interpreter), `models` (torch,
cuda.tile and the builtins as the interpreter sees them), `planning` (which functions to call,
with which option variants), `callers` (callers across the package) and `kernels` (kernel
signatures) are its parts. `ircheck.host_specs` turns the launches into specializations.
"""
