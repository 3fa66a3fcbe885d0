//! Hand translations of research_kernels.py (one construct each); see IDIOMS.md.
//! Compile with the specializations in export_py_ir.py and diff against the Python IR.

#[cutile::module]
pub mod research {
    use cutile::core::*;

    const LOG2E: f32 = 1.44269502f32;
    const EPS: f32 = 0.00001f32;

    #[cutile::entry()]
    fn saxpy<const TILE: i32>(alpha: f32, x: &Tensor<f32, { [-1] }>, y: &Tensor<f32, { [-1] }>) {
        let block = get_tile_block_id().0;
        let px: Partition<f32, { [TILE] }> = unsafe {
            make_partition_view(x, const_shape![TILE], padding::None, dim_map::Identity, get_tensor_token(x))
        };
        let xt: Tile<f32, { [TILE] }> = px.load([block]);
        let py: Partition<f32, { [TILE] }> = unsafe {
            make_partition_view(y, const_shape![TILE], padding::None, dim_map::Identity, get_tensor_token(y))
        };
        let yt: Tile<f32, { [TILE] }> = py.load([block]);
        let a: Tile<f32, { [TILE] }> = broadcast_scalar(alpha, const_shape![TILE]);
        let out = fma(a, xt, yt, rounding::NearestEven, ftz::Disabled);
        let mut pyo = unsafe { y.partition_full_mut(const_shape![TILE]) };
        pyo.store(out, [block]);
    }

    #[cutile::entry(optimization_hints = (default = (occupancy = 4,),))]
    fn scale_lit<const TILE: i32>(x: &Tensor<f32, { [-1] }>, y: &Tensor<f32, { [-1] }>) {
        let b = get_tile_block_id().0;
        let px: Partition<f32, { [TILE] }> = unsafe {
            make_partition_view(x, const_shape![TILE], padding::None, dim_map::Identity, get_tensor_token(x))
        };
        let t: Tile<f32, { [TILE] }> = px.load([b]);
        let half: Tile<f32, { [TILE] }> = broadcast_scalar(0.5f32, const_shape![TILE]);
        let one: Tile<f32, { [TILE] }> = broadcast_scalar(1.0f32, const_shape![TILE]);
        let out = fma(t, half, one, rounding::NearestEven, ftz::Disabled);
        let mut py = unsafe { y.partition_full_mut(const_shape![TILE]) };
        py.store(out, [b]);
    }

    #[cutile::entry()]
    fn silu<E: ElementType, const TILE: i32>(x: &Tensor<E, { [-1] }>, y: &Tensor<E, { [-1] }>) {
        let pid = get_tile_block_id().0;
        let px = x.partition(const_shape![TILE]);
        let xt: Tile<E, { [TILE] }> =
            load_view_tko(&px, [pid], ordering::Weak, scope::TileBlock, None, tma::Disabled);
        let xf: Tile<f32, { [TILE] }> = convert_tile(xt);
        let one: Tile<f32, { [TILE] }> = broadcast_scalar(1.0f32, const_shape![TILE]);
        let denom = one + exp(negf(xf));
        let out = divf(xf, denom, rounding::Approx, ftz::Enabled);
        let r: Tile<E, { [TILE] }> = convert_tile(out);
        let mut py = unsafe { y.partition_full_mut(const_shape![TILE]) };
        unsafe {
            store_view_tko_mut(&mut py, r, [pid], ordering::Weak, scope::TileBlock, None, tma::Disabled)
        };
    }

    /// `unchecked_accesses`: the loop bound `cdiv(n_cols, TILE_N)` is not tied to `x`'s
    /// partition grid, so checked loads would add `assert` ops (Python has none).
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn online_softmax<E: ElementType, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        y: &Tensor<E, { [-1, -1] }>,
        n_cols: i32,
    ) {
        let row = get_tile_block_id().0;
        let num_chunks = ceil_div(n_cols, TILE_N);
        let mut running_max: Tile<f32, { [1, 1] }> = constant(f32::NEG_INFINITY, const_shape![1, 1]);
        let mut running_sum: Tile<f32, { [1, 1] }> = constant(0.0f32, const_shape![1, 1]);
        let px: Partition<E, { [1, TILE_N] }> = unsafe {
            make_partition_view(x, const_shape![1, TILE_N], padding::NegInf, dim_map::Identity, get_tensor_token(x))
        };
        let log2e: Tile<f32, { [1, TILE_N] }> = broadcast_scalar(LOG2E, const_shape![1, TILE_N]);
        for chunk in 0i32..num_chunks {
            let tl: Tile<E, { [1, TILE_N] }> = px.load_pipelined::<4>([row, chunk]);
            let tf: Tile<f32, { [1, TILE_N] }> = convert_tile(tl);
            let t = tf * log2e;
            let tmax: Tile<f32, { [1] }> = reduce_max(t, 1i32);
            let new_max = maxf(running_max, tmax.reshape(const_shape![1, 1]), nan::Disabled, ftz::Disabled);
            let correction = exp2(running_max - new_max, ftz::Enabled);
            let p = exp2(t - new_max.broadcast(const_shape![1, TILE_N]), ftz::Enabled);
            let psum: Tile<f32, { [1] }> = reduce_sum(p, 1i32);
            running_sum = fma(running_sum, correction, psum.reshape(const_shape![1, 1]), rounding::NearestEven, ftz::Disabled);
            running_max = new_max;
        }
        let one: Tile<f32, { [1, 1] }> = broadcast_scalar(1.0f32, const_shape![1, 1]);
        let inv_sum = divf(one, running_sum, rounding::Approx, ftz::Enabled);
        let px2: Partition<E, { [1, TILE_N] }> = unsafe {
            make_partition_view(x, const_shape![1, TILE_N], padding::NegInf, dim_map::Identity, get_tensor_token(x))
        };
        let log2e2: Tile<f32, { [1, TILE_N] }> = broadcast_scalar(LOG2E, const_shape![1, TILE_N]);
        let neg_max = negf(running_max.broadcast(const_shape![1, TILE_N]));
        let inv_b: Tile<f32, { [1, TILE_N] }> = inv_sum.broadcast(const_shape![1, TILE_N]);
        let mut py = unsafe { y.partition_full_mut(const_shape![1, TILE_N]) };
        for chunk in 0i32..num_chunks {
            let tl: Tile<E, { [1, TILE_N] }> = px2.load_pipelined::<4>([row, chunk]);
            let tf: Tile<f32, { [1, TILE_N] }> = convert_tile(tl);
            let p = exp2(fma(tf, log2e2, neg_max, rounding::NearestEven, ftz::Disabled), ftz::Enabled);
            let r: Tile<E, { [1, TILE_N] }> = convert_tile(p * inv_b);
            py.store(r, [row, chunk]);
        }
    }

    #[cutile::entry()]
    fn layer_norm_stats<E: ElementType, const BLOCK_N: i32>(
        xs: &Tensor<E, { [-1, -1] }>,
        mean_out: &Tensor<f32, { [-1] }>,
        rstd_out: &Tensor<f32, { [-1] }>,
        n: i32,
    ) {
        let row = get_tile_block_id().0;
        let xl: Tile<E, { [1, BLOCK_N] }> = xs.partition(const_shape![1, BLOCK_N]).load([row, 0i32]);
        let x: Tile<f32, { [1, BLOCK_N] }> = convert_tile(xl);
        let sx: Tile<f32, { [1] }> = reduce_sum(x, 1i32);
        let nf: f32 = convert_scalar(n);
        let mean = sx / broadcast_scalar(nf, const_shape![1]);
        let cols: Tile<i32, { [BLOCK_N] }> = iota(const_shape![BLOCK_N]);
        let nb: Tile<i32, { [1, BLOCK_N] }> = broadcast_scalar(n, const_shape![1, BLOCK_N]);
        let in_row = lt_tile(cols.reshape(const_shape![1, BLOCK_N]), nb);
        let zero: Tile<f32, { [1, BLOCK_N] }> = broadcast_scalar(0.0f32, const_shape![1, BLOCK_N]);
        let centered = select(in_row, x - mean.reshape(const_shape![1, 1]).broadcast(const_shape![1, BLOCK_N]), zero);
        let ss: Tile<f32, { [1] }> = reduce_sum(centered * centered, 1i32);
        let nf2: f32 = convert_scalar(n);
        let var = ss / broadcast_scalar(nf2, const_shape![1]);
        let rstd = rsqrt(var + broadcast_scalar(EPS, const_shape![1]), ftz::Disabled);
        let mut pm = unsafe { mean_out.partition_full_mut(const_shape![1]) };
        pm.store(mean, [row]);
        let mut pr = unsafe { rstd_out.partition_full_mut(const_shape![1]) };
        pr.store(rstd, [row]);
    }

    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn persistent_scale<const TILE: i32>(x: &Tensor<f32, { [-1] }>, y: &Tensor<f32, { [-1] }>, n_tiles: i32) {
        let px: Partition<f32, { [TILE] }> = unsafe {
            make_partition_view(x, const_shape![TILE], padding::None, dim_map::Identity, get_tensor_token(x))
        };
        let two: Tile<f32, { [TILE] }> = broadcast_scalar(2.0f32, const_shape![TILE]);
        let mut py = unsafe { y.partition_full_mut(const_shape![TILE]) };
        let bid = get_tile_block_id().0;
        let nb = get_num_tile_blocks().0;
        for t in (bid..n_tiles).step_by(nb as usize) {
            let v: Tile<f32, { [TILE] }> = px.load_pipelined::<3>([t]);
            py.store(v * two, [t]);
        }
    }

    #[cutile::entry()]
    fn transpose<const TM: i32, const TN: i32>(x: &Tensor<f32, { [-1, -1] }>, y: &Tensor<f32, { [-1, -1] }>) {
        let bm = get_tile_block_id().0;
        let bn = get_tile_block_id().1;
        let px: Partition<f32, { [TM, TN] }> = unsafe {
            make_partition_view(x, const_shape![TM, TN], padding::None, dim_map::Identity, get_tensor_token(x))
        };
        let t: Tile<f32, { [TM, TN] }> = px.load([bm, bn]);
        let mut py = unsafe { y.partition_full_mut(const_shape![TN, TM]) };
        py.store(t.transpose(), [bn, bm]);
    }

    #[cutile::entry()]
    fn transpose_order<const TM: i32, const TN: i32>(x: &Tensor<f32, { [-1, -1] }>, y: &Tensor<f32, { [-1, -1] }>) {
        let bm = get_tile_block_id().0;
        let bn = get_tile_block_id().1;
        let px: Partition<f32, { [TN, TM] }> = unsafe {
            make_partition_view(x, const_shape![TN, TM], padding::None, const_array![1, 0], get_tensor_token(x))
        };
        let t: Tile<f32, { [TN, TM] }> = px.load([bn, bm]);
        let mut py = unsafe { y.partition_full_mut(const_shape![TN, TM]) };
        py.store(t, [bn, bm]);
    }

    #[cutile::entry()]
    fn clamp_flag<const TILE: i32, const SHIFT: bool>(x: &Tensor<f32, { [-1] }>, y: &Tensor<f32, { [-1] }>) {
        let b = get_tile_block_id().0;
        let px: Partition<f32, { [TILE] }> = unsafe {
            make_partition_view(x, const_shape![TILE], padding::None, dim_map::Identity, get_tensor_token(x))
        };
        let mut t: Tile<f32, { [TILE] }> = px.load([b]);
        if SHIFT {
            t = t + broadcast_scalar(1.0f32, const_shape![TILE]);
        }
        let lo: Tile<f32, { [TILE] }> = broadcast_scalar(-1.5f32, const_shape![TILE]);
        let hi: Tile<f32, { [TILE] }> = broadcast_scalar(2.0f32, const_shape![TILE]);
        let r = minf(maxf(t, lo, nan::Disabled, ftz::Disabled), hi, nan::Disabled, ftz::Disabled);
        let mut py = unsafe { y.partition_full_mut(const_shape![TILE]) };
        py.store(r, [b]);
    }

    #[cutile::entry()]
    fn gelu_tanh<E: ElementType, const TILE: i32>(x: &Tensor<E, { [-1] }>, y: &Tensor<E, { [-1] }>) {
        let b = get_tile_block_id().0;
        let px: Partition<E, { [TILE] }> = unsafe {
            make_partition_view(x, const_shape![TILE], padding::None, dim_map::Identity, get_tensor_token(x))
        };
        let tl: Tile<E, { [TILE] }> = px.load([b]);
        let t: Tile<f32, { [TILE] }> = convert_tile(tl);
        let c0: Tile<f32, { [TILE] }> = broadcast_scalar(0.7978845608f32, const_shape![TILE]);
        let c1: Tile<f32, { [TILE] }> = broadcast_scalar(0.044715f32, const_shape![TILE]);
        let inner = c0 * fma(c1 * t * t, t, t, rounding::NearestEven, ftz::Disabled);
        let half: Tile<f32, { [TILE] }> = broadcast_scalar(0.5f32, const_shape![TILE]);
        let one: Tile<f32, { [TILE] }> = broadcast_scalar(1.0f32, const_shape![TILE]);
        let out = half * t * (one + unsafe { tanh_with_rounding(inner, rounding::Approx) });
        let r: Tile<E, { [TILE] }> = convert_tile(out);
        let mut py = unsafe { y.partition_full_mut(const_shape![TILE]) };
        py.store(r, [b]);
    }

    #[cutile::entry()]
    fn reduce_axis0<const TM: i32, const TN: i32>(x: &Tensor<f32, { [-1, -1] }>, y: &Tensor<f32, { [-1] }>) {
        let bn = get_tile_block_id().0;
        let px: Partition<f32, { [TM, TN] }> = unsafe {
            make_partition_view(x, const_shape![TM, TN], padding::None, dim_map::Identity, get_tensor_token(x))
        };
        let t: Tile<f32, { [TM, TN] }> = px.load([0i32, bn]);
        let s: Tile<f32, { [TN] }> = reduce_sum(t, 0i32);
        let mut py = unsafe { y.partition_full_mut(const_shape![TN]) };
        py.store(s, [bn]);
    }

    #[cutile::entry()]
    fn int8_dequant<const TILE: i32>(q: &Tensor<i8, { [-1] }>, scale: &Tensor<f32, { [-1] }>, y: &Tensor<bf16, { [-1] }>) {
        let b = get_tile_block_id().0;
        let pq: Partition<i8, { [TILE] }> = unsafe {
            make_partition_view(q, const_shape![TILE], padding::None, dim_map::Identity, get_tensor_token(q))
        };
        let ql: Tile<i8, { [TILE] }> = pq.load([b]);
        let t: Tile<f32, { [TILE] }> = convert_tile(ql);
        let ps: Partition<f32, { [TILE] }> = unsafe {
            make_partition_view(scale, const_shape![TILE], padding::None, dim_map::Identity, get_tensor_token(scale))
        };
        let s: Tile<f32, { [TILE] }> = ps.load([b]);
        let r: Tile<bf16, { [TILE] }> = convert_tile(t * s);
        let mut py = unsafe { y.partition_full_mut(const_shape![TILE]) };
        py.store(r, [b]);
    }

    /// saxpy with explicit tokens: orders the store of `y` after its load the way
    /// cuTile Python does (`join_tokens`), via the raw view ops.
    #[cutile::entry()]
    fn saxpy_tokens<const TILE: i32>(alpha: f32, x: &Tensor<f32, { [-1] }>, y: &Tensor<f32, { [-1] }>) {
        let block = get_tile_block_id().0;
        let px: Partition<f32, { [TILE] }> = unsafe {
            make_partition_view(x, const_shape![TILE], padding::None, dim_map::Identity, get_tensor_token(x))
        };
        let xt: Tile<f32, { [TILE] }> = load_view_tko(&px, [block], ordering::Weak, scope::TileBlock, None, tma::Enabled);
        let py: Partition<f32, { [TILE] }> = unsafe {
            make_partition_view(y, const_shape![TILE], padding::None, dim_map::Identity, get_tensor_token(y))
        };
        let (yt, y_tok): (Tile<f32, { [TILE] }>, Token) = unsafe {
            load_view_raw(&py, [block], Some(get_tensor_token(y)), ordering::Weak, scope::TileBlock,
                          tma::Enabled, None, [false], const_shape![TILE])
        };
        let a: Tile<f32, { [TILE] }> = broadcast_scalar(alpha, const_shape![TILE]);
        let out = fma(a, xt, yt, rounding::NearestEven, ftz::Disabled);
        let tok = join_tokens(&[get_tensor_token(y), y_tok]);
        let pyo = unsafe { y.partition_full_mut(const_shape![TILE]) };
        unsafe {
            store_view_raw(&pyo, out, [block], Some(tok), ordering::Weak, scope::TileBlock,
                           tma::Enabled, None, [false])
        };
    }

    #[cutile::entry()]
    fn cumsum_i32<const TILE: i32>(x: &Tensor<i32, { [-1] }>, y: &Tensor<i32, { [-1] }>) {
        let px: Partition<i32, { [TILE] }> = unsafe {
            make_partition_view(x, const_shape![TILE], padding::None, dim_map::Identity, get_tensor_token(x))
        };
        let t: Tile<i32, { [TILE] }> = px.load([0i32]);
        let inclusive = scan_sum(t, 0i32, reverse::Forward, 0i32);
        let mut py = unsafe { y.partition_full_mut(const_shape![TILE]) };
        py.store(inclusive - t, [0i32]);
    }

    /// 3-D `ct.mma` is `mmaf`; `order=(0, 2, 1)` is a `dim_map` on the view.
    /// `pb`'s k index is not provably inside `b`'s grid (the bound comes from `a`), so a
    /// checked `pb.load` adds an `assert` before the loop; `load_view_tko` called directly is
    /// the unchecked (and still safe) load. `deny_in_kernel_checks` turns any remaining
    /// in-kernel check into a compile error.
    #[cutile::entry(deny_in_kernel_checks = true)]
    fn bmm<E: ElementType, const TM: i32, const TN: i32, const TK: i32>(
        a: &Tensor<E, { [-1, -1, -1] }>,
        b: &Tensor<E, { [-1, -1, -1] }>,
        c: &Tensor<E, { [-1, -1, -1] }>,
    ) {
        let bz = get_tile_block_id().2;
        let bm = get_tile_block_id().0;
        let bn = get_tile_block_id().1;
        let mut acc: Tile<f32, { [1, TM, TN] }> = constant(0.0f32, const_shape![1, TM, TN]);
        let a_tiles: Partition<E, { [1, TM, TK] }> = unsafe {
            make_partition_view(a, const_shape![1, TM, TK], padding::None, dim_map::Identity, get_tensor_token(a))
        };
        let nk = num_tiles(&a_tiles, 2);
        let pa: Partition<E, { [1, TM, TK] }> = unsafe {
            make_partition_view(a, const_shape![1, TM, TK], padding::Zero, dim_map::Identity, get_tensor_token(a))
        };
        let pb: Partition<E, { [1, TK, TN] }> = unsafe {
            make_partition_view(b, const_shape![1, TK, TN], padding::Zero, const_array![0, 2, 1], get_tensor_token(b))
        };
        for k in 0i32..nk {
            let ta: Tile<E, { [1, TM, TK] }> = pa.load([bz, bm, k]);
            let tb: Tile<E, { [1, TK, TN] }> =
                load_view_tko(&pb, [bz, bn, k], ordering::Weak, scope::TileBlock, None, tma::Enabled);
            acc = mmaf(ta, tb, acc);
        }
        let out: Tile<E, { [1, TM, TN] }> = convert_tile(acc);
        let mut pc = unsafe { c.partition_full_mut(const_shape![1, TM, TN]) };
        pc.store(out, [bz, bm, bn]);
    }

    /// A runtime `if` whose branches yield a value lowers to an `if` op with `yield`s.
    #[cutile::entry()]
    fn runtime_if<const TILE: i32>(x: &Tensor<f32, { [-1] }>, y: &Tensor<f32, { [-1] }>) {
        let ti = get_tile_block_id().0;
        let tj = get_tile_block_id().1;
        let px: Partition<f32, { [TILE] }> = unsafe {
            make_partition_view(x, const_shape![TILE], padding::None, dim_map::Identity, get_tensor_token(x))
        };
        let t: Tile<f32, { [TILE] }> = px.load([ti]);
        let t2: Tile<f32, { [TILE] }> = if ti == tj {
            t * broadcast_scalar(2.0f32, const_shape![TILE])
        } else {
            absf(t)
        };
        let mut py = unsafe { y.partition_full_mut(const_shape![TILE]) };
        py.store(floor(t2), [ti]);
    }

    #[cutile::entry()]
    fn hash_bits<const TILE: i32>(y: &Tensor<i32, { [-1] }>, seed: i32) {
        let pid = get_tile_block_id().0;
        let base: i32 = pid * TILE;
        let offs: Tile<i32, { [TILE] }> = broadcast_scalar(base, const_shape![TILE]) + iota(const_shape![TILE]);
        let seed_t: Tile<i32, { [TILE] }> = broadcast_scalar(seed, const_shape![TILE]);
        let seed_u: Tile<u32, { [TILE] }> = bitcast(seed_t);
        // `constant(0x9E3779B9u32, ..)` silently becomes 0 and a u32 scalar literal above
        // i32::MAX panics the compiler: spell the bit pattern as i32 and bitcast.
        let mul: Tile<i32, { [TILE] }> = constant(-1640531527i32, const_shape![TILE]);
        let seed_mix = seed_u * bitcast(mul);
        let offs_u: Tile<u32, { [TILE] }> = bitcast(offs);
        let key = offs_u ^ seed_mix;
        let key = key ^ (key >> constant(16u32, const_shape![TILE]));
        let bits = key >> constant(8u32, const_shape![TILE]);
        let u: Tile<f32, { [TILE] }> = convert_tile(bits);
        let r: Tile<i32, { [TILE] }> = convert_tile(u);
        let mut py = unsafe { y.partition_full_mut(const_shape![TILE]) };
        py.store(r, [pid]);
    }

    /// No const arithmetic in types: `H * D` is an extra const generic `HD`.
    #[cutile::entry()]
    fn split_heads<const H: i32, const TS: i32, const D: i32, const HD: i32>(
        x: &Tensor<bf16, { [-1, -1, -1] }>,
        y: &Tensor<bf16, { [-1, -1, -1, -1] }>,
    ) {
        let b = get_tile_block_id().0;
        let s = get_tile_block_id().1;
        let px: Partition<bf16, { [1, TS, HD] }> = unsafe {
            make_partition_view(x, const_shape![1, TS, HD], padding::None, dim_map::Identity, get_tensor_token(x))
        };
        let t: Tile<bf16, { [1, TS, HD] }> = px.load([b, s, 0i32]);
        let t4: Tile<bf16, { [1, TS, H, D] }> = t.reshape(const_shape![1, TS, H, D]);
        let p: Tile<bf16, { [1, H, TS, D] }> = permute(t4, const_array![0, 2, 1, 3]);
        let mut py = unsafe { y.partition_full_mut(const_shape![1, H, TS, D]) };
        py.store(p, [b, 0i32, s, 0i32]);
    }
}
