//! Fuzz target: see `gpusat::fuzzing3::check_hull` for what it asserts.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    gpusat::fuzzing3::check_hull(data);
});
