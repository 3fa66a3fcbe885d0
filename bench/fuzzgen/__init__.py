"""Generators of random valid kernels for the differential fuzzing campaign (`bench/fuzz.py`).

Takes a seed and a size; gives a `GeneratedKernel`: the source file text (the kernel, its
helpers and its launch host code), the spec file object that fixes its specialization and
the numeric check's launch shapes, and the features the kernel uses (for the per-feature
table). `cutile.generate` writes cuTile Python, `triton.generate` Triton. The same seed and
size give the same text.
"""
