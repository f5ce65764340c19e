//! Room for a batch's results, checked before the work: an allocation that
//! cannot be made is an [`Error::OutOfMemory`] naming what and how much, not
//! an abort.

use super::error::Error;

/// Makes room in `out` for `items` more (a batch's worst case), or says how
/// many MiB that would have needed.
pub(crate) fn reserve<T>(out: &mut Vec<T>, items: usize, what: &str) -> Result<(), Error> {
    out.try_reserve_exact(items)
        .map_err(|_| Error::OutOfMemory {
            what: format!("the {what} of {items} pairs"),
            bytes: items as u128 * size_of::<T>() as u128,
        })
}

/// Checks that the results of a batch of `pairs` pairs, in the worst case
/// (every pair reported, `T` each), can be allocated, and returns an empty
/// vector with that room.
pub fn reserve_output<T>(pairs: usize, what: &str) -> Result<Vec<T>, Error> {
    let mut out = Vec::new();
    reserve(&mut out, pairs, what)?;
    Ok(out)
}
