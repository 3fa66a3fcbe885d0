#!/usr/bin/env bash
# Stages what bench/gpu_bench.py needs on the device machine, into ignored folders:
#   .tlbench/   <op>_wrapper.py per golden op, libtl_launchers.so (stripped), stage.json
#   .whl/       cuda-tile for the device's Python 3.12 (the originals import cuda.tile)
#   .gpu/       the Tile IR toolchain parts + stage-on-device.sh + tileir-env.sh
#               (from ../shared/gpu, or $SHARED_GPU; built once, ~5 min)
#
#   launcher/stage_bench.sh [OP ...]     # default: every op bench/gpu_bench.py knows
# Then see launcher/NOTES.md, "GPU bench", for the two device calls.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
cd "$repo"
py="${PYTHON:-$repo/.venv/bin/python}"
shared="${SHARED_GPU:-$repo/../shared/gpu}"
ops=("$@")
if [ "${#ops[@]}" -eq 0 ]; then
  ops=(vector_add softmax_rows rms_norm layer_norm matmul gelu_tanh silu swiglu l2_normalize
       online_softmax log_softmax transpose linear batched_matmul)
fi

stage="$repo/.tlbench"
rm -rf "$stage" && mkdir -p "$stage/src"
pairs=()
for op in "${ops[@]}"; do
  "$py" -m transpiler "golden/$op.py" -q -o "$stage/src/$op.rs"
  "$py" -m transpiler "golden/$op.py" -q --emit launcher -o "$stage/src/${op}_launcher.rs"
  "$py" -m transpiler "golden/$op.py" -q --emit pywrapper -o "$stage/${op}_wrapper.py"
  pairs+=("$stage/src/$op.rs" "$stage/src/${op}_launcher.rs")
done
STRIP=1 "$here/build.sh" "${pairs[@]}" "$stage/build" >/dev/null
if [ "${#ops[@]}" -eq 1 ]; then
  mv "$stage/build/libtl_${ops[0]}.so" "$stage/libtl_launchers.so"
else
  mv "$stage/build/libtl_launchers.so" "$stage/libtl_launchers.so"
fi
rm -rf "$stage/build"
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$repo" status --porcelain 2>/dev/null | wc -l)
"$py" - "$stage/stage.json" "$commit" "$dirty" "${ops[@]}" <<'PY'
import json, sys, time
from transpiler import __version__
path, commit, dirty, *ops = sys.argv[1:]
json.dump({"transpiler": __version__, "commit": f"{commit} ({dirty} files changed)",
           "staged": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "ops": ops},
          open(path, "w"), indent=1)
PY

mkdir -p .whl
ls .whl/cuda_tile-1.7.0-*.whl >/dev/null 2>&1 || python3 -m pip download -q --no-deps \
  --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
  --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl cuda-tile==1.7.0

mkdir -p .gpu
[ -f .gpu/SHA256SUMS ] || bash "$shared/build-toolchain.sh" .gpu
cp "$shared/stage-on-device.sh" "$shared/tileir-env.sh" .gpu/
du -sh .tlbench .whl .gpu/*part-* | sed 's/^/staged: /'
