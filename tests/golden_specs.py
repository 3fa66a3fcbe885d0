"""Specializations of the golden corpus kernels (golden/*.py), as data.

Keyed by golden file stem; each entry lists one `KernelSpec` per kernel and element type that the
file's host code supports, with the tile sizes the host code launches with.
"""

from __future__ import annotations

from transpiler.ircheck.spec import ArraySpec, ConstSpec, KernelSpec, ParamSpec, ScalarSpec


def _arr(dtype: str, ndim: int) -> ArraySpec:
    return ArraySpec(dtype=dtype, ndim=ndim)


def _spec(kernel: str, *params: tuple[str, ParamSpec]) -> KernelSpec:
    return KernelSpec(kernel=kernel, params=tuple(params))


GOLDEN_SPECS: dict[str, list[KernelSpec]] = {
    "vector_add": [
        _spec("vector_add_kernel", ("a", _arr(dt, 1)), ("b", _arr(dt, 1)), ("c", _arr(dt, 1)),
              ("TILE", ConstSpec(1024)))
        for dt in ("float32", "float16", "bfloat16")
    ],
    "saxpy": [
        _spec("saxpy_kernel", ("alpha", ScalarSpec("float32")), ("x", _arr("float32", 1)),
              ("y", _arr("float32", 1)), ("TILE", ConstSpec(2048))),
    ],
    "softmax_rows": [
        _spec("softmax_row_kernel", ("x", _arr(dt, 2)), ("y", _arr(dt, 2)),
              ("TILE_N", ConstSpec(n)))
        for dt, n in (("float32", 1024), ("float16", 2048), ("bfloat16", 4096))
    ],
    "online_softmax": [
        _spec("online_softmax_kernel", ("x", _arr(dt, 2)), ("y", _arr(dt, 2)),
              ("n_cols", ScalarSpec("int32")), ("TILE_N", ConstSpec(1024)))
        for dt in ("float32", "bfloat16")
    ],
    "layer_norm": [
        _spec("layer_norm_fwd_kernel", ("X", _arr(dt, 2)), ("W", _arr(dt, 1)),
              ("B", _arr(dt, 1)), ("Y", _arr(dt, 2)), ("Mean", _arr("float32", 1)),
              ("Rstd", _arr("float32", 1)), ("N", ScalarSpec("int32")),
              ("eps", ConstSpec(1e-5)), ("BLOCK_N", ConstSpec(1024)))
        for dt in ("float32", "float16", "bfloat16")
    ],
    "rms_norm": [
        _spec("rms_norm_kernel", ("x", _arr(dt, 2)), ("w", _arr(dt, 1)), ("y", _arr(dt, 2)),
              ("n_cols", ScalarSpec("int32")), ("eps", ScalarSpec("float32")),
              ("TILE_N", ConstSpec(4096)), ("OFFSET_ONE", ConstSpec(off)))
        for dt, off in (("float32", False), ("bfloat16", True), ("bfloat16", False))
    ],
    "gelu_tanh": [
        _spec("gelu_kernel", ("x", _arr(dt, 2)), ("y", _arr(dt, 2)),
              ("TM", ConstSpec(4)), ("TN", ConstSpec(256)))
        for dt in ("float32", "float16", "bfloat16")
    ],
    "silu": [
        _spec("silu_kernel", ("x", _arr(dt, 1)), ("y", _arr(dt, 1)), ("TILE_SIZE", ConstSpec(1024)))
        for dt in ("float32", "float16", "bfloat16")
    ],
    "swiglu": [
        _spec("swiglu_kernel", ("gate_up", _arr(dt, 2)), ("out", _arr(dt, 2)),
              ("hidden", ScalarSpec("int32")), ("BLOCK_H", ConstSpec(512)))
        for dt in ("bfloat16", "float16")
    ],
    "matmul": [
        _spec("matmul_kernel", ("A", _arr(dt, 2)), ("B", _arr(dt, 2)), ("C", _arr(dt, 2)),
              ("TILE_M", ConstSpec(128)), ("TILE_N", ConstSpec(128)), ("TILE_K", ConstSpec(64)))
        for dt in ("float16", "bfloat16")
    ],
    "matmul_grouped_order": [
        _spec("grouped_matmul_kernel", ("A", _arr(dt, 2)), ("B", _arr(dt, 2)),
              ("C", _arr(dt, 2)), ("TM", ConstSpec(128)), ("TN", ConstSpec(256)),
              ("TK", ConstSpec(64)))
        for dt in ("float16", "bfloat16")
    ],
    "matmul_tf32": [
        _spec("matmul_tf32_kernel", ("A", _arr(dt, 2)), ("B", _arr(dt, 2)), ("C", _arr(dt, 2)),
              ("BM", ConstSpec(128)), ("BN", ConstSpec(128)), ("BK", ConstSpec(32)))
        for dt in ("float32", "bfloat16")
    ],
    "batched_matmul": [
        _spec("bmm_kernel", ("A", _arr(dt, 3)), ("B", _arr(dt, 3)), ("C", _arr(dt, 3)),
              ("TM", ConstSpec(64)), ("TN", ConstSpec(64)), ("TK", ConstSpec(32)))
        for dt in ("float16", "bfloat16")
    ],
    "batched_matmul_scaled": [
        _spec("scaled_bmm_kernel", ("A", _arr("float32", 3)), ("B", _arr("float32", 3)),
              ("C", _arr("float32", 3)), ("scale", ConstSpec(0.125)),
              ("BLOCK_M", ConstSpec(64)), ("BLOCK_N", ConstSpec(128)), ("BLOCK_K", ConstSpec(32))),
    ],
    "transpose": [
        _spec(kernel, ("x", _arr(dt, 2)), ("out", _arr(dt, 2)),
              ("TM", ConstSpec(64)), ("TN", ConstSpec(64)))
        for kernel in ("transpose_kernel", "transpose_order_kernel")
        for dt in ("float32", "bfloat16")
    ],
    "embedding": [
        _spec(kernel, ("ids", _arr("int32", 1)), (second, _arr(dt, 2)), (third, _arr(dt, 2)),
              ("BLOCK_T", ConstSpec(16)), ("DIM", ConstSpec(256)))
        for kernel, second, third in (("embedding_fwd_kernel", "table", "out"),
                                      ("embedding_bwd_kernel", "grad", "table_grad"))
        for dt in ("float32", "bfloat16")
    ],
    "dropout": [
        _spec("dropout_kernel", ("x", _arr(dt, 1)), ("y", _arr(dt, 1)),
              ("seed", ScalarSpec("int32")), ("p", ConstSpec(0.1)), ("TILE", ConstSpec(1024)))
        for dt in ("float32", "float16", "bfloat16")
    ],
    "persistent_scale_bias": [
        _spec("persistent_scale_bias_kernel", ("x", _arr(dt, 2)), ("scale", _arr(dt, 1)),
              ("bias", _arr(dt, 1)), ("y", _arr(dt, 2)), ("TM", ConstSpec(64)),
              ("TN", ConstSpec(128)))
        for dt in ("float32", "bfloat16")
    ],
    "matmul_persistent": [
        _spec("persistent_matmul_kernel", ("A", _arr(dt, 2)), ("B", _arr(dt, 2)),
              ("C", _arr(dt, 2)), ("BM", ConstSpec(128)), ("BN", ConstSpec(128)),
              ("BK", ConstSpec(64)))
        for dt in ("float16", "bfloat16")
    ],
    "reductions": [
        _spec("row_stats_kernel", ("x", _arr(dt, 2)), ("row_sum", _arr("float32", 1)),
              ("row_max", _arr("float32", 1)), ("BLOCK_M", ConstSpec(16)),
              ("BLOCK_N", ConstSpec(256)))
        for dt in ("float32", "bfloat16")
    ] + [
        _spec("col_stats_kernel", ("x", _arr(dt, 2)), ("col_sum", _arr("float32", 1)),
              ("col_max", _arr("float32", 1)), ("BLOCK_M", ConstSpec(64)),
              ("BLOCK_N", ConstSpec(128)))
        for dt in ("float32", "bfloat16")
    ],
    "fused_bias_activation": [
        _spec("bias_act_kernel", ("x", _arr(dt, 2)), ("bias", _arr(dt, 1)),
              ("residual", _arr(dt, 2)), ("y", _arr(dt, 2)), ("ACT", ConstSpec(act)),
              ("HAS_RESIDUAL", ConstSpec(res)), ("TM", ConstSpec(64)), ("TN", ConstSpec(128)))
        for dt, act, res in (("float32", 0, False), ("bfloat16", 1, True),
                             ("bfloat16", 2, False), ("float16", 0, True))
    ],
    "flash_attention": [
        _spec("flash_attn_fwd_kernel", ("Q", _arr(dt, 3)), ("K", _arr(dt, 3)),
              ("V", _arr(dt, 3)), ("O", _arr(dt, 3)), ("sm_scale", ScalarSpec("float32")),
              ("seq_kv", ScalarSpec("int32")), ("BLOCK_M", ConstSpec(128)),
              ("BLOCK_N", ConstSpec(64)), ("HEAD_DIM", ConstSpec(d)))
        for dt, d in (("float16", 64), ("bfloat16", 128))
    ],
    "log_softmax": [
        _spec("log_softmax_nll_kernel", ("logits", _arr(dt, 2)), ("targets", _arr("int32", 1)),
              ("logp", _arr(dt, 2)), ("loss", _arr("float32", 1)), ("TILE_C", ConstSpec(1024)))
        for dt in ("float32", "bfloat16")
    ] + [
        _spec("logsumexp_kernel", ("x", _arr(dt, 2)), ("lse", _arr("float32", 1)),
              ("TILE_C", ConstSpec(1024)))
        for dt in ("float32", "bfloat16")
    ],
    "alternating_rows": [
        _spec("alternating_rows_kernel", ("x", _arr(dt, 2)), ("out", _arr(dt, 2)),
              ("ROWS", ConstSpec(8)), ("TILE_N", ConstSpec(256)))
        for dt in ("float32", "bfloat16")
    ],
    "clamp_fp16": [
        # y float32 too: cuTile Python widens the stored float16 tile (its own variant).
        _spec("clamp_fp16_kernel", ("x", _arr("float16", 2)), ("y", _arr(dt, 2)),
              ("LO", ConstSpec(-448.0)), ("HI", ConstSpec(448.0)), ("TILE_M", ConstSpec(32)),
              ("TILE_N", ConstSpec(128)))
        for dt in ("float16", "float32")
    ],
    "l2_normalize": [
        _spec("l2_normalize_kernel", ("x", _arr(dt, 2)), ("y", _arr(dt, 2)),
              ("ROWS", ConstSpec(8)), ("DIM", ConstSpec(1024)))
        for dt in ("float32", "bfloat16")
    ],
    "outer_bias": [
        _spec("outer_bias_kernel", ("x", _arr("float32", 2)), ("r", _arr("float32", 1)),
              ("c", _arr("float32", 1)), ("u", _arr("float32", 1)), ("v", _arr("float32", 1)),
              ("y", _arr("float32", 2)), ("TM", ConstSpec(32)), ("TN", ConstSpec(64))),
    ],
    "masked_copy_tail": [
        _spec("scaled_copy_kernel", ("src", _arr(dt, 1)), ("dst", _arr(dt, 1)),
              ("n", ScalarSpec("int32")), ("scale", ScalarSpec("float32")),
              ("TILE_SIZE", ConstSpec(512)))
        for dt in ("float32", "bfloat16")
    ],
    "splitk_reduce": [
        _spec("splitk_reduce_kernel", ("partials", _arr("float32", 3)), ("out", _arr(dt, 2)),
              ("SPLITS", ConstSpec(4)), ("BM", ConstSpec(64)), ("BN", ConstSpec(128)))
        for dt in ("bfloat16", "float16", "float32")
    ],
    "int8_dequant": [
        _spec("dequant_int8_kernel", ("q", _arr("int8", 2)), ("scales", _arr("float32", 1)),
              ("w", _arr("bfloat16", 2)), ("BLOCK_R", ConstSpec(16)), ("BLOCK_C", ConstSpec(256))),
        _spec("quant_int8_kernel", ("w", _arr("bfloat16", 2)), ("q", _arr("int8", 2)),
              ("scales", _arr("float32", 1)), ("BLOCK_R", ConstSpec(8)), ("COLS", ConstSpec(4096))),
    ],
    "fp8_block_scaled_matmul": [
        # float8 operands (the kernel's padding names their type), float32 scales, the
        # bfloat16 output the host builds.
        _spec("fp8_block_matmul_kernel", ("A", _arr("float8_e4m3fn", 2)),
              ("B", _arr("float8_e4m3fn", 2)), ("C", _arr("bfloat16", 2)),
              ("A_scale", _arr("float32", 2)), ("B_scale", _arr("float32", 2)),
              ("BLOCK_M", ConstSpec(64)), ("BLOCK_N", ConstSpec(128)), ("BLOCK_K", ConstSpec(128))),
    ],
    "rope": [
        _spec("rope_kernel", ("x", _arr(dt, 3)), ("cos", _arr(dt, 2)), ("sin", _arr(dt, 2)),
              ("HEADS", ConstSpec(8)), ("HALF", ConstSpec(64)))
        for dt in ("float32", "bfloat16")
    ],
    "moe_expert_offsets": [
        _spec("expert_offsets_kernel", ("expert_ids", _arr("int32", 1)),
              ("counts", _arr("int32", 1)), ("offsets", _arr("int32", 1)),
              ("TOKENS", ConstSpec(1024)), ("EXPERTS", ConstSpec(64))),
    ],
    "split_heads": [
        _spec("split_heads_kernel", ("qkv", _arr(dt, 3)), ("q", _arr(dt, 4)), ("k", _arr(dt, 4)),
              ("v", _arr(dt, 4)), ("HEADS", ConstSpec(16)), ("BLOCK_S", ConstSpec(64)),
              ("HEAD_DIM", ConstSpec(128)))
        for dt in ("float16", "bfloat16")
    ],
    "linear": [
        _spec("linear_kernel", ("x", _arr(dt, 2)), ("weight", _arr(dt, 2)), ("bias", _arr(dt, 1)),
              ("y", _arr(dt, 2)), ("HAS_BIAS", ConstSpec(has_bias)), ("TM", ConstSpec(128)),
              ("TN", ConstSpec(64)), ("TK", ConstSpec(64)))
        for dt, has_bias in (("float16", True), ("bfloat16", True), ("bfloat16", False))
    ],
    "gram_matrix": [
        _spec("gram_kernel", ("X", _arr("float32", 2)), ("G", _arr("float32", 2)),
              ("n_samples", ScalarSpec("int32")), ("TS", ConstSpec(64)), ("TD", ConstSpec(64))),
    ],
    "row_scale_ragged": [
        _spec("row_scale_kernel", ("x", _arr(dt, 2)), ("w", _arr(dt, 1)), ("y", _arr(dt, 2)),
              ("N", ConstSpec(n)), ("offset", ConstSpec(1.0)), ("TILE", ConstSpec(tile)))
        # Ragged with several column tiles, exact, and ragged with a single column tile.
        for dt, n, tile in (("float32", 3000, 1024), ("float16", 2048, 1024),
                            ("bfloat16", 4100, 1024), ("float32", 1000, 1024))
    ],
    "segment_glu": [
        _spec("segment_glu_kernel", ("x", _arr(dt, 2)), ("y", _arr(dt, 2)),
              ("offsets", _arr("int32", 1)), ("scales", _arr("float32", 1)),
              ("D", ConstSpec(d)), ("TM", ConstSpec(32)), ("TD", ConstSpec(128)))
        # A half that is a whole number of column tiles, and one that is not.
        for dt, d in (("float32", 256), ("float16", 512), ("bfloat16", 320))
    ],
    "causal_block_sum": [
        _spec("causal_block_sum_kernel", ("x", _arr(dt, 1)), ("y", _arr(dt, 1)),
              ("n_blocks", ScalarSpec("int32")), ("TILE", ConstSpec(256)),
              ("MASKED", ConstSpec(masked)))
        for dt, masked in (("float32", True), ("bfloat16", True), ("float32", False))
    ],
    "qk_normalize": [
        _spec("qk_rows_kernel", ("q", _arr(dt, 2)), ("k", _arr(dt, 2)), ("out", _arr(dt, 2)),
              ("eps", ScalarSpec("float32")), ("DIM", ConstSpec(128)),
              ("NORMALIZE", ConstSpec(normalize)))
        for dt, normalize in (("float16", True), ("bfloat16", True), ("float16", False))
    ],
    "decayed_state": [
        _spec("decayed_state_kernel", ("k", _arr(dt, 3)), ("v", _arr(dt, 3)), ("out", _arr(dt, 2)),
              ("decay", ScalarSpec("float32")), ("T", ConstSpec(16)), ("D", ConstSpec(256)))
        for dt in ("float32", "bfloat16")
    ],
    "loop_invariants": [
        _spec("decayed_chunks_kernel", ("x", _arr(dt, 2)), ("w", _arr(dt, 1)), ("y", _arr(dt, 2)),
              ("scale", ScalarSpec("float32")), ("n_chunks", ScalarSpec("int32")),
              ("TILE", ConstSpec(64)), ("CHUNK", ConstSpec(32)))
        for dt in ("float32", "bfloat16")
    ],
    "banded_stream": [
        _spec("banded_stream_kernel", ("x", _arr(dt, 2)), ("y", _arr(dt, 2)),
              ("band", _arr(dt, 2)), ("pairs", _arr(dt, 2)), ("n_band", ScalarSpec("int32")),
              ("TILE", ConstSpec(128)))
        for dt in ("float32", "float16")
    ],
    "ordered_store": [
        _spec("scaled_transpose_kernel", ("x", _arr(dt, 2)), ("y", _arr(dt, 2)),
              ("alpha", ScalarSpec("float32")), ("TM", ConstSpec(64)), ("TN", ConstSpec(32)))
        for dt in ("float32", "bfloat16")
    ],
    "inplace_prefix": [
        _spec("inplace_prefix_kernel", ("x", _arr(dt, 2)), ("n_tiles", ScalarSpec("int32")),
              ("TILE", ConstSpec(128)))
        for dt in ("float32", "float16")
    ],
    "row_tile_sum": [
        _spec("row_tile_sum_kernel", ("x", _arr(dt, 2)), ("y", _arr(dt, 2)),
              ("n_cols", ScalarSpec("int32")), ("TILE", ConstSpec(128)))
        for dt in ("float32", "float16")
    ],
    "ragged_window": [
        _spec("ragged_window_kernel", ("x", _arr(dt, 2)), ("lens", _arr("int32", 1)),
              ("out", _arr(dt, 2)), ("n_cols", ScalarSpec("int32")), ("TILE", ConstSpec(tile)),
              ("WINDOW", ConstSpec(window)), ("USE_LENS", ConstSpec(use_lens)),
              ("CENTERED", ConstSpec(centered)))
        for dt, tile, window, use_lens, centered in (
            ("float32", 128, 32, True, True), ("float16", 64, 0, False, False),
            ("bfloat16", 128, 64, True, False), ("float32", 128, 16, False, True))
    ],
    "runtime_flags": [
        _spec("runtime_flags_kernel", ("x", _arr(dt, 2)), ("y", _arr(dt, 2)),
              ("lo", ScalarSpec("int32")), ("hi", ScalarSpec("int32")),
              ("bump", ScalarSpec("bool_")), ("damp", ScalarSpec("bool_")),
              ("TILE", ConstSpec(tile)))
        for dt, tile in (("float32", 128), ("float16", 64))
    ],
    "static_unroll": [
        _spec("static_unroll_kernel", ("x", _arr(dt, 2)), ("y", _arr(dt, 2)),
              ("z", _arr(dt, 2)), ("TILE", ConstSpec(tile)), ("PARTS", ConstSpec(parts)))
        for dt, tile, parts in (("float32", 64, 3), ("float16", 32, 3))
    ],
    "print_block": [
        *(_spec("scale_and_report_kernel", ("x", _arr(dt, 1)), ("y", _arr(dt, 1)),
                ("TILE", ConstSpec(128))) for dt in ("float32", "float16")),
        *(_spec("row_max_kernel", ("x", _arr(dt, 2)), ("TILE", ConstSpec(64)))
          for dt in ("float32", "bfloat16", "int32")),
    ],
    "skip_masked_rows": [
        _spec("skip_masked_rows_kernel", ("x", _arr(dt, 2)), ("mask", _arr(mdt, 1)),
              ("y", _arr("float32", 2)), ("scale", ScalarSpec("float32")),
              ("negate", ScalarSpec("bool_")), ("TILE", ConstSpec(128)),
              ("HAS_MASK", ConstSpec(has_mask)))
        for dt, mdt, has_mask in (("float32", "int32", True), ("float16", "int32", True),
                                  ("float32", "int32", False))
    ],
    "scalar_pick": [
        _spec("scale_by_last_kernel", ("x", _arr(dt, 2)), ("out", _arr(dt, 2)),
              ("TILE", ConstSpec(256)))
        for dt in ("float32", "float16", "bfloat16")
    ],
    "strided_tail_mask": [
        _spec("strided_row_max_kernel", ("x", _arr(dt, 2)), ("out", _arr(dt, 2)),
              ("n_cols", ScalarSpec("int32")), ("TILE", ConstSpec(128)), ("EVEN", ConstSpec(even)))
        for dt, even in (("float32", False), ("float16", True), ("bfloat16", False))
    ],
    "row_prefix_sum": [
        _spec("row_prefix_sum_kernel", ("x", _arr(dt, 2)), ("out", _arr(dt, 2)),
              ("ROWS", ConstSpec(4)), ("TILE", ConstSpec(256)))
        for dt in ("float32", "float16", "bfloat16")
    ],
    "grouped_row_sum": [
        _spec("grouped_row_sum_kernel", ("x", _arr(dt, 2)), ("out", _arr(dt, 2)),
              ("BLOCK", ConstSpec(block)))
        for dt, block in (("float32", 256), ("float16", 512), ("bfloat16", 128))
    ],
    "column_accumulate": [
        _spec("column_accumulate_kernel", ("x", _arr(dt, 2)), ("acc", _arr(dt, 2)),
              ("n_cols", ScalarSpec("int32")), ("TILE", ConstSpec(128)))
        for dt in ("float32", "float16", "bfloat16")
    ],
    "centered_rows": [
        _spec("centered_rows_kernel", ("x", _arr(dt, 2)), ("y", _arr(dt, 2)),
              ("ROWS", ConstSpec(rows)), ("TILE", ConstSpec(256)), ("SWISH", ConstSpec(0)))
        for dt, rows in (("float32", 4), ("float16", 1), ("bfloat16", 2))
    ],
    "first_block_boost": [
        _spec("first_block_boost_kernel", ("x", _arr(dt, 2)), ("out", _arr(dt, 2)),
              ("N", ConstSpec(n)), ("TILE", ConstSpec(256)))
        for dt, n in (("float32", 256), ("float16", 1024), ("bfloat16", 256))
    ],
    "wrapped_scatter": [
        _spec("wrapped_scatter_kernel", ("values", _arr(dt, 1)), ("out", _arr(dt, 2)),
              ("N", ConstSpec(n)), ("TILE", ConstSpec(256)))
        for dt, n in (("float32", 100), ("float16", 384), ("bfloat16", 96))
    ],
    "gated_residual": [
        _spec("gated_residual_kernel", ("h", _arr(dt, 2)), ("gate", _arr(dt, 2)),
              ("residual", _arr(dt, 2)), ("out", _arr(dt, 2)), ("TILE_N", ConstSpec(1024)))
        for dt in ("float32", "float16", "bfloat16")
    ],
    "sharpen_rows": [
        _spec("sharpen_rows_kernel", ("x", _arr(dt, 2)), ("y", _arr(dt, 2)),
              ("STEPS", ConstSpec(3)), ("TILE", ConstSpec(1024)))
        for dt in ("float32", "float16", "bfloat16")
    ],
    "saturated_readout": [
        _spec("saturated_readout_kernel", ("x", _arr(dt, 3)), ("y", _arr(dt, 3)),
              ("leak", ScalarSpec("float32")), ("T", ConstSpec(8)), ("D", ConstSpec(512)))
        for dt in ("float32", "bfloat16")
    ],
    "locked_accumulate": [
        *(_spec("locked_accumulate_kernel", ("x", _arr(dt, 2)), ("acc", _arr(dt, 2)),
                ("visits", _arr("int32", 1)), ("locks", _arr("int32", 1)),
                ("TM", ConstSpec(16)), ("TN", ConstSpec(256)))
          for dt in ("float32", "float16")),
        _spec("claim_slots_kernel", ("slots", _arr("int32", 1)), ("owners", _arr("int32", 1)),
              ("TILE", ConstSpec(128))),
    ],
    "float_mod": [
        _spec("wrap_phase_kernel", ("x", _arr(dt, 1)), ("y", _arr("float32", 1)),
              ("period", ScalarSpec("float32")), ("TILE", ConstSpec(256)))
        for dt in ("float32", "bfloat16")
    ],
    "row_mean_const": [
        _spec("row_stats_kernel", ("x", _arr(dt, 2)), ("mean", _arr("float32", 2)),
              ("var", _arr("float32", 2)), ("TM", ConstSpec(16)), ("N", ConstSpec(1024)))
        for dt in ("float32", "bfloat16")
    ],
    "shared_weight_bmm": [
        _spec("shared_weight_bmm_kernel", ("w", _arr(dt, 2)), ("x", _arr(dt, 3)),
              ("y", _arr(dt, 3)), ("B", ConstSpec(4)), ("M", ConstSpec(32)),
              ("K", ConstSpec(64)), ("N", ConstSpec(64)))
        for dt in ("float32", "float16")
    ],
    "membership": [_spec("kernel", ("x", _arr("int32", 1)))],
    "bucket_scatter": [
        *(_spec("bucket_scatter_kernel", ("keys", _arr("int32", 1)), ("weights", _arr(dt, 1)),
                ("cursor", _arr("int32", 1)), ("peaks", _arr("int32", 1)),
                ("totals", _arr(dt, 1)), ("sorted_keys", _arr("int32", 1)),
                ("n", ScalarSpec("int32")), ("NUM_BUCKETS", ConstSpec(buckets)),
                ("CAPACITY", ConstSpec(256)), ("TILE", ConstSpec(128)))
          for dt, buckets in (("float32", 64), ("bfloat16", 16), ("int32", 100))),
        *(_spec("row_scatter_add_kernel", ("rows", _arr("int32", 1)), ("values", _arr(dt, 2)),
                ("out", _arr(out, 2)), ("TM", ConstSpec(32)), ("TN", ConstSpec(64)))
          for dt, out in (("float32", "float32"), ("float16", "float32"),
                          ("bfloat16", "bfloat16"))),
    ],
    "split_halves": [
        _spec("split_halves_kernel", ("x", _arr(dt, 2)), ("out", _arr(dt, 2)),
              ("checksum", _arr(dt, 2)), ("D", ConstSpec(d)), ("TM", ConstSpec(tm)),
              ("TD", ConstSpec(td)))
        for dt, d, tm, td in (("float32", 128, 32, 64), ("bfloat16", 192, 16, 128))
    ],
    "while_search": [
        _spec("while_search_kernel", ("x", _arr(dt, 2)), ("out", _arr(dt, 2)),
              ("n_tiles", ScalarSpec("int32")), ("limit", ScalarSpec("float32")),
              ("TILE", ConstSpec(128)))
        for dt in ("float32", "bfloat16")
    ],
    "nested_factory": [
        _spec("make_row_max_row_max_kernel", ("x", _arr(dt, 2)), ("out", _arr(dt, 2)),
              ("n_tiles", ScalarSpec("int32")), ("TILE", ConstSpec(256)))
        for dt in ("float32", "bfloat16")
    ],
    "power_cat": [
        _spec("power_cat_kernel", ("x", _arr(dt, 2)), ("y", _arr(dt, 2)), ("TM", ConstSpec(16)))
        for dt in ("float32", "float16")
    ],
    "scalar_store": [
        _spec("scalar_store_kernel", ("x", _arr("float32", 1)), ("y", _arr("float32", 1)),
              ("flags", _arr("int32", 1)), ("bias", ScalarSpec("float32"))),
    ],
}
