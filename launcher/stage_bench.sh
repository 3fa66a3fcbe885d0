#!/usr/bin/env bash
# Stages what bench/gpu_bench.py needs on the device machine, into ignored folders:
#   .tlbench/   <op>_wrapper.py per golden op, libtl_launchers.so (stripped; .xz), stage.json;
#               tg_<file>_wrapper.py per TileGym op file, libtl_tilegym.so (their launchers:
#               a second library, since module names like rms_norm repeat golden ones) and
#               tilegym_src/ (the TileGym files those import, with empty package __init__s;
#               from the wheel that `python -m bench.corpus` caches in .cache/tilegym)
#   .whl/       cuda-tile for the device's Python 3.12 (the originals import cuda.tile)
#   .gpu/       the Tile IR toolchain parts + stage-on-device.sh + tileir-env.sh
#               (from ../shared/gpu, or $SHARED_GPU; built once, ~5 min)
# TileGym files with forward kernels that only TileGym's autotuner launches get bench host
# functions appended (bench/tilegym_hosts.py), in the translated file and the staged original.
#
#   launcher/stage_bench.sh [OP ...]     # default: every op bench/gpu_bench.py knows
#   TILEGYM_OPS="activation/relu ..." launcher/stage_bench.sh   # TileGym files (default below;
#                                                              # TILEGYM_OPS= for none)
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

# TileGym forward ops (bench/results/tilegym.json, or the corpus results $TILEGYM_VERDICTS
# names: translated, IR PASS/PASS_WITH_NOTES).
tilegym_ops=(${TILEGYM_OPS-activation/relu activation/gelu rms_norm transpose dropout splitk_reduce
  swiglu flash_decode attention_sink_decode attention_sink layer_norm layer_norm_legacy bmm matmul
  linear_gluact_linear attention mla rope silu_and_mul softmax recurrent_gated_delta_rule
  activation/geglu attention_variant attention_varlen gemma_attention gemma_attention_decode
  mla_decoding mla_decoding_split_kv})
if [ "${#tilegym_ops[@]}" -gt 0 ]; then
  wheel_root="$repo/.cache/tilegym/unpacked/tilegym"
  [ -d "$wheel_root" ] || { echo "stage_bench.sh: run python -m bench.corpus first" >&2; exit 66; }
  src="$stage/tilegym_src/tilegym"
  mkdir -p "$src/backend" "$src/ops/cutile/activation" "$stage/tg"
  for pkg in "$src" "$src/ops" "$src/ops/cutile" "$src/ops/cutile/activation"; do
    : > "$pkg/__init__.py"   # empty: the wheel's own pull in every backend
  done
  cp -r "$wheel_root/backend/." "$src/backend/"
  cp "$wheel_root/logger.py" "$wheel_root/experimental.py" "$wheel_root/autotune.py" "$src/"
  cp "$wheel_root/ops/cutile/utils.py" "$src/ops/cutile/"
  # Files whose launchers go into a library of their own (libtl_tg_<file>.so) with the dtype
  # dispatch narrowed to these element types: recurrent_gated_delta_rule has 36 entries with
  # four independent dtype generics each, 2.8 MB of launcher code over f32/f16/bf16 that rustc
  # had not built after 17 CPU minutes and 18 GB; f32/bf16 cover the bench (bf16 inputs, f32 state).
  # attention_variant: three independent dtype generics (inputs, output, bias) x 40 entries;
  # the bench runs it in f16/bf16.
  declare -A narrow=([recurrent_gated_delta_rule]="f32 bf16" [attention_sink]="f32 f16 bf16 i32"
                     [attention_variant]="f16 bf16")
  tg_pairs=()
  own=()
  for op in "${tilegym_ops[@]}"; do
    flat=${op//\//_}
    # Translated from the file with the kernels whose IR check did not pass blanked out
    # (bench/results/tilegym.json; the lines stay), as bench.corpus does "in isolation".
    mkdir -p "$stage/tg/$flat"
    # Its sibling modules beside it: the translator inlines helpers imported from them
    # (geglu's from .gelu).
    cp "$wheel_root/ops/cutile/$(dirname "$op")"/*.py "$stage/tg/$flat/"
    file="$stage/tg/$flat/$(basename "$op").py"
    "$py" - "$wheel_root/ops/cutile/$op.py" "$op.py" "$file" "$src/ops/cutile/$op.py" <<'PY'
import json, os, sys
from pathlib import Path
from bench.corpus import PASSING, RESULTS, isolated_source
from bench.tilegym_hosts import HOSTS, with_hosts
source, relative, out, original = sys.argv[1:]
rows = json.loads(Path(os.environ.get("TILEGYM_VERDICTS") or RESULTS / "tilegym.json")
                  .read_text())["kernels"]
keep = {r["kernel"] for r in rows if r["file"] == relative and r["ir"]["verdict"] in PASSING}
Path(out).write_text(with_hosts(relative, isolated_source(Path(source), keep)))
# The original side imports the whole file, with the same bench host functions.
Path(original).write_text(with_hosts(relative, Path(source).read_text()))
print(f"staged TileGym {relative}: kernels {sorted(keep)}"
      + (" + bench host functions" if relative in HOSTS else ""))
PY
    "$py" -m transpiler "$file" -q -o "$stage/tg/$flat.rs"
    if [ -n "${narrow[$op]:-}" ]; then
      "$py" - "$file" "$stage/tg/$flat.rs" "$stage/tg/${flat}_launcher.rs" \
        "$stage/tg_${flat}_wrapper.py" ${narrow[$op]} <<'PY'
import sys
from pathlib import Path
from transpiler.emit_launcher import emit_pywrapper, emit_rust_launchers
from transpiler.frontend.cutile_py import parse_source
py, rs, launcher, wrapper, *types = sys.argv[1:]
source, rust = parse_source(Path(py).read_text(), py), Path(rs).read_text()
Path(launcher).write_text(emit_rust_launchers(source, rust, tuple(types)))
Path(wrapper).write_text(emit_pywrapper(source, rust, tuple(types)))
PY
      own+=("$flat")
      continue
    fi
    "$py" -m transpiler "$file" -q --emit launcher -o "$stage/tg/${flat}_launcher.rs"
    "$py" -m transpiler "$file" -q --emit pywrapper -o "$stage/tg_${flat}_wrapper.py"
    tg_pairs+=("$stage/tg/$flat.rs" "$stage/tg/${flat}_launcher.rs")
  done
  STRIP=1 "$here/build.sh" "${tg_pairs[@]}" "$stage/build" >/dev/null
  if [ "${#tg_pairs[@]}" -eq 2 ]; then
    mv "$stage/build/"libtl_*.so "$stage/libtl_tilegym.so"
  else
    mv "$stage/build/libtl_launchers.so" "$stage/libtl_tilegym.so"
  fi
  for flat in "${own[@]}"; do
    STRIP=1 "$here/build.sh" "$stage/tg/$flat.rs" "$stage/tg/${flat}_launcher.rs" \
      "$stage/build_$flat" >/dev/null
    mv "$stage/build_$flat/"libtl_*.so "$stage/libtl_tg_$flat.so"
    rm -rf "$stage/build_$flat"
  done
  rm -rf "$stage/build" "$stage/tg"
fi
# Carried xz-compressed (14 MB -> 3 MB each); the device command runs `xz -df .tlbench/*.xz`.
xz -T0 -f "$stage"/libtl_*.so
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$repo" status --porcelain 2>/dev/null | wc -l)
"$py" - "$stage/stage.json" "$commit" "$dirty" "${tilegym_ops[*]}" "${ops[@]}" <<'PY'
import json, sys, time
from transpiler import __version__
path, commit, dirty, tilegym, *ops = sys.argv[1:]
json.dump({"transpiler": __version__, "commit": f"{commit} ({dirty} files changed)",
           "staged": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "ops": ops,
           "tilegym_ops": tilegym.split()}, open(path, "w"), indent=1)
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
