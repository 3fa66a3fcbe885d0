"""The corpus host-code evaluator (`transpiler.frontend.host`) on small snippets: f-strings,
dict views, and parameters whose annotation names a container (no typical value)."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from transpiler.frontend.host import interpreter as host_interpreter
from transpiler.frontend.host import typical as host_typical
from transpiler.frontend.host import values as host_values
from transpiler.frontend.host.models import LIBRARY


def _module_value(tmp_path: Path, source: str) -> object:
    """`VALUE` of a one-module package, as the host-code evaluator computes it."""
    (tmp_path / "mod.py").write_text(textwrap.dedent(source))
    package = host_values.Package(tmp_path)
    interp = host_interpreter.Interpreter(package, host_typical.OP_KINDS[-1], "float16",
                                          LIBRARY)
    return package.module_at(tmp_path / "mod.py").lookup(interp, "VALUE")


def test_fstrings_and_dict_views(tmp_path: Path) -> None:
    assert _module_value(tmp_path, '''
        sizes = {"m": 64, "n": 128}
        keys = [f"{k.upper()}_{v:04d}{v!r}" for k, v in sizes.items()]
        VALUE = (keys, len(sizes.values()), "n" in sizes.keys(), sizes.get("k", 32))
    ''') == (["M_006464", "N_0128128"], 2, True, 32)
    assert isinstance(_module_value(tmp_path, "VALUE = f\"{unknown_name}\""),
                      host_values.Unknown)


def test_container_annotations_give_unknown(tmp_path: Path) -> None:
    interp = host_interpreter.Interpreter(host_values.Package(tmp_path),
                                          host_typical.OP_KINDS[-1], "float16", LIBRARY)
    fn = ast.parse("def f(a: Dict[str, Any], b: typing.List[int], c: torch.Tensor, d): pass")
    args = fn.body[0].args.args  # type: ignore[attr-defined]
    values = [interp.typical_argument(None, a) for a in args]  # type: ignore[arg-type]
    assert [type(v).__name__ for v in values] == ["Unknown", "Unknown", "FakeTensor",
                                                  "FakeTensor"]
