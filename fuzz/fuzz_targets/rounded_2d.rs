//! Fuzz target: see `gpusat::d2::fuzzing::check_rounded_pair` for what it
//! asserts.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    gpusat::d2::fuzzing::check_rounded_pair(data);
});
