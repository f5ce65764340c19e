//! Identities of shape libraries: a GPU backend tells from a library's uid
//! and length (a library only grows) whether its copy is current.

/// A number no other shape library of this process has had.
pub(crate) fn next_uid() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}
