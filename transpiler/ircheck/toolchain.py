"""Where the IR-check tools live: `tileirdisasm`, the Rust harness binary, and the env to build it.

Takes nothing but the environment; gives paths (or a `ToolchainError` that says how to get the
missing piece).

Environment variables, all optional:

- `TILEIRDISASM`: the `tileirdisasm` executable. Default: `nvidia/cu13/bin/tileirdisasm` in the
  running interpreter's site-packages (wheel `nvidia-cuda-tileiras`), else `PATH`.
- `TRANSPILER_HARNESS`: the harness executable. Default:
  `<repo>/harness/target/release/transpiler-harness` (or under `CARGO_TARGET_DIR`).
- `CUDA_TOOLKIT_PATH`: folder whose `include/` holds `cuda.h` and `curand.h`, needed only to *build*
  the harness (crate `cuda-bindings`). Default: `nvidia/cu13` in site-packages (wheels
  `nvidia-cuda-runtime`, `nvidia-cuda-crt`, `nvidia-curand`).
- `LIBCLANG_PATH`: folder holding `libclang.so` (bindgen, build only). Default: the newest
  `/usr/lib/llvm-*/lib` that has one (Debian package `libclang-dev`).
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sysconfig
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
HARNESS_DIR = REPO_ROOT / "harness"
HARNESS_MANIFEST = HARNESS_DIR / "Cargo.toml"
HARNESS_BINARY_NAME = "transpiler-harness"


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
            raise ToolchainError(f"TILEIRDISASM={env} does not exist")
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
    """Cargo's target folder for the harness workspace."""
    env = os.environ.get("CARGO_TARGET_DIR")
    if env:
        path = Path(env)
        return path if path.is_absolute() else HARNESS_DIR / path
    return HARNESS_DIR / "target"


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
    return env


def build_command() -> list[str]:
    """The command that builds the harness binary."""
    return ["cargo", "build", "--release", "--locked", "--manifest-path", str(HARNESS_MANIFEST)]


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
