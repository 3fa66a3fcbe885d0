#!/usr/bin/env bash
# Stages what bench/gpu_bench_triton.py needs on the device machine, into ignored folders:
#   .tlbench_triton/  per operator the original (<op>.py: the golden Triton kernel file with
#                     its bench host function from bench/triton_hosts.py appended, or a
#                     Triton tutorial as a library, bench/triton_hosts.library_text) and its
#                     wrapper (<op>_wrapper.py, --emit pywrapper); libtl_triton.so.xz (every
#                     operator's kernels and launchers, stripped); stage.json
#   .gpu/             the Tile IR toolchain parts + stage-on-device.sh + tileir-env.sh (as
#                     launcher/stage_bench.sh stages them)
# The device image has torch 2.11 and Triton 3.6 (the originals run under that Triton).
#
#   launcher/stage_triton_bench.sh [OP ...]   # default: every golden op with a bench host
#                                             # function + the tutorials that translate
#   TUTORIALS="01-vector-add 02-fused-softmax" launcher/stage_triton_bench.sh
#   TRANSPILE_FLAGS=--no-raise launcher/stage_triton_bench.sh OP ...   # the pointer-tile path
# Then see launcher/NOTES.md, "Triton GPU bench", for the device calls.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
cd "$repo"
py="${PYTHON:-$repo/.venv/bin/python}"
shared="${SHARED_GPU:-$repo/../shared/gpu}"
# The tutorial corpus beside the checkout (../shared), or one level up from a worktree.
tutorials_dir="${TUTORIALS_DIR:-$repo/../shared/corpora/triton-tutorials}"
[ -d "$tutorials_dir" ] || tutorials_dir="$repo/../../shared/corpora/triton-tutorials"
ops=("$@")
if [ "${#ops[@]}" -eq 0 ]; then
  mapfile -t ops < <("$py" -c 'from bench.triton_hosts import HOSTS; print("\n".join(HOSTS))')
fi
tutorials=(${TUTORIALS-01-vector-add 02-fused-softmax})
flags="${TRANSPILE_FLAGS:-}"

stage="$repo/.tlbench_triton"
rm -rf "$stage" && mkdir -p "$stage/src"
pairs=()
staged=()
# Writes the original of one operator ($2: golden op or tutorial file stem) as $stage/$1.py.
write_original() {
  "$py" - "$1" "$2" "$stage/$1.py" "$tutorials_dir" <<'PY'
import sys
from pathlib import Path
from bench.triton_hosts import TUTORIAL_HOSTS, library_text, with_host
name, source, out, tutorials = sys.argv[1:]
golden = Path("golden/triton") / f"{source}.py"
if golden.is_file():
    text = with_host(source, golden.read_text())
else:
    text = library_text((Path(tutorials) / f"{source}.py").read_text())
    if source in TUTORIAL_HOSTS:
        text += "\n\n" + TUTORIAL_HOSTS[source].lstrip("\n")
Path(out).write_text(text)
PY
}
stage_one() {  # $1 staged name, $2 source stem
  write_original "$1" "$2"
  # shellcheck disable=SC2086 # TRANSPILE_FLAGS is a word list (`--no-raise`)
  if "$py" -m transpiler "$stage/$1.py" -q $flags -o "$stage/src/$1.rs" 2>"$stage/src/$1.err" \
      && "$py" -m transpiler "$stage/$1.py" -q $flags --emit launcher \
           -o "$stage/src/$1_launcher.rs" \
      && "$py" -m transpiler "$stage/$1.py" -q $flags --emit pywrapper \
           -o "$stage/$1_wrapper.py"; then
    pairs+=("$stage/src/$1.rs" "$stage/src/$1_launcher.rs")
    staged+=("$1")
  else
    echo "stage_triton_bench.sh: $2 does not translate (left out):" >&2
    head -3 "$stage/src/$1.err" >&2
    rm -f "$stage/$1.py"
  fi
}
for op in "${ops[@]}"; do stage_one "$op" "$op"; done
for tutorial in "${tutorials[@]}"; do
  name="tut_$(echo "$tutorial" | tr '-' '_')"
  stage_one "$name" "$tutorial"
done
STRIP=1 "$here/build.sh" "${pairs[@]}" "$stage/build" >/dev/null
mv "$stage/build/"libtl_*.so "$stage/libtl_triton.so"
rm -rf "$stage/build" "$stage/src"
xz -T0 -f "$stage/libtl_triton.so"
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$repo" status --porcelain 2>/dev/null | wc -l)
"$py" - "$stage/stage.json" "$commit" "$dirty" "${staged[@]}" <<'PY'
import json, os, sys, time
from transpiler import __version__
path, commit, dirty, *ops = sys.argv[1:]
json.dump({"transpiler": __version__, "commit": f"{commit} ({dirty} files changed)",
           "staged": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "ops": ops,
           "transpile_flags": os.environ.get("TRANSPILE_FLAGS", "")},
          open(path, "w"), indent=1)
PY
mkdir -p .gpu
[ -f .gpu/SHA256SUMS ] || bash "$shared/build-toolchain.sh" .gpu
cp "$shared/stage-on-device.sh" "$shared/tileir-env.sh" .gpu/
du -sh "$stage" .gpu/*part-* | sed 's/^/staged: /'
