"""cuTile Python corpus ratchet, and the pieces the corpus benchmark rests on.

`bench/results/cutile_python_ratchet.json` records, per sub-corpus of cuTile Python's own
repository, how many kernels translated and how many were done (translated and IR-passing)
in the last accepted run (`python -m bench.cutile_corpus --update-ratchet` raises the counts,
never lowers them). The corpus run takes many minutes: it runs only with
`TRANSPILER_CUTILE_CORPUS=1` and when the snapshot is present (`--repo` default or
`TRANSPILER_CUTILE_REPO`).
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from bench import cutile_corpus
from transpiler.driver import translate_text
from transpiler.frontend.local_modules import local_module
from transpiler.frontend.nested import hoisted_text, nested_kernels

RATCHET = (json.loads(cutile_corpus.RATCHET.read_text())
           if cutile_corpus.RATCHET.is_file() else {})

_TESTS = '''
    import cuda.tile as ct
    import pytest


    def test_one():
        TILE = 16

        @ct.kernel
        def kernel(x, n: int, T: ct.Constant):
            i = 0
            while i < n:
                i += 1
                if i == 2:
                    continue
                if i > 4:
                    break
            ct.store(x, index=(0,), tile=i)

        ct.launch(None, (1,), kernel, (None, 3, 16))


    class TestTwo:
        @staticmethod
        @ct.kernel
        def kernel(x):
            pass

        def test_it(self):
            with pytest.raises(Exception):
                ct.launch(None, (1,), self.kernel, (None,))
'''


def test_nested_kernels_get_file_unique_names_and_keep_their_lines() -> None:
    text = textwrap.dedent(_TESTS)
    found = nested_kernels(text)
    assert [k.name for k in found] == ["test_one_kernel", "TestTwo_kernel"]
    hoisted = hoisted_text(text, "test_one_kernel")
    assert hoisted is not None and hoisted.count("\n") == text.count("\n")
    assert "\ndef test_one_kernel(x, n: int, T: ct.Constant):\n" in hoisted
    assert "def test_one():" not in hoisted and "TILE = 16" not in hoisted
    assert hoisted_text(text, "kernel") is None  # no nested kernel of that name


def test_nested_kernels_translate_with_while_and_a_bare_constant() -> None:
    result = translate_text(textwrap.dedent(_TESTS), "<tests>")
    assert [k.name for k in result.kernels] == ["test_one_kernel", "TestTwo_kernel"]
    assert all(k.status == "translated" for k in result.kernels), result.diagnostics
    rust = result.rust or ""
    assert "while i < n {" in rust and "continue;" in rust and "break;" in rust
    assert "const T: i32" in rust  # a bare `ct.Constant` takes the launched value's type


def test_break_inside_for_is_a_diagnostic_not_a_translation() -> None:
    text = textwrap.dedent('''
        import cuda.tile as ct

        @ct.kernel
        def k(x, n: int):
            for i in range(n):
                if i > 2:
                    break
    ''')
    result = translate_text(text, "<k>")
    codes = [d.code for d in result.all_diagnostics()]
    assert codes == ["E0110"] and result.rust is None


def test_constant_descriptions_show_no_internal_repr() -> None:
    text = textwrap.dedent('''
        import cuda.tile as ct

        @ct.kernel
        def k(out, c: ct.Constant[int]):
            ct.scatter(out, 0, c == ct.float32)
    ''')
    messages = [d.message for d in translate_text(text, "<k>").all_diagnostics()]
    assert messages and not any("DimSym" in m or "_Deferred" in m for m in messages)


def test_absolute_imports_of_the_users_own_modules(tmp_path: Path) -> None:
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "helpers.py").write_text("def f(x):\n    return x\n")
    user = tmp_path / "kernels" / "op.py"
    user.write_text("")
    assert local_module(str(user), "kernels.helpers") == "helpers"
    assert local_module(str(user), "torch.nn") is None
    assert local_module("<stdin>", "kernels.helpers") is None


def test_kernel_definitions_and_rejected_by_design(tmp_path: Path) -> None:
    path = tmp_path / "test_x.py"
    path.write_text(textwrap.dedent(_TESTS))
    defs = cutile_corpus.kernel_defs(path)
    assert [(d.report_name, d.nested, d.rejected_by_design) for d in defs] == [
        ("test_one_kernel", True, False), ("TestTwo_kernel", True, True)]
    text = cutile_corpus.isolated_text(path, [defs[0]])
    assert text.count("\n") == path.read_text().count("\n")
    compile(text, str(path), "exec")  # a nested definition blanked leaves valid Python


def _snapshot() -> Path:
    repo = Path(os.environ.get("TRANSPILER_CUTILE_REPO", str(cutile_corpus.DEFAULT_REPO)))
    if not repo.exists():
        pytest.skip(f"no cuTile Python snapshot at {repo}")
    return repo


@pytest.mark.skipif(os.environ.get("TRANSPILER_CUTILE_CORPUS") != "1",
                    reason="the cuTile Python corpus run takes many minutes; set "
                    "TRANSPILER_CUTILE_CORPUS=1")
def test_cutile_python_corpus_ratchet() -> None:
    from transpiler.ircheck.toolchain import ToolchainError, harness_binary, tileirdisasm

    try:
        harness_binary()
        tileirdisasm()
    except ToolchainError as err:
        pytest.skip(str(err))
    results = cutile_corpus.run_benchmark(_snapshot(), verify=True)
    assert results["summary"]["translator_crash"] == 0
    assert results["summary"]["internal_errors"] == 0
    for key, value in cutile_corpus.ratchet_counts(results).items():
        assert value >= RATCHET.get(key, 0), (key, value, RATCHET.get(key))
