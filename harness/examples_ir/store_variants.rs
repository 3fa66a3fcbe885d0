//! How `ct.store(c, index=<any>, tile=t)` can be written, and what each form does to the IR.
//! All load one TILE of `a` at the block id and store it at index `bid * 2` of `c`.

#[cutile::module]
pub mod store_variants {
    use cutile::core::*;

    /// Checked store through `unsafe partition_full_mut`: absolute index.
    #[cutile::entry()]
    fn full_mut_checked<const TILE: i32>(a: &Tensor<f32, { [-1] }>, c: &Tensor<f32, { [-1] }>) {
        let bid = get_tile_block_id().0;
        let t: Tile<f32, { [TILE] }> = a.partition(const_shape![TILE]).load([bid]);
        let mut pc = unsafe { c.partition_full_mut(const_shape![TILE]) };
        pc.store(t, [bid * 2i32]);
    }

    /// `store_unchecked`: no check at all, the caller guarantees the index.
    #[cutile::entry()]
    fn full_mut_unchecked<const TILE: i32>(a: &Tensor<f32, { [-1] }>, c: &Tensor<f32, { [-1] }>) {
        let bid = get_tile_block_id().0;
        let t: Tile<f32, { [TILE] }> = a.partition(const_shape![TILE]).load([bid]);
        let mut pc = unsafe { c.partition_full_mut(const_shape![TILE]) };
        unsafe { pc.store_unchecked(t, [bid * 2i32]) };
    }

    /// Entry-wide `unchecked_accesses` (entry must be `unsafe fn`).
    #[cutile::entry(unchecked_accesses = true)]
    unsafe fn entry_unchecked<const TILE: i32>(a: &Tensor<f32, { [-1] }>, c: &Tensor<f32, { [-1] }>) {
        let bid = get_tile_block_id().0;
        let t: Tile<f32, { [TILE] }> = a.partition(const_shape![TILE]).load([bid]);
        let mut pc = unsafe { c.partition_full_mut(const_shape![TILE]) };
        pc.store(t, [bid * 2i32]);
    }

    /// `&mut Tensor` output: `partition_mut` indices are relative to this block's tile of `c`.
    #[cutile::entry()]
    fn mut_nested<const TILE: i32>(a: &Tensor<f32, { [-1] }>, c: &mut Tensor<f32, { [TILE] }>) {
        let bid = get_tile_block_id().0;
        let t: Tile<f32, { [TILE] }> = a.partition(const_shape![TILE]).load([bid]);
        let mut pc = c.partition_mut(const_shape![TILE]);
        pc.store(t, [0i32]);
    }
}
