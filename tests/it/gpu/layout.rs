//! Without a GPU: every shader parses and validates with naga, and every Rust
//! mirror of a WGSL struct has the size and field offsets naga gives it.

use std::path::PathBuf;

use gpusat::gpu::layout::constants::{DIFFERENT_MEANINGS, Value, shared_constants};
use gpusat::gpu::layout::d2::{SAT_WGSL, ShapeTexel, TransformTexel};
use gpusat::gpu::layout::d3::{
    HullRecord, SAT_SOFTWARE_WGSL as SAT3_SOFTWARE_WGSL, SAT_WGSL as SAT3_WGSL,
};
use gpusat::gpu::layout::{
    GRID_WGSL, GridParams, HitRecord, NARROW_WGSL, NarrowParams, PAIRS_WGSL, PairsParams, Params,
    SCAN_SUBGROUPS_WGSL, SCAN_WGSL, ScanParams, TEXTURE_WIDTH, TEXTURE_WIDTH_LOG2,
};
use gpusat::gpu::{FrameBody, FrameHit, FrameManifold};
use gpusat::{EdgeRecord, Pair, ShapeRecord};
use wgpu::naga;

fn shader_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut files = Vec::new();
    for dir in [
        dir.clone(),
        dir.join("d2"),
        dir.join("d3"),
        dir.join("frame"),
    ] {
        files.extend(
            std::fs::read_dir(&dir)
                .expect("shaders/, shaders/d2/, shaders/d3/ and shaders/frame/ exist")
                .map(|entry| entry.expect("directory entry").path())
                .filter(|path| path.extension().is_some_and(|ext| ext == "wgsl")),
        );
    }
    files.sort();
    files
}

fn parse(source: &str, name: &str) -> naga::Module {
    naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|err| panic!("{name} does not parse:\n{}", err.emit_to_string(source)))
}

/// A kernel parsed, and naga's layout of its types.
fn laid_out(source: &str, name: &str) -> (naga::Module, naga::proc::Layouter) {
    let module = parse(source, name);
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).expect("layout");
    (module, layouter)
}

/// The kernels as the device gets them: each file loaded after batch.wgsl.
fn kernels() -> Vec<(&'static str, &'static str, &'static [&'static str])> {
    vec![
        (
            "batch.wgsl + d2/sat.wgsl",
            SAT_WGSL,
            &[
                "batch.wgsl",
                "workgroup_scan.wgsl",
                "d2/sat.wgsl",
                "d2/rounded.wgsl",
            ],
        ),
        (
            "batch.wgsl + d3/sat.wgsl + d3/hardware.wgsl + d3/rounded.wgsl",
            SAT3_WGSL,
            &[
                "batch.wgsl",
                "workgroup_scan.wgsl",
                "d3/sat.wgsl",
                "d3/hardware.wgsl",
                "d3/rounded.wgsl",
            ],
        ),
        (
            "batch.wgsl + d3/sat.wgsl + d3/software.wgsl",
            SAT3_SOFTWARE_WGSL,
            &[
                "batch.wgsl",
                "workgroup_scan.wgsl",
                "d3/sat.wgsl",
                "d3/software.wgsl",
            ],
        ),
        (
            "frame/common.wgsl + frame/grid.wgsl",
            GRID_WGSL,
            &[
                "frame/common.wgsl",
                "workgroup_scan.wgsl",
                "frame/grid.wgsl",
            ],
        ),
        (
            "frame/common.wgsl + frame/narrow.wgsl + d2/sat.wgsl + d2/rounded.wgsl + frame/manifold.wgsl",
            NARROW_WGSL,
            &[
                "frame/common.wgsl",
                "frame/narrow.wgsl",
                "d2/sat.wgsl",
                "d2/rounded.wgsl",
                "frame/manifold.wgsl",
            ],
        ),
        (
            "frame/common.wgsl + frame/pairs.wgsl",
            PAIRS_WGSL,
            &["frame/common.wgsl", "frame/pairs.wgsl"],
        ),
        (
            "frame/scan.wgsl",
            SCAN_WGSL,
            &["workgroup_scan.wgsl", "frame/scan.wgsl"],
        ),
        (
            "frame/scan.wgsl + frame/scan_subgroups.wgsl",
            SCAN_SUBGROUPS_WGSL,
            &[
                "workgroup_scan.wgsl",
                "frame/scan.wgsl",
                "frame/scan_subgroups.wgsl",
            ],
        ),
    ]
}

#[test]
fn every_kernel_parses_and_validates() {
    for (name, source, _) in kernels() {
        let module = parse(source, name);
        let mut validator = gpusat::gpu::layout::naga_validator();
        if let Err(err) = validator.validate(&module) {
            panic!("{name} does not validate:\n{}", err.emit_to_string(source));
        }
        assert!(
            module
                .entry_points
                .iter()
                .any(|e| e.stage == naga::ShaderStage::Compute),
            "{name} has no compute entry point"
        );
    }
}

#[test]
fn the_embedded_kernels_are_the_files_and_use_every_file() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut used = std::collections::BTreeSet::new();
    for (name, source, files) in kernels() {
        let on_disk: Vec<String> = files
            .iter()
            .map(|file| std::fs::read_to_string(dir.join(file)).expect("shader file"))
            .collect();
        assert_eq!(on_disk.join("\n"), source, "{name}");
        used.extend(files.iter().map(|file| dir.join(file)));
    }
    let all: std::collections::BTreeSet<PathBuf> = shader_files().into_iter().collect();
    assert_eq!(used, all, "every .wgsl file is part of a kernel");
}

/// (size, [(field, offset)]) of a WGSL struct, from naga's layouter.
fn wgsl_struct(
    module: &naga::Module,
    layouter: &naga::proc::Layouter,
    name: &str,
) -> (u32, Vec<(String, u32)>) {
    let (handle, ty) = module
        .types
        .iter()
        .find(|(_, ty)| ty.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no struct {name} in the shader"));
    match &ty.inner {
        naga::TypeInner::Struct { members, span } => {
            assert_eq!(*span, layouter[handle].size);
            let fields = members
                .iter()
                .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
                .collect();
            (*span, fields)
        }
        other => panic!("{name} is not a struct: {other:?}"),
    }
}

macro_rules! assert_mirror {
    ($module:expr, $layouter:expr, $wgsl:literal, $rust:ty, [$($field:ident),* $(,)?]) => {{
        let (size, fields) = wgsl_struct($module, $layouter, $wgsl);
        assert_eq!(
            size as usize,
            std::mem::size_of::<$rust>(),
            "{}: WGSL size {size}, Rust size {}",
            $wgsl,
            std::mem::size_of::<$rust>()
        );
        let rust_fields: Vec<(String, u32)> = vec![
            $((stringify!($field).to_string(), std::mem::offset_of!($rust, $field) as u32)),*
        ];
        assert_eq!(fields, rust_fields, "{}: field names and offsets (WGSL left, Rust right)", $wgsl);
        assert_eq!(std::mem::size_of::<$rust>() % 16, 0, "{} is not a 16-byte multiple", $wgsl);
    }};
}

#[test]
fn rust_mirrors_match_the_wgsl_layout() {
    let (module, layouter) = laid_out(SAT_WGSL, "sat.wgsl");

    assert_mirror!(
        &module,
        &layouter,
        "ShapeRecord",
        ShapeRecord,
        [first, count, radius, size]
    );
    assert_mirror!(
        &module,
        &layouter,
        "HitRecord",
        HitRecord,
        [pair, axis, depth, _pad]
    );
    assert_mirror!(
        &module,
        &layouter,
        "Params",
        Params,
        [
            pair_base,
            pair_count,
            groups_x,
            capacity,
            margin,
            merge_threshold,
            window,
            deferral
        ]
    );
    // The 8-byte pair record (inputs stay within 16 bytes per pair).
    let (size, fields) = wgsl_struct(&module, &layouter, "Pair");
    assert_eq!(size as usize, std::mem::size_of::<Pair>());
    assert_eq!(
        fields,
        vec![
            ("a".to_string(), std::mem::offset_of!(Pair, a) as u32),
            ("b".to_string(), std::mem::offset_of!(Pair, b) as u32)
        ]
    );

    // Textures of 16-byte texels: edges (vertex .xy, normal .zw) and body
    // transforms as rgba32float, body shape records as rgba32uint.
    let texture = |name: &str| {
        let ty = module
            .global_variables
            .iter()
            .find(|(_, var)| var.name.as_deref() == Some(name))
            .map(|(_, var)| var.ty)
            .unwrap_or_else(|| panic!("no `{name}` binding"));
        module.types[ty].inner.clone()
    };
    let sampled = |kind| naga::TypeInner::Image {
        dim: naga::ImageDimension::D2,
        arrayed: false,
        class: naga::ImageClass::Sampled { kind, multi: false },
    };
    assert_eq!(texture("edges"), sampled(naga::ScalarKind::Float));
    assert_eq!(texture("body_transforms"), sampled(naga::ScalarKind::Float));
    assert_eq!(texture("body_shapes"), sampled(naga::ScalarKind::Uint));
    assert_eq!(std::mem::size_of::<EdgeRecord>(), 16);
    assert_eq!(std::mem::offset_of!(EdgeRecord, vertex), 0);
    assert_eq!(std::mem::offset_of!(EdgeRecord, normal), 8);
    assert_eq!(std::mem::size_of::<TransformTexel>(), 16);
    assert_eq!(std::mem::size_of::<ShapeTexel>(), 16);
    // The shape texel is a ShapeRecord's fields in order, as the kernel decodes it.
    let record = ShapeRecord {
        first: 7,
        count: 5,
        radius: 0.25,
        size: 1.5,
    };
    assert_eq!(
        gpusat::gpu::layout::d2::shape_texel(&record),
        [7, 5, 0.25f32.to_bits(), 1.5f32.to_bits()]
    );

    assert_eq!(TEXTURE_WIDTH, 1 << TEXTURE_WIDTH_LOG2);
}

#[test]
fn rust_mirrors_match_the_3d_kernel_layout() {
    let (module, layouter) = laid_out(SAT3_WGSL, "d3/sat.wgsl");
    assert_mirror!(
        &module,
        &layouter,
        "HullRecord",
        HullRecord,
        [
            float_base,
            vertex_count,
            face_count,
            edge_count,
            int_base,
            radius,
            size,
            reach
        ]
    );
    assert_mirror!(
        &module,
        &layouter,
        "HitRecord",
        HitRecord,
        [pair, axis, depth, _pad]
    );
    // The shape record is two uint texels, its fields in order, as
    // `body_shape` decodes them.
    let record = HullRecord {
        float_base: 11,
        vertex_count: 8,
        face_count: 6,
        edge_count: 12,
        int_base: 40,
        radius: 0.0,
        size: 1.25,
        reach: 0.75,
    };
    assert_eq!(
        gpusat::gpu::layout::d3::hull_record_texels(&record),
        [
            [11, 8, 6, 12],
            [40, 0, 1.25f32.to_bits(), 0.75f32.to_bits()]
        ]
    );
    // A transform's texels: rotation columns with the position's coordinates.
    let xf = gpusat::d3::Transform::new(
        glam::Vec3::new(1.0, 2.0, 3.0),
        glam::Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
    );
    let texels = gpusat::gpu::layout::d3::transform_texels(&xf);
    assert_eq!([texels[0][3], texels[1][3], texels[2][3]], [1.0, 2.0, 3.0]);
    assert_eq!(&texels[0][..3], xf.r.c0.to_array().as_slice());
    assert_eq!(&texels[2][..3], xf.r.c2.to_array().as_slice());
    // The entry points are the host's kinds, in order, then the deferred
    // pairs' dispatch: the hardware module's, then the software module's
    // (src/gpu/d3/mod.rs checks which kind is in which).
    let entry_points = |module: &naga::Module| -> Vec<String> {
        module.entry_points.iter().map(|e| e.name.clone()).collect()
    };
    let software = parse(SAT3_SOFTWARE_WGSL, "d3/software.wgsl");
    assert_eq!(
        entry_points(&module),
        [
            "hulls",
            "hull_sphere",
            "spheres",
            "hulls_large_loops",
            "hulls_gridded_loops",
            "boxes",
            "rounded",
            "hull_capsule",
            "capsules",
        ]
    );
    assert_eq!(
        entry_points(&software),
        [
            "hulls_large",
            "hulls_cached",
            "hulls_cached64",
            "hulls_gridded",
            "hulls_small",
            "hulls_cached16",
            "hulls_gridded32",
            "hulls_deferred"
        ]
    );
}

#[test]
fn rust_mirrors_match_the_frame_kernels_layout() {
    let (module, layouter) = laid_out(GRID_WGSL, "frame/grid.wgsl");
    assert_mirror!(
        &module,
        &layouter,
        "FrameBody",
        FrameBody,
        [position, rotation, shape, inv_mass, _pad]
    );
    assert_mirror!(
        &module,
        &layouter,
        "ShapeRecord",
        ShapeRecord,
        [first, count, radius, size]
    );
    assert_mirror!(
        &module,
        &layouter,
        "GridParams",
        GridParams,
        [
            body_count,
            shape_count,
            bucket_mask,
            entry_capacity,
            pair_capacity,
            large_capacity,
            skip_static,
            merge_threshold,
            cell_inverse,
            margin,
            narrow_workgroup,
            max_groups
        ]
    );

    let (module, layouter) = laid_out(NARROW_WGSL, "frame/narrow.wgsl + sat.wgsl");
    assert_mirror!(
        &module,
        &layouter,
        "NarrowParams",
        NarrowParams,
        [kind, merge_threshold, margin, capacity]
    );
    assert_mirror!(
        &module,
        &layouter,
        "FrameManifold",
        FrameManifold,
        [
            normal, point0, point1, depth0, depth1, id0, id1, count, _pad
        ]
    );

    let (module, layouter) = laid_out(PAIRS_WGSL, "frame/pairs.wgsl");
    assert_mirror!(
        &module,
        &layouter,
        "PairsParams",
        PairsParams,
        [count_index, capacity, _pad0, _pad1]
    );
    assert_mirror!(
        &module,
        &layouter,
        "FrameHit",
        FrameHit,
        [a, b, axis, depth]
    );

    let (module, layouter) = laid_out(SCAN_WGSL, "frame/scan.wgsl");
    assert_mirror!(
        &module,
        &layouter,
        "ScanParams",
        ScanParams,
        [count, count_index, level, first_capacity]
    );
}

/// A WGSL constant's value, from naga's evaluated global expressions.
fn wgsl_value(module: &naga::Module, init: naga::Handle<naga::Expression>) -> Option<Value> {
    match &module.global_expressions[init] {
        naga::Expression::Literal(naga::Literal::U32(v)) => Some(Value::U32(*v)),
        naga::Expression::Literal(naga::Literal::I32(v)) => Some(Value::I32(*v)),
        naga::Expression::Literal(naga::Literal::F32(v)) => Some(Value::F32(*v)),
        naga::Expression::Compose { components, .. } => components
            .iter()
            .map(|&c| match wgsl_value(module, c) {
                Some(Value::U32(v)) => Some(v),
                _ => None,
            })
            .collect::<Option<Vec<u32>>>()
            .map(Value::U32s),
        _ => None,
    }
}

/// Every number written both in Rust and in a kernel (the tolerances, the
/// axis packing, the state words, ...) has the same value on both sides,
/// and every kernel constant named as a Rust constant is listed (or listed
/// as meaning something else).
#[test]
fn every_constant_written_in_rust_and_wgsl_agrees() {
    let shared = shared_constants();
    let mut checked = 0;
    for constant in &shared {
        let module = parse(constant.kernel, constant.kernel_name);
        let init = module
            .constants
            .iter()
            .find(|(_, c)| c.name.as_deref() == Some(constant.name))
            .map(|(_, c)| c.init)
            .unwrap_or_else(|| {
                panic!(
                    "{} is not a constant of {}",
                    constant.name, constant.kernel_name
                )
            });
        let wgsl = wgsl_value(&module, init).unwrap_or_else(|| {
            panic!(
                "{} in {}: not a literal",
                constant.name, constant.kernel_name
            )
        });
        assert_eq!(
            wgsl, constant.value,
            "{} in {}: the kernel's {wgsl:?} against the host's {:?}",
            constant.name, constant.kernel_name, constant.value
        );
        checked += 1;
    }
    // The Rust constants' names, from the library's source.
    let mut rust_names = std::collections::BTreeSet::new();
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut dirs = vec![src];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("src/ reads") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                let text = std::fs::read_to_string(&path).expect("a source file");
                for line in text.lines() {
                    let line = line.trim_start();
                    let line = line
                        .strip_prefix("pub(crate) ")
                        .or_else(|| line.strip_prefix("pub(super) "))
                        .or_else(|| line.strip_prefix("pub "))
                        .unwrap_or(line);
                    if let Some(rest) = line.strip_prefix("const ") {
                        let name: String = rest
                            .chars()
                            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                            .collect();
                        rust_names.insert(name);
                    }
                }
            }
        }
    }
    for (kernel_name, source) in gpusat::gpu::layout::kernels() {
        let module = parse(source, kernel_name);
        for (_, constant) in module.constants.iter() {
            let Some(name) = constant.name.as_deref() else {
                continue;
            };
            if !rust_names.contains(name) {
                continue;
            }
            let listed = shared
                .iter()
                .any(|c| c.kernel_name == kernel_name && c.name == name)
                || DIFFERENT_MEANINGS
                    .iter()
                    .any(|&(kernel, other, _)| kernel == kernel_name && other == name);
            assert!(
                listed,
                "{name} is a constant of {kernel_name} and of the Rust source, but not in \
                 gpu::layout::constants (shared_constants or DIFFERENT_MEANINGS)"
            );
        }
    }
    assert!(checked >= 60, "{checked} constants checked");
}
