#!/usr/bin/env bash
# The GPU bench's measuring call on the device machine (launcher/NOTES.md, "GPU bench"), after
# `stage-on-device.sh`, `source .gpu/tileir-env.sh` and the cuda-tile wheel's install. Three
# processes, so that one operator that breaks the CUDA context (or runs long) costs only its
# group: TileGym group A, TileGym group B, then golden + the first TileGym ops, which merges A
# and B (`--include`) into OUT/gpu.{json,md}. Logs: OUT/{a,b,all}.log, parts: OUT/{a,b}.json.
#
#   bash launcher/gpu_bench_device.sh OUT
set -uo pipefail
out=${1:?usage: gpu_bench_device.sh OUT}
tmp=$(mktemp -d)
export PYTHONUNBUFFERED=1
a=tilegym/dropout,tilegym/splitk_reduce,tilegym/swiglu,tilegym/flash_decode
a+=,tilegym/attention_sink_decode,tilegym/attention_sink,tilegym/layer_norm
a+=,tilegym/layer_norm_gather,tilegym/layer_norm_legacy,tilegym/rms_norm_cached
a+=,tilegym/rms_norm_gather,tilegym/softmax,tilegym/softmax_tma,tilegym/softmax_multi_wave
a+=,tilegym/softmax_chunked,tilegym/silu_and_mul,tilegym/rope
b=tilegym/bmm,tilegym/bmm_persistent,tilegym/matmul,tilegym/matmul_persistent
b+=,tilegym/linear_gluact,tilegym/fmha,tilegym/fmha_with_lse,tilegym/mla,tilegym/rgdr
b+=,tilegym/rgdr_persistent,tilegym/rgdr_decode
c=vector_add,softmax_rows,rms_norm,layer_norm,matmul,gelu_tanh,silu,swiglu,l2_normalize
c+=,online_softmax,log_softmax,transpose,linear,batched_matmul,tilegym/relu
c+=,tilegym/gelu_tanh,tilegym/gelu,tilegym/rms_norm,tilegym/transpose
timeout "${GROUP_A_S:-200}" python3 bench/gpu_bench.py --ops "$a" --out "$tmp/a" \
  --budget "$(( ${GROUP_A_S:-200} - 20 ))" >"$out/a.log" 2>&1
echo "group A: rc=$?"
timeout "${GROUP_B_S:-210}" python3 bench/gpu_bench.py --ops "$b" --out "$tmp/b" \
  --budget "$(( ${GROUP_B_S:-210} - 20 ))" >"$out/b.log" 2>&1
echo "group B: rc=$?"
cp "$tmp/a/gpu.json" "$out/a.json" 2>/dev/null
cp "$tmp/b/gpu.json" "$out/b.json" 2>/dev/null
timeout "${GROUP_C_S:-130}" python3 bench/gpu_bench.py --ops "$c" --out "$out" \
  --include "$tmp/a/gpu.json" --include "$tmp/b/gpu.json" \
  --budget "$(( ${GROUP_C_S:-130} - 15 ))" >"$out/all.log" 2>&1
echo "golden + merge: rc=$?"
tail -45 "$out/gpu.md" 2>/dev/null
