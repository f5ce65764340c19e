//! The clock that frame and GPU statistics read: std's `Instant`, except in
//! a browser (wasm32 with no OS), where std has no clock (`Instant::now`
//! panics there) and web-time's `Instant` reads `performance.now()`.

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub(crate) use std::time::Instant;
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub(crate) use web_time::Instant;
