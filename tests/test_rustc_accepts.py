"""Translations that rustc must accept (type-checked against the real `cutile` crate): the
IR check compiles through cuTile Rust's front end, which does not run rustc's type checks."""

from __future__ import annotations

from pathlib import Path

from transpiler.driver import translate_bytes
from transpiler.ircheck import generated

# An index loaded from an integer array whose element type is known only at launch.
LOADED_INDEX = '''
import cuda.tile as ct


@ct.kernel
def pick_rows(ids, x, y, TILE: ct.Constant[int]):
    pid = ct.bid(0)
    row = ct.load(ids, index=(pid,), shape=(1,)).item()
    t = ct.load(x, index=(row, 0), shape=(1, TILE))
    ct.store(y, index=(pid, 0), tile=t)
'''

# A prefix sum of a half-precision tile (its identity is a half zero).
HALF_SCAN = '''
import cuda.tile as ct


@ct.kernel
def prefix(x, y, TILE: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid,), shape=(TILE,))
    ct.store(y, index=(pid,), tile=ct.cumsum(t.astype(ct.float16), axis=0).astype(y.dtype))
'''


def test_rustc_accepts(tmp_path: Path) -> None:
    paths = []
    for name, source in (("loaded_index", LOADED_INDEX), ("half_scan", HALF_SCAN)):
        result = translate_bytes(source.encode(), f"{name}.py")
        assert result.ok, [d.message for d in result.diagnostics]
        path = tmp_path / f"{name}.rs"
        path.write_text(result.rust or "")
        paths.append(path)
    errors = [d for d in generated.cargo_check_files(paths) if d.is_error]
    assert errors == [], "\n".join(f"{d.file}:{d.line}: {d.message}" for d in errors)
