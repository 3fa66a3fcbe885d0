#[cutile::module]
mod p {
    use cutile::core::*;
    #[cutile::entry()]
    fn k1<const N: i32>(a: &Tensor<f32, { [N + 1, -1] }>) {
        let x = 1;
    }
    #[cutile::entry()]
    fn k2(a: &Tensor<f32, { [-1] }>) {
        let t: Tile<f32, { [16] }> = a.partition(const_shape![16]).load([0i32, 1i32]);
    }
    #[cutile::entry()]
    fn k3(a: &Tensor<f32, { [-1] }>) {
        let t: Tile<f32, { [16] }> = a.partition(const_shape![16]).load([0i32]);
        let u: Tile<f32, { [8] }> = reduce_sum(t, 3i32);
    }
}
