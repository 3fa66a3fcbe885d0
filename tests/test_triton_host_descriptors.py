"""Host-made tensor descriptors (`TensorDescriptor` arguments of a Triton kernel): the block
shape read from an autotune `pre_hook` or from the launch, the entry's extra extent and
stride parameters, the manifest's record of them, and the diagnostics when the file does not
say the block shape."""

from __future__ import annotations

from specialization.manifest import parse_manifests
from transpiler.driver import translate_text
from transpiler.hostglue.triton_plan import plan_triton

HEADER = ("import triton\nimport triton.language as tl\n"
          "from triton.tools.tensor_descriptor import TensorDescriptor\n\n\n")
KERNEL = ("@triton.jit\ndef k(x_desc, y_ptr, n, BLOCK_M: tl.constexpr, BLOCK: tl.constexpr):\n"
          "    row = tl.program_id(0) * BLOCK_M\n"
          "    x = x_desc.load([row, 0])\n"
          "    offs = row + tl.arange(0, BLOCK_M)\n"
          "    tl.store(y_ptr + offs, tl.sum(x, axis=1), mask=offs < n)\n")


def _with_hook(hook_body: str) -> str:
    return (HEADER + f"def hook(nargs):\n{hook_body}\n\n\n"
            "@triton.autotune(configs=[triton.Config({'BLOCK_M': 4}, pre_hook=hook)], "
            "key=['n'])\n" + KERNEL)


def _translate(text: str):
    """The general entry only: a JIT fact entry repeats the same descriptor parameters."""
    result = translate_text(text, "k.py", jit_facts=False)
    return result, parse_manifests(result.rust or "")


def test_a_pre_hook_gives_the_block_shape() -> None:
    result, manifests = _translate(_with_hook(
        '    BM = nargs["BLOCK_M"]\n    nargs["x_desc"].block_shape = [BM, nargs["BLOCK"]]'))
    assert result.ok, [d.message for d in result.all_diagnostics()]
    (manifest,) = manifests.values()
    desc = manifest.param("x_desc")
    assert desc is not None and desc.kind == "pointer"
    assert desc.block == (["param", "BLOCK_M"], ["param", "BLOCK"])
    added = [(p.name, p.kind, p.array, p.dim) for p in manifest.params if p.is_added]
    # Every extent; every stride but the last, which Triton requires to be 1.
    assert added == [("x_desc_stride_0", "stride", "x_desc", 0),
                     ("x_desc_shape_0", "extent", "x_desc", 0),
                     ("x_desc_shape_1", "extent", "x_desc", 1)]
    assert "x_desc_stride_1" not in (result.rust or "")
    assert "x_desc_shape_0: i32" in (result.rust or "")


def test_a_launch_gives_the_block_shape() -> None:
    text = HEADER + KERNEL + (
        "\n\ndef run(x, y, BLOCK):\n"
        "    d = TensorDescriptor(x, x.shape, x.stride(), [2, BLOCK])\n"
        "    k[(4,)](d, y, x.shape[0], BLOCK_M=2, BLOCK=BLOCK)\n")
    result, manifests = _translate(text)
    assert result.ok, [d.message for d in result.all_diagnostics()]
    (manifest,) = manifests.values()
    assert manifest.param("x_desc").block == (2, ["param", "BLOCK"])


def test_no_block_shape_is_a_diagnostic() -> None:
    result, _ = _translate(HEADER + KERNEL)
    assert not result.ok
    (diag,) = [d for d in result.all_diagnostics()]
    assert diag.code == "E0121" and "`x_desc`" in diag.message
    assert "block_shape" in diag.message


def test_two_block_shapes_are_a_diagnostic() -> None:
    text = HEADER + KERNEL + (
        "\n\ndef run(x, y, BLOCK):\n"
        "    d = TensorDescriptor(x, x.shape, x.stride(), [2, BLOCK])\n"
        "    k[(4,)](d, y, x.shape[0], BLOCK_M=2, BLOCK=BLOCK)\n"
        "    e = TensorDescriptor(x, x.shape, x.stride(), [4, BLOCK])\n"
        "    k[(4,)](e, y, x.shape[0], BLOCK_M=4, BLOCK=BLOCK)\n")
    result, _ = _translate(text)
    assert not result.ok
    assert [d.code for d in result.all_diagnostics()] == ["E0121"]
    assert "different block shapes" in result.all_diagnostics()[0].message


def test_a_pre_hook_condition_on_a_constexpr_gives_an_entry_per_outcome() -> None:
    text = _with_hook(
        '    HALF = nargs.get("HALF", False)\n'
        '    if HALF:\n        nargs["x_desc"].block_shape = [nargs["BLOCK_M"], '
        'nargs["BLOCK"] // 2]\n'
        '    else:\n        nargs["x_desc"].block_shape = [nargs["BLOCK_M"], nargs["BLOCK"]]')
    text = text.replace("BLOCK: tl.constexpr):", "BLOCK: tl.constexpr, HALF: tl.constexpr):")
    result, manifests = _translate(text)
    assert result.ok, [d.message for d in result.all_diagnostics()]
    blocks = {m.const_variant["HALF"]: m.param("x_desc").block for m in manifests.values()}
    assert blocks == {False: (["param", "BLOCK_M"], ["param", "BLOCK"]),
                      True: (["param", "BLOCK_M"], ["//", ["param", "BLOCK"], 2])}


def test_a_pre_hook_default_stands_for_a_missing_parameter() -> None:
    # `nargs.get("HALF", False)` of a kernel without `HALF`: the default decides.
    result, manifests = _translate(_with_hook(
        '    if nargs.get("HALF", False):\n        nargs["x_desc"].block_shape = [1, 1]\n'
        '    else:\n        nargs["x_desc"].block_shape = [nargs["BLOCK_M"], nargs["BLOCK"]]'))
    assert result.ok, [d.message for d in result.all_diagnostics()]
    (manifest,) = manifests.values()
    assert manifest.param("x_desc").block == (["param", "BLOCK_M"], ["param", "BLOCK"])


def test_a_pre_hook_condition_on_a_runtime_value_is_a_diagnostic() -> None:
    result, _ = _translate(_with_hook(
        '    if nargs["n"] > 4:\n        nargs["x_desc"].block_shape = [4, nargs["BLOCK"]]\n'
        '    else:\n        nargs["x_desc"].block_shape = [2, nargs["BLOCK"]]'))
    assert not result.ok
    assert [d.code for d in result.all_diagnostics()] == ["E0121"]
    assert "compile-time" in result.all_diagnostics()[0].message


def test_a_host_descriptor_is_a_tensor_descriptor() -> None:
    # Were `isinstance` false, the branch would use the descriptor as an address (an error).
    text = _with_hook('    nargs["x_desc"].block_shape = [nargs["BLOCK_M"], nargs["BLOCK"]]')
    text = text.replace("    x = x_desc.load([row, 0])\n",
                        "    x = x_desc.load([row, 0])\n"
                        "    if not isinstance(x_desc, tl.tensor_descriptor):\n"
                        "        x = tl.load(x_desc + tl.arange(0, BLOCK_M))\n")
    assert "isinstance" in text
    result, _ = _translate(text)
    assert result.ok, [d.message for d in result.all_diagnostics()]


def test_the_launcher_refuses_a_descriptor_entry() -> None:
    text = _with_hook('    nargs["x_desc"].block_shape = [nargs["BLOCK_M"], nargs["BLOCK"]]')
    result, _ = _translate(text)
    plan = plan_triton(text, "k.py", result.rust or "")
    kernel = plan.kernel("k")
    assert not kernel.entries and "host-made tensor descriptor `x_desc`" in kernel.why_none
