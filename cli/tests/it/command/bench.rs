//! `gpusat bench`: the table, the CSV, the JSON lines and the plot it
//! writes, and its errors, on a sweep small enough for a test.

use std::path::Path;

use super::gpusat;

fn path_arg(path: &Path) -> String {
    path.display().to_string()
}

#[test]
fn a_small_sweep_writes_the_table_csv_json_and_plot() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (csv, json, plot) = (
        dir.path().join("bench.csv"),
        dir.path().join("bench.jsonl"),
        dir.path().join("bench.png"),
    );
    let has_gpu = crate::common::gpu_context().is_some();
    let backends = if has_gpu {
        "cpu,cpu-parallel,cpu-contacts,gpu,gpu-kernel,parry2d"
    } else {
        "cpu,cpu-parallel,cpu-contacts,parry2d"
    };
    let out = gpusat(&[
        "bench",
        "--sizes",
        "300,3000",
        "--backends",
        backends,
        "--time",
        "0.02",
        "--samples",
        "3",
        "--csv",
        &path_arg(&csv),
        "--json",
        &path_arg(&json),
        "--plot",
        &path_arg(&plot),
        "--plot-size",
        "640x400",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let backend_count = backends.split(',').count();
    let rows = 2 * backend_count;

    // The table: a header, one line per cell, the transfer and memory lines.
    assert!(
        stdout.contains("8-gons, reference distribution"),
        "{stdout}"
    );
    assert!(stdout.contains("vs parry"), "{stdout}");
    for backend in backends.split(',') {
        assert!(
            stdout
                .lines()
                .any(|line| line.contains(&format!(" {backend} "))),
            "no {backend} row in\n{stdout}"
        );
    }
    assert!(stdout.contains("parallel ceiling"), "{stdout}");
    if has_gpu {
        // 16 bytes per record, from outputs sized at 1.125 times the last
        // batch's hits plus 256 records (the largest batch: 3,000 pairs).
        let line = stdout
            .lines()
            .find(|line| line.contains("bytes read back per reported pair"))
            .unwrap_or_else(|| panic!("no transfer line in\n{stdout}"));
        let per_hit: f64 = line
            .split(", ")
            .nth(1)
            .and_then(|part| part.split_whitespace().next())
            .and_then(|number| number.parse().ok())
            .unwrap_or_else(|| panic!("no figure in {line}"));
        let hits: f64 = stdout
            .lines()
            .filter(|line| line.trim_start().starts_with("3000") && line.contains(" gpu "))
            .find_map(|line| line.split_whitespace().nth(2)?.parse().ok())
            .unwrap_or_else(|| panic!("no gpu row at 3000 pairs in\n{stdout}"));
        let most = 16.0 * 1.125 + 16.0 * 258.0 / hits;
        assert!(
            (16.0..=most + 0.05).contains(&per_hit),
            "{per_hit} bytes per hit, at most {most:.1} expected: {line}"
        );
    }

    // CSV: a header and one line per cell; the reference's ratio is 1.
    let csv_text = std::fs::read_to_string(&csv).expect("CSV written");
    let lines: Vec<&str> = csv_text.lines().collect();
    assert_eq!(lines.len(), rows + 1, "{csv_text}");
    assert!(
        lines[0].starts_with("workload,backend,pairs,hits"),
        "{}",
        lines[0]
    );
    let cpu_rows: Vec<&&str> = lines.iter().filter(|line| line.contains(",cpu,")).collect();
    assert_eq!(cpu_rows.len(), 2, "{csv_text}");
    assert!(
        cpu_rows.iter().all(|line| line.contains(",1.0000,")),
        "{csv_text}"
    );

    // JSON lines: one object per cell, with consistent figures.
    let json_text = std::fs::read_to_string(&json).expect("JSON written");
    let objects: Vec<serde_json::Value> = json_text
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect();
    assert_eq!(objects.len(), rows);
    let mut reference_hits = std::collections::HashMap::new();
    for object in &objects {
        let pairs = object["pairs"].as_u64().expect("pairs");
        let hits = object["hits"].as_u64().expect("hits");
        let ns = object["ns_per_pair"].as_f64().expect("ns_per_pair");
        let rate = object["pairs_per_second"]
            .as_f64()
            .expect("pairs_per_second");
        assert!(pairs == 300 || pairs == 3000, "{object}");
        assert!(hits > 0 && hits <= pairs, "{object}");
        assert!(ns > 0.0 && ns.is_finite(), "{object}");
        assert!(((rate * ns) / 1e9 - 1.0).abs() < 1e-9, "{object}");
        if object["backend"] == "cpu" {
            reference_hits.insert(pairs, hits);
        }
        // The calling thread's CPU time (where the platform tells it):
        // finite, and on one thread never more than the wall-clock time of
        // the same samples.
        if cfg!(not(unix)) {
            continue;
        }
        let host = object["host_ns_per_pair"]
            .as_f64()
            .unwrap_or_else(|| panic!("no host_ns_per_pair in {object}"));
        assert!(host >= 0.0 && host.is_finite(), "{object}");
        if object["backend"] == "cpu" {
            assert!(host <= 1.05 * ns, "host {host} above wall {ns}: {object}");
        }
    }
    // Every backend of gpusat's own reports exactly the reference's hits.
    for object in objects
        .iter()
        .filter(|object| object["backend"] != "parry2d")
    {
        let pairs = object["pairs"].as_u64().expect("pairs");
        assert_eq!(
            Some(&object["hits"].as_u64().expect("hits")),
            reference_hits.get(&pairs),
            "{object}"
        );
    }

    // The plot: a PNG of the asked size with each backend's colour on it.
    let png = std::fs::read(&plot).expect("plot written");
    let pixmap = tiny_skia::Pixmap::decode_png(&png).expect("a PNG");
    assert_eq!((pixmap.width(), pixmap.height()), (640, 400));
    let first_line_colour = [31u8, 119, 180, 255];
    let coloured = pixmap
        .data()
        .chunks_exact(4)
        .filter(|pixel| *pixel == first_line_colour)
        .count();
    assert!(
        coloured > 50,
        "{coloured} pixels of the first backend's colour"
    );
    let dark = pixmap
        .data()
        .chunks_exact(4)
        .filter(|pixel| pixel[0] < 60 && pixel[1] < 60 && pixel[2] < 60)
        .count();
    assert!(dark > 500, "{dark} dark pixels: axes and labels missing");
}

#[test]
fn bad_bench_options_are_errors_and_write_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let csv = dir.path().join("bench.csv");
    let cases: [(&[&str], &str); 5] = [
        (&["--sizes", "0"], "batch size 0"),
        (&["--vertices", "2"], "--vertices 2"),
        (&["--vertices", "65"], "--vertices 65"),
        (&["--time=-1"], "--time -1"),
        (&["--samples", "0"], "--samples 0"),
    ];
    for (options, expected) in cases {
        let mut args = vec!["bench", "--csv"];
        let csv_arg = path_arg(&csv);
        args.push(&csv_arg);
        args.extend_from_slice(options);
        let out = gpusat(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{options:?} succeeded");
        assert!(stderr.contains(expected), "{options:?}: {stderr}");
        assert!(!csv.exists(), "{options:?} wrote the CSV");
    }

    // A plot that cannot be written is an error after the table, and leaves
    // no file behind.
    let missing = dir.path().join("no-such-dir").join("plot.png");
    let out = gpusat(&[
        "bench",
        "--sizes",
        "100",
        "--backends",
        "cpu",
        "--time",
        "0.01",
        "--plot",
        &path_arg(&missing),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("no-such-dir"), "{stderr}");
    assert!(!missing.exists());
}

#[test]
fn the_gpu_resident_rows_carry_host_time_and_agree_on_the_hits() {
    if crate::common::gpu_context().is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("bench.jsonl");
    let out = gpusat(&[
        "bench",
        "--sizes",
        "4000",
        "--backends",
        "gpu-resident",
        "--time",
        "0.02",
        "--samples",
        "3",
        "--json",
        &path_arg(&json),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let text = std::fs::read_to_string(&json).expect("json written");
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON row"))
        .collect();
    let names: Vec<&str> = rows
        .iter()
        .map(|row| row["backend"].as_str().expect("backend"))
        .collect();
    assert_eq!(names, ["cpu-frame", "gpu-frame", "gpu-resident"], "{text}");
    let pairs = rows[0]["pairs"].as_u64().expect("pairs");
    assert!(
        (3000..=5000).contains(&pairs),
        "the frame scene has {pairs} candidate pairs, not about 4,000"
    );
    for row in &rows {
        assert_eq!(row["pairs"], rows[0]["pairs"], "{row}");
        assert_eq!(row["hits"], rows[0]["hits"], "{row}");
        let host = row["host_ns_per_pair"].as_f64();
        if cfg!(unix) {
            assert!(host.is_some_and(|ns| ns > 0.0), "no host time: {row}");
        }
    }
    // The resident frame's dispatches and, with timestamps, each stage's
    // GPU time, in the JSON and the table.
    let dispatches = rows[2]["dispatches"]
        .as_u64()
        .expect("the frame's dispatches");
    assert!((10..=30).contains(&dispatches), "{} dispatches", dispatches);
    assert!(
        stdout.contains(&format!("{dispatches} dispatches a frame")),
        "{stdout}"
    );
    if let Some(stages) = rows[2]["stage_times_us"].as_array() {
        let names: Vec<&str> = stages.iter().filter_map(|s| s[0].as_str()).collect();
        assert_eq!(names.first(), Some(&"bounds"), "{stages:?}");
        assert_eq!(names.last(), Some(&"manifolds"), "{stages:?}");
        assert_eq!(names.len(), 9, "{stages:?}");
    }
    assert!(rows[0]["dispatches"].is_null(), "{}", rows[0]);
}
