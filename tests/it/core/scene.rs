//! Limits on what a caller can ask for: scene files beyond the size limit are
//! refused before they are parsed (including ones that never end; the
//! command's side is in `cli/tests/it/command/collide.rs`), and results too large
//! for memory are an error.

use std::path::Path;

use gpusat::{MAX_SCENE_BYTES, Scene};

const SCENE: &str = r#"{"shapes": [{"circle": 1}],
 "bodies": [{"shape": 0, "position": [0, 0]}, {"shape": 0, "position": [1, 0]}],
 "pairs": [[0, 1]]}"#;

#[test]
fn files_over_the_limit_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("scene.json");
    std::fs::write(&path, SCENE).expect("write");
    let size = SCENE.len() as u64;
    assert!(Scene::load_limited(&path, size).is_ok());
    let err = Scene::load_limited(&path, size - 1)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("scene.json") && err.contains(&format!("larger than {} bytes", size - 1)),
        "{err}"
    );
    // The limit is at least 256 MiB (checked when compiling).
    const { assert!(MAX_SCENE_BYTES >= 256 << 20) };
}

#[test]
fn a_file_that_never_ends_is_refused() {
    let zero = Path::new("/dev/zero");
    if !zero.exists() {
        return;
    }
    let err = Scene::load_limited(zero, 1 << 20).unwrap_err().to_string();
    assert!(err.contains("larger than 1048576 bytes"), "{err}");
}

/// Results that cannot be allocated are an error that says how much they
/// need (the CPU backends check the worst case before any work).
#[test]
fn results_too_large_for_memory_are_an_error_saying_how_much() {
    let pairs = 1usize << 46;
    let err = gpusat::reserve_output::<gpusat::SatHit>(pairs, "hits").unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("the hits of {pairs} pairs need 1073741824 MiB, which cannot be allocated")
    );
    // A size the machine has is fine.
    assert!(gpusat::reserve_output::<gpusat::SatHit>(1 << 20, "hits").is_ok());
}
