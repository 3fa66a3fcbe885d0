#!/usr/bin/env bash
# Sets up everything the project needs on a fresh machine (Debian/Ubuntu, Python 3.11, Rust
# stable >= 1.89 with rustfmt), idempotently:
#   - libclang (Debian package) for the cuTile Rust crate's build script (bindgen), and
#     chromium (Debian package) for the HTML report's browser test;
#   - a virtual environment .venv with the pinned Python packages (requirements.lock), the
#     project installed editable, and the CUDA 13.4 headers and tileirdisasm from PyPI wheels
#     (headers only: no GPU and no driver are needed);
#   - the Rust harness (harness/), which compiles generated cuTile Rust to Tile IR.
# Usage: bash setup.sh            (about 3 minutes from nothing on 2 cores, seconds after)
set -euo pipefail
cd "$(dirname "$0")"

PYTHON=${PYTHON:-python3}

if ! ls /usr/lib/llvm-*/lib/libclang.so* >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing libclang-dev" >&2
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq libclang-dev >/dev/null
  else
    echo "setup: libclang not found; install libclang-dev (LLVM) and rerun" >&2
    exit 1
  fi
fi

# Debian's chromium: the headless browser the --report test renders the page in.
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  echo "setup: installing chromium (for the HTML report test)" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv" >&2
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -r requirements.lock
# tileirdisasm ships in the assembler wheel; its dependencies (nvcc, nvvm) are only needed to
# make cubins, so they are left out.
.venv/bin/python -m pip install -q --no-deps -r requirements-nodeps.lock
.venv/bin/python -m pip install -q --no-deps -e .

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo not found; install Rust stable (>= 1.89) with rustfmt" >&2
  exit 1
fi
CU13=$(.venv/bin/python -c 'import pathlib, nvidia; print(pathlib.Path(list(nvidia.__path__)[0]) / "cu13")')
export CUDA_TOOLKIT_PATH=${CUDA_TOOLKIT_PATH:-$CU13}
LIBCLANG_DIR=$(dirname "$(ls /usr/lib/llvm-*/lib/libclang.so* | sort -V | tail -n 1)")
export LIBCLANG_PATH=${LIBCLANG_PATH:-$LIBCLANG_DIR}
echo "setup: building the harness (cargo, release)" >&2
cargo build -q --release --locked --manifest-path harness/Cargo.toml
echo "setup: done" >&2
