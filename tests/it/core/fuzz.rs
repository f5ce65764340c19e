//! The fuzzers' saved inputs, replayed without the fuzzer: every file under
//! `fuzz/regressions/<target>/` (inputs that once failed, and a minimised
//! corpus of what the fuzzers reached) goes through the same check as in
//! `fuzz/fuzz_targets/<target>.rs`.

use std::path::Path;

fn replay(target: &str, check: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(target);
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|err| panic!("{}: {err}", dir.display()));
    let mut replayed = 0;
    for entry in entries {
        let path = entry.expect("directory entry").path();
        let data = std::fs::read(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        let outcome = std::panic::catch_unwind(|| check(&data));
        assert!(outcome.is_ok(), "{target}: {} fails again", path.display());
        replayed += 1;
    }
    assert!(
        replayed > 0,
        "{target}: no saved inputs in {}",
        dir.display()
    );
    eprintln!("{target}: {replayed} saved inputs replayed");
}

#[test]
fn scene_inputs() {
    replay("scene", gpusat::d2::fuzzing::check_scene);
}

#[test]
fn polygon_inputs() {
    replay("polygon", gpusat::d2::fuzzing::check_polygon);
}

#[test]
fn pair_2d_inputs() {
    replay("pair_2d", gpusat::d2::fuzzing::check_pair);
}

#[test]
fn contacts_inputs() {
    replay("contacts", gpusat::d2::fuzzing::check_contacts);
}

#[test]
fn hull_inputs() {
    replay("hull", gpusat::d3::fuzzing::check_hull);
}

#[test]
fn pair_3d_inputs() {
    replay("pair_3d", gpusat::d3::fuzzing::check_pair);
}

/// Without cargo-fuzz: seeded random bytes through the 3D checks, so the
/// checks themselves run on thousands of inputs in every test run.
#[test]
fn seeded_bytes_through_the_3d_checks() {
    use rand::RngExt;
    let mut random = gpusat::generate::rng(2027);
    for round in 0..1500 {
        let length = [8usize, 40, 120, 400, 1200][round % 5];
        let mut data: Vec<u8> = (0..length).map(|_| random.random()).collect();
        data[0] = (round % 4) as u8;
        gpusat::d3::fuzzing::check_hull(&data);
        data[1] = (round / 4 % 4) as u8;
        gpusat::d3::fuzzing::check_pair(&data);
    }
}

/// Without cargo-fuzz: seeded random bytes through the 3D pair check with
/// a capsule, a rounded box or a rounded hull as the first shape (the
/// second of any kind).
#[test]
fn seeded_bytes_through_the_rounded_3d_check() {
    use rand::RngExt;
    let mut random = gpusat::generate::rng(2029);
    for round in 0..3000 {
        let length = [16usize, 60, 200][round % 3];
        let mut data: Vec<u8> = (0..length).map(|_| random.random()).collect();
        data[0] = 4 + (round % 3) as u8;
        gpusat::d3::fuzzing::check_pair(&data);
    }
}

/// Without cargo-fuzz: seeded random bytes through the 2D rounded shapes'
/// check (capsules, segments and rounded polygons against any shape).
#[test]
fn seeded_bytes_through_the_rounded_2d_check() {
    use rand::RngExt;
    let mut random = gpusat::generate::rng(2028);
    for round in 0..6000 {
        let length = [12usize, 40, 120][round % 3];
        let data: Vec<u8> = (0..length).map(|_| random.random()).collect();
        gpusat::d2::fuzzing::check_rounded_pair(&data);
    }
}
