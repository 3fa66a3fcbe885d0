"""`--report`: the page a real headless browser (Debian's chromium) renders, checked in its
DOM and in a screenshot; a FAIL's lines marked in both IRs. Skipped without chromium
(`setup.sh` installs it) or without the IR-check tools."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from transpiler.driver import KernelReport, TranslationResult
from transpiler.ircheck.check import CheckOutcome
from transpiler.ircheck.compare import compare_modules
from transpiler.ircheck.parse import parse_tileir
from transpiler.ircheck.spec import KernelSpec
from transpiler.report import FileReport, render_report

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "tests" / "ircheck_kernels" / "samples"
# Colours of report.STYLE that the screenshot must show.
HEADER, NOTES_BADGE, TRANSLATED_BADGE, NOTED_LINE = ((0x1F, 0x29, 0x37), (0x2F, 0x81, 0xF7),
                                                     (0x1A, 0x7F, 0x37), (0xFF, 0xF1, 0xC2))


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no chromium (setup.sh installs Debian's)")


def _browser(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu",
                           "--hide-scrollbars", *args], capture_output=True, timeout=180,
                          check=False)


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and RGB rows of an 8-bit RGB/RGBA PNG (what chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks, header = 8, [], b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        header = body if kind == b"IHDR" else header
        if kind == b"IDAT":
            chunks.append(body)
        pos += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and colour in (2, 6)
    channels = 3 if colour == 2 else 4
    raw, stride, rows, prev = zlib.decompress(b"".join(chunks)), width * channels, [], bytearray(
        width * channels)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (
            stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        rows.append(bytes(v for i, v in enumerate(line) if i % channels < 3))
    return width, height, rows


def _count(rows: list[bytes], colour: tuple[int, int, int]) -> int:
    needle = bytes(colour)
    return sum(sum(1 for x in range(0, len(r), 3) if r[x:x + 3] == needle) for r in rows)


def test_the_report_renders_in_a_browser(tmp_path: Path) -> None:
    _chromium()
    from transpiler.ircheck import toolchain

    try:
        toolchain.harness_binary()
        toolchain.tileirdisasm()
    except toolchain.ToolchainError as err:
        pytest.skip(str(err))
    report = tmp_path / "report.html"
    proc = subprocess.run([sys.executable, "-m", "transpiler", str(ROOT / "golden" /
                           "vector_add.py"), "-o", str(tmp_path / "va.rs"), "--verify",
                           "--report", str(report), "-q"], cwd=ROOT, capture_output=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), check=False)
    assert proc.returncode == 0, proc.stderr.decode()
    dom = _browser("--dump-dom", report.as_uri()).stdout.decode()
    for part in ("transpiler report", "vector_add_kernel", "def vector_add_kernel(",
                 "fn vector_add_kernel", "cuTile Python Tile IR", "cuTile Rust Tile IR",
                 "PASS_WITH_NOTES", "accepted notes"):
        assert part in dom, part
    shot = tmp_path / "shot.png"
    _browser(f"--screenshot={shot}", "--window-size=1400,1400", report.as_uri())
    width, height, rows = png_pixels(shot.read_bytes())
    assert (width, height) == (1400, 1400)
    for colour in (HEADER, NOTES_BADGE, TRANSLATED_BADGE, NOTED_LINE):
        assert _count(rows, colour) > 200, colour


def test_a_fail_marks_the_differing_lines_in_both_irs() -> None:
    reference = (SAMPLES / "vadd.tileir").read_text()
    generated = reference.replace("addf", "subf", 1)
    verdict = compare_modules(parse_tileir(reference), parse_tileir(generated))
    assert verdict.status == "FAIL"
    outcome = CheckOutcome("vadd", KernelSpec("vadd", ()), "FAIL", differences=[
        {"kind": d.kind, "message": d.message, "reference": d.reference,
         "generated": d.generated} for d in verdict.differences])
    result = TranslationResult("vadd.py", "def vadd(): pass\n", "fn vadd() {}\n",
                               [KernelReport("vadd", "translated")])
    page = render_report([FileReport("vadd.py", "def vadd(): pass\n", result, [outcome],
                                     [(reference, generated)])])
    marked = [line for line in page.split("<span") if 'class="ln diff"' in line]
    assert any("addf" in line for line in marked) and any("subf" in line for line in marked)
