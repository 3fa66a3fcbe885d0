"""The wrapper's launch runtime is a real module file that agrees with the element table."""

from __future__ import annotations

import ast

from transpiler.hostglue import pyruntime_text
from transpiler.model.elements import ABI_DTYPE_CODES, ELEMENTS


def _dict_assigned(tree: ast.AST, name: str) -> dict[object, object]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"no assignment of {name}")


def test_runtime_dtype_codes_are_the_element_tables() -> None:
    codes = _dict_assigned(ast.parse(pyruntime_text()), "names")
    assert codes == {e.torch[0]: e.abi_code for e in ELEMENTS if e.abi_code is not None}
    assert sorted(codes.values()) == sorted(ABI_DTYPE_CODES.values())


def test_runtime_is_the_text_the_wrapper_starts_with() -> None:
    text = pyruntime_text()
    assert text.lstrip().startswith("# ---- generated launch glue")
    compile(text, "pyruntime.py", "exec")
