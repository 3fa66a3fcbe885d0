#!/usr/bin/env bash
# A stand-in for `tileiras` that keeps what each runtime compiles (for comparing the cubins
# cuTile Python and cuTile Rust really run; launcher/NOTES.md, "The runtime cubins").
# On the device machine, after `source .gpu/tileir-env.sh`:
#   mkdir -p /tmp/tw "$OUT/cap" && cp launcher/tileiras_capture.sh /tmp/tw/tileiras
#   export TL_CAPTURE=$OUT/cap PATH=/tmp/tw:$PATH CUTILE_TILEIRAS_PATH=/tmp/tw/tileiras
#   CUDA_TILE_CACHE_DIR=off python3 bench/gpu_bench.py --ops ...   # cuTile Python compiles again
# Each call appends its arguments to $TL_CAPTURE/args.log and keeps its input and output as
# $TL_CAPTURE/<ns>.{bc,bytecode,cubin}; tar the folder (the device tool returns few files).
set -u
cap=${TL_CAPTURE:?set TL_CAPTURE to a folder}
real=${TILEIRAS_REAL:-/opt/tileir/bin/tileiras}
stamp=$(date +%s%N)
echo "$stamp $(tr '\0' ' ' </proc/$PPID/cmdline | cut -c1-80) :: $*" >> "$cap/args.log"
"$real" "$@"
status=$?
previous=""
for arg in "$@"; do
  if [[ $previous == -o ]]; then cp "$arg" "$cap/$stamp.cubin" 2>/dev/null; fi
  case $arg in *.bc) cp "$arg" "$cap/$stamp.bc" 2>/dev/null ;; *.bytecode) cp "$arg" "$cap/$stamp.bytecode" 2>/dev/null ;; esac
  previous=$arg
done
exit $status
