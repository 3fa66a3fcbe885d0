"""Where the IR-check tools live: `tileirdisasm`, the Rust harness binary, and the env to build it.

Takes nothing but the environment; gives paths (or a `ToolchainError` that says how to get the
missing piece).

Environment variables, all optional:

- `TILEIRDISASM`: the `tileirdisasm` executable. Default: `nvidia/cu13/bin/tileirdisasm` in the
  running interpreter's site-packages (wheel `nvidia-cuda-tileiras`), else `PATH`.
- `TRANSPILER_HARNESS`: the harness executable. Default:
  `<repo>/harness/target/release/transpiler-harness` (or under `CARGO_TARGET_DIR`) in a clone
  that built it (`setup.sh`); otherwise the copy `ensure_harness()` builds on first use from
  the sources the package ships (`transpiler/data/harness`) into the user cache,
  `$XDG_CACHE_HOME/transpiler/harness-<digest of the sources>` (default `~/.cache`).
- `CUDA_TOOLKIT_PATH`: folder whose `include/` holds `cuda.h` and `curand.h`, needed only to *build*
  the harness (crate `cuda-bindings`). Default: `nvidia/cu13` in site-packages (wheels
  `nvidia-cuda-runtime`, `nvidia-cuda-crt`, `nvidia-curand`).
- `LIBCLANG_PATH`: folder holding `libclang.so` (bindgen, build only). Default: the newest
  `/usr/lib/llvm-*/lib` that has one (Debian package `libclang-dev`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from typing import TextIO

# The harness sources: `harness/` of the repository in a clone (transpiler/data/harness links
# to it), the copy the wheel carries in an installed package.
HARNESS_DIR = (Path(__file__).resolve().parents[1] / "data" / "harness").resolve()
HARNESS_MANIFEST = HARNESS_DIR / "Cargo.toml"
HARNESS_BINARY_NAME = "transpiler-harness"
# The files whose content decides the build (the cache folder is named by their digest).
HARNESS_SOURCES = ("Cargo.toml", "Cargo.lock", "src", "golden-check")


class ToolchainError(RuntimeError):
    """A tool the IR check needs is missing; the message says how to get it."""


def _site_packages() -> list[Path]:
    """Site-packages folders of the running interpreter, venv first."""
    found: list[Path] = []
    for key in ("purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            found.append(Path(path))
    try:
        found.extend(Path(p) for p in site.getsitepackages())
    except AttributeError:  # pragma: no cover - some embedded interpreters
        pass
    unique: list[Path] = []
    for path in found:
        if path not in unique:
            unique.append(path)
    return unique


def _nvidia_cu13() -> Path | None:
    for base in _site_packages():
        candidate = base / "nvidia" / "cu13"
        if candidate.is_dir():
            return candidate
    return None


def tileirdisasm() -> Path:
    """The `tileirdisasm` executable (prints Tile IR bytecode as MLIR text)."""
    env = os.environ.get("TILEIRDISASM")
    if env:
        path = Path(env)
        if not path.is_file():
            raise ToolchainError(f"TILEIRDISASM={env} does not exist; unset it to use the one "
                                 "`pip install --no-deps nvidia-cuda-tileiras==13.4.92` "
                                 "installs")
        return path
    cu13 = _nvidia_cu13()
    if cu13 is not None and (cu13 / "bin" / "tileirdisasm").is_file():
        return cu13 / "bin" / "tileirdisasm"
    on_path = shutil.which("tileirdisasm")
    if on_path:
        return Path(on_path)
    raise ToolchainError(
        "tileirdisasm not found. Install it with "
        "`pip install --no-deps nvidia-cuda-tileiras==13.4.92` (it lands in "
        "site-packages/nvidia/cu13/bin/) or set TILEIRDISASM."
    )


def cargo_target_dir() -> Path:
    """Cargo's target folder for the harness workspace: `CARGO_TARGET_DIR`, else the
    sources' own `target/` where it exists or can be made (a clone), else the user cache."""
    env = os.environ.get("CARGO_TARGET_DIR")
    if env:
        path = Path(env)
        return path if path.is_absolute() else HARNESS_DIR / path
    local = HARNESS_DIR / "target"
    if local.exists() or (os.access(HARNESS_DIR, os.W_OK) and _in_checkout()):
        return local
    return harness_cache_dir() / "target"


def _in_checkout() -> bool:
    """True when the harness sources are the repository's own, not a copy installed into a
    site-packages folder (which may be read-only and is no place for a 700 MB build)."""
    return not any(HARNESS_DIR.is_relative_to(p) for p in _site_packages())


def cache_root() -> Path:
    """`$XDG_CACHE_HOME/transpiler`, default `~/.cache/transpiler`."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "transpiler"


def harness_sources_digest() -> str:
    """sha256 (16 hex digits) of the harness sources: a new version builds a new copy."""
    digest = hashlib.sha256()
    for name in HARNESS_SOURCES:
        root = HARNESS_DIR / name
        files = [root] if root.is_file() else sorted(
            p for p in root.rglob("*") if p.is_file() and "target" not in p.parts)
        for path in files:
            digest.update(str(path.relative_to(HARNESS_DIR)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def harness_cache_dir() -> Path:
    return cache_root() / f"harness-{harness_sources_digest()}"


def cuda_toolkit_path() -> Path:
    """`CUDA_TOOLKIT_PATH` for building the harness (headers only; no driver, no GPU)."""
    env = os.environ.get("CUDA_TOOLKIT_PATH")
    if env:
        return Path(env)
    cu13 = _nvidia_cu13()
    if cu13 is not None and (cu13 / "include" / "cuda.h").is_file():
        return cu13
    raise ToolchainError(
        "CUDA headers not found. `pip install nvidia-cuda-runtime==13.4.92 "
        "nvidia-cuda-crt==13.4.92 nvidia-curand==10.4.4.72` (headers land in "
        "site-packages/nvidia/cu13/include) or set CUDA_TOOLKIT_PATH."
    )


def libclang_path() -> Path:
    """`LIBCLANG_PATH` for bindgen (building the harness only)."""
    env = os.environ.get("LIBCLANG_PATH")
    if env:
        return Path(env)
    candidates = sorted(
        Path("/usr/lib").glob("llvm-*/lib/libclang.so*"),
        key=lambda p: p.parent.parent.name,
        reverse=True,
    )
    if candidates:
        return candidates[0].parent
    raise ToolchainError("libclang not found. `apt-get install libclang-dev` or set LIBCLANG_PATH.")


def build_env() -> dict[str, str]:
    """The environment `cargo build` / `cargo check` of the harness workspace needs."""
    env = dict(os.environ)
    env.setdefault("CUDA_TOOLKIT_PATH", str(cuda_toolkit_path()))
    env.setdefault("LIBCLANG_PATH", str(libclang_path()))
    env.setdefault("CARGO_TARGET_DIR", str(cargo_target_dir()))
    return env


def build_command() -> list[str]:
    """The command that builds the harness binary."""
    return ["cargo", "build", "--release", "--locked", "--manifest-path", str(HARNESS_MANIFEST)]


def missing_build_prerequisites() -> list[str]:
    """Why the harness cannot be built here, one reason per missing piece (empty: it can)."""
    reasons: list[str] = []
    if shutil.which("cargo") is None:
        reasons.append("cargo not found: install Rust stable >= 1.89 (https://rustup.rs)")
    for find in (cuda_toolkit_path, libclang_path):
        try:
            find()
        except ToolchainError as err:
            reasons.append(str(err))
    if not HARNESS_MANIFEST.is_file():
        reasons.append(f"the harness sources are missing ({HARNESS_MANIFEST})")
    return reasons


def build_instructions() -> str:
    """One shell line that builds the harness from the repository root."""
    try:
        cuda = str(cuda_toolkit_path())
    except ToolchainError:
        cuda = "<site-packages>/nvidia/cu13"
    try:
        clang = str(libclang_path())
    except ToolchainError:
        clang = "/usr/lib/llvm-14/lib"
    return (
        f"CUDA_TOOLKIT_PATH={cuda} LIBCLANG_PATH={clang} "
        "cargo build --release --locked --manifest-path harness/Cargo.toml"
    )


def harness_binary() -> Path:
    """The `transpiler-harness` executable; `ToolchainError` (with build steps) if not built."""
    env = os.environ.get("TRANSPILER_HARNESS")
    if env:
        path = Path(env)
        if not path.is_file():
            raise ToolchainError(f"TRANSPILER_HARNESS={env} does not exist")
        return path
    path = cargo_target_dir() / "release" / HARNESS_BINARY_NAME
    if path.is_file():
        return path
    raise ToolchainError(
        f"harness binary not built ({path} missing). Build it with:\n  {build_instructions()}\n"
        "or call transpiler.ircheck.toolchain.build_harness()."
    )


def ensure_harness(progress: TextIO | None = None) -> Path:
    """The harness binary, built first if no copy exists (an installed package's first
    `--verify`): one progress line on `progress` (default stderr), and a `ToolchainError`
    listing every missing prerequisite when it cannot be built."""
    try:
        return harness_binary()
    except ToolchainError:
        if os.environ.get("TRANSPILER_HARNESS"):
            raise
    reasons = missing_build_prerequisites()
    if reasons:
        raise ToolchainError("the IR-check harness is not built and cannot be built here:\n  "
                             + "\n  ".join(reasons))
    stream = progress or sys.stderr
    print(f"transpiler: building the IR-check harness into {cargo_target_dir()} (cargo, "
          "release; a few minutes, once)", file=stream, flush=True)
    started = time.monotonic()
    built = build_harness()
    print(f"transpiler: harness built in {time.monotonic() - started:.0f} s", file=stream,
          flush=True)
    return built


def build_harness(timeout: float = 3600.0) -> Path:
    """Builds the harness with cargo (a few minutes from clean) and returns the binary."""
    if shutil.which("cargo") is None:
        raise ToolchainError("cargo not found; install Rust (rustup, stable >= 1.89)")
    proc = subprocess.run(
        build_command(),
        env=build_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if proc.returncode != 0:
        raise ToolchainError(f"cargo build of the harness failed:\n{proc.stderr[-8000:]}")
    return harness_binary()
