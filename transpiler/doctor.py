"""`transpiler doctor`: which parts of the tool are present here, and how to get the others.

Takes the environment (no arguments but `--json`); gives one line per part: translation
(always), rustfmt (output layout), tileirdisasm, the Rust harness (built, or buildable on first
`--verify`: cargo, CUDA headers, libclang), cuda-tile (the reference side of the IR check),
triton (Triton input), and the key of the LLM fallback. Exit status 0 when everything
`--verify` needs is present or can be built, 1 otherwise. It finds nothing by guessing: each
check asks the same function the tool itself uses.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass

from rust_emit.rustfmt import rustfmt_path
from transpiler import __version__
from transpiler.ircheck import toolchain

OK, MISSING, OPTIONAL = "ok", "missing", "optional"


@dataclass(frozen=True)
class Part:
    name: str
    state: str  # ok | missing (needed by --verify) | optional (a feature that is off)
    detail: str  # where it is, or how to get it

    def line(self) -> str:
        mark = {OK: "ok     ", MISSING: "MISSING", OPTIONAL: "absent "}[self.state]
        return f"{mark} {self.name:<14} {self.detail}"


def _module_version(module: str, dist: str) -> str | None:
    if importlib.util.find_spec(module) is None:
        return None
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "present"


def check_rustfmt() -> Part:
    path = rustfmt_path()
    if path:
        return Part("rustfmt", OK, path)
    return Part("rustfmt", OPTIONAL, "output is laid out by the printer alone; "
                "`rustup component add rustfmt` for rustfmt's exact layout")


def check_tileirdisasm() -> Part:
    try:
        return Part("tileirdisasm", OK, str(toolchain.tileirdisasm()))
    except toolchain.ToolchainError as err:
        return Part("tileirdisasm", MISSING, str(err))


def check_harness() -> Part:
    try:
        return Part("harness", OK, str(toolchain.harness_binary()))
    except toolchain.ToolchainError:
        pass
    reasons = toolchain.missing_build_prerequisites()
    if reasons:
        return Part("harness", MISSING, "not built, and cannot be built here: "
                    + "; ".join(reasons))
    return Part("harness", OK, f"not built yet: the first --verify builds it into "
                f"{toolchain.cargo_target_dir()} (a few minutes, once)")


def check_cargo() -> Part:
    cargo = shutil.which("cargo")
    rustc = shutil.which("rustc")
    if cargo and rustc:
        return Part("rustc/cargo", OK, f"{rustc}, {cargo}")
    return Part("rustc/cargo", OPTIONAL, "needed only to build the harness and for `verify` "
                "of hand-written Rust: install Rust stable >= 1.89 (https://rustup.rs)")


def check_cuda_tile() -> Part:
    version = _module_version("cuda.tile", "cuda-tile")
    if version:
        return Part("cuda-tile", OK, version)
    return Part("cuda-tile", MISSING, "the reference side of --verify: "
                "`pip install 'transpiler[verify]'` (cuda-tile==1.7.0)")


def check_triton() -> Part:
    version = _module_version("triton", "triton")
    if version:
        return Part("triton", OK, version)
    return Part("triton", OPTIONAL, "only for checking Triton input against Triton itself: "
                "`pip install triton`")


def check_llm_key() -> Part:
    if os.environ.get("ANTHROPIC_API_KEY"):
        return Part("LLM fallback", OK, "ANTHROPIC_API_KEY is set")
    return Part("LLM fallback", OPTIONAL, "set ANTHROPIC_API_KEY (and `pip install "
                "'transpiler[llm]'`) to let a model propose checked fragments for "
                "constructs the passes cannot lower; or use --llm-cache DIR")


CHECKS: tuple[Callable[[], Part], ...] = (
    check_rustfmt, check_tileirdisasm, check_harness, check_cargo, check_cuda_tile,
    check_triton, check_llm_key)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="transpiler doctor",
                                     description="Say which parts of the tool are present.")
    parser.add_argument("--json", action="store_true", help="print the parts as JSON")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return 0 if exit_.code in (0, None) else 2
    parts = [check() for check in CHECKS]
    if args.json:
        print(json.dumps({"version": __version__, "python": sys.executable,
                          "parts": [p.__dict__ for p in parts]}, indent=2))
    else:
        print(f"transpiler {__version__} (Python {sys.version.split()[0]}, {sys.executable})")
        print("ok      translation    always available")
        for part in parts:
            print(part.line())
        if any(p.state == MISSING for p in parts):
            print("--verify needs every part marked MISSING.")
    return 1 if any(p.state == MISSING for p in parts) else 0
