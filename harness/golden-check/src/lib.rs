//! Every file to check becomes one module of this crate (see build.rs), so
//! `cargo check -p golden-check --message-format=json` type-checks them all
//! against the real `cutile` crate, `#[cutile::module]` expansion included.

include!(concat!(env!("OUT_DIR"), "/golden_mods.rs"));
