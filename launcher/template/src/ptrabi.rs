//! C-ABI support for launchers of kernels that take raw pointers (translated Triton kernels).
//!
//! Takes what such a launcher receives per pointer argument: a device address and the
//! `DT_*` code of its dtype. Gives the checks of those codes against a Rust entry (every
//! pointer of one element-type generic has one dtype; a pointer of a concrete element type
//! has that one) and the pointer's alignment in the launch's specialization key, as cutile
//! keys a compiled kernel on it (`DivHint::from_ptr`).

use cutile::cutile_compiler::specialization::DivHint;

use crate::runtime::*;

impl SpecKey {
    /// Adds a pointer argument: its alignment, as cutile's specialization key holds it.
    pub fn pointer(mut self, address: u64) -> Self {
        self.scalars.push(DivHint::from_ptr(address));
        self
    }
}

/// The dtype code shared by the pointers bound to one element-type generic.
pub fn same_pointer_dtype(generic: &str, members: &[(&str, i32)]) -> TlResult<i32> {
    let (first_name, first) = members[0];
    for (name, code) in &members[1..] {
        if *code != first {
            return Err(LaunchError::new(
                TL_UNSUPPORTED_DTYPE,
                format!(
                    "generic `{generic}`: `{first_name}` points to {} but `{name}` to {}",
                    dtype_name(first),
                    dtype_name(*code)
                ),
            ));
        }
    }
    Ok(first)
}

/// Checks a pointer's dtype code against the concrete element type of the entry.
pub fn expect_pointer_dtype(name: &str, code: i32, expected: i32) -> TlResult<()> {
    if code == expected {
        return Ok(());
    }
    Err(LaunchError::new(
        TL_UNSUPPORTED_DTYPE,
        format!(
            "`{name}` points to {}, the Rust entry takes a pointer to {}",
            dtype_name(code),
            dtype_name(expected)
        ),
    ))
}
