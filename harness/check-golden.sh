#!/usr/bin/env bash
# Type-check generated cuTile Rust files against the real cutile crate (zero errors required).
#   harness/check-golden.sh                 # every golden/*.rs
#   harness/check-golden.sh a.rs b.rs ...   # just these files
# Extra cargo flags can go in CARGO_FLAGS (e.g. CARGO_FLAGS=--message-format=json).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
site="$(cd "$here/.." && pwd)/.venv/lib/python3.11/site-packages"
export CUDA_TOOLKIT_PATH="${CUDA_TOOLKIT_PATH:-$site/nvidia/cu13}"
export LIBCLANG_PATH="${LIBCLANG_PATH:-$(ls -d /usr/lib/llvm-*/lib 2>/dev/null | sort -V | tail -1)}"
if [ "$#" -gt 0 ]; then
  files=""
  for f in "$@"; do files+="$(realpath "$f")"$'\n'; done
  export GOLDEN_CHECK_FILES="$files"
fi
# shellcheck disable=SC2086
exec cargo check --release --manifest-path "$here/Cargo.toml" -p golden-check ${CARGO_FLAGS:-}
