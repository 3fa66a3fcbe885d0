"""Triton corpus ratchet, and the pieces the Triton corpus benchmark rests on.

`bench/results/triton_ratchet.json` records, per corpus (Triton's tutorials, TileGym's Triton
ops), how many kernels and whole files translated in the last accepted run
(`python -m bench.triton_corpus --update-ratchet` raises the counts, never lowers them). The
corpus run takes minutes: it runs only with `TRANSPILER_TRITON_CORPUS=1` and when both
corpora are present.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from bench import triton_corpus
from bench.corpus import CorpusUnavailable

RATCHET = (json.loads(triton_corpus.RATCHET.read_text())
           if triton_corpus.RATCHET.is_file() else {})

_RUST = textwrap.dedent('''
    // transpiler-manifest: {"entry":"k_f16","kernel":"k"}
    #[cutile::entry()]
    unsafe fn k_f16<E: ElementType>(x: *mut E) {
        let (a, _) = unsafe { load_ptr_tko(p, ordering::Weak, None, None, None, None) };
        unsafe { store_ptr_tko(p, a, ordering::Weak, None, None, None) };
    }
    // transpiler-manifest: {"entry":"other","kernel":"other"}
    #[cutile::entry()]
    fn other<E: ElementType>(x: &Tensor<E, { [-1] }>) {
        let t = load_view_tko(v, [0], None);
    }
''')


def test_accesses_are_counted_per_entry_and_owned_by_their_kernel() -> None:
    assert triton_corpus.entry_accesses(_RUST) == {"k_f16": {"pointer": 2, "raised": 0},
                                                   "other": {"pointer": 0, "raised": 1}}
    assert triton_corpus.entry_kernels(_RUST) == {"k_f16": "k", "other": "other"}


def test_one_cli_call_gives_a_row_per_kernel(tmp_path: Path) -> None:
    source = tmp_path / "two.py"
    source.write_text(textwrap.dedent('''
        import triton
        import triton.language as tl


        @triton.jit
        def good(x_ptr, BLOCK: tl.constexpr):
            o = tl.arange(0, BLOCK)
            tl.store(x_ptr + o, tl.load(x_ptr + o) + 1)


        @triton.jit
        def bad(x_ptr):
            tl.store(x_ptr, tl.inline_asm_elementwise("mov", "=r", [1], tl.int32, True, 1))
    '''))
    rows = triton_corpus.run_file("test", source, tmp_path, verify=False)
    assert [(r.kernel, r.status, r.code) for r in rows] == [
        ("good", "translated", None), ("bad", "failed", "E0120")]
    assert rows[0].access is None  # the file wrote no Rust
    summary = triton_corpus.summarize(rows)["test"]
    assert (summary["kernels"], summary["translated"], summary["files_translated"]) == (2, 1, 0)


@pytest.mark.skipif(os.environ.get("TRANSPILER_TRITON_CORPUS") != "1",
                    reason="the Triton corpus run takes minutes; set TRANSPILER_TRITON_CORPUS=1")
def test_triton_corpus_ratchet() -> None:
    if not triton_corpus.TUTORIALS.is_dir():
        pytest.skip(f"no Triton tutorials at {triton_corpus.TUTORIALS}")
    try:
        folders = {"tutorials": triton_corpus.TUTORIALS,
                   "tilegym": triton_corpus.tilegym_folder(None),
                   "liger": triton_corpus.liger_folder(None)}
    except CorpusUnavailable as err:
        pytest.skip(str(err))
    results = triton_corpus.run_benchmark(folders, verify=False)
    assert results["summary"]["crashes"] == 0
    for key, value in triton_corpus.ratchet_counts(results).items():
        assert value >= RATCHET.get(key, 0), (key, value, RATCHET.get(key))
