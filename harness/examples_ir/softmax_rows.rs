//! Hand translation of `softmax_rows` (shared/reference/kernels.py).
//!
//! Python:
//!     row = ct.bid(0)
//!     t = ct.load(x, index=(row, 0), shape=(1, TILE_N),
//!                 padding_mode=ct.PaddingMode.NEG_INF).astype(ct.float32)
//!     m = ct.max(t, axis=1, keepdims=True)
//!     e = ct.exp(t - m)
//!     s = ct.sum(e, axis=1, keepdims=True)
//!     ct.store(y, index=(row, 0), tile=(e / s).astype(y.dtype))

#[cutile::module]
pub mod softmax_mod {
    use cutile::core::*;

    #[cutile::entry()]
    fn softmax_rows<E: ElementType, const TILE_N: i32>(
        x: &Tensor<E, { [-1, -1] }>,
        y: &Tensor<E, { [-1, -1] }>,
    ) {
        let row = get_tile_block_id().0;
        let px: Partition<E, { [1, TILE_N] }> = unsafe {
            make_partition_view(
                x,
                const_shape![1, TILE_N],
                padding::NegInf,
                dim_map::Identity,
                get_tensor_token(x),
            )
        };
        let t: Tile<f32, { [1, TILE_N] }> = convert_tile(px.load([row, 0i32]));
        let m: Tile<f32, { [1] }> = reduce_max(t, 1i32);
        let m: Tile<f32, { [1, TILE_N] }> =
            m.reshape(const_shape![1, 1]).broadcast(const_shape![1, TILE_N]);
        let e: Tile<f32, { [1, TILE_N] }> = exp(t - m);
        let s: Tile<f32, { [1] }> = reduce_sum(e, 1i32);
        let s: Tile<f32, { [1, TILE_N] }> =
            s.reshape(const_shape![1, 1]).broadcast(const_shape![1, TILE_N]);
        let r: Tile<E, { [1, TILE_N] }> = convert_tile(e / s);
        let mut py = unsafe { y.partition_full_mut(const_shape![1, TILE_N]) };
        py.store(r, [row, 0i32]);
    }
}
