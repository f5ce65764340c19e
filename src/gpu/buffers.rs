//! Device memory that only ever grows: buffers and textures resized
//! geometrically, never rebuilt otherwise, every allocation checked against
//! the device's limits first and run inside error scopes.

use bytemuck::Pod;

use super::context::GpuContext;
use super::error::GpuError;
use super::layout::TEXTURE_WIDTH;

/// A buffer that only ever grows, geometrically.
pub(crate) struct GrowBuffer {
    pub buffer: wgpu::Buffer,
    pub size: u64,
    usage: wgpu::BufferUsages,
    label: &'static str,
}

/// A buffer larger than the device allows, with how much was needed.
pub(crate) fn too_large(what: &str, needed: u64, allowed: u64, limit: &'static str) -> GpuError {
    GpuError::OverLimit {
        what: what.to_string(),
        needed,
        allowed,
        limit,
    }
}

impl GrowBuffer {
    pub fn new(
        context: &GpuContext,
        label: &'static str,
        usage: wgpu::BufferUsages,
        size: u64,
    ) -> Result<GrowBuffer, GpuError> {
        let size = size.max(16).next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
        let limit = context.limits().max_buffer_size;
        if size > limit {
            return Err(too_large(label, size, limit, "max_buffer_size"));
        }
        let buffer = context.scoped(label, || {
            context.device().create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        })?;
        Ok(GrowBuffer {
            buffer,
            size,
            usage,
            label,
        })
    }

    /// Makes room for `needed` bytes (at most `limit`, the device's
    /// `limit_name`); true if reallocated (the old contents are gone).
    pub fn ensure(
        &mut self,
        context: &GpuContext,
        needed: u64,
        (limit, limit_name): (u64, &'static str),
    ) -> Result<bool, GpuError> {
        if needed <= self.size {
            return Ok(false);
        }
        if needed > limit {
            return Err(too_large(self.label, needed, limit, limit_name));
        }
        let size = needed.max(self.size.saturating_mul(2)).min(limit);
        *self = GrowBuffer::new(context, self.label, self.usage, size)?;
        Ok(true)
    }
}

/// A texture of 16-byte texels, `TEXTURE_WIDTH` to a row, that only ever
/// grows (by rows, geometrically).
pub(crate) struct GrowTexture {
    texture: wgpu::Texture,
    pub view: wgpu::TextureView,
    pub rows: u32,
    format: wgpu::TextureFormat,
    usage: wgpu::TextureUsages,
    label: &'static str,
}

impl GrowTexture {
    pub fn new(
        context: &GpuContext,
        label: &'static str,
        format: wgpu::TextureFormat,
        rows: u32,
    ) -> Result<GrowTexture, GpuError> {
        let usage = wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST;
        GrowTexture::with_usage(context, label, format, rows, usage)
    }

    /// A texture with `usage` (a kernel's output: `STORAGE_BINDING`).
    pub fn with_usage(
        context: &GpuContext,
        label: &'static str,
        format: wgpu::TextureFormat,
        rows: u32,
        usage: wgpu::TextureUsages,
    ) -> Result<GrowTexture, GpuError> {
        let rows = rows.max(1);
        let texture = context.scoped(label, || {
            context.device().create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size: wgpu::Extent3d {
                    width: TEXTURE_WIDTH,
                    height: rows,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        })?;
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        Ok(GrowTexture {
            texture,
            view,
            rows,
            format,
            usage,
            label,
        })
    }

    /// Makes room for `texels` (at most `max_rows` rows); true if reallocated.
    pub fn ensure(
        &mut self,
        context: &GpuContext,
        texels: usize,
        max_rows: u32,
    ) -> Result<bool, GpuError> {
        let needed = texels.div_ceil(TEXTURE_WIDTH as usize).max(1);
        if needed <= self.rows as usize {
            return Ok(false);
        }
        if needed > max_rows as usize {
            let texel_bytes = 16;
            return Err(too_large(
                &format!("{texels} {} texels", self.label),
                texels as u64 * texel_bytes,
                u64::from(max_rows) * u64::from(TEXTURE_WIDTH) * texel_bytes,
                "max_texture_dimension_2d",
            ));
        }
        let rows = (needed as u32)
            .max(self.rows.saturating_mul(2))
            .min(max_rows);
        *self = GrowTexture::with_usage(context, self.label, self.format, rows, self.usage)?;
        Ok(true)
    }

    /// Writes whole rows from `texels`, which holds a multiple of a row.
    pub fn write<T: Pod>(&self, context: &GpuContext, texels: &[T]) {
        let rows = (texels.len() / TEXTURE_WIDTH as usize) as u32;
        if rows == 0 {
            return;
        }
        context.queue().write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &self.texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            bytemuck::cast_slice(texels),
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(TEXTURE_WIDTH * size_of::<T>() as u32),
                rows_per_image: Some(rows),
            },
            wgpu::Extent3d {
                width: TEXTURE_WIDTH,
                height: rows,
                depth_or_array_layers: 1,
            },
        );
    }

    /// Bytes of device memory held.
    pub fn bytes(&self) -> u64 {
        u64::from(self.rows) * u64::from(TEXTURE_WIDTH) * 16
    }
}

/// Pads `texels` with copies of `filler` to a whole number of rows.
pub(crate) fn pad_to_rows<T: Copy>(texels: &mut Vec<T>, filler: T) {
    let padded = texels.len().div_ceil(TEXTURE_WIDTH as usize).max(1) * TEXTURE_WIDTH as usize;
    texels.resize(padded, filler);
}
