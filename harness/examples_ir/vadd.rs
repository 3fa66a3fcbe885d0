//! Hand translations of `vadd` (shared/reference/kernels.py), several store idioms.
//!
//! Python:
//!     bid = ct.bid(0)
//!     ta = ct.load(a, index=(bid,), shape=(TILE,))
//!     tb = ct.load(b, index=(bid,), shape=(TILE,))
//!     ct.store(c, index=(bid,), tile=ta + tb)

#[cutile::module]
pub mod vadd_mod {
    use cutile::core::*;

    /// Output as `&Tensor` + `unsafe partition_full_mut`: any index, any grid.
    #[cutile::entry()]
    fn vadd<const TILE: i32>(
        a: &Tensor<f32, { [-1] }>,
        b: &Tensor<f32, { [-1] }>,
        c: &Tensor<f32, { [-1] }>,
    ) {
        let bid = get_tile_block_id().0;
        let ta: Tile<f32, { [TILE] }> = a.partition(const_shape![TILE]).load([bid]);
        let tb: Tile<f32, { [TILE] }> = b.partition(const_shape![TILE]).load([bid]);
        let mut pc = unsafe { c.partition_full_mut(const_shape![TILE]) };
        pc.store(ta + tb, [bid]);
    }

    /// Output as `&mut Tensor<_, {[TILE]}>`: the launcher's grid is the output
    /// partition grid; `store` writes the current block's tile.
    #[cutile::entry()]
    fn vadd_mut<const TILE: i32>(
        a: &Tensor<f32, { [-1] }>,
        b: &Tensor<f32, { [-1] }>,
        c: &mut Tensor<f32, { [TILE] }>,
    ) {
        let bid = get_tile_block_id().0;
        let ta: Tile<f32, { [TILE] }> = a.partition(const_shape![TILE]).load([bid]);
        let tb: Tile<f32, { [TILE] }> = b.partition(const_shape![TILE]).load([bid]);
        c.store(ta + tb);
    }

    /// `unchecked_accesses`: no in-kernel tile-grid checks at all.
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn vadd_unchecked<const TILE: i32>(
        a: &Tensor<f32, { [-1] }>,
        b: &Tensor<f32, { [-1] }>,
        c: &Tensor<f32, { [-1] }>,
    ) {
        let bid = get_tile_block_id().0;
        let ta: Tile<f32, { [TILE] }> = a.partition(const_shape![TILE]).load([bid]);
        let tb: Tile<f32, { [TILE] }> = b.partition(const_shape![TILE]).load([bid]);
        let mut pc = unsafe { c.partition_full_mut(const_shape![TILE]) };
        pc.store(ta + tb, [bid]);
    }

    /// Closest to Python: loads without `padding_value` (Python's default
    /// padding mode is "undetermined", which omits it) and store at any index.
    #[cutile::entry()]
    fn vadd_nopad<const TILE: i32>(
        a: &Tensor<f32, { [-1] }>,
        b: &Tensor<f32, { [-1] }>,
        c: &Tensor<f32, { [-1] }>,
    ) {
        let bid = get_tile_block_id().0;
        let pa: Partition<f32, { [TILE] }> = unsafe {
            make_partition_view(a, const_shape![TILE], padding::None, dim_map::Identity, get_tensor_token(a))
        };
        let pb: Partition<f32, { [TILE] }> = unsafe {
            make_partition_view(b, const_shape![TILE], padding::None, dim_map::Identity, get_tensor_token(b))
        };
        let ta: Tile<f32, { [TILE] }> = pa.load([bid]);
        let tb: Tile<f32, { [TILE] }> = pb.load([bid]);
        let mut pc = unsafe { c.partition_full_mut(const_shape![TILE]) };
        pc.store(ta + tb, [bid]);
    }
}
