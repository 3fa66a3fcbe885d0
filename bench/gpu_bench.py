"""GPU bench: cuTile Python originals against their Rust translations, on the same inputs.

Runs on the device machine (torch, cuda.tile, the Tile IR toolchain; see launcher/NOTES.md,
"GPU bench"). Takes the staging folder of `launcher/stage_bench.sh` (one `--emit pywrapper`
module per golden file and per TileGym op file, the TileGym sources those need under
`tilegym_src/`, and the launcher library they share) and the golden sources. TileGym op
modules are loaded from their files with empty package `__init__`s (the package's own pulls
in every backend). Gives, per operator, shape and dtype:

- correctness: the Rust translation's outputs against the original's on fresh random inputs
  (golden ops: torch.testing's default tolerance for the dtype; TileGym ops: the tolerances
  of TileGym's own tests; bitwise equality reported), both against a torch reference
  (relative L2 error, reported only), and the Rust grid against Python's;
- kernel device time: CUPTI kernel durations through torch.profiler, median per call;
- whole-call time: CUDA events around the Python call on an idle GPU, median per call;

the two implementations interleaved in one run, after warm-up; and the launcher library's
fast-path counters (`tl_fast_stats`). Writes OUT/gpu.json and OUT/gpu.md (per configuration
both pairs and the ratios Rust / Python, per-operator and overall geomeans, the worst
operator, device, driver and versions) and prints the table. `--overhead` instead measures
the host cost per call of each layer of the launch path (OUT/gpu_overhead[_TAG].json).

    python3 bench/gpu_bench.py --stage .tlbench --out OUT [--ops a,b] [--quick] [--sanity]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F  # noqa: N812

REPO = Path(__file__).resolve().parents[1]
# TileGym's ops take their non-autotuned launch (first configuration) where they have one.
os.environ.setdefault("TILEGYM_DISABLE_AUTOTUNE", "1")
DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
Inputs = tuple[tuple[Any, ...], dict[str, Any]]


# ---- operators ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One forward operator of a golden file: its host function, inputs and reference."""

    op: str  # golden file stem
    function: str
    shapes: tuple[tuple[int, ...], ...]
    dtypes: tuple[str, ...]
    make: Callable[[tuple[int, ...], torch.dtype, torch.Generator], Inputs]
    reference: Callable[..., Any]
    quick: tuple[int, ...] = (0,)  # shape indices kept by --quick
    #: TileGym op file under tilegym/ops/cutile/ (e.g. "activation/relu.py"); "" for golden
    tilegym: str = ""
    #: (rtol, atol) per dtype name for Rust vs Python and vs the reference (TileGym's tests)
    tolerance: dict[str, tuple[float, float]] = field(default_factory=dict)
    #: the results' operator name (default: `op`)
    label: str = ""
    #: the op writes into its inputs (each side then gets its own copy for the check)
    inplace: bool = False

    @property
    def name(self) -> str:
        return self.label or self.op


def _randn(shape: tuple[int, ...], dtype: torch.dtype, gen: torch.Generator,
           scale: float = 1.0) -> torch.Tensor:
    out = torch.randn(shape, generator=gen, device="cuda", dtype=torch.float32) * scale
    return out.to(dtype)


def _rms_ref(x: torch.Tensor, w: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    xf = x.float()
    y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()
    return y.to(x.dtype)


def _ln_ref(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float = 1e-5):
    xf = x.float()
    mean = xf.mean(-1)
    rstd = torch.rsqrt(xf.var(-1, unbiased=False) + eps)
    y = F.layer_norm(xf, (x.shape[-1],), w.float(), b.float(), eps)
    return y.to(x.dtype), mean, rstd


def _swiglu_ref(gate_up: torch.Tensor, block_h: int = 512) -> torch.Tensor:
    gate, up = gate_up.float().chunk(2, dim=-1)
    return (F.silu(gate) * up).to(gate_up.dtype)


CASES: tuple[Case, ...] = (
    Case("vector_add", "vector_add", ((1 << 20,), (1 << 24,), (1 << 26,)), ("f32", "f16", "bf16"),
         lambda s, d, g: ((_randn(s, d, g), _randn(s, d, g)), {}),
         lambda a, b: a + b, quick=(1,)),
    Case("softmax_rows", "softmax", ((4096, 1024), (8192, 4096), (32768, 512)),
         ("f32", "f16", "bf16"),
         lambda s, d, g: ((_randn(s, d, g, 3.0),), {}),
         lambda x: torch.softmax(x.float(), -1).to(x.dtype), quick=(1,)),
    Case("rms_norm", "rms_norm", ((4096, 4096), (16384, 1024)), ("f32", "bf16"),
         lambda s, d, g: ((_randn(s, d, g), _randn(s[1:], d, g)), {"eps": 1e-6}),
         _rms_ref),
    Case("layer_norm", "layer_norm", ((4096, 4096), (16384, 1024)), ("f32", "f16", "bf16"),
         lambda s, d, g: ((_randn(s, d, g), _randn(s[1:], d, g), _randn(s[1:], d, g)), {}),
         _ln_ref),
    Case("matmul", "matmul", ((2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192)),
         ("f16", "bf16"),
         lambda s, d, g: ((_randn(s[:2], d, g), _randn(s[1:], d, g)), {}),
         lambda a, b: (a.float() @ b.float()).to(a.dtype), quick=(1,)),
    Case("gelu_tanh", "gelu", ((4096, 4096),), ("f32", "bf16"),
         lambda s, d, g: ((_randn(s, d, g, 2.0),), {}),
         lambda x: F.gelu(x.float(), approximate="tanh").to(x.dtype)),
    Case("silu", "silu", ((1 << 24,),), ("f32", "bf16"),
         lambda s, d, g: ((_randn(s, d, g, 2.0),), {}),
         lambda x: F.silu(x.float()).to(x.dtype)),
    Case("swiglu", "swiglu", ((4096, 8192),), ("bf16", "f16"),
         lambda s, d, g: ((_randn(s, d, g, 2.0),), {}), _swiglu_ref),
    Case("l2_normalize", "l2_normalize", ((16384, 1024),), ("f32", "bf16"),
         lambda s, d, g: ((_randn(s, d, g),), {}),
         lambda x, rows_per_block=8: F.normalize(x.float(), dim=-1).to(x.dtype)),
    Case("online_softmax", "online_softmax", ((4096, 8192),), ("f32", "bf16"),
         lambda s, d, g: ((_randn(s, d, g, 3.0),), {}),
         lambda x, tile_n=1024: torch.softmax(x.float(), -1).to(x.dtype)),
    Case("log_softmax", "logsumexp", ((8192, 2048),), ("f32", "bf16"),
         lambda s, d, g: ((_randn(s, d, g, 3.0),), {}),
         lambda x: torch.logsumexp(x.float(), -1)),
    Case("transpose", "transpose", ((4096, 4096),), ("f32", "bf16"),
         lambda s, d, g: ((_randn(s, d, g),), {}),
         lambda x, fold_into_load=False: x.t().contiguous()),
    Case("linear", "linear", ((4096, 4096, 4096),), ("bf16", "f16"),
         lambda s, d, g: ((_randn(s[:2], d, g), _randn((s[2], s[1]), d, g, 0.05),
                           _randn((s[2],), d, g)), {}),
         lambda x, w, b: (x.float() @ w.float().t() + b.float()).to(x.dtype)),
    Case("batched_matmul", "bmm", ((16, 1024, 1024, 1024),), ("f16", "bf16"),
         lambda s, d, g: ((_randn(s[:3], d, g), _randn((s[0], s[2], s[3]), d, g)), {}),
         lambda a, b: torch.bmm(a.float(), b.float()).to(a.dtype)),
)



def _tg_rand(shape: tuple[int, ...], dtype: torch.dtype, gen: torch.Generator, scale: float,
             shift: float) -> torch.Tensor:
    """`torch.rand(..) * scale + shift`, the input TileGym's tests draw."""
    out = torch.rand(shape, generator=gen, device="cuda", dtype=torch.float32) * scale + shift
    return out.to(dtype)


def _tg_rms_ref(x: torch.Tensor, shape: tuple[int, ...], w: torch.Tensor, eps: float,
                **_: Any) -> torch.Tensor:
    xf = x.float()
    y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return (w.float() * y.to(w.dtype).float()).to(x.dtype)


#: Forward TileGym ops whose kernels translate with IR verdict PASS/PASS_WITH_NOTES
#: (bench/results/tilegym.json) and whose launch sites get a launcher. Shapes: TileGym's
#: benchmark shapes where it has them (rms_norm: bench_rmsnorm.py, M 4096, N 1024..16384;
#: transpose: test_transpose.py perf, 2^6..2^14 squares), else its test shapes plus one
#: bandwidth-sized shape; tolerances: TileGym's tests'.
TILEGYM_CASES: tuple[Case, ...] = (
    Case("relu", "relu", ((256, 2048), (256, 32768), (8192, 8192)), ("f32", "f16"),
         lambda s, d, g: ((_tg_rand(s, d, g, 1.0, -0.5),), {}),
         lambda x: F.relu(x), quick=(2,), tilegym="activation/relu.py",
         tolerance={"f32": (1e-5, 1e-8), "f16": (1e-5, 1e-8), "bf16": (1e-5, 1e-8)},
         label="tilegym/relu"),
    Case("gelu", "gelu", ((256, 2048), (8192, 8192)), ("f32", "f16", "bf16"),
         lambda s, d, g: ((_tg_rand(s, d, g, 12.0, -6.0),), {"approximate": "tanh"}),
         lambda x, approximate: F.gelu(x.float(), approximate=approximate).to(x.dtype),
         quick=(1,), tilegym="activation/gelu.py",
         tolerance={"f32": (1e-6, 1e-6), "f16": (2e-3, 1e-5), "bf16": (1.6e-2, 1e-4)},
         label="tilegym/gelu_tanh"),
    Case("gelu", "gelu", ((8192, 8192),), ("f32", "bf16"),
         lambda s, d, g: ((_tg_rand(s, d, g, 12.0, -6.0),), {"approximate": "none"}),
         lambda x, approximate: F.gelu(x.float(), approximate=approximate).to(x.dtype),
         tilegym="activation/gelu.py",
         tolerance={"f32": (1e-6, 1e-6), "f16": (2e-3, 1e-5), "bf16": (1.6e-2, 1e-4)},
         label="tilegym/gelu"),
    Case("rms_norm", "rms_norm",
         tuple((4096, n) for n in (1024, 2048, 4096, 8192, 16384)), ("f16", "bf16"),
         lambda s, d, g: ((_tg_rand(s, d, g, 0.5, -2.3), (s[1],),
                           _randn((s[1],), d, g), 1e-5), {"mode": "static_persistent"}),
         _tg_rms_ref, quick=(2,), tilegym="rms_norm.py",
         tolerance={"f16": (0.0, 5e-2), "bf16": (0.0, 5e-2), "f32": (0.0, 5e-2)},
         label="tilegym/rms_norm"),
    Case("transpose", "transpose", tuple((1 << e, 1 << e) for e in (6, 8, 10, 12, 14)),
         ("f16", "f32"),
         lambda s, d, g: ((_tg_rand(s, d, g, 1.0, 0.0),), {}),
         lambda x: x.t().contiguous(), quick=(3,), tilegym="transpose.py",
         tolerance={"f16": (0.0, 0.0), "f32": (0.0, 0.0), "bf16": (0.0, 0.0)},
         label="tilegym/transpose"),
)


# ---- more TileGym forward operators -----------------------------------------------------------
#
# Shapes: TileGym's benchmark/test shapes where known, else typical model shapes (LLaMA-like
# heads of 128, GQA 4:1, sequence lengths 1k-16k); dtypes f16/bf16 (f32 where the op takes it).
# `bench_*` functions are the host functions bench/tilegym_hosts.py appends to the op file
# (kernels TileGym launches only through its autotuner; same config on both sides, no hints).

_F16 = {"f16": (1e-2, 1e-2), "bf16": (2e-2, 2e-2), "f32": (1e-5, 1e-5)}
_ATTN = {"f16": (1e-2, 1e-2), "bf16": (2e-2, 2e-2), "f32": (1e-4, 1e-4)}


def _tg_dropout_ref(x: torch.Tensor, seed: int, p: float = 0.5, **_: Any) -> torch.Tensor:
    return x  # the mask is the kernel's own hash: only Rust vs Python is checked


def _tg_splitk_make(s: tuple[int, ...], d: torch.dtype, g: torch.Generator) -> Inputs:
    b, h, splits, dim = s
    attn = _randn((b, h, splits, dim), d, g)
    lse = _randn((b, h, splits), torch.float32, g, 2.0)
    out = torch.empty((b, h, dim), device="cuda", dtype=d)
    return (attn, lse, out, splits * 256), {}


def _tg_splitk_ref(attn: torch.Tensor, lse: torch.Tensor, out: torch.Tensor, s_kv: int):
    w = torch.softmax(lse * math.log(2.0), dim=-1)  # lse is log2-sum-exp
    return (attn.float() * w[..., None]).sum(2).to(attn.dtype)


def _sdpa(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float,
          causal: bool) -> torch.Tensor:
    rep = q.shape[1] // k.shape[1]
    k = k.float().repeat_interleave(rep, dim=1)
    v = v.float().repeat_interleave(rep, dim=1)
    s = (q.float() @ k.transpose(-1, -2)) * scale
    if causal:
        lq, lk = s.shape[-2:]
        mask = torch.ones(lq, lk, device=s.device, dtype=torch.bool).tril(lk - lq)
        s = s.masked_fill(~mask, float("-inf"))
    return (torch.softmax(s, -1) @ v).to(q.dtype)


def _tg_decode_make(s: tuple[int, ...], d: torch.dtype, g: torch.Generator) -> Inputs:
    b, hq, hkv, seq, dim = s
    return ((_randn((b, hq, 1, dim), d, g), _randn((b, hkv, seq, dim), d, g),
             _randn((b, hkv, seq, dim), d, g), 1.0 / math.sqrt(dim)), {})


def _tg_decode_ref(q, k, v, sm_scale, kv_len_per_split=None):
    return _sdpa(q, k, v, sm_scale, False)


def _tg_sink_decode_make(s: tuple[int, ...], d: torch.dtype, g: torch.Generator) -> Inputs:
    b, hkv, groups, seq, dim = s
    start_q = torch.tensor([seq - 1], device="cuda", dtype=torch.int32)
    return ((_randn((b, 1, hkv, groups, dim), d, g), _randn((b, seq, hkv, dim), d, g),
             _randn((b, seq, hkv, dim), d, g), _randn((hkv * groups,), d, g),
             1.0 / math.sqrt(dim), None, start_q), {})


def _tg_sink_make(s: tuple[int, ...], d: torch.dtype, g: torch.Generator) -> Inputs:
    b, ctx, hkv, groups, dim, window = s
    start_q = torch.tensor([0], device="cuda", dtype=torch.int32)
    return ((_randn((b, ctx, hkv, groups, dim), d, g), _randn((b, ctx, hkv, dim), d, g),
             _randn((b, ctx, hkv, dim), d, g), _randn((hkv * groups,), torch.float32, g),
             1.0 / math.sqrt(dim), window or None, start_q), {})


def _sink_attention(q, k, v, sinks, scale, window, start_q) -> torch.Tensor:
    """Attention with one sink logit per head (gpt-oss): [B, Sq, Hkv, G, D] queries."""
    b, sq, hkv, groups, dim = q.shape
    skv = k.shape[1]
    qf = q.float().permute(0, 2, 3, 1, 4)  # B Hkv G Sq D
    kf = k.float().permute(0, 2, 1, 3)[:, :, None]  # B Hkv 1 Skv D
    vf = v.float().permute(0, 2, 1, 3)[:, :, None]
    s = (qf @ kf.transpose(-1, -2)) * scale  # B Hkv G Sq Skv
    qpos = int(start_q[0]) + torch.arange(sq, device=q.device)[:, None]
    kpos = torch.arange(skv, device=q.device)[None, :]
    mask = kpos <= qpos
    if window:
        mask &= kpos > qpos - window
    s = s.masked_fill(~mask, float("-inf"))
    sink = sinks.float().view(hkv, groups)[None, :, :, None, None].expand(b, -1, -1, sq, 1)
    p = torch.softmax(torch.cat([s, sink], -1), -1)[..., :-1]
    o = (p @ vf).permute(0, 3, 1, 2, 4)  # B Sq Hkv G D
    return o.reshape(b, sq, hkv * groups * dim).to(q.dtype)


def _tg_ln_make(s: tuple[int, ...], d: torch.dtype, g: torch.Generator) -> Inputs:
    c = s[1]
    return ((_randn(s, d, g), 1, 2, _randn((c,), d, g), _randn((c,), d, g), 1e-5), {})


def _tg_ln_ref(x, start_dim, end_dim, w, b, eps, weight_shift=0.0):
    xf = x.float().reshape(x.shape[0], x.shape[1], -1)
    mean = xf.mean(1, keepdim=True)
    var = xf.var(1, unbiased=False, keepdim=True)
    y = (xf - mean) * torch.rsqrt(var + eps) * w.float()[:, None] + b.float()[:, None]
    return y.reshape(x.shape).to(x.dtype)


def _tg_ln_legacy_ref(x, shape, w, b, eps, weight_shift=0.0):
    return F.layer_norm(x.float(), shape, w.float(), b.float(), eps).to(x.dtype)


def _tg_gluact_make(s: tuple[int, ...], d: torch.dtype, g: torch.Generator) -> Inputs:
    m, k, n1 = s
    return ((_randn((m, k), d, g, 0.5), _randn((n1, k), d, g, 0.02), _randn((n1, k), d, g, 0.02),
             0), {})


def _tg_gluact_ref(x, w_act, w_noact, act_type_id):
    a = x.float() @ w_act.float().t()
    n = x.float() @ w_noact.float().t()
    act = F.silu(a)
    return act.to(x.dtype), n.to(x.dtype), (act * n).to(x.dtype)


def _tg_attn_make(s: tuple[int, ...], d: torch.dtype, g: torch.Generator) -> Inputs:
    b, h, hkv, seq, dim, causal = s
    return ((_randn((b, h, seq, dim), d, g), _randn((b, hkv, seq, dim), d, g),
             _randn((b, hkv, seq, dim), d, g), 1.0 / math.sqrt(dim), bool(causal)), {})


def _tg_attn_lse_ref(q, k, v, scale, causal):
    rep = q.shape[1] // k.shape[1]
    s = (q.float() @ k.float().repeat_interleave(rep, 1).transpose(-1, -2)) * scale
    if causal:
        n = s.shape[-1]
        s = s.masked_fill(~torch.ones(n, n, device=s.device, dtype=torch.bool).tril(),
                          float("-inf"))
    return _sdpa(q, k, v, scale, causal), torch.logsumexp(s, -1) / math.log(2.0)


def _tg_mla_make(s: tuple[int, ...], d: torch.dtype, g: torch.Generator) -> Inputs:
    b, h, hkv, seq, dim, pe = s
    return ((_randn((b, h, seq, dim), d, g), _randn((b, hkv, seq, dim), d, g),
             _randn((b, hkv, seq, dim), d, g), _randn((b, h, seq, pe), d, g),
             _randn((b, 1, seq, pe), d, g), 1.0 / math.sqrt(dim + pe)), {})


def _tg_mla_ref(q, k, v, qpe, kpe, scale):
    rep = q.shape[1] // k.shape[1]
    kf = k.float().repeat_interleave(rep, 1)
    s = (q.float() @ kf.transpose(-1, -2) + qpe.float() @ kpe.float().transpose(-1, -2)) * scale
    n = s.shape[-1]
    s = s.masked_fill(~torch.ones(n, n, device=s.device, dtype=torch.bool).tril(), float("-inf"))
    return (torch.softmax(s, -1) @ v.float().repeat_interleave(rep, 1)).to(q.dtype)


def _tg_rope_make(s: tuple[int, ...], d: torch.dtype, g: torch.Generator) -> Inputs:
    b, hq, hkv, seq, dim = s
    inv = 1.0 / (10000 ** (torch.arange(0, dim, 2, device="cuda", dtype=torch.float32) / dim))
    freqs = torch.arange(seq, device="cuda", dtype=torch.float32)[:, None] * inv[None, :]
    emb = torch.cat([freqs, freqs], -1)[None]
    return ((_randn((b, hq, seq, dim), d, g), _randn((b, hkv, seq, dim), d, g),
             emb.cos().to(d), emb.sin().to(d)), {})


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    a, b = x.chunk(2, dim=-1)
    return torch.cat([-b, a], -1)


def _tg_rope_ref(q, k, cos, sin):
    c, s = cos.float()[:, None], sin.float()[:, None]
    return ((q.float() * c + _rotate_half(q.float()) * s).to(q.dtype),
            (k.float() * c + _rotate_half(k.float()) * s).to(k.dtype))


def _tg_rgdr_make(s: tuple[int, ...], d: torch.dtype, g: torch.Generator) -> Inputs:
    b, t, h, hv, qk, v = s
    gate = -F.softplus(_randn((b, t, hv), torch.float32, g)).to(d)
    beta = torch.sigmoid(_randn((b, t, hv), torch.float32, g)).to(d)
    return ((_randn((b, t, h, qk), d, g), _randn((b, t, h, qk), d, g),
             _randn((b, t, hv, v), d, g), gate, beta,
             _randn((b, hv, qk, v), torch.float32, g, 0.1)), {})


def _tg_rgdr_ref(q, k, v, gate, beta, state):
    """The gated delta rule, one step at a time (L2-normalized q/k, q scaled by 1/sqrt(K))."""
    b, t, h, qk = q.shape
    hv = v.shape[2]
    rep = hv // h
    qf = F.normalize(q.float(), dim=-1).repeat_interleave(rep, 2) / math.sqrt(qk)
    kf = F.normalize(k.float(), dim=-1).repeat_interleave(rep, 2)
    vf, gf, bf = v.float(), gate.float(), beta.float()
    st = state.clone()
    out = torch.empty_like(vf)
    for i in range(t):
        st = st * gf[:, i].exp()[..., None, None]
        mem = (st * kf[:, i][..., None]).sum(-2)
        delta = (vf[:, i] - mem) * bf[:, i][..., None]
        st = st + kf[:, i][..., None] * delta[..., None, :]
        out[:, i] = (st * qf[:, i][..., None]).sum(-2)
    return out.to(q.dtype), st


#: recurrent_gated_delta_rule: bf16 and f32 only (its launchers are built over f32/bf16,
#: launcher/stage_bench.sh says why).
TILEGYM_MORE: tuple[Case, ...] = (
    Case("dropout", "dropout", ((1 << 20,), (1 << 24,)), ("f32", "f16", "bf16"),
         lambda s, d, g: ((_randn(s, d, g), 1234), {"p": 0.5}),
         _tg_dropout_ref, quick=(1,), tilegym="dropout.py",
         tolerance={k: (0.0, 0.0) for k in DTYPES}, label="tilegym/dropout"),
    Case("splitk_reduce", "splitk_reduce", ((8, 32, 16, 128), (8, 32, 64, 128)),
         ("f16", "bf16"), _tg_splitk_make, _tg_splitk_ref, tilegym="splitk_reduce.py",
         tolerance=_F16, label="tilegym/splitk_reduce"),
    Case("swiglu", "swiglu", ((4096, 4096), (4096, 11008)), ("f16", "bf16", "f32"),
         lambda s, d, g: ((_randn(s, d, g, 2.0), _randn(s, d, g, 2.0)), {}),
         lambda a, b: (F.silu(a.float()) * b.float()).to(a.dtype), tilegym="swiglu.py",
         tolerance=_F16, label="tilegym/swiglu"),
    Case("flash_decode", "fmha_decode",
         ((8, 32, 8, 4096, 128), (8, 32, 8, 16384, 128), (16, 32, 32, 2048, 128)),
         ("f16", "bf16"), _tg_decode_make, _tg_decode_ref, tilegym="flash_decode.py",
         tolerance=_ATTN, label="tilegym/flash_decode"),
    Case("attention_sink_decode", "attention_sink_decode",
         ((4, 8, 8, 4096, 64), (4, 8, 8, 16384, 64)), ("f16", "bf16"),
         _tg_sink_decode_make, _sink_attention, tilegym="attention_sink_decode.py",
         tolerance=_ATTN, label="tilegym/attention_sink_decode"),
    Case("attention_sink", "attention_sink",
         ((2, 1024, 8, 8, 64, 0), (2, 4096, 8, 8, 64, 0), (2, 4096, 8, 8, 64, 128)),
         ("f16", "bf16"), _tg_sink_make, _sink_attention, tilegym="attention_sink.py",
         tolerance=_ATTN, label="tilegym/attention_sink"),
    Case("layer_norm", "layer_norm", ((8, 32, 4096), (32, 64, 1024)), ("f32", "f16", "bf16"),
         _tg_ln_make, _tg_ln_ref, tilegym="layer_norm.py", tolerance=_F16,
         label="tilegym/layer_norm"),
    Case("layer_norm", "layer_norm", ((4096, 1024, 1), (1024, 4096, 1)), ("f32", "bf16"),
         _tg_ln_make, _tg_ln_ref, tilegym="layer_norm.py", tolerance=_F16,
         label="tilegym/layer_norm_gather"),
    Case("layer_norm_legacy", "layer_norm_legacy", ((4096, 4096), (16384, 1024)),
         ("f32", "f16", "bf16"),
         lambda s, d, g: ((_randn(s, d, g), (s[1],), _randn((s[1],), d, g),
                           _randn((s[1],), d, g), 1e-5), {}),
         _tg_ln_legacy_ref, tilegym="layer_norm_legacy.py", tolerance=_F16,
         label="tilegym/layer_norm_legacy"),
    Case("rms_norm", "rms_norm", ((4096, 4096), (16384, 1024)), ("f16", "bf16"),
         lambda s, d, g: ((_tg_rand(s, d, g, 0.5, -2.3), (s[1],),
                           _randn((s[1],), d, g), 1e-5), {"mode": "multi_wave_cached"}),
         _tg_rms_ref, tilegym="rms_norm.py",
         tolerance={"f16": (0.0, 5e-2), "bf16": (0.0, 5e-2), "f32": (0.0, 5e-2)},
         label="tilegym/rms_norm_cached"),
    Case("rms_norm", "rms_norm", ((4096, 4096), (16384, 1024)), ("f16", "bf16"),
         lambda s, d, g: ((_tg_rand(s, d, g, 0.5, -2.3), (s[1],),
                           _randn((s[1],), d, g), 1e-5), {"mode": "multi_wave_reload"}),
         _tg_rms_ref, tilegym="rms_norm.py",
         tolerance={"f16": (0.0, 5e-2), "bf16": (0.0, 5e-2), "f32": (0.0, 5e-2)},
         label="tilegym/rms_norm_gather"),
    Case("softmax", "bench_softmax", ((4096, 4096), (16384, 1024)), ("f32", "bf16"),
         lambda s, d, g: ((_randn(s, d, g, 3.0),), {}),
         lambda x: torch.softmax(x.float(), -1).to(x.dtype), tilegym="softmax.py",
         tolerance=_F16, label="tilegym/softmax"),
    Case("softmax", "bench_softmax_tma", ((4096, 4096), (16384, 1024)), ("f32", "bf16"),
         lambda s, d, g: ((_randn(s, d, g, 3.0),), {}),
         lambda x: torch.softmax(x.float(), -1).to(x.dtype), tilegym="softmax.py",
         tolerance=_F16, label="tilegym/softmax_tma"),
    Case("softmax", "softmax", ((4096, 4096), (16384, 1024)), ("f32", "bf16"),
         lambda s, d, g: ((_randn(s, d, g, 3.0),), {"use_multi_wave": True}),
         lambda x, use_multi_wave: torch.softmax(x.float(), -1).to(x.dtype),
         tilegym="softmax.py", tolerance=_F16, label="tilegym/softmax_multi_wave"),
    Case("softmax", "softmax", ((4096, 16384), (1024, 65536)), ("f32", "bf16"),
         lambda s, d, g: ((_randn(s, d, g, 3.0),), {"use_chunked": True}),
         lambda x, use_chunked: torch.softmax(x.float(), -1).to(x.dtype),
         tilegym="softmax.py", tolerance=_F16, label="tilegym/softmax_chunked"),
    Case("silu_and_mul", "bench_silu_and_mul", ((4096, 8192), (8192, 22016)),
         ("f16", "bf16", "f32"), lambda s, d, g: ((_randn(s, d, g, 2.0),), {}),
         lambda x: (F.silu(x.float()[:, :x.shape[1] // 2]) * x.float()[:, x.shape[1] // 2:]
                    ).to(x.dtype), tilegym="silu_and_mul.py", tolerance=_F16,
         label="tilegym/silu_and_mul"),
    Case("rope", "bench_rope", ((4, 32, 8, 2048, 128), (1, 32, 8, 8192, 128)),
         ("f16", "bf16", "f32"), _tg_rope_make, _tg_rope_ref, tilegym="rope.py",
         tolerance=_F16, label="tilegym/rope", inplace=True),
    Case("bmm", "bmm", ((16, 1024, 1024, 1024), (8, 2048, 2048, 2048)), ("f16", "bf16"),
         lambda s, d, g: ((_randn(s[:3], d, g), _randn((s[0], s[2], s[3]), d, g)),
                          {"static_persistent": False}),
         lambda a, b, static_persistent: torch.bmm(a.float(), b.float()).to(a.dtype),
         tilegym="bmm.py", tolerance=_F16, label="tilegym/bmm"),
    Case("bmm", "bench_static_persistent_bmm", ((16, 1024, 1024, 1024), (8, 2048, 2048, 2048)),
         ("f16", "bf16"),
         lambda s, d, g: ((_randn(s[:3], d, g), _randn((s[0], s[2], s[3]), d, g)), {}),
         lambda a, b: torch.bmm(a.float(), b.float()).to(a.dtype),
         tilegym="bmm.py", tolerance=_F16, label="tilegym/bmm_persistent"),
    Case("matmul", "bench_matmul", ((2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192)),
         ("f16", "bf16"),
         lambda s, d, g: ((_randn(s[:2], d, g), _randn(s[1:], d, g)), {}),
         lambda a, b: (a.float() @ b.float()).to(a.dtype), quick=(1,), tilegym="matmul.py",
         tolerance=_F16, label="tilegym/matmul"),
    Case("matmul", "bench_static_persistent_matmul",
         ((2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192)), ("f16", "bf16"),
         lambda s, d, g: ((_randn(s[:2], d, g), _randn(s[1:], d, g)), {}),
         lambda a, b: (a.float() @ b.float()).to(a.dtype), quick=(1,), tilegym="matmul.py",
         tolerance=_F16, label="tilegym/matmul_persistent"),
    Case("linear_gluact_linear", "bench_linear_gluact", ((4096, 4096, 4096), (2048, 4096, 11008)),
         ("f16", "bf16"), _tg_gluact_make, _tg_gluact_ref, tilegym="linear_gluact_linear.py",
         tolerance=_F16, label="tilegym/linear_gluact"),
    Case("attention", "bench_fmha",
         ((4, 32, 32, 1024, 128, 1), (4, 32, 8, 4096, 128, 1), (4, 32, 32, 2048, 64, 0)),
         ("f16", "bf16"), _tg_attn_make, _sdpa, tilegym="attention.py", tolerance=_ATTN,
         label="tilegym/fmha"),
    Case("attention", "bench_fmha_with_lse",
         ((4, 32, 32, 1024, 128, 1), (4, 32, 8, 4096, 128, 1)), ("f16", "bf16"),
         _tg_attn_make, _tg_attn_lse_ref, tilegym="attention.py", tolerance=_ATTN,
         label="tilegym/fmha_with_lse"),
    Case("mla", "bench_mla", ((2, 16, 16, 2048, 128, 64), (1, 32, 32, 4096, 128, 64)),
         ("f16", "bf16"), _tg_mla_make, _tg_mla_ref, tilegym="mla.py", tolerance=_ATTN,
         label="tilegym/mla"),
    Case("recurrent_gated_delta_rule", "bench_rgdr_standard",
         ((2, 512, 16, 32, 128, 128), (8, 128, 16, 32, 128, 128)), ("bf16", "f32"),
         _tg_rgdr_make, _tg_rgdr_ref, tilegym="recurrent_gated_delta_rule.py",
         tolerance=_ATTN, label="tilegym/rgdr"),
    Case("recurrent_gated_delta_rule", "bench_rgdr_persistent",
         ((2, 512, 16, 32, 128, 128), (8, 128, 16, 32, 128, 128)), ("bf16", "f32"),
         _tg_rgdr_make, _tg_rgdr_ref, tilegym="recurrent_gated_delta_rule.py",
         tolerance=_ATTN, label="tilegym/rgdr_persistent"),
    Case("recurrent_gated_delta_rule", "bench_rgdr_decode",
         ((32, 1, 16, 32, 128, 128), (128, 1, 16, 32, 128, 128)), ("bf16", "f32"),
         _tg_rgdr_make, _tg_rgdr_ref, tilegym="recurrent_gated_delta_rule.py",
         tolerance=_ATTN, label="tilegym/rgdr_decode"),
)



# ---- TileGym forward operators translated since (attention variants, gemma, MLA decoding) ------
#
# TileGym's wheel carries no benchmarks or tests for these: typical model shapes (LLaMA-like
# heads of 64/128 with GQA 4:1; Gemma 2: heads of 256, soft cap 50, sliding window 4096;
# DeepSeek MLA decoding: kv_lora_rank 512 + rope 64, 16 or 128 heads). f16/bf16 (geglu f32 too).


def _masked_sdpa(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float, causal: bool,
                 window: int = 0, soft_cap: float = 0.0, q_len: int | None = None,
                 kv_len: int | None = None) -> torch.Tensor:
    """[B, H, Sq, D] attention (GQA by repeat), float32: query i sits at key position
    i + kv_len - q_len; causal keys j <= that, window |j - that| <= window, keys < kv_len."""
    rep = q.shape[1] // k.shape[1]
    kf = k.float().repeat_interleave(rep, dim=1)
    vf = v.float().repeat_interleave(rep, dim=1)
    s = (q.float() @ kf.transpose(-1, -2)) * scale
    if soft_cap:
        s = soft_cap * torch.tanh(s / soft_cap)
    sq, skv = s.shape[-2:]
    q_len = sq if q_len is None else q_len
    kv_len = skv if kv_len is None else kv_len
    qpos = torch.arange(sq, device=s.device)[:, None] + (kv_len - q_len)
    kpos = torch.arange(skv, device=s.device)[None, :]
    mask = (kpos < kv_len) & (kpos <= qpos if causal else True)
    if window:
        mask = mask & ((kpos - qpos).abs() <= window)
    s = s.masked_fill(~mask, float("-inf"))
    return torch.softmax(s, -1) @ vf


def _tg_variant_make(s: tuple[int, ...], d: torch.dtype, g: torch.Generator) -> Inputs:
    b, h, hkv, seq, dim, causal, window = s
    return ((_randn((b, h, seq, dim), d, g), _randn((b, hkv, seq, dim), d, g),
             _randn((b, hkv, seq, dim), d, g), 1.0 / math.sqrt(dim), bool(causal), window), {})


def _tg_variant_ref(q, k, v, scale, causal, window):
    return _masked_sdpa(q, k, v, scale, causal, window).to(q.dtype)


def _tg_variant_nsbd_make(s: tuple[int, ...], d: torch.dtype, g: torch.Generator) -> Inputs:
    (q, k, v, *rest), kwargs = _tg_variant_make(s, d, g)
    return (*(t.permute(1, 2, 0, 3).contiguous() for t in (q, k, v)), *rest), kwargs


def _tg_variant_nsbd_ref(q, k, v, scale, causal, window):
    q, k, v = (t.permute(2, 0, 1, 3) for t in (q, k, v))  # [H, S, B, D] -> [B, H, S, D]
    return _masked_sdpa(q, k, v, scale, causal, window).permute(1, 2, 0, 3).to(q.dtype)


def _tg_varlen_make(s: tuple[int, ...], d: torch.dtype, g: torch.Generator) -> Inputs:
    """Per-sequence lengths: query lengths whole 64-row tiles (TILE_M), key lengths >= them."""
    b, h, hkv, seq, dim, causal = s
    q_lens = torch.randint(seq // 256, seq // 64 + 1, (b,), generator=g, device="cuda") * 64
    kv_lens = q_lens + (torch.rand((b,), generator=g, device="cuda") * (seq - q_lens)).long()
    return ((_randn((b, h, seq, dim), d, g), _randn((b, hkv, seq, dim), d, g),
             _randn((b, hkv, seq, dim), d, g), 1.0 / math.sqrt(dim), bool(causal),
             q_lens.to(torch.int32), kv_lens.to(torch.int32)), {})


def _tg_varlen_ref(q, k, v, scale, causal, q_lens, kv_lens):
    out = torch.zeros_like(q)
    for i, (ql, kl) in enumerate(zip(q_lens.tolist(), kv_lens.tolist(), strict=True)):
        o = _masked_sdpa(q[i:i + 1], k[i:i + 1], v[i:i + 1], scale, causal, q_len=ql, kv_len=kl)
        out[i, :, :ql] = o[0, :, :ql].to(q.dtype)
    return out


def _tg_geglu_ref(x: torch.Tensor, dim: int = -1, approximate: str = "none") -> torch.Tensor:
    a, b = x.float().chunk(2, dim=dim)
    return (a * F.gelu(b, approximate=approximate)).to(x.dtype)


def _tg_gemma_make(s: tuple[int, ...], d: torch.dtype, g: torch.Generator) -> Inputs:
    b, h, hkv, seq, dim, causal, window, cap = s
    return ((_randn((b, h, seq, dim), d, g), _randn((b, hkv, seq, dim), d, g),
             _randn((b, hkv, seq, dim), d, g), 1.0 / math.sqrt(dim), window,
             float(cap) if cap else None, bool(causal)), {})


def _tg_gemma_ref(q, k, v, scale, window, cap, causal):
    return _masked_sdpa(q, k, v, scale, causal, window, cap or 0.0).to(q.dtype)


def _tg_gemma_decode_make(s: tuple[int, ...], d: torch.dtype, g: torch.Generator) -> Inputs:
    b, h, hkv, seq, dim, window, cap = s
    return ((_randn((b, h, 1, dim), d, g), _randn((b, hkv, seq, dim), d, g),
             _randn((b, hkv, seq, dim), d, g), 1.0 / math.sqrt(dim), window,
             float(cap) if cap else None), {})


def _tg_gemma_decode_ref(q, k, v, scale, window, cap):
    """The query at the last position; a window keeps keys j >= S - 1 - window."""
    return _masked_sdpa(q, k, v, scale, True, window, cap or 0.0, q_len=1).to(q.dtype)


def _tg_mla_decode_make(s: tuple[int, ...], d: torch.dtype, g: torch.Generator) -> Inputs:
    b, h, skv = s
    return ((_randn((b, h, 512), d, g), _randn((b, h, 64), d, g), _randn((b, skv, 512), d, g),
             _randn((b, skv, 64), d, g), 1.0 / math.sqrt(512 + 64)), {})


def _tg_mla_decode_ref(q, qpe, kv, kpe, scale, kv_len_per_split=None):
    """Output and, for mla_decoding, the log2-sum-exp of the scaled scores per head."""
    s = (q.float() @ kv.float().transpose(-1, -2) + qpe.float() @ kpe.float().transpose(-1, -2))
    s = s * scale
    return (torch.softmax(s, -1) @ kv.float()).to(q.dtype), torch.logsumexp(s, -1) / math.log(2)


_VARIANT_SHAPES = ((4, 32, 32, 1024, 128, 1, 0), (4, 32, 8, 4096, 128, 1, 0),
                   (4, 32, 32, 2048, 64, 0, 0), (2, 32, 8, 4096, 128, 1, 256))

TILEGYM_NEW: tuple[Case, ...] = (
    Case("attention_variant", "bench_fmha_variant_bnsd", _VARIANT_SHAPES, ("f16", "bf16"),
         _tg_variant_make, _tg_variant_ref, tilegym="attention_variant.py", tolerance=_ATTN,
         label="tilegym/fmha_variant_bnsd"),
    Case("attention_variant", "bench_fmha_variant_nsbd", _VARIANT_SHAPES, ("f16", "bf16"),
         _tg_variant_nsbd_make, _tg_variant_nsbd_ref, tilegym="attention_variant.py",
         tolerance=_ATTN, label="tilegym/fmha_variant_nsbd"),
    Case("attention_varlen", "bench_fmha_varlen",
         ((4, 32, 32, 2048, 128, 1), (8, 32, 8, 4096, 128, 1), (4, 32, 32, 2048, 64, 0)),
         ("f16", "bf16"), _tg_varlen_make, _tg_varlen_ref, tilegym="attention_varlen.py",
         tolerance=_ATTN, label="tilegym/fmha_varlen"),
    Case("geglu", "geglu", ((2048, 8192), (4096, 22016), (8, 1024, 8192)),
         ("f32", "f16", "bf16"),
         lambda s, d, g: ((_randn(s, d, g, 2.0),), {"dim": -1, "approximate": "none"}),
         _tg_geglu_ref, tilegym="activation/geglu.py", tolerance=_F16, label="tilegym/geglu"),
    Case("geglu", "geglu", ((2048, 8192), (4096, 22016)), ("f32", "f16", "bf16"),
         lambda s, d, g: ((_randn(s, d, g, 2.0),), {"dim": -1, "approximate": "tanh"}),
         _tg_geglu_ref, tilegym="activation/geglu.py", tolerance=_F16,
         label="tilegym/geglu_tanh"),
    Case("gemma_attention", "gemma_attention_cutile",
         ((2, 16, 8, 2048, 256, 1, 0, 50), (1, 16, 8, 8192, 256, 1, 4096, 50),
          (4, 8, 4, 1024, 256, 1, 0, 0), (4, 32, 16, 2048, 128, 1, 0, 0)), ("f16", "bf16"),
         _tg_gemma_make, _tg_gemma_ref, tilegym="gemma_attention.py", tolerance=_ATTN,
         label="tilegym/gemma_attention"),
    Case("gemma_attention_decode", "gemma_fmha_decode",
         ((8, 16, 8, 4096, 256, 0, 50), (8, 8, 4, 16384, 256, 4096, 0),
          (16, 32, 16, 2048, 128, 0, 0)), ("f16", "bf16"),
         _tg_gemma_decode_make, _tg_gemma_decode_ref, tilegym="gemma_attention_decode.py",
         tolerance=_ATTN, label="tilegym/gemma_attention_decode"),
    Case("mla_decoding", "mla_decoding", ((32, 128, 4096), (64, 16, 8192), (8, 128, 16384)),
         ("f16", "bf16"), _tg_mla_decode_make, _tg_mla_decode_ref, tilegym="mla_decoding.py",
         tolerance=_ATTN, label="tilegym/mla_decoding"),
    Case("mla_decoding_split_kv", "mla_decoding_split_kv",
         ((32, 128, 4096), (64, 16, 8192), (8, 128, 16384)), ("f16", "bf16"),
         _tg_mla_decode_make, lambda *a: _tg_mla_decode_ref(*a)[0],
         tilegym="mla_decoding_split_kv.py", tolerance=_ATTN,
         label="tilegym/mla_decoding_split_kv"),
)

#: Names a wrapper imports from another TileGym op file whose Rust translation it should call
#: (flash_decode, attention_sink_decode, gemma_attention_decode and mla_decoding_split_kv
#: finish with splitk_reduce).
RUST_IMPORTS: dict[str, dict[str, str]] = {
    "flash_decode.py": {"splitk_reduce": "splitk_reduce.py"},
    "attention_sink_decode.py": {"splitk_reduce": "splitk_reduce.py"},
    "gemma_attention_decode.py": {"splitk_reduce": "splitk_reduce.py"},
    "mla_decoding_split_kv.py": {"splitk_reduce": "splitk_reduce.py"},
}


# ---- loading --------------------------------------------------------------------------------


def load_module(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class Pair:
    """The original host function and its drop-in, for one operator."""

    case: Case
    python: Callable[..., Any]
    rust: Callable[..., Any]
    wrapper: Any
    source: Path  # the original's source file


def load_pair(case: Case, stage: Path, library: Path) -> Pair:
    if case.tilegym:
        original, wrapper = load_tilegym(case.tilegym, stage)
        own = library.parent / f"libtl_tg_{case.tilegym.removesuffix('.py').replace('/', '_')}.so"
        library = own if own.exists() else library.parent / "libtl_tilegym.so"
        for name, other in RUST_IMPORTS.get(case.tilegym, {}).items():
            _, other_wrapper = load_tilegym(other, stage)
            other_wrapper.load_library(library)
            setattr(wrapper, name, getattr(other_wrapper, name))
        source = stage / "tilegym_src" / "tilegym" / "ops" / "cutile" / case.tilegym
    else:
        source = REPO / "golden" / f"{case.op}.py"
        original = load_module(f"orig_{case.op}", source)
        wrapper = load_module(f"tl_{case.op}", stage / f"{case.op}_wrapper.py")
    wrapper.load_library(library)
    return Pair(case, getattr(original, case.function), getattr(wrapper, case.function), wrapper,
                source)


def load_tilegym(relative: str, stage: Path) -> tuple[Any, Any]:
    """TileGym's op module `tilegym/ops/cutile/<relative>` and its wrapper, both loaded as
    modules of that package (relative imports work) from `STAGE/tilegym_src`, whose package
    `__init__`s are empty."""
    import importlib
    import sys as _sys

    root = stage / "tilegym_src"
    if str(root) not in _sys.path:
        _sys.path.insert(0, str(root))
    dotted = "tilegym.ops.cutile." + relative.removesuffix(".py").replace("/", ".")
    original = importlib.import_module(dotted)
    package, _, stem = dotted.rpartition(".")
    name = f"{package}._tl_{stem}"
    if name in _sys.modules:
        return original, _sys.modules[name]
    wrapper_path = stage / f"tg_{relative.removesuffix('.py').replace('/', '_')}_wrapper.py"
    spec = importlib.util.spec_from_file_location(name, wrapper_path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {wrapper_path}")
    wrapper = importlib.util.module_from_spec(spec)
    _sys.modules[name] = wrapper
    spec.loader.exec_module(wrapper)
    return original, wrapper


# ---- correctness ----------------------------------------------------------------------------


def _tensors(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, tuple | list):
        return [t for v in value for t in _tensors(v)]
    return []


def _poison(nbytes: int) -> None:
    """Leaves NaN-filled blocks in the caching allocator, so an unwritten output shows."""
    block = torch.full((max(nbytes, 4) // 4,), float("nan"), device="cuda")
    del block


def _bytes(value: Any) -> int:
    return sum(t.numel() * t.element_size() for t in _tensors(value))


def check(pair: Pair, shape: tuple[int, ...], dtype: torch.dtype, seed: int) -> dict[str, Any]:
    # Each side gets its own inputs, equal ones (same seed): ops that write into an argument
    # (an output buffer, or in place) would otherwise hand both sides the same tensor.
    args, kwargs = pair.case.make(shape, dtype, torch.Generator(device="cuda").manual_seed(seed))
    py_args, py_kwargs = pair.case.make(shape, dtype,
                                        torch.Generator(device="cuda").manual_seed(seed))
    ref_args, ref_kwargs = (pair.case.make(shape, dtype,
                                           torch.Generator(device="cuda").manual_seed(seed))
                            if pair.case.inplace else (args, kwargs))
    pair.wrapper.CHECK_GRID = True
    try:
        _poison(4 * _bytes(args))
        got = pair.rust(*args, **kwargs)
        _poison(4 * _bytes(args))
        want = pair.python(*py_args, **py_kwargs)
        torch.cuda.synchronize()
    finally:
        pair.wrapper.CHECK_GRID = False
    ref = pair.case.reference(*ref_args, **ref_kwargs)
    got_t, want_t, ref_t = _tensors(got), _tensors(want), _tensors(ref)
    result: dict[str, Any] = {"outputs": len(got_t), "seed": seed}
    if len(got_t) != len(want_t):
        return {**result, "ok": False, "error": f"{len(got_t)} outputs vs {len(want_t)}"}
    mismatch = []
    tolerance = pair.case.tolerance.get(_dtype_name(dtype))
    close = {} if tolerance is None else {"rtol": tolerance[0], "atol": tolerance[1]}
    result["tolerance"] = close or "torch.testing default"
    for i, (g, w) in enumerate(zip(got_t, want_t, strict=True)):
        try:
            torch.testing.assert_close(g, w, equal_nan=False, **close)
        except AssertionError as err:
            mismatch.append(f"output {i}: {str(err).splitlines()[0:3]}")
    if tolerance is not None:  # TileGym's tests compare with the reference: so do we
        result["rust_within_tolerance_of_reference"] = _all_close(got_t, ref_t, close)
        result["python_within_tolerance_of_reference"] = _all_close(want_t, ref_t, close)
    result["ok"] = not mismatch
    result["mismatch"] = mismatch
    result["bitwise"] = all(g.shape == w.shape and bool(torch.equal(g, w))
                            for g, w in zip(got_t, want_t, strict=True))
    result["max_abs_diff"] = max((float((g.float() - w.float()).abs().max())
                                  for g, w in zip(got_t, want_t, strict=True)
                                  if g.shape == w.shape and g.numel()), default=0.0)
    result["nan_in_rust"] = any(bool(torch.isnan(g.float()).any()) for g in got_t)
    result["rel_l2_vs_torch"] = {
        "rust": [_rel_l2(g, r) for g, r in zip(got_t, ref_t, strict=False)],
        "python": [_rel_l2(w, r) for w, r in zip(want_t, ref_t, strict=False)],
    }
    return result


def _dtype_name(dtype: torch.dtype) -> str:
    return next(name for name, value in DTYPES.items() if value == dtype)


def _all_close(got: list[torch.Tensor], ref: list[torch.Tensor],
               close: dict[str, float]) -> bool:
    try:
        for g, r in zip(got, ref, strict=False):
            torch.testing.assert_close(g, r.to(g.dtype), **close)
    except AssertionError:
        return False
    return True


def _rel_l2(x: torch.Tensor, ref: torch.Tensor) -> float:
    if x.shape != ref.shape:
        return float("nan")
    ref64 = ref.double()
    return float((x.double() - ref64).norm() / ref64.norm().clamp_min(1e-30))


# ---- timing ---------------------------------------------------------------------------------


def input_sets(case: Case, shape: tuple[int, ...], dtype: torch.dtype,
               l2_bytes: int) -> list[Inputs]:
    """Enough input sets that rotating through them does not run from L2 (at most 8)."""
    gen = torch.Generator(device="cuda").manual_seed(1234)
    first = case.make(shape, dtype, gen)
    per_call = max(2 * _bytes(first[0]), 1)
    count = min(8, max(1, math.ceil(3 * l2_bytes / per_call)))
    return [first] + [case.make(shape, dtype, gen) for _ in range(count - 1)]


def whole_call_us(fns: dict[str, Callable[..., Any]], sets: list[Inputs],
                  iters: int) -> dict[str, list[float]]:
    """CUDA events around each Python call on an idle GPU; the two interleaved."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    out: dict[str, list[float]] = {name: [] for name in fns}
    names = list(fns)
    for i in range(iters):
        args, kwargs = sets[i % len(sets)]
        for name in (names if i % 2 == 0 else names[::-1]):
            torch.cuda.synchronize()
            start.record()
            fns[name](*args, **kwargs)
            end.record()
            end.synchronize()
            out[name].append(start.elapsed_time(end) * 1000.0)
    return out


def translated_kernel_names(source: Path, case: Case) -> tuple[str, ...]:
    """The names of the kernels an operator's source file defines (`@ct.kernel` functions,
    with those of the files its translation imports): the device kernels of either side
    whose time counts. A Rust entry's name starts with its Python kernel's, so a name
    matches both sides; torch's own kernels (copies, fills, the same on both sides) never
    carry one."""
    import ast

    files = [source] + [source.parent / other for other in RUST_IMPORTS.get(case.tilegym, {})
                        .values()]
    names: set[str] = set()
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names |= {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
                  and any("kernel" in ast.unparse(d) for d in node.decorator_list)}
    return tuple(sorted(names))


def kernel_rounds(fns: dict[str, Callable[..., Any]], sets: list[Inputs], rounds: int,
                  kernels: tuple[str, ...], flush: torch.Tensor) -> dict[str, list[float]]:
    """CUPTI durations (torch.profiler) of the translated kernels of each call, in rounds:
    each round calls every side once, in alternating order, with L2 flushed before each
    call (a write of a buffer larger than L2) and the GPU idle between calls. A device
    kernel belongs to the call whose CPU range (the call, then a synchronize) holds it;
    only kernels named in `kernels` count."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile, record_function

    names = list(fns)
    order: list[str] = []
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for i in range(rounds):
            args, kwargs = sets[i % len(sets)]
            for name in (names if i % 2 == 0 else names[::-1]):
                flush.zero_()
                torch.cuda.synchronize()
                with record_function(f"tl_call_{len(order)}"):
                    fns[name](*args, **kwargs)
                    torch.cuda.synchronize()
                order.append(name)
    events = prof.events()
    ranges = {int(e.name.rsplit("_", 1)[1]): e.time_range for e in events
              if e.name.startswith("tl_call_") and e.device_type != DeviceType.CUDA}
    device = [e for e in events if e.device_type == DeviceType.CUDA
              and any(k in e.name for k in kernels)]
    per_call = [0.0] * len(order)
    seen = [0] * len(order)
    for e in device:
        for index, span in ranges.items():
            if span.start <= e.time_range.start and e.time_range.end <= span.end:
                per_call[index] += e.time_range.elapsed_us()
                seen[index] += 1
                break
    if len(ranges) != len(order) or not all(seen):
        raise RuntimeError(f"{sum(seen)} translated kernels attributed to "
                           f"{sum(1 for n in seen if n)} of {len(order)} calls")
    out: dict[str, list[float]] = {name: [] for name in names}
    for name, value in zip(order, per_call, strict=True):
        out[name].append(value)
    return out


def ratio_interval(python: list[float], rust: list[float], seed: int = 0,
                   resamples: int = 2000) -> tuple[float, float]:
    """A 95% bootstrap interval of median(rust) / median(python), resampling whole rounds
    (the two sides of a round are paired: they ran back to back)."""
    import random

    rng = random.Random(seed)
    count = min(len(python), len(rust))
    ratios = []
    for _ in range(resamples):
        picks = [rng.randrange(count) for _ in range(count)]
        ratios.append(statistics.median(rust[i] for i in picks)
                      / statistics.median(python[i] for i in picks))
    return _pct(ratios, 0.025), _pct(ratios, 0.975)


def time_pair(pair: Pair, shape: tuple[int, ...], dtype: torch.dtype, l2_bytes: int,
              iters: int) -> dict[str, Any]:
    sets = input_sets(pair.case, shape, dtype, l2_bytes)
    fns = {"python": pair.python, "rust": pair.rust}
    for _ in range(3):
        for fn in fns.values():
            for args, kwargs in sets[:2]:
                fn(*args, **kwargs)
    torch.cuda.synchronize()
    call = whole_call_us(fns, sets, iters)
    out: dict[str, Any] = {"input_sets": len(sets), "iters": iters}
    measured: list[tuple[str, dict[str, list[float]]]] = [("call_us", call)]
    try:
        flush = torch.empty(2 * l2_bytes // 4 + 1024, dtype=torch.float32, device="cuda")
        kernels = translated_kernel_names(pair.source, pair.case)
        measured.insert(0, ("kernel_us", kernel_rounds(fns, sets, iters, kernels, flush)))
        out["kernels_counted"] = list(kernels)
        del flush
    except Exception as err:  # noqa: BLE001 - keep the call times
        out["kernel_error"] = f"{type(err).__name__}: {err}"
    for kind, data in measured:
        med = {name: statistics.median(v) for name, v in data.items()}
        spread = {name: [_pct(v, 0.1), _pct(v, 0.9)] for name, v in data.items()}
        out[kind] = med
        out[kind + "_p10_p90"] = spread
        ratio = kind.replace("_us", "_ratio")
        out[ratio] = med["rust"] / med["python"]
        out[ratio + "_ci95"] = list(ratio_interval(data["python"], data["rust"]))
    return out


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# ---- report ---------------------------------------------------------------------------------


def geomean(values: list[float]) -> float | None:
    values = [v for v in values if v and v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    timed = [r for r in rows if "timing" in r]
    per_op: dict[str, Any] = {}
    for op in dict.fromkeys(r["op"] for r in timed):
        mine = [r["timing"] for r in timed if r["op"] == op]
        per_op[op] = {"configs": len(mine),
                      "kernel_ratio_geomean": geomean([t["kernel_ratio"] for t in mine]),
                      "call_ratio_geomean": geomean([t["call_ratio"] for t in mine])}
    ranked = sorted((s["kernel_ratio_geomean"], op) for op, s in per_op.items()
                    if s["kernel_ratio_geomean"])
    return {
        "per_op": per_op,
        "worst_op_kernel": ({"op": ranked[-1][1], "kernel_ratio_geomean": ranked[-1][0]}
                            if ranked else None),
        "overall": {
            "configs": len(timed),
            "kernel_ratio_geomean": geomean([r["timing"]["kernel_ratio"] for r in timed]),
            "call_ratio_geomean": geomean([r["timing"]["call_ratio"] for r in timed]),
            "correct": sum(1 for r in rows if r.get("check", {}).get("ok")),
            "bitwise": sum(1 for r in rows if r.get("check", {}).get("bitwise")),
            "checked": sum(1 for r in rows if "check" in r),
            "errors": sum(1 for r in rows if r.get("error")),
        },
    }


def _f(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def markdown(meta: dict[str, Any], rows: list[dict[str, Any]], summary: dict[str, Any]) -> str:
    lines = ["# GPU bench: cuTile Python originals vs Rust translations", "",
             "Generated by `bench/gpu_bench.py` on the device machine; ratio = Rust / Python "
             "(below 1: the Rust translation is faster). Kernel: CUPTI time of the translated "
             "kernels per call (torch.profiler; torch's own copies and fills, the same on both "
             "sides, are not counted), median over rounds; each round calls both sides once, "
             "in alternating order, with L2 flushed before each call; the interval is a 95% "
             "bootstrap interval over rounds. Call: CUDA events around the Python call on an "
             "idle GPU (host work + launch + kernel), median. Both interleaved in one run after "
             "warm-up; inputs rotate over several sets.", "",
             "## Setup", ""]
    lines += [f"- {key}: {value}" for key, value in meta.items()]
    lines += ["", "## Per configuration", "",
              "| op | shape | dtype | correct | bitwise | kernel py µs | kernel rs µs | ratio "
              "| 95% interval | call py µs | call rs µs | ratio |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        c, t = r.get("check", {}), r.get("timing", {})
        k, w = t.get("kernel_us", {}), t.get("call_us", {})
        status = "ERROR" if r.get("error") else ("yes" if c.get("ok") else "**NO**")
        lines.append(
            f"| {r['op']} | {'x'.join(map(str, r['shape']))} | {r['dtype']} | {status} | "
            f"{'yes' if c.get('bitwise') else 'no'} | {_f(k.get('python'))} | "
            f"{_f(k.get('rust'))} | {_f(t.get('kernel_ratio'), 3)} | "
            f"{_interval(t.get('kernel_ratio_ci95'))} | {_f(w.get('python'))} | "
            f"{_f(w.get('rust'))} | {_f(t.get('call_ratio'), 3)} |")
    lines += _slow_configurations(rows)
    lines += ["", "## Geomeans of Rust / Python", "", "| op | configs | kernel | call |",
              "|---|---|---|---|"]
    for op, s in summary["per_op"].items():
        lines.append(f"| {op} | {s['configs']} | {_f(s['kernel_ratio_geomean'], 3)} | "
                     f"{_f(s['call_ratio_geomean'], 3)} |")
    o = summary["overall"]
    lines.append(f"| **all** | {o['configs']} | {_f(o['kernel_ratio_geomean'], 3)} | "
                 f"{_f(o['call_ratio_geomean'], 3)} |")
    worst = summary.get("worst_op_kernel")
    lines += ["", f"Correct: {o['correct']}/{o['checked']} (bitwise {o['bitwise']}); "
              f"errors: {o['errors']}."
              + (f" Slowest operator (kernel, Rust / Python): {worst['op']} "
                 f"{worst['kernel_ratio_geomean']:.3f}." if worst else ""), ""]
    fast = [(r["op"], r["fast_stats_op"]) for r in rows if "fast_stats_op" in r]
    if fast:
        lines += ["## Launcher fast path (calls per operator)", "",
                  "| op | fast | checked | keys remembered | refused |", "|---|---|---|---|---|"]
        lines += [f"| {op} | {f['fast']} | {f['checked']} | {f['remembered']} | {f['refused']} |"
                  for op, f in fast]
        lines.append("")
    problems = [r for r in rows if r.get("error") or not r.get("check", {}).get("ok", True)]
    if problems:
        lines += ["## Problems (bugs to report, not tolerances to loosen)", ""]
        for r in problems:
            detail = r.get("error") or "; ".join(r["check"].get("mismatch", []))
            lines.append(f"- {r['op']} {r['shape']} {r['dtype']}: {detail[:600]}")
        lines.append("")
    return "\n".join(lines)


#: A configuration is listed as slower when its whole interval lies above this ratio.
SLOW_RATIO = 1.03


def _interval(ci: list[float] | None) -> str:
    return "-" if not ci else f"{ci[0]:.3f}-{ci[1]:.3f}"


def _slow_configurations(rows: list[dict[str, Any]], worst: int = 8) -> list[str]:
    """Every configuration whose kernel-time interval lies above `SLOW_RATIO`, and the
    slowest ones by their lower bound, with their spread."""
    timed = [r for r in rows if r.get("timing", {}).get("kernel_ratio_ci95")]
    ranked = sorted(timed, key=lambda r: -r["timing"]["kernel_ratio_ci95"][0])
    slow = [r for r in ranked if r["timing"]["kernel_ratio_ci95"][0] > SLOW_RATIO]
    lines = ["", f"## Configurations slower than {SLOW_RATIO:.2f} (interval above it)", ""]
    lines += [f"- {r['op']} {'x'.join(map(str, r['shape']))} {r['dtype']}: "
              f"{r['timing']['kernel_ratio']:.3f} ({_interval(r['timing']['kernel_ratio_ci95'])})"
              for r in slow] or ["None."]
    lines += ["", "## Slowest configurations (by the interval's lower bound)", "",
              "| op | shape | dtype | ratio | 95% interval | rust p10-p90 µs | python p10-p90 µs |",
              "|---|---|---|---|---|---|---|"]
    for r in ranked[:worst]:
        t = r["timing"]
        spread = t.get("kernel_us_p10_p90", {})
        lines.append(f"| {r['op']} | {'x'.join(map(str, r['shape']))} | {r['dtype']} | "
                     f"{t['kernel_ratio']:.3f} | {_interval(t['kernel_ratio_ci95'])} | "
                     + " | ".join("-".join(f"{v:.1f}" for v in spread.get(side, []))
                                  for side in ("rust", "python")) + " |")
    return lines


def metadata(stage: Path) -> dict[str, Any]:
    props = torch.cuda.get_device_properties(0)
    meta: dict[str, Any] = {
        "device": f"{props.name} ({props.multi_processor_count} SMs, "
                  f"{props.total_memory / 2**30:.0f} GiB, "
                  f"L2 {props.L2_cache_size / 2**20:.0f} MiB)",
        "driver": _run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]),
        "torch": torch.__version__, "cuda (torch)": torch.version.cuda,
        "python": platform.python_version(),
        "cuda-tile (cuTile Python)": _version("cuda-tile"),
        "cutile (Rust)": "0.5.0", "tileiras": _run(["tileiras", "--version"]).splitlines()[-1:],
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
    }
    stage_info = stage / "stage.json"
    if stage_info.exists():
        meta.update(json.loads(stage_info.read_text()))
    return meta


def _run(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError) as err:
        return f"({err})"


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "(not installed)"


# ---- driver ---------------------------------------------------------------------------------


@dataclass
class Budget:
    seconds: float
    start: float = field(default_factory=time.monotonic)

    def left(self) -> float:
        return self.seconds - (time.monotonic() - self.start)


def run_case(case: Case, stage: Path, library: Path, args: argparse.Namespace,
             budget: Budget, l2_bytes: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    try:
        pair = load_pair(case, stage, library)
    except Exception as err:  # noqa: BLE001 - reported per operator
        return [{"op": case.name, "shape": [], "dtype": "-", "error": f"load: {err!r}"}]
    shapes = [case.shapes[i] for i in case.quick] if args.quick else list(case.shapes)
    before = fast_stats(pair.wrapper)
    for shape in shapes:
        for dname in case.dtypes:
            if budget.left() < 20:
                rows.append({"op": case.name, "shape": list(shape), "dtype": dname,
                             "error": "skipped: time budget"})
                continue
            rows.append(run_config(pair, shape, dname, args, l2_bytes))
            print(_row_line(rows[-1]), flush=True)
    after = fast_stats(pair.wrapper)
    if rows and before and after:
        rows[-1]["fast_stats_op"] = {k: after[k] - before[k] for k in after}
    return rows


def fast_stats(wrapper: Any) -> dict[str, int] | None:
    """The launcher library's fast-path counters (`tl_fast_stats`), or None without them."""
    import ctypes

    lib = wrapper._tl_state.get("lib")
    if lib is None or not hasattr(lib, "tl_fast_stats"):
        return None
    out = (ctypes.c_uint64 * 4)()
    lib.tl_fast_stats(out)
    return dict(zip(("fast", "checked", "remembered", "refused"), out, strict=True))


def run_config(pair: Pair, shape: tuple[int, ...], dname: str, args: argparse.Namespace,
               l2_bytes: int) -> dict[str, Any]:
    row: dict[str, Any] = {"op": pair.case.name, "function": pair.case.function,
                           "shape": list(shape), "dtype": dname}
    dtype = DTYPES[dname]
    try:
        started = time.monotonic()
        row["check"] = check(pair, shape, dtype, seed=len(shape) * 7919 + sum(shape) % 1000)
        row["first_call_s"] = round(time.monotonic() - started, 2)
        if not args.no_timing:
            row["timing"] = time_pair(pair, shape, dtype, l2_bytes, args.iters)
    except Exception as err:  # noqa: BLE001 - reported per configuration
        row["error"] = f"{type(err).__name__}: {err}"
        row["traceback"] = traceback.format_exc()[-3000:]
    finally:
        torch.cuda.empty_cache()
    return row


def _row_line(r: dict[str, Any]) -> str:
    t = r.get("timing", {})
    head = f"{r['op']:16s} {'x'.join(map(str, r['shape'])):18s} {r['dtype']:5s}"
    if r.get("error"):
        return f"{head} ERROR {r['error'][:200]}"
    c = r["check"]
    return (f"{head} ok={c['ok']} bitwise={c['bitwise']} "
            f"kernel py/rs {_f(t.get('kernel_us', {}).get('python'))}/"
            f"{_f(t.get('kernel_us', {}).get('rust'))} us  call py/rs "
            f"{_f(t.get('call_us', {}).get('python'))}/{_f(t.get('call_us', {}).get('rust'))} us")


def sanity(stage: Path, library: Path) -> int:
    """No Tile IR toolchain needed: versions, the library loads, every wrapper imports."""
    print(json.dumps(metadata(stage), indent=1, default=str))
    import ctypes

    lib = ctypes.CDLL(str(library))
    print("abi", lib.tl_abi_version())
    for case in (*CASES, *TILEGYM_CASES, *TILEGYM_MORE, *TILEGYM_NEW):
        try:
            import cuda.tile  # noqa: F401 - the originals need it

            pair = load_pair(case, stage, library)
            print("ok", case.name, sorted(pair.wrapper._TL_SITES))
        except Exception as err:  # noqa: BLE001
            print("FAIL", case.name, repr(err))
    return 0


def overhead(stage: Path, library: Path) -> dict[str, Any]:
    """Host cost per call of each layer (wall clock over many unsynchronized calls on small
    inputs, so the host, not the GPU, is the bottleneck), in microseconds."""
    out: dict[str, Any] = {}
    cases = {c.op: c for c in CASES}
    for op, shape in (("vector_add", (1 << 16,)), ("softmax_rows", (256, 1024)),
                      ("layer_norm", (256, 1024))):
        res = _overhead_case(cases[op], shape, stage, library)
        out[f"{op} {shape}"] = res
        print(op, {k: (round(v, 2) if isinstance(v, float) else v) for k, v in res.items()},
              flush=True)
    return out


def _overhead_case(case: Case, shape: tuple[int, ...], stage: Path,
                   library: Path) -> dict[str, Any]:
    import cuda.tile as ct

    pair = load_pair(case, stage, library)
    args, kwargs = case.make(shape, torch.float32, torch.Generator(device="cuda"))
    w = pair.wrapper
    # The arguments each side's launch site gets, captured from one call.
    site: list[tuple[Any, ...]] = []
    checked = w._tl_launch_checked

    def capture(*launch: Any) -> None:
        site.append(launch)
        checked(*launch)

    w._tl_launch_checked, w.CHECK_GRID = capture, True
    try:
        pair.rust(*args, **kwargs)
    finally:
        w._tl_launch_checked, w.CHECK_GRID = checked, False
    number, stream, grid, kernel, kargs = site[0]
    launched: list[tuple[Any, ...]] = []
    real_launch = ct.launch
    ct.launch = lambda *a: launched.append(a) or real_launch(*a)
    try:
        pair.python(*args, **kwargs)
    finally:
        ct.launch = real_launch
    symbol, names, specs, grid_param = w._TL_SITES[number][kernel.name]
    launch = w._tl_function(symbol, specs, grid_param)
    cargs = w._tl_args(names, specs, kargs)
    handle = torch.cuda.current_stream().cuda_stream or None
    values: list[Any] = [handle or 0, torch.cuda.current_device()]
    for value, kind in zip(kargs, specs, strict=True):
        values += ([value.data_ptr(), w._TL_DTYPE_CODES[value.dtype], *value.shape,
                    *value.stride()] if kind[0] == "A" else [value])
    pack = getattr(w, "_tl_pack_0", None)
    record = pack(*values) if pack else None
    packed = w._tl_packed(symbol) if pack else None
    fast = dict(kernel.fast)
    site_name = f"_tl_site_{number}"
    site_fn = getattr(w, site_name, None) or (
        lambda *a: w._tl_launch_site(number, *a))  # a wrapper from before the stand-ins
    fns: dict[str, Callable[[], Any]] = {
        "python_original": lambda: pair.python(*args, **kwargs),
        "rust_wrapper": lambda: pair.rust(*args, **kwargs),
        "cutile_python_launch_only": lambda: real_launch(*launched[0]),
        # What host code calls in place of ct.launch (native where the library makes it).
        "rust_launch_site_only": lambda: site_fn(stream, grid, kernel, kargs),
        "rust_launch_site_python": lambda: w._tl_launch_site(number, stream, grid, kernel,
                                                             kargs),
        "c_launcher_prebuilt_args": lambda: launch(handle, 0, *cargs),
        "torch_empty_like": lambda: torch.empty_like(args[0]),
        "ctypes_empty_call": w._tl_state["lib"].tl_abi_version,
    }
    if packed is not None:
        fns["c_packed_prebuilt"] = lambda: packed(record)
        fns["python_pack_only"] = lambda: pack(*values)
    res: dict[str, Any] = {name: _host_us(fn) for name, fn in fns.items()}
    kernel.fast = {}
    python_sites = getattr(w, "_TL_SITE_PYTHON", {})
    native_sites = {n: getattr(w, f"_tl_site_{n}") for n in python_sites}
    for n, fn in python_sites.items():
        setattr(w, f"_tl_site_{n}", fn)
    try:
        res["rust_wrapper_checked_python_path"] = _host_us(lambda: pair.rust(*args, **kwargs))
    finally:
        kernel.fast = fast
        for n, fn in native_sites.items():
            setattr(w, f"_tl_site_{n}", fn)
    res["native_launch_site"] = not hasattr(site_fn, "__code__")
    res["fast_stats"] = fast_stats(w)
    res["fast_path_env"] = os.environ.get("TRANSPILER_LAUNCHER_FAST", "(unset)")
    return res


def _host_us(fn: Callable[[], Any], calls: int = 3000) -> float:
    for _ in range(200):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - t0) / calls * 1e6)
        torch.cuda.synchronize()
    return statistics.median(samples)


def included_rows(files: list[Path], measured: set[str],
                  meta: dict[str, Any]) -> list[dict[str, Any]]:
    """Configurations of earlier runs (`--include`) for operators this run does not measure;
    `meta["runs"]` lists each run's date."""
    rows: list[dict[str, Any]] = []
    runs = [meta.get("date")]
    taken = set(measured)  # an operator's rows come from one run: the first file that has it
    for path in files:
        if not path.exists():  # an earlier process that died before writing: nothing to add
            runs.append(f"({path.name} missing)")
            continue
        earlier = json.loads(path.read_text())
        ops = {r["op"] for r in earlier["configs"]} - taken
        runs.append(f"{earlier['meta'].get('date')} ({path.name}: {len(ops)} operators)")
        rows += [r for r in earlier["configs"] if r["op"] in ops]
        taken |= ops
    if files:
        meta["runs"] = runs
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stage", type=Path, default=REPO / ".tlbench")
    parser.add_argument("--library", type=Path, help="default: STAGE/libtl_launchers.so")
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "bench/results")))
    parser.add_argument("--ops", help="comma-separated operators: golden stems, TileGym "
                        "labels (tilegym/relu, ...); default: all")
    parser.add_argument("--iters", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="one shape per operator")
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--budget", type=float, default=480.0, help="seconds before skipping")
    parser.add_argument("--sanity", action="store_true")
    parser.add_argument("--overhead", action="store_true", help="host cost per layer only")
    parser.add_argument("--tag", default="", help="suffix of the --overhead output file")
    parser.add_argument("--include", type=Path, action="append", default=[],
                        help="gpu.json of an earlier run (same stage) whose configurations of "
                             "operators this run does not measure join the report")
    args = parser.parse_args(argv)
    library = args.library or args.stage / "libtl_launchers.so"
    if args.sanity:
        return sanity(args.stage, library)
    if args.overhead:
        args.out.mkdir(parents=True, exist_ok=True)
        data = overhead(args.stage, library)
        name = f"gpu_overhead{'_' + args.tag if args.tag else ''}.json"
        (args.out / name).write_text(json.dumps(data, indent=1, default=str))
        return 0
    wanted = set(args.ops.split(",")) if args.ops else None
    budget = Budget(args.budget)
    l2_bytes = torch.cuda.get_device_properties(0).L2_cache_size
    meta = metadata(args.stage)
    args.out.mkdir(parents=True, exist_ok=True)
    selected = [case for case in (*CASES, *TILEGYM_CASES, *TILEGYM_MORE, *TILEGYM_NEW)
                if wanted is None or case.name in wanted
                or (not case.tilegym and case.op in wanted)]
    rows: list[dict[str, Any]] = included_rows(args.include, {c.name for c in selected}, meta)
    order = {c.name: i for i, c in enumerate((*CASES, *TILEGYM_CASES, *TILEGYM_MORE, *TILEGYM_NEW))}
    for case in selected:
        rows.extend(run_case(case, args.stage, library, args, budget, l2_bytes))
        rows.sort(key=lambda r: order.get(r["op"], len(order)))  # stable: shapes keep order
        summary = summarize(rows)
        report = {"meta": meta, "configs": rows, **summary}
        (args.out / "gpu.json").write_text(json.dumps(report, indent=1, default=str))
        (args.out / "gpu.md").write_text(markdown(meta, rows, summary))
    print(markdown(meta, rows, summarize(rows)))
    return 0 if all(r.get("check", {}).get("ok") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
