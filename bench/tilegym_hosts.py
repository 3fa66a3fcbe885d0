"""Bench host functions appended to TileGym op files whose own launch sites get no launcher.

TileGym launches some forward kernels only through its autotuner: the kernel it passes to
`ct.launch` is `kernel.replace_hints(...)` / `cached_replace_hints(kernel, ...)` picked at run
time (occupancy, num_ctas, num_worker_warps), which the launcher generator cannot name (the
wrapper's `_TL_SKIPPED` says why per site), and cuTile Rust entries carry no such hints. For
those kernels the bench launches the kernel by name, with the first configuration TileGym's
autotuner would try on sm90 (the one its `TILEGYM_DISABLE_AUTOTUNE` path uses where it has
one) and no hints, from the functions below: `launcher/stage_bench.sh` appends them to the
TileGym file before translating it (so they get launchers and a wrapper like any host
function), and the original side runs the very same functions with cuTile Python. Both sides
therefore run TileGym's kernel code with the same constants, grid and compile options.
"""

from __future__ import annotations

HEADER = "\n\n# ---- bench host functions (bench/tilegym_hosts.py) ----\n"

#: TileGym op file (under tilegym/ops/cutile/) -> host functions appended to it
HOSTS: dict[str, str] = {
    "matmul.py": '''
def bench_matmul(a, b):
    """_matmul_kernel, sm90 first config: 128x128x32."""
    M = a.shape[0]
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    grid = (((M + 127) // 128) * ((N + 127) // 128), 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, _matmul_kernel, (a, b, c, 128, 128, 32))
    return c


def bench_static_persistent_matmul(a, b):
    """_static_persistent_matmul_kernel, 128x128x64, GROUP_SIZE_M 8, LOAD_LATENCY -1."""
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    num_sms = torch.cuda.get_device_properties(a.device).multi_processor_count
    grid = (min(num_sms, ((M + 127) // 128) * ((N + 127) // 128)), 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, _static_persistent_matmul_kernel,
              (a, b, c, M, N, K, 128, 128, 64, False, False, 8, -1))
    return c
''',
    "bmm.py": '''
def bench_static_persistent_bmm(a, b):
    """_static_persistent_bmm_kernel, sm90 first config: 64x64x64, GROUP_SIZE_M 8, LATENCY 3."""
    Q, M, K = a.shape
    N = b.shape[2]
    output = torch.empty((Q, M, N), device=a.device, dtype=a.dtype)
    num_sms = torch.cuda.get_device_properties(a.device).multi_processor_count
    grid = (min(num_sms, ((M + 63) // 64) * ((N + 63) // 64) * Q),)
    ct.launch(torch.cuda.current_stream(), grid, _static_persistent_bmm_kernel,
              (a, b, output, Q, M, N, K, 64, 64, 64, 8, 3, False, False))
    return output
''',
    "attention.py": '''
def bench_fmha(q, k, v, sm_scale, is_causal):
    """_fmha_kernel (tile_fmha's inference path), sm90 first config: TILE_M 256, TILE_N 128."""
    batch_size, num_heads, q_len, hidden_size = q.shape
    num_head_kv = k.shape[1]
    k_len = k.shape[2]
    o = torch.empty_like(q)
    even_k = k_len % 128 == 0
    grid = ((q_len + 255) // 256, batch_size * num_heads, 1)
    ct.launch(torch.cuda.current_stream(), grid, _fmha_kernel,
              (q, k, v, o, sm_scale, k_len - q_len, hidden_size, num_heads, 256, 128,
               num_heads // num_head_kv, is_causal, even_k))
    return o


def bench_fmha_with_lse(q, k, v, sm_scale, is_causal):
    """_fmha_fwd_kernel_with_lse (fmha_forward_with_lse), TILE_M 256, TILE_N 128."""
    batch_size, num_heads, q_len, hidden_size = q.shape
    num_head_kv = k.shape[1]
    k_len = k.shape[2]
    o = torch.empty_like(q)
    padded_q_len = (q_len + 255) // 256 * 256
    lse_flat = torch.zeros((batch_size * num_heads * padded_q_len,), dtype=torch.float32,
                           device=q.device)
    even_k = k_len % 128 == 0
    grid = ((q_len + 255) // 256, batch_size * num_heads, 1)
    ct.launch(torch.cuda.current_stream(), grid, _fmha_fwd_kernel_with_lse,
              (q, k, v, o, lse_flat, sm_scale, 0, hidden_size, num_heads, batch_size,
               padded_q_len, 256, 128, num_heads // num_head_kv, is_causal, even_k))
    lse = lse_flat.view(batch_size, num_heads, padded_q_len)[:, :, :q_len]
    return o, lse
''',
    "linear_gluact_linear.py": '''
def bench_linear_gluact(input_flat, weight_act, weight_noact, act_type_id):
    """_linear_gluact_fwd_kernel alone (its non-autotuned config 128x128x64, GROUP_M 8); the
    op's trailing matmul is TileGym's autotuned matmul, which has no launcher."""
    M, K = input_flat.shape
    N1 = weight_act.shape[0]
    act_out = torch.empty((M, N1), device=input_flat.device, dtype=input_flat.dtype)
    noact_out = torch.empty((M, N1), device=input_flat.device, dtype=input_flat.dtype)
    mul_out = torch.empty((M, N1), device=input_flat.device, dtype=input_flat.dtype)
    grid = (((M + 127) // 128) * ((N1 + 127) // 128), 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, _linear_gluact_fwd_kernel,
              (input_flat, weight_act, weight_noact, act_out, noact_out, mul_out, M, N1, K,
               128, 128, 64, 8, act_type_id))
    return act_out, noact_out, mul_out
''',
    "mla.py": '''
def bench_mla(q, k, v, qpe, kpe, scaling):
    """_prefill_mla_kernel, sm90 first config: TILE_M 64, TILE_N 64."""
    B, H, S_qo, TILE_D = q.shape
    TILE_KPE = qpe.shape[3]
    num_head_kv = k.shape[1]
    o = torch.empty_like(q)
    query_group_size = 0 if H == num_head_kv else H // num_head_kv
    grid = ((S_qo + 63) // 64, B * H, 1)
    ct.launch(torch.cuda.current_stream(), grid, _prefill_mla_kernel,
              (q, qpe, k, kpe, v, o, scaling, TILE_D, TILE_KPE, H, 64, 64, query_group_size))
    return o
''',
    "rope.py": '''
def bench_rope(q, k, cos, sin):
    """_rope_kernel in place on q and k (full RoPE), as _rope_forward launches it."""
    batch_size, n_q_head, seq_len, head_dim = q.shape
    n_kv_head = k.shape[1]
    TILE_RD = next_power_of_2(head_dim // 2)
    TILE_QH = next_power_of_2(n_q_head)
    TILE_KH = next_power_of_2(n_kv_head)
    grid = (batch_size * seq_len, 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, _rope_kernel,
              (q, k, cos, sin, cos.shape[0], seq_len, TILE_QH, TILE_KH, TILE_RD))
    return q, k
''',
    "silu_and_mul.py": '''
def bench_silu_and_mul(input):
    """_silu_and_mul_kernel_row_wise on a 2-D input, one row per block."""
    n_rows = input.shape[0]
    hidden_size = input.shape[1] // 2
    output = torch.empty((n_rows, hidden_size), dtype=input.dtype, device=input.device)
    tile_size = next_power_of_2(hidden_size)
    ct.launch(torch.cuda.current_stream(), (n_rows,), _silu_and_mul_kernel_row_wise,
              (input, output, tile_size, hidden_size))
    return output
''',
    "softmax.py": '''
def bench_softmax(x):
    """_softmax_kernel (softmax's default path): min(4 * SMs, rows) persistent blocks."""
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    num_sm = torch.cuda.get_device_properties(x.device).multi_processor_count
    grid = (min(num_sm * 4, n_rows), 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, _softmax_kernel,
              (y, x, n_rows, next_power_of_2(n_cols), n_cols))
    return y


def bench_softmax_tma(x):
    """_softmax_kernel_tma (use_tma=True), first occupancy candidate 2: min(2 * SMs, rows)."""
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    num_sm = torch.cuda.get_device_properties(x.device).multi_processor_count
    grid = (min(num_sm * 2, n_rows), 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, _softmax_kernel_tma,
              (y, x, n_rows, n_cols, next_power_of_2(n_cols)))
    return y
''',
    "recurrent_gated_delta_rule.py": '''
def bench_rgdr_standard(query, key, value, g, beta, initial_state):
    """_recurrent_gated_delta_rule_fwd_kernel, TILEGYM_DISABLE_AUTOTUNE config (BLOCK_V 64)."""
    B, T, H, QK = query.shape
    HV = value.shape[2]
    V = value.shape[3]
    output = torch.empty(B, T, HV, V, device=query.device, dtype=query.dtype)
    final_state = torch.empty(B, HV, QK, V, device=query.device, dtype=torch.float32)
    grid = (B * HV, (V + 63) // 64, 1)
    ct.launch(torch.cuda.current_stream(), grid, _recurrent_gated_delta_rule_fwd_kernel,
              (query, key, value, g, beta, output, initial_state, final_state,
               1.0 / math.sqrt(QK), True, True, True, next_power_of_2(QK), 64, True, True, T))
    return output, final_state


def bench_rgdr_persistent(query, key, value, g, beta, initial_state):
    """_recurrent_gated_delta_rule_fwd_kernel_persistent, BLOCK_V 64, min(SMs, work) blocks."""
    B, T, H, QK = query.shape
    HV = value.shape[2]
    V = value.shape[3]
    output = torch.empty(B, T, HV, V, device=query.device, dtype=query.dtype)
    final_state = torch.empty(B, HV, QK, V, device=query.device, dtype=torch.float32)
    num_sms = torch.cuda.get_device_properties(query.device).multi_processor_count
    grid = (min(num_sms, B * HV * ((V + 63) // 64)),)
    ct.launch(torch.cuda.current_stream(), grid,
              _recurrent_gated_delta_rule_fwd_kernel_persistent,
              (query, key, value, g, beta, output, initial_state, final_state,
               1.0 / math.sqrt(QK), True, True, True, next_power_of_2(QK), 64, True, True, T))
    return output, final_state


def bench_rgdr_decode(query, key, value, g, beta, initial_state):
    """_recurrent_gated_delta_rule_fwd_kernel_decode_vstream (T == 1): BLOCK_V 32, STREAM 16."""
    B, T, H, QK = query.shape
    HV = value.shape[2]
    V = value.shape[3]
    output = torch.empty(B, T, HV, V, device=query.device, dtype=query.dtype)
    final_state = torch.empty(B, HV, QK, V, device=query.device, dtype=torch.float32)
    grid = (B * HV, (V + 31) // 32, 1)
    ct.launch(torch.cuda.current_stream(), grid,
              _recurrent_gated_delta_rule_fwd_kernel_decode_vstream,
              (query, key, value, g, beta, output, initial_state, final_state,
               1.0 / math.sqrt(QK), True, True, True, next_power_of_2(QK), 32, True, True, 16))
    return output, final_state
''',
    "attention_variant.py": '''
def bench_fmha_variant_bnsd(q, k, v, scaling, is_causal, window_size):
    """_fmha_variant_kernel_bnsd, TILEGYM_DISABLE_AUTOTUNE config on sm90 (TILE_M 128,
    TILE_N 128; its occupancy hint dropped): no bias, random mask or lengths. The unused
    random mask is a rank-4 placeholder (TileGym passes a 1-d empty tensor, which cuTile Python
    accepts since only a branch it drops reads it; the Rust entry types it rank 4)."""
    B, H, S_qo, head_size = q.shape
    S_kv = k.shape[2]
    out_head_size = v.shape[3]
    query_group_size = H // k.shape[1]
    o = torch.empty((B, H, S_qo, out_head_size), dtype=q.dtype, device=q.device)
    bias = torch.empty(1, dtype=q.dtype, device=q.device)
    random_mask = torch.empty((1, 1, 1, 1), dtype=torch.int8, device=q.device)
    q_lens = torch.empty(1, dtype=torch.int32, device=q.device)
    kv_lens = torch.empty(1, dtype=torch.int32, device=q.device)
    grid = ((S_qo + 127) // 128, B * H, 1)
    ct.launch(torch.cuda.current_stream(), grid, _fmha_variant_kernel_bnsd,
              (q, k, v, o, bias, random_mask, q_lens, kv_lens, scaling, S_qo, S_kv,
               _next_power_of_2(head_size), _next_power_of_2(out_head_size), H, 128, 128,
               query_group_size, is_causal, S_qo % 128 == 0, S_kv % 128 == 0, False, False,
               window_size, 0, False))
    return o


def bench_fmha_variant_nsbd(q, k, v, scaling, is_causal, window_size):
    """_fmha_variant_kernel_nsbd ([heads, seq, batch, dim]), same config as the bnsd one."""
    H, S_qo, B, head_size = q.shape
    S_kv = k.shape[1]
    out_head_size = v.shape[3]
    query_group_size = H // k.shape[0]
    o = torch.empty((H, S_qo, B, out_head_size), dtype=q.dtype, device=q.device)
    bias = torch.empty(1, dtype=q.dtype, device=q.device)
    random_mask = torch.empty((1, 1, 1, 1), dtype=torch.int8, device=q.device)
    q_lens = torch.empty(1, dtype=torch.int32, device=q.device)
    kv_lens = torch.empty(1, dtype=torch.int32, device=q.device)
    grid = ((S_qo + 127) // 128, B * H, 1)
    ct.launch(torch.cuda.current_stream(), grid, _fmha_variant_kernel_nsbd,
              (q, k, v, o, bias, random_mask, q_lens, kv_lens, scaling, S_qo, S_kv,
               _next_power_of_2(head_size), _next_power_of_2(out_head_size), H, 128, 128,
               query_group_size, is_causal, S_qo % 128 == 0, S_kv % 128 == 0, False, False,
               window_size, 0, False))
    return o
''',
    "attention_varlen.py": '''
def bench_fmha_varlen(q, k, v, sm_scale, is_causal, q_lens, kv_lens):
    """_fmha_varlen_kernel, TILEGYM_DISABLE_AUTOTUNE config on sm90 (TILE_M 64, TILE_N 64;
    its occupancy hint dropped)."""
    batch_size, num_heads, S_qo, hidden_size = q.shape
    num_head_kv = k.shape[1]
    S_kv = k.shape[2]
    query_group_size = 0 if num_heads == num_head_kv else num_heads // num_head_kv
    o = torch.empty_like(q)
    grid = ((S_qo + 63) // 64, batch_size * num_heads, 1)
    ct.launch(torch.cuda.current_stream(), grid, _fmha_varlen_kernel,
              (q, k, v, q_lens, kv_lens, o, sm_scale, hidden_size, num_heads, S_qo, S_kv, 64, 64,
               query_group_size, is_causal, True, True))
    return o
''',
}


def with_hosts(relative: str, source: str) -> str:
    """`source` (the TileGym file `relative`) with its bench host functions appended."""
    extra = HOSTS.get(relative)
    return source if extra is None else source.rstrip("\n") + "\n" + HEADER + extra
