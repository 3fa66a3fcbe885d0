//! Hand translation of `matmul` (shared/reference/kernels.py).
//!
//! Python:
//!     bm = ct.bid(0); bn = ct.bid(1)
//!     nk = ct.num_tiles(A, axis=1, shape=(TM, TK))
//!     acc = ct.full((TM, TN), 0, dtype=ct.float32)
//!     for k in range(nk):
//!         a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
//!         b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
//!         acc = ct.mma(a, b, acc)
//!     ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))

#[cutile::module]
pub mod matmul_mod {
    use cutile::core::*;

    /// Closest form: `num_tiles` on an unpadded view (Python's `ct.num_tiles`
    /// builds a view without `padding_value`), zero-padded views for the loads.
    #[cutile::entry()]
    fn matmul<E: ElementType, const TM: i32, const TN: i32, const TK: i32>(
        a: &Tensor<E, { [-1, -1] }>,
        b: &Tensor<E, { [-1, -1] }>,
        c: &Tensor<E, { [-1, -1] }>,
    ) {
        let bm = get_tile_block_id().0;
        let bn = get_tile_block_id().1;
        let a_tiles: Partition<E, { [TM, TK] }> = unsafe {
            make_partition_view(
                a,
                const_shape![TM, TK],
                padding::None,
                dim_map::Identity,
                get_tensor_token(a),
            )
        };
        let nk = num_tiles(&a_tiles, 1);
        let mut acc: Tile<f32, { [TM, TN] }> = constant(0.0f32, const_shape![TM, TN]);
        let pa = a.partition(const_shape![TM, TK]);
        let pb = b.partition(const_shape![TK, TN]);
        for k in 0i32..nk {
            let ta: Tile<E, { [TM, TK] }> = pa.load([bm, k]);
            let tb: Tile<E, { [TK, TN] }> = pb.load([k, bn]);
            acc = mma(ta, tb, acc);
        }
        let out: Tile<E, { [TM, TN] }> = convert_tile(acc);
        let mut pc = unsafe { c.partition_full_mut(const_shape![TM, TN]) };
        pc.store(out, [bm, bn]);
    }

    /// Shorter form: `num_tiles` on the zero-padded load view itself.
    #[cutile::entry()]
    fn matmul_short<E: ElementType, const TM: i32, const TN: i32, const TK: i32>(
        a: &Tensor<E, { [-1, -1] }>,
        b: &Tensor<E, { [-1, -1] }>,
        c: &Tensor<E, { [-1, -1] }>,
    ) {
        let (bm, bn, _) = get_tile_block_id();
        let pa = a.partition(const_shape![TM, TK]);
        let pb = b.partition(const_shape![TK, TN]);
        let mut acc: Tile<f32, { [TM, TN] }> = constant(0.0f32, const_shape![TM, TN]);
        for k in 0i32..num_tiles(&pa, 1) {
            acc = mma(pa.load([bm, k]), pb.load([k, bn]), acc);
        }
        let out: Tile<E, { [TM, TN] }> = convert_tile(acc);
        let mut pc = unsafe { c.partition_full_mut(const_shape![TM, TN]) };
        pc.store(out, [bm, bn]);
    }
}
