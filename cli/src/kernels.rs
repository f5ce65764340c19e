//! The kernels' entry points and the size of each in SPIR-V, as naga (the
//! compiler wgpu uses) writes it for a Vulkan driver: what a driver's
//! compiler is given, kind by kind, and so a measure of what it compiles.

use gpusat::gpu::layout;
use naga::back::spv;

use crate::error::CliError as Error;

/// One entry point and its SPIR-V size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryPointSize {
    /// The kernel (the files it is made of).
    pub kernel: &'static str,
    /// The entry point.
    pub entry_point: String,
    /// Its SPIR-V module, in 32-bit words.
    pub words: usize,
}

/// Every entry point of every kernel the host builds, with its SPIR-V size
/// for a workgroup of `workgroup_size` (the kernels' `WORKGROUP_SIZE`
/// override, where they have one).
pub fn spirv_sizes(workgroup_size: u32) -> Result<Vec<EntryPointSize>, Error> {
    let failed = |kernel: &str, what: String| Error::Render(format!("{kernel}: {what}"));
    let mut sizes = Vec::new();
    for (kernel, source) in layout::kernels() {
        let module = naga::front::wgsl::parse_str(source)
            .map_err(|err| failed(kernel, err.emit_to_string(source)))?;
        let info = layout::naga_validator()
            .validate(&module)
            .map_err(|err| failed(kernel, err.emit_to_string(source)))?;
        let mut constants = naga::back::PipelineConstants::default();
        if module
            .overrides
            .iter()
            .any(|(_, o)| o.name.as_deref() == Some("WORKGROUP_SIZE"))
        {
            constants.insert("WORKGROUP_SIZE".to_string(), f64::from(workgroup_size));
        }
        for entry in &module.entry_points {
            let (resolved, resolved_info) = naga::back::pipeline_constants::process_overrides(
                &module,
                &info,
                Some((entry.stage, &entry.name)),
                &constants,
            )
            .map_err(|err| failed(kernel, format!("{}: {err}", entry.name)))?;
            let words = spv::write_vec(
                &resolved,
                &resolved_info,
                // SPIR-V 1.3 where the subgroup operations need it.
                &spv::Options {
                    lang_version: if source.contains("subgroupInclusiveAdd") {
                        (1, 3)
                    } else {
                        spv::Options::default().lang_version
                    },
                    ..spv::Options::default()
                },
                Some(&spv::PipelineOptions {
                    shader_stage: entry.stage,
                    entry_point: entry.name.clone(),
                }),
            )
            .map_err(|err| failed(kernel, format!("{}: {err}", entry.name)))?;
            sizes.push(EntryPointSize {
                kernel,
                entry_point: entry.name.clone(),
                words: words.len(),
            });
        }
    }
    Ok(sizes)
}
