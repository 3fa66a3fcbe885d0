"""`numeric` settings (launch shapes, grid, scalars, index ranges) of golden kernels, as data.

Keyed by kernel name; each applies to every specialization of that kernel in
`golden_specs.py`. Sizes cover a multiple of the tile, a ragged size and a tiny one.
"""

from __future__ import annotations

from typing import Any

NUMERIC_SETTINGS: dict[str, dict[str, Any]] = {
    "vector_add_kernel": {
        "sizes": [{"N": 2048}, {"N": 1000}, {"N": 5}],
        "shapes": {"a": ["N"], "b": ["N"], "c": ["N"]},
        "grid": ["cdiv(N, TILE)", 1, 1]},
    "softmax_row_kernel": {
        "sizes": [{"R": 3, "C": "TILE_N"}, {"R": 2, "C": 1000}, {"R": 1, "C": 7}],
        "shapes": {"x": ["R", "C"], "y": ["R", "C"]},
        "grid": ["R", 1, 1]},
    "matmul_kernel": {
        "sizes": [{"M": 256, "N": 128, "K": 128}, {"M": 200, "N": 100, "K": 100},
                  {"M": 16, "N": 16, "K": 16}],
        "shapes": {"A": ["M", "K"], "B": ["K", "N"], "C": ["M", "N"]},
        "grid": ["cdiv(M, TILE_M)", "cdiv(N, TILE_N)", 1]},
    "embedding_fwd_kernel": {
        "sizes": [{"T": 32, "V": 64}, {"T": 20, "V": 50}, {"T": 3, "V": 4}],
        "shapes": {"ids": ["T"], "table": ["V", "DIM"], "out": ["T", "DIM"]},
        "ranges": {"ids": [0, "V"]},
        "grid": ["cdiv(T, BLOCK_T)", 1, 1]},
    "online_softmax_kernel": {
        "sizes": [{"R": 2, "C": 2048}, {"R": 2, "C": 1500}, {"R": 1, "C": 10}],
        "shapes": {"x": ["R", "C"], "y": ["R", "C"]},
        "scalars": {"n_cols": "C"},
        "grid": ["R", 1, 1]},
    "row_scatter_add_kernel": {
        "sizes": [{"R": 64, "C": 128, "O": 16}, {"R": 40, "C": 100, "O": 8},
                  {"R": 3, "C": 5, "O": 2}],
        "shapes": {"rows": ["R"], "values": ["R", "C"], "out": ["O", "C"]},
        "ranges": {"rows": [0, "O"]},
        "grid": ["cdiv(R, TM)", "cdiv(C, TN)", 1]},
}
