"""`bench/triton_sass.py`: the memory-instruction names it counts and the JIT facts it gives
the raising pass (the SASS itself needs the offline toolchain: `python -m bench.triton_sass`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import triton_sass

pytest.importorskip("triton")


@pytest.mark.parametrize(("opcode", "name"), [
    ("LDG.E.128.CONSTANT", "LDG.128"), ("LDG.E.U16", "LDG.U16"), ("LDG.E", "LDG.32"),
    ("STG.E.64", "STG.64"), ("LDGSTS.E.BYPASS.LTC128B.128", "LDGSTS.128"),
    ("HGMMA.64x128x16.F32", "HGMMA"), ("UTMACCTL.IV", "UTMACCTL.IV")])
def testmemory_names_keep_the_width(opcode: str, name: str) -> None:
    assert triton_sass.memory_name(opcode) == name


def test_jit_facts_follow_triton_specialization() -> None:
    launch = triton_sass.LAUNCHES["matmul"]
    source = Path(triton_sass.GOLDEN / "matmul.py")
    fn = triton_sass.triton_kernel(source, launch)
    request = triton_sass.jit_request(fn, launch)
    facts = triton_sass.jit_facts(request, fn)
    assert facts.ones == {"stride_ak", "stride_bn", "stride_cn"}
    # Pointers (fresh tensors) and the ints divisible by 16; never a declared constexpr.
    assert facts.aligned == {"a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am",
                             "stride_bk", "stride_cm"}
    odd = triton_sass.Launch(launch.kernel, {**launch.args, "K": 333, "stride_am": 333},
                             launch.pointers)
    odd_facts = triton_sass.jit_facts(triton_sass.jit_request(fn, odd), fn)
    assert "K" not in odd_facts.aligned and "stride_am" not in odd_facts.aligned
