"""cuTile Python / Triton kernels to cuTile Rust, with a Tile IR proof of each translation."""

__version__ = "0.1.0"
