"""Binding Rust entries in the pointer calling convention to cuTile Python kernels."""

from __future__ import annotations

import pytest

from transpiler.ircheck.parse import parse_tileir
from transpiler.ircheck.pointer_binding import (
    BindingError,
    argument_slots,
    generics_for_binding,
    infer_binding,
    is_pointer_entry,
    normal_name,
    parse_binds,
    rebind_entry,
    reference_layout,
)
from transpiler.ircheck.spec import ArraySpec, ConstSpec, KernelSpec, ScalarSpec


def _entry(name: str, params: list[tuple[str, str]], generics: list[tuple[str, str]]) -> dict:
    return {"name": name,
            "params": [{"name": n, "kind": "pointer" if t.startswith("*") else "scalar",
                        "ty": t, "rank": None} for n, t in params],
            "generics": [{"name": n, "kind": k, "arity": 1} for n, k in generics]}


SWIGLU = _entry("swiglu_kernel", [
    ("a_ptr", "* mut E"), ("a_shape0", "i32"), ("a_shape1", "i32"), ("a_stride0", "i32"),
    ("a_stride1", "i32"), ("c_ptr", "* mut E"), ("c_row_stride", "i32")],
    [("E", "type"), ("TILE_SIZE", "i32")])
SWIGLU_PY = {"a": "array", "c": "array", "TILE_SIZE": "const", "check_bounds": "const"}


def test_names_bind_pointers_shapes_strides_and_generics() -> None:
    binding = infer_binding(SWIGLU, "swiglu", SWIGLU_PY)
    assert [(b.rust, b.python, b.part, b.dim) for b in binding.params] == [
        ("a_ptr", "a", "base", None), ("a_shape0", "a", "shape", 0),
        ("a_shape1", "a", "shape", 1), ("a_stride0", "a", "stride", 0),
        ("a_stride1", "a", "stride", 1), ("c_ptr", "c", "base", None),
        ("c_row_stride", "c", "stride", 0)]
    assert binding.generics == [("E", "dtype", "a"), ("TILE_SIZE", "const", "TILE_SIZE")]
    assert binding.shared_dtypes == {"E": ["a", "c"]}
    assert is_pointer_entry(SWIGLU)


HOST_GLUE = """
pub unsafe extern "C" fn cutile_op(out: *const TensorDesc, inp: *const TensorDesc) -> i32 {
    let (out_d, in_d) = crate::deref_descs!(out, inp);
    let hidden_size = out_d.dim(1);
    let in_row_stride = in_d.strides[0] as i32;
    let out_dp: DevicePointer<$E> = unsafe { DevicePointer::from_cu_deviceptr(out_d.ptr) };
    let in_dp: DevicePointer<$E> = unsafe { DevicePointer::from_cu_deviceptr(in_d.ptr) };
    let op = unsafe { row_kernel(out_dp, in_dp, hidden_size, in_row_stride) };
}
"""
ROW = _entry("row_kernel", [("out_ptr", "* mut E"), ("in_ptr", "* mut E"),
                            ("hidden_size", "i32"), ("in_row_stride", "i32")],
             [("E", "type"), ("BLOCK", "i32")])
ROW_PY = {"input": "array", "output": "array", "TILE": "const", "TOTAL": "const"}


def test_host_glue_binds_what_names_cannot() -> None:
    # BLOCK and TILE are one constant's two spellings: no --bind needed for it
    assert infer_binding(ROW, "row", ROW_PY, HOST_GLUE).generics[1] == ("BLOCK", "const",
                                                                       "TILE")
    binding = infer_binding(ROW, "row", ROW_PY, HOST_GLUE, parse_binds(["BLOCK=TILE"]))
    assert [(b.rust, b.python, b.part, b.dim, b.how) for b in binding.params] == [
        ("out_ptr", "output", "base", None, "host glue"),
        ("in_ptr", "input", "base", None, "host glue"),
        ("hidden_size", "output", "shape", 1, "host glue"),
        ("in_row_stride", "input", "stride", 0, "host glue")]
    assert binding.generics == [("E", "dtype", "output"), ("BLOCK", "const", "TILE")]


def test_unbound_parameters_and_generics_are_named() -> None:
    with pytest.raises(BindingError, match="`hidden_size`"):
        infer_binding(ROW, "row", ROW_PY)
    odd = {**ROW, "generics": [{"name": "E", "kind": "type", "arity": 1},
                               {"name": "WIDTH", "kind": "i32", "arity": 1}]}
    with pytest.raises(BindingError, match="generic `WIDTH`"):
        infer_binding(odd, "row", ROW_PY, HOST_GLUE)
    with pytest.raises(BindingError, match="--bind takes"):
        parse_binds(["hidden_size"])
    with pytest.raises(BindingError, match="no parameter `nope`"):
        infer_binding(ROW, "row", ROW_PY, None, parse_binds(["hidden_size=nope.shape[1]"]))


def test_explicit_binds_win() -> None:
    binds = parse_binds(["hidden_size=output.shape[1]", "in_row_stride=input.stride[0]",
                         "BLOCK=TILE"])
    binding = infer_binding(ROW, "row", ROW_PY, None, binds)
    assert [(b.python, b.part, b.dim, b.how) for b in binding.params[2:]] == [
        ("output", "shape", 1, "--bind"), ("input", "stride", 0, "--bind")]


def _spec(dtype_in: str, dtype_out: str) -> KernelSpec:
    return KernelSpec("row", (("input", ArraySpec(dtype_in, 2)),
                              ("output", ArraySpec(dtype_out, 2)), ("TILE", ConstSpec(64)),
                              ("TOTAL", ConstSpec(128))))


def test_generics_follow_the_spec_and_refuse_mixed_dtypes() -> None:
    binding = infer_binding(ROW, "row", ROW_PY, HOST_GLUE, parse_binds(["BLOCK=TILE"]))
    assert generics_for_binding(binding, _spec("float16", "float16")) == ["f16", "64"]
    with pytest.raises(ValueError, match="does not take that specialization"):
        generics_for_binding(binding, _spec("bfloat16", "float32"))


def test_rebinding_lays_arguments_out_as_the_reference() -> None:
    spec = _spec("float32", "float32")
    layout = reference_layout(spec)
    # input: base, 2 shapes, 2 strides; output likewise; constants take no argument
    assert layout[("input", "base", None)] == 0 and layout[("input", "stride", 0)] == 3
    assert layout[("output", "base", None)] == 5 and layout[("output", "shape", 1)] == 7
    reference = parse_tileir("entry @r(" + ", ".join(
        f"%arg{i}: tile<{'ptr<f32>' if i in (0, 5) else 'i32'}>" for i in range(10))
        + ") {\n  return\n}\n").entry()
    generated = parse_tileir(
        "entry @g(%arg0: tile<ptr<f32>>, %arg1: tile<ptr<f32>>, %arg2: tile<i32>, "
        "%arg3: tile<i32>) {\n  %0 = addi %arg2, %arg3 : tile<i32>\n  return\n}\n").entry()
    binding = infer_binding(ROW, "row", ROW_PY, HOST_GLUE, parse_binds(["BLOCK=TILE"]))
    rebound, literals = rebind_entry(generated, reference, binding, spec)
    assert len(rebound.args) == 10 and literals == {}
    # hidden_size is output.shape[1] (position 7), in_row_stride input.stride[0] (3)
    assert rebound.ops[0].operands == ["%bound7", "%bound3"]
    assert [a.type.text for a in rebound.args][:1] == ["tile<ptr<f32>>"]


def _tensor_entry(name: str, params: list[tuple[str, str, int | None]],
                  generics: list[tuple[str, str]]) -> dict:
    return {"name": name,
            "params": [{"name": n, "kind": "tensor" if r else "scalar", "ty": t, "rank": r}
                       for n, t, r in params],
            "generics": [{"name": n, "kind": k, "arity": 1} for n, k in generics]}


MATMUL = _tensor_entry("persistent_matmul", [
    ("a", "& Tensor < E , { [- 1 , - 1] } >", 2), ("b", "& Tensor < E , { [- 1 , - 1] } >", 2),
    ("c", "& Tensor < E , { [- 1 , - 1] } >", 2), ("rt_m", "i32", None), ("n", "i32", None)],
    [("E", "type"), ("BM", "i32"), ("BN", "i32"), ("TRANSPOSE_A", "i32"),
     ("CAST_TF32", "i32")])
MATMUL_PY = {"A": "array", "B": "array", "C": "array", "M": "const", "N": "scalar",
             "TILE_SIZE_M": "const", "TILE_SIZE_N": "const", "TRANSPOSE_A": "const"}


def _matmul_spec(dtype: str, transpose: bool) -> KernelSpec:
    return KernelSpec("persistent_matmul", (
        ("A", ArraySpec(dtype, 2)), ("B", ArraySpec(dtype, 2)), ("C", ArraySpec(dtype, 2)),
        ("M", ConstSpec(256)), ("N", ScalarSpec("int32")), ("TILE_SIZE_M", ConstSpec(128)),
        ("TILE_SIZE_N", ConstSpec(64)), ("TRANSPOSE_A", ConstSpec(transpose))))


def test_spellings_tensors_and_dtype_tests_bind() -> None:
    binding = infer_binding(MATMUL, "persistent_matmul", MATMUL_PY, None,
                            parse_binds(["CAST_TF32=A.dtype==float32"]))
    assert [(b.rust, b.python, b.part) for b in binding.params] == [
        ("a", "A", "tensor"), ("b", "B", "tensor"), ("c", "C", "tensor"),
        ("rt_m", "M", "const"), ("n", "N", "scalar")]
    assert binding.generics == [("E", "dtype", "A"), ("BM", "const", "TILE_SIZE_M"),
                                ("BN", "const", "TILE_SIZE_N"),
                                ("TRANSPOSE_A", "const", "TRANSPOSE_A"),
                                ("CAST_TF32", "dtype_is", "A==float32")]
    # a bool constant is 0/1 for an i32 generic; the dtype test follows the specialization
    assert generics_for_binding(binding, _matmul_spec("float32", True)) == [
        "f32", "128", "64", "1", "1"]
    assert generics_for_binding(binding, _matmul_spec("float16", False)) == [
        "f16", "128", "64", "0", "0"]
    # a tensor takes base, shapes and strides, as cuTile Python's array does
    slots = argument_slots(binding)
    assert [(s.python, s.part, s.dim) for s in slots[:5]] == [
        ("A", "base", None), ("A", "shape", 0), ("A", "shape", 1), ("A", "stride", 0),
        ("A", "stride", 1)]
    assert len(slots) == 3 * 5 + 2
    with pytest.raises(BindingError, match="not a `ct.Constant`"):
        infer_binding(MATMUL, "persistent_matmul", MATMUL_PY, None,
                      parse_binds(["CAST_TF32=N"]))
    with pytest.raises(BindingError, match="no array `Z`"):
        infer_binding(MATMUL, "persistent_matmul", MATMUL_PY, None,
                      parse_binds(["CAST_TF32=Z.dtype==float32"]))


def test_a_concrete_element_type_must_meet_the_arrays_dtype() -> None:
    entry = _tensor_entry("sink", [("q", "& Tensor < E , { [- 1] } >", 1),
                                   ("start_q", "& Tensor < i32 , { [- 1] } >", 1)],
                          [("E", "type")])
    binding = infer_binding(entry, "sink", {"Q": "array", "Start_q": "array"})
    assert binding.shared_dtypes == {"E": ["Q"], "i32": ["Start_q"]}
    good = KernelSpec("sink", (("Q", ArraySpec("float16", 1)),
                               ("Start_q", ArraySpec("int32", 1))))
    assert generics_for_binding(binding, good) == ["f16"]
    wrong = KernelSpec("sink", (("Q", ArraySpec("float16", 1)),
                                ("Start_q", ArraySpec("float32", 1))))
    with pytest.raises(ValueError, match="reads `Start_q` \\(float32\\) as `i32`"):
        generics_for_binding(binding, wrong)


TENSOR_GLUE = """
    let (c_d, a_d) = crate::deref_descs!(c, a);
    let a_t = unsafe { borrow_tensor::<$E>(a_d) };
    let c_t = unsafe { borrow_tensor::<$E>(c_d) };
    let m = a_d.dim(0);
    let op = unsafe { copy_kernel(&*c_t, &*a_t, m) };
"""


def test_host_glue_binds_borrowed_tensors() -> None:
    entry = _tensor_entry("copy_kernel", [("dst", "& Tensor < E , { [- 1] } >", 1),
                                          ("src", "& Tensor < E , { [- 1] } >", 1),
                                          ("m", "i32", None)], [("E", "type")])
    binding = infer_binding(entry, "copy", {"c": "array", "a": "array"}, TENSOR_GLUE)
    assert [(b.rust, b.python, b.part, b.dim, b.how) for b in binding.params] == [
        ("dst", "c", "tensor", None, "host glue"), ("src", "a", "tensor", None, "host glue"),
        ("m", "a", "shape", 0, "host glue")]


def test_normal_names() -> None:
    assert {normal_name(n) for n in ("BM", "TM", "TILE_SIZE_M", "tile_m", "BLOCK_M")} == \
        {"TILE_M"}
    assert normal_name("rt_q") == "Q" and normal_name("BLOCK_SIZE") == "TILE_SIZE"
    assert normal_name("TILE_SIZE") != normal_name("TOTAL_HIDDEN_SIZE")
