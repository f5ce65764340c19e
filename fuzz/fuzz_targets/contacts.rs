//! Fuzz target: see `gpusat::d2::fuzzing::check_contacts` for what it asserts.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    gpusat::d2::fuzzing::check_contacts(data);
});
