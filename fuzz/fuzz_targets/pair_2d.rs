//! Fuzz target: see `gpusat::d2::fuzzing::check_pair` for what it asserts.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    gpusat::d2::fuzzing::check_pair(data);
});
