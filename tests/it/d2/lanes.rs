//! The vectorised CPU narrowphase (`sat_lanes`, what `collide_cpu` runs)
//! computes exactly what the scalar twin of the WGSL kernel (`sat`) states,
//! on the AVX path (where the CPU has it) and on the portable one.

use gpusat::Batch;
use gpusat::generate::SceneSpec;
use gpusat::sat::{self, twins as sat_lanes};

#[test]
fn eight_faces_at_a_time_equals_one_at_a_time_bit_for_bit() {
    let specs = [
        SceneSpec {
            half_extent: 3.0,
            ..SceneSpec::mixed(101, 200_000)
        },
        SceneSpec {
            vertices: (17, 64),
            half_extent: 2.0,
            ..SceneSpec::mixed(102, 50_000)
        },
        SceneSpec {
            sliver_fraction: 0.6,
            half_extent: 2.0,
            ..SceneSpec::mixed(103, 50_000)
        },
        SceneSpec {
            vertices: (3, 5),
            circle_fraction: 0.0,
            half_extent: 0.7,
            ..SceneSpec::mixed(104, 50_000)
        },
    ];
    for (index, spec) in specs.iter().enumerate() {
        for margin in [0.0, 0.3] {
            let scene = spec.generate();
            let batch =
                Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("batch");
            let mut reported = 0;
            for (pair_index, pair) in scene.pairs.iter().enumerate() {
                let (a, b) = (pair.a as usize, pair.b as usize);
                let scalar = sat_lanes::collide_pair_records(
                    &scene.shapes,
                    batch.transforms()[a],
                    batch.transforms()[b],
                    scene.bodies[a].shape,
                    scene.bodies[b].shape,
                    margin,
                    sat::CPU_MERGE_THRESHOLD,
                );
                let lanes = batch.test_pair(pair_index);
                match (scalar, lanes) {
                    (None, None) => {}
                    (Some(s), Some(l)) => {
                        reported += 1;
                        assert_eq!(s.axis, l.axis, "scene {index} pair {pair_index}");
                        assert_eq!(
                            (-s.separation).to_bits(),
                            l.depth.to_bits(),
                            "scene {index} pair {pair_index}: {} vs {}",
                            -s.separation,
                            l.depth
                        );
                    }
                    other => panic!(
                        "scene {index} pair {pair_index}: scalar and lanes disagree: {other:?}"
                    ),
                }
            }
            assert!(reported > 1000, "scene {index}: {reported} reported");
            // Both vector paths, over the whole batch, give the same hits.
            let mut dispatched = Vec::new();
            sat_lanes::collide_range(&batch, 0..scene.pairs.len(), &mut dispatched);
            let mut portable = Vec::new();
            sat_lanes::collide_range_portable(&batch, 0..scene.pairs.len(), &mut portable);
            assert_eq!(dispatched.len(), reported);
            let bits = |hits: &[gpusat::SatHit]| {
                hits.iter()
                    .map(|h| (h.pair, h.axis.pack(), h.depth.to_bits()))
                    .collect::<Vec<_>>()
            };
            assert!(
                bits(&dispatched) == bits(&portable),
                "scene {index}: AVX and portable paths differ"
            );
        }
    }
}
