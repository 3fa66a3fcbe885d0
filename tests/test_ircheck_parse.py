"""Tests for transpiler.ircheck.parse: the Tile IR text of tileirdisasm into dataclasses."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from transpiler.ircheck.parse import Operation, TileIrParseError, parse_tileir

SAMPLES = Path(__file__).parent / "ircheck_kernels" / "samples"
SAMPLE_NAMES = ("vadd", "softmax_rows", "matmul")


def _sample(name: str) -> str:
    return (SAMPLES / f"{name}.tileir").read_text()


def _walk(ops: list[Operation]) -> list[Operation]:
    found: list[Operation] = []
    for op in ops:
        found.append(op)
        for region in op.regions:
            found.extend(_walk(region.ops))
    return found


def _op_line_count(text: str) -> int:
    """Lines that hold an op: not the entry header, a closing brace or block arguments."""
    count = 0
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(("entry ", "}", "(")):
            count += 1
    return count


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_every_op_line_becomes_one_operation(name: str) -> None:
    text = _sample(name)
    module = parse_tileir(text)
    assert len(module.entries) == 1
    assert len(_walk(module.entry().ops)) == _op_line_count(text)


def test_vadd_op_counts_and_signature() -> None:
    entry = parse_tileir(_sample("vadd")).entry()
    counts = Counter(op.name for op in _walk(entry.ops))
    assert counts == Counter({"assume": 12, "constant": 3, "make_tensor_view": 3,
                              "make_partition_view": 3, "load_view_tko": 2, "make_token": 1,
                              "get_tile_block_id": 1, "addf": 1, "store_view_tko": 1,
                              "return": 1})
    assert entry.name.startswith("vadd_")
    assert len(entry.args) == 9
    assert entry.args[0].type is not None and entry.args[0].type.element == "ptr<f32>"
    assert entry.attributes["optimization_hints"] == "<default = {}>"


def test_multi_result_ops_and_their_uses() -> None:
    ops = parse_tileir(_sample("matmul")).entry().ops
    block_ids = next(op for op in ops if op.name == "get_tile_block_id")
    assert block_ids.results == ["%blockId_x", "%blockId_y", "%blockId_z"]
    index_space = next(op for op in ops if op.name == "get_index_space_shape")
    assert index_space.results == ["%1#0", "%1#1"]
    loop = next(op for op in ops if op.name == "for")
    assert loop.operands == ["%cst_0_i32", "%1#1", "%cst_1_i32_28", "%cst_0_f32"]
    assert loop.operand_labels[:3] == ["", "to", "step"]
    assert [a.name for a in loop.regions[0].args] == ["%loopIdx", "%iterArg0"]
    assert [a.type.text for a in loop.regions[0].args if a.type] == [
        "tile<i32>", "tile<128x128xf32>"]
    assert loop.result_types[0].shape == (128, 128)
    body = [op.name for op in loop.regions[0].ops]
    assert body == ["load_view_tko", "load_view_tko", "mmaf", "continue"]


def test_reduce_region_attributes_and_types() -> None:
    ops = parse_tileir(_sample("softmax_rows")).entry().ops
    reduces = [op for op in ops if op.name == "reduce"]
    assert [r.attributes["identities"] for r in reduces] == [
        "[0xFF800000: f32]", "[0.000000e+00: f32]"]
    assert all(r.attributes["dim"] == "1" for r in reduces)
    assert [a.name for a in reduces[0].regions[0].args] == ["%reduce_lhs", "%reduce_rhs"]
    assert [op.name for op in reduces[0].regions[0].ops] == ["maxf", "yield"]
    assert reduces[0].result_types[0].shape == (1,)
    assert reduces[0].result_types[0].element == "f32"


def test_view_types_and_load_labels() -> None:
    ops = parse_tileir(_sample("softmax_rows")).entry().ops
    view = next(op for op in ops if op.name == "make_tensor_view")
    assert view.operand_labels == ["", "shape[0]", "shape[1]", "strides[0]"]
    assert view.result_types[0].field("strides") == "[?, 1]"
    pview = next(op for op in ops if op.name == "make_partition_view")
    assert pview.result_types[0].field("padding_value") == "neg_inf"
    assert pview.result_types[0].field("tile") == "(1x4096)"
    load = next(op for op in ops if op.name == "load_view_tko")
    assert load.operand_labels == ["", "index", "index", "token"]
    assert "weak" in load.attributes
    assert [t.text for t in load.result_types] == ["tile<1x4096xbf16>", "token"]


def test_unknown_ops_and_attributes_parse_generically() -> None:
    text = """entry @k(%a: tile<f32>) {
  %x, %y = frobnicate fast %a, %a mode<wide> weight = 3 t = [1, 2] : tile<f32> -> tile<f32>, token
  %z = constant <i16: [0, 1, 2, 3]> : tile<4xi16>
  return
}
"""
    op = parse_tileir(text).entry().ops[0]
    assert op.name == "frobnicate"
    assert op.operands == ["%a", "%a"]
    assert op.attributes == {"fast": "", "mode": "<wide>", "weight": "3", "t": "[1, 2]"}
    assert [t.text for t in op.result_types] == ["tile<f32>", "token"]


def test_module_wrapper_comments_and_nested_regions() -> None:
    text = """// printed by another tool
cuda_tile.module @m {
  entry @k(%n: tile<i32>) {
    %c = constant <i32: 0> : tile<i32>
    %r:2 = loop iter_values(%i = %c, %j = %c) : tile<i32>, tile<i32> -> tile<i32>, tile<i32> {
      %p = cmpi less_than %i, %n, signed : tile<i32> -> tile<i1>
      if %p {
      } else {
        break %i, %j : tile<i32>, tile<i32>
      }
      continue %i, %j : tile<i32>, tile<i32>
    }
    return
  }
}
"""
    module = parse_tileir(text)
    assert module.name == "m"
    loop = module.entry().ops[1]
    assert loop.results == ["%r#0", "%r#1"]
    assert [a.name for a in loop.regions[0].args] == ["%i", "%j"]
    branch = loop.regions[0].ops[1]
    assert branch.name == "if" and len(branch.regions) == 2
    assert branch.regions[0].ops == [] and branch.regions[1].ops[0].name == "break"


def test_locations_are_resolved_from_the_alias_table() -> None:
    text = """entry @k(%a: tile<ptr<f32>>) {
  %0 = make_token : token loc(#loc3)
  %1 = assume div_by<16>, %a : tile<ptr<f32>> loc(#loc4)
  return loc(#loc2)
} loc(#loc3)
#di_file = #cuda_tile.di_file<"k.py" in "/src">
#loc = loc("/src/k.py":7:0)
#loc1 = loc("/src/k.py":9:4)
#loc2 = loc(unknown)
#loc3 = #cuda_tile.di_loc<#loc in #di_subprogram>
#loc4 = loc(callsite(#loc1 at #loc3))
"""
    module = parse_tileir(text)
    entry = module.entry()
    assert entry.location == "/src/k.py:7:0"
    assert entry.ops[0].location == "/src/k.py:7:0"
    assert entry.ops[1].location == "/src/k.py:7:0 (inlined /src/k.py:9:4)"
    assert entry.ops[2].location is None
    assert module.locations["#loc1"] == "/src/k.py:9:4"


def test_locations_on_block_arguments_do_not_change_their_types() -> None:
    text = """entry @k(%a: tile<f32> loc(#l1)) {
  %r = reduce %a dim=0 identities=[0.0 : f32] : tile<f32> -> tile<f32>
  (%x: tile<f32> loc(#l1), %y: tile<f32> loc("f.py":1:2)) {
    %s = addf %x, %y : tile<f32> loc(#l1)
    yield %s : tile<f32> loc(#l1)
  } loc(#l1)
  return
}
#l1 = loc("f.py":3:4)
"""
    op = parse_tileir(text).entry().ops[0]
    assert [(a.name, a.type.text) for a in op.regions[0].args if a.type] == [
        ("%x", "tile<f32>"), ("%y", "tile<f32>")]
    assert op.location == "f.py:3:4"


def test_op_text_keeps_the_printed_header() -> None:
    ops = parse_tileir(_sample("vadd")).entry().ops
    add = next(op for op in ops if op.name == "addf")
    assert add.text == "%1 = addf %tile, %tile_14 : tile<1024xf32>"
    assert add.template == "addf $0, $1: tile<1024xf32>"


def test_garbage_is_rejected() -> None:
    with pytest.raises(TileIrParseError):
        parse_tileir("entry @k( {\n")


def test_pointer_tiles_have_a_shape_and_a_pointer_element() -> None:
    module = parse_tileir(
        "entry @k(%arg0: tile<ptr<f32>>) {\n"
        "  %r = reshape %arg0 : tile<ptr<f32>> -> tile<4x1xptr<f16>>\n"
        "  return\n}\n")
    (op, _) = module.entries[0].ops
    (scalar,) = op.signature_types[:1]
    (tile,) = op.result_types
    assert (scalar.shape, scalar.element) == ((), "ptr<f32>")
    assert (tile.shape, tile.element) == ((4, 1), "ptr<f16>")
