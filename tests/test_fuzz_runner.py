"""The fuzzing campaign's parts: generators (reproducible, valid Python, the features they
promise), delta debugging, the classification, and a short campaign (the CI form of
`python -m bench.fuzz`; `FUZZ_KERNELS=N` runs more)."""

from __future__ import annotations

import argparse
import ast
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from bench.fuzz import CLASSES, Checker, build_parser, minimize, run_campaign, table
from bench.fuzzgen import cutile, triton
from transpiler.driver import translate_bytes
from transpiler.numeric_check.translation import WithNumeric

KERNELS = int(os.environ.get("FUZZ_KERNELS", "6"))
GENERATORS = {"cutile": cutile.generate, "triton": triton.generate}


@pytest.mark.parametrize("language", sorted(GENERATORS))
def test_generation_is_reproducible(language: str) -> None:
    generate = GENERATORS[language]
    assert generate(7, 3).source == generate(7, 3).source
    assert generate(7, 3).spec == generate(7, 3).spec
    assert generate(7, 3).source != generate(7, 4).source
    assert generate(7, 3).source != generate(8, 3).source


@pytest.mark.parametrize("language", sorted(GENERATORS))
def test_generated_kernels_are_python_and_size_grows(language: str) -> None:
    generate = GENERATORS[language]
    small = [generate(1, i, size=1) for i in range(40)]
    large = [generate(1, i, size=6) for i in range(40)]
    for kernel in small + large:
        ast.parse(kernel.source)
    assert sum(len(k.source) for k in large) > 1.5 * sum(len(k.source) for k in small)


def test_cutile_generator_covers_the_features() -> None:
    seen = set().union(*(cutile.generate(3, i, size=4).features for i in range(300)))
    assert seen >= {"arith", "math", "compare", "where", "cast", "broadcast", "transpose",
                    "reduce", "scan", "mma", "load-padding", "mask", "gather", "scatter",
                    "const-if", "loop", "helper", "atomic", "int-divmod", "beyond"}


def test_triton_generator_covers_the_features() -> None:
    seen = set().union(*(triton.generate(3, i, size=4).features for i in range(300)))
    assert seen >= {"arith", "math", "compare", "where", "cast", "reduce", "scan",
                    "load-other", "const-if", "loop", "static-range", "helper", "atomic",
                    "int-divmod", "beyond"}


def test_minimize_keeps_the_property_and_shrinks() -> None:
    kernel = cutile.generate(2, 5, size=5)
    assert "ct.store" in kernel.source

    def keeps(text: str) -> bool:
        return "ct.store" in text and "@ct.kernel" in text

    small = minimize(kernel.source, keeps, budget=400)
    assert keeps(small)
    assert len(small) < len(kernel.source) // 2
    ast.parse(small)


def test_minimize_gives_back_the_source_when_nothing_keeps() -> None:
    source = cutile.generate(2, 6).source
    assert minimize(source, lambda _text: False, budget=20) == source


def test_a_skipped_specialization_stays_skipped_with_numeric() -> None:
    # cuTile Python rejects the derived specialization: the numeric check cannot run it
    # either, and that must not turn a SKIPPED into an ERROR.
    structural = SimpleNamespace(verdict="SKIPPED")
    for numeric in ("CANNOT_RUN", "ERROR", "PASS"):
        joined = WithNumeric("k.py", structural, SimpleNamespace(verdict=numeric))
        assert joined.verdict == "SKIPPED"
    joined = WithNumeric("k.py", SimpleNamespace(verdict="PASS"),
                         SimpleNamespace(verdict="CANNOT_RUN"))
    assert joined.verdict == "ERROR"


def test_a_kernel_the_language_rejects_is_discarded(tmp_path: Path) -> None:
    kernel = cutile.generate(1, 0)
    broken = kernel.source.replace("ct.store(y, index=(bm, bn), tile=",
                                   "ct.store(y, index=(bm, bn, 0, 0), tile=", 1)
    assert broken != kernel.source
    assert Checker("cutile").run(broken, kernel.spec, tmp_path).klass == "rejected"


def test_a_diagnostic_is_classified_by_code(tmp_path: Path) -> None:
    kernel = cutile.generate(1, 0)
    lines = kernel.source.splitlines()
    at = next(i for i, line in enumerate(lines) if "ct.store(y" in line)
    # `ct.atan2` is cuTile Python's but not translated: a diagnostic, not a crash.
    lines.insert(at, "    extra = ct.atan2(v_x0.astype(ct.float32), v_x0.astype(ct.float32))")
    lines[at + 1] = lines[at + 1].replace("tile=(", "tile=(extra + ", 1)
    outcome = Checker("cutile", verify=False).run("\n".join(lines) + "\n", kernel.spec,
                                                  tmp_path)
    assert outcome.klass in ("diagnostic", "rejected"), outcome.key
    if outcome.klass == "diagnostic":
        assert outcome.detail.startswith("E0")


def _args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(list(argv))


@pytest.mark.parametrize("language", sorted(GENERATORS))
def test_short_campaign_translates_without_crashes(language: str) -> None:
    args = _args("--lang", language, "--seed", "11", "--count", str(KERNELS), "--no-verify",
                 "--no-minimize")
    lines: list[str] = []
    campaign = run_campaign(args, lines.append)
    classes = {o.klass for _k, o in campaign.outcomes}
    assert classes <= set(CLASSES)
    assert not classes & {"crash", "nondeterministic"}, lines
    assert f"--count {KERNELS}" in table(campaign, args)


#: The CI form of the campaign with the proof: (language, seed, kernels); `FUZZ_KERNELS=N`
#: checks N of each.
PROVEN_SHORT = (("cutile", "12", 2), ("triton", "12", 4))


@pytest.mark.parametrize(("language", "seed", "count"), PROVEN_SHORT)
def test_short_campaign_with_the_proof(language: str, seed: str, count: int) -> None:
    count = int(os.environ.get("FUZZ_KERNELS", count))
    args = _args("--lang", language, "--seed", seed, "--count", str(count), "--no-minimize")
    campaign = run_campaign(args, print)
    found = {o.klass for _k, o in campaign.outcomes}
    assert campaign.outcomes, "every kernel was discarded"
    # Translated and proven, or a diagnostic: no crash, no FAIL, no proof that cannot run.
    assert found <= {"proven", "diagnostic"}, [(k.ident, o.key) for k, o in campaign.outcomes]


def _triton_kernel(body: str) -> str:
    return ("import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
            "def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr, FLAG: tl.constexpr, "
            "STEPS: tl.constexpr):\n"
            "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
            "    x = tl.load(x_ptr + offs, mask=offs < n)\n" + body
            + "    tl.store(y_ptr + offs, x, mask=offs < n)\n")


def test_triton_not_of_a_constexpr_is_a_launch_time_condition() -> None:
    # Found by the campaign: `if not FLAG:` (Triton accepts it) was E0107.
    source = _triton_kernel("    if not FLAG:\n        x = x * 2.0\n")
    result = translate_bytes(source.encode(), "k.py")
    assert result.ok, [d.message for d in result.all_diagnostics()]
    # One entry per value of FLAG (cutile-compiler has no `!` on a const generic); the
    # doubling is in the False entry only.
    rust = result.rust or ""
    false_entry = rust[rust.index("fn k_flag_false"):rust.index("fn k_flag_true")]
    true_entry = rust[rust.index("fn k_flag_true"):]
    assert "2.0" in false_entry and "2.0" not in true_entry


def test_triton_constexpr_used_as_a_number_and_a_condition_stays_an_int() -> None:
    # Found by the campaign: `if STEPS:` typed STEPS bool although `x * STEPS` reads it as
    # a number, so a launch with STEPS=3 would have multiplied by 1.
    source = _triton_kernel("    x = x * STEPS\n    if STEPS:\n        x = x + 1.0\n")
    result = translate_bytes(source.encode(), "k.py")
    assert result.ok, [d.message for d in result.all_diagnostics()]
    rust = result.rust or ""
    assert "const STEPS: i32" in rust
    assert "if (STEPS != 0)" in rust  # Python's truth of an int
    # Used only as a truth value, a constexpr is still a bool.
    flag_only = translate_bytes(_triton_kernel("    if FLAG:\n        x = x + 1.0\n").encode(),
                                "k.py")
    assert flag_only.ok and "const FLAG: bool" in (flag_only.rust or "")


def test_triton_helper_argument_is_evaluated_once() -> None:
    # Found by the campaign: a helper reading its parameter three times had its argument
    # (a scan) written out three times (TTIR facts FAIL: 1 scan in Triton, 3 in Tile IR);
    # an atomic passed in would have run three times.
    source = ("import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
              "def clean(x):\n    x = tl.where(x == x, x, 0.0)\n    return x\n\n\n"
              "@triton.jit\ndef k(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):\n"
              "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
              "    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)\n"
              "    s = clean(tl.cumsum(x, axis=0))\n"
              "    old = clean(tl.atomic_add(z_ptr + offs, x, mask=offs < n))\n"
              "    tl.store(y_ptr + offs, s + old, mask=offs < n)\n")
    result = translate_bytes(source.encode(), "k.py")
    assert result.ok, [d.message for d in result.all_diagnostics()]
    rust = result.rust or ""
    entries = rust.count("#[cutile::entry")
    assert entries >= 1
    assert rust.count("scan_sum(") == entries
    assert rust.count("atomic_rmw") == entries


def test_triton_max_of_a_narrow_type_reduces_in_32_bits() -> None:
    # Found by the campaign: Triton 3.9's tl.max / tl.min widen f16 / bf16 to f32 and
    # narrow integers to i32 before reducing (TTIR: extf, then a reduce over f32), so
    # `h + tl.max(h)` is an f32 sum; the translation reduced in f16 (TTIR facts FAIL).
    source = _triton_kernel("    h = x.to(tl.float16)\n"
                            "    x = (h + tl.max(h, axis=0)).to(tl.float32)\n")
    result = translate_bytes(source.encode(), "k.py")
    assert result.ok, [d.message for d in result.all_diagnostics()]
    rust = result.rust or ""
    assert "reduce_max" in rust
    for line in rust.splitlines():
        if "reduce_max(" in line:
            assert "Tile<f32, { [] }>" in line, line
