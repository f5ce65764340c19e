//! Fuzz target: see `gpusat::fuzzing::check_scene` for what it asserts.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    gpusat::fuzzing::check_scene(data);
});
