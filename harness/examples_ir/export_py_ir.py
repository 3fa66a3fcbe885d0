"""Compile research_kernels.py to Tile IR text (CPU only), one `<name>.py.tileir` per spec.

Usage: python export_py_ir.py OUT_DIR [NAME ...]

Array parameters use the project default layout (transpiler.ircheck.spec.Layout): shape and
non-unit stride divisible by 16, base 16-byte aligned, last stride 1.
"""

import io
import subprocess
import sys
from pathlib import Path

import cuda.tile as ct
from cuda.tile.compilation import (
    ArrayConstraint,
    CallingConvention,
    ConstantConstraint,
    KernelSignature,
    ScalarConstraint,
    export_kernel,
)

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import research_kernels as rk  # noqa: E402

from transpiler.ircheck.toolchain import tileirdisasm  # noqa: E402


def arr(dtype, ndim):
    return ArrayConstraint(dtype, ndim, index_dtype=ct.int32, stride_lower_bound_incl=0,
                           alias_groups=[], may_alias_internally=False,
                           stride_constant=[None] * (ndim - 1) + [1],
                           stride_divisible_by=[16] * (ndim - 1) + [1],
                           base_addr_divisible_by=16, shape_divisible_by=16)


F32, BF16, I8 = ct.float32, ct.bfloat16, ct.int8
C = ConstantConstraint
SPECS = {
    "saxpy": [ScalarConstraint(F32), arr(F32, 1), arr(F32, 1), C(2048)],
    "scale_lit": [arr(F32, 1), arr(F32, 1), C(1024)],
    "silu": [arr(BF16, 1), arr(BF16, 1), C(1024)],
    "online_softmax": [arr(BF16, 2), arr(BF16, 2), ScalarConstraint(ct.int32), C(1024)],
    "layer_norm_stats": [arr(BF16, 2), arr(F32, 1), arr(F32, 1), ScalarConstraint(ct.int32),
                         C(1e-5), C(1024)],
    "persistent_scale": [arr(F32, 1), arr(F32, 1), ScalarConstraint(ct.int32), C(1024)],
    "transpose": [arr(F32, 2), arr(F32, 2), C(32), C(64)],
    "transpose_order": [arr(F32, 2), arr(F32, 2), C(32), C(64)],
    "clamp_flag": [arr(F32, 1), arr(F32, 1), C(-1.5), C(2.0), C(1024), C(True)],
    "gelu_tanh": [arr(BF16, 1), arr(BF16, 1), C(1024)],
    "reduce_axis0": [arr(F32, 2), arr(F32, 1), C(16), C(128)],
    "int8_dequant": [arr(I8, 1), arr(F32, 1), arr(BF16, 1), C(1024)],
    "cumsum_i32": [arr(ct.int32, 1), arr(ct.int32, 1), C(64)],
    "bmm": [arr(BF16, 3), arr(BF16, 3), arr(BF16, 3), C(64), C(64), C(32)],
    "runtime_if": [arr(F32, 1), arr(F32, 1), C(1024)],
    "hash_bits": [arr(ct.int32, 1), ScalarConstraint(ct.int32), C(1024)],
    "split_heads": [arr(BF16, 3), arr(BF16, 4), C(4), C(16), C(64)],
}


def export(name: str, out: Path) -> str:
    """Compiles `research_kernels.<name>` with `SPECS[name]`; returns the disassembly."""
    sig = KernelSignature(SPECS[name], calling_convention=CallingConvention.cutile_python_v2())
    buf = io.BytesIO()
    export_kernel(getattr(rk, name), [sig], buf, output_format="tileir_bytecode",
                  bytecode_version="13.3")
    bc = out / f"{name}.py.tileirbc"
    bc.write_bytes(buf.getvalue())
    text = subprocess.run([str(tileirdisasm()), str(bc)], capture_output=True, text=True,
                          check=True).stdout
    (out / f"{name}.py.tileir").write_text(text)
    return text


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name in sys.argv[2:] or SPECS:
        export(name, out)
        print(name, "ok")


if __name__ == "__main__":
    main()
