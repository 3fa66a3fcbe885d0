"""Corpus specializations: the product's host-code reader, as the corpus benchmark uses it.

The reader (an abstract interpreter over a package's host code: `transpiler.frontend.host`)
and the step from its launches to specializations (`transpiler.ircheck.host_specs`) are the
product's, so `python -m transpiler FILE --verify` and `bench/corpus.py` read host code the
same way. This module names what the benchmark and `bench/sass_parity.py` take from them.
"""

from __future__ import annotations

from transpiler.frontend.host.kernels import constant_params, kernel_params
from transpiler.frontend.host.reader import KernelLaunch, discover, launch_summary
from transpiler.frontend.host.values import is_kernel_def
from transpiler.ircheck.host_specs import SpecResult, specs_for

__all__ = ["KernelLaunch", "SpecResult", "constant_params", "discover", "is_kernel_def",
           "kernel_params", "launch_summary", "specs_for"]
