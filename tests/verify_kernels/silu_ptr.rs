// golden/silu.py's kernel written by hand in the pointer calling convention: raw pointers, each
// array's shape and stride as separate scalars, the tensor views built in the kernel.
#[cutile::module]
pub mod silu_ptr {
    use cutile::core::*;

    #[cutile::entry()]
    unsafe fn silu_kernel<E: ElementType, EY: ElementType, const TILE_SIZE: i32>(
        x_ptr: *mut E,
        x_shape0: i32,
        x_stride0: i32,
        y_ptr: *mut EY,
        y_shape0: i32,
        y_stride0: i32,
    ) {
        let x_n: i32 = unsafe { assume_div_by::<_, 16>(assume_bounds_lower::<_, 0>(x_shape0)) };
        let x_base: PointerTile<*mut E, { [] }> =
            pointer_to_tile(unsafe { assume_div_by::<_, 16>(x_ptr) });
        let x_shape: Shape<{ [-1] }> = Shape::<{ [-1] }> { dims: &[x_n] };
        let x_strides: Array<{ [1] }> = Array::<{ [1] }> { dims: &[] };
        let x: Tensor<E, { [-1] }> =
            unsafe { make_tensor_view(x_base, x_shape, x_strides, new_token_unordered()) };
        let y_n: i32 = unsafe { assume_div_by::<_, 16>(assume_bounds_lower::<_, 0>(y_shape0)) };
        let y_base: PointerTile<*mut EY, { [] }> =
            pointer_to_tile(unsafe { assume_div_by::<_, 16>(y_ptr) });
        let y_shape: Shape<{ [-1] }> = Shape::<{ [-1] }> { dims: &[y_n] };
        let y_strides: Array<{ [1] }> = Array::<{ [1] }> { dims: &[] };
        let y: Tensor<EY, { [-1] }> =
            unsafe { make_tensor_view(y_base, y_shape, y_strides, new_token_unordered()) };
        let x_view: Partition<E, { [TILE_SIZE] }> = unsafe {
            make_partition_view(
                &x,
                const_shape![TILE_SIZE],
                padding::Zero,
                dim_map::Identity,
                get_tensor_token(&x),
            )
        };
        let mut y_out = unsafe { y.partition_full_mut(const_shape![TILE_SIZE]) };
        let pid: i32 = get_tile_block_id().0;
        let xt: Tile<E, { [TILE_SIZE] }> = load_view_tko(
            &x_view,
            [pid],
            ordering::Weak,
            scope::TileBlock,
            None,
            tma::Disabled,
        );
        let xf: Tile<f32, { [TILE_SIZE] }> = convert_tile(xt);
        let one: Tile<f32, { [TILE_SIZE] }> = constant(1.0f32, const_shape![TILE_SIZE]);
        let denom: Tile<f32, { [TILE_SIZE] }> = one + exp(negf(xf));
        let out: Tile<f32, { [TILE_SIZE] }> = divf(xf, denom, rounding::Approx, ftz::Enabled);
        let result: Tile<EY, { [TILE_SIZE] }> = convert_tile(out);
        unsafe {
            store_view_tko_mut(
                &mut y_out,
                result,
                [pid],
                ordering::Weak,
                scope::TileBlock,
                None,
                tma::Disabled,
            )
        };
    }
}
