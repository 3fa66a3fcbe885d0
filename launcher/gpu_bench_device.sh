#!/usr/bin/env bash
# The GPU bench's measuring calls on the device machine (launcher/NOTES.md, "GPU bench"), after
# `stage-on-device.sh`, `source .gpu/tileir-env.sh` and the cuda-tile wheel's install. One
# process per group, so that an operator that breaks the CUDA context (or runs long) costs only
# its group. Each group's result stays in $TL_PARTS (default /tmp/tlbench-parts, kept while the
# machine is warm) so that groups can run over several calls; the group `c` (golden + the first
# TileGym ops) runs last and merges the other parts, then any operator still missing from
# $TL_FALLBACK (default bench/results/gpu.json: the last published run), into OUT/gpu.{json,md}.
# Logs: OUT/<group>.log, parts: OUT/<group>.json.
#
#   TL_GROUPS="a b" bash launcher/gpu_bench_device.sh OUT      # first call
#   TL_GROUPS="d c" bash launcher/gpu_bench_device.sh OUT      # second call: merges a, b, d
set -uo pipefail
out=${1:?usage: gpu_bench_device.sh OUT}
parts=${TL_PARTS:-/tmp/tlbench-parts}
mkdir -p "$parts" "$out"
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
d=tilegym/fmha_variant_bnsd,tilegym/fmha_variant_nsbd,tilegym/fmha_varlen,tilegym/geglu
d+=,tilegym/geglu_tanh,tilegym/gemma_attention,tilegym/gemma_attention_decode
d+=,tilegym/mla_decoding,tilegym/mla_decoding_split_kv

group() {  # name, operators, seconds, extra gpu_bench arguments
  local name=$1 ops=$2 limit=$3
  shift 3
  timeout "$limit" python3 bench/gpu_bench.py --ops "$ops" --out "$parts/$name" \
    --budget "$(( limit - 20 ))" "$@" >"$out/$name.log" 2>&1
  echo "group $name: rc=$?"
  cp "$parts/$name/gpu.json" "$out/$name.json" 2>/dev/null
}

for g in ${TL_GROUPS:-a b d c}; do
  case $g in
    a) group a "$a" "${GROUP_A_S:-200}" ;;
    b) group b "$b" "${GROUP_B_S:-210}" ;;
    d) group d "$d" "${GROUP_D_S:-240}" ;;
    c) group c "$c" "${GROUP_C_S:-130}" --include "$parts/a/gpu.json" \
         --include "$parts/b/gpu.json" --include "$parts/d/gpu.json" \
         --include "${TL_FALLBACK:-bench/results/gpu.json}"
       cp "$parts/c/gpu.json" "$parts/c/gpu.md" "$out/" 2>/dev/null
       tail -45 "$out/gpu.md" 2>/dev/null ;;
  esac
done
