//! Fuzz target: see `gpusat::d3::fuzzing::check_pair` for what it asserts.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    gpusat::d3::fuzzing::check_pair(data);
});
