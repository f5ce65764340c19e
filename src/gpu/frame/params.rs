//! The frame's uniform parameters: every dispatch's in one buffer, each at
//! its own 256-byte slot (bound at a dynamic offset), written once per frame.

use bytemuck::Pod;

use super::super::buffers::GrowBuffer;
use super::super::context::GpuContext;
use super::super::error::GpuError;

/// Bytes between two dispatches' parameters (the largest uniform offset
/// alignment a device may ask).
pub(crate) const SLOT: u64 = 256;
/// Slots in the buffer: a frame uses about forty.
const SLOTS: u64 = 512;

pub(crate) struct ParamArena {
    buffer: GrowBuffer,
    bytes: Vec<u8>,
}

impl ParamArena {
    pub fn new(context: &GpuContext) -> Result<ParamArena, GpuError> {
        Ok(ParamArena {
            buffer: GrowBuffer::new(
                context,
                "frame parameters",
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                SLOT * SLOTS,
            )?,
            bytes: Vec::new(),
        })
    }

    /// Starts a frame's parameters.
    pub fn clear(&mut self) {
        self.bytes.clear();
    }

    /// Adds `value` in the next slot; its dynamic offset.
    pub fn push<T: Pod>(&mut self, value: &T) -> u32 {
        let offset = self.bytes.len();
        assert!(
            (offset as u64) < SLOT * SLOTS,
            "a frame records at most {SLOTS} dispatches' parameters"
        );
        self.bytes.extend_from_slice(bytemuck::bytes_of(value));
        self.bytes.resize(offset + SLOT as usize, 0);
        offset as u32
    }

    /// The binding of one slot (moved by the dynamic offset).
    pub fn binding(&self) -> wgpu::BindingResource<'_> {
        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: &self.buffer.buffer,
            offset: 0,
            size: wgpu::BufferSize::new(SLOT),
        })
    }

    /// The buffer (what a recording binds).
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer.buffer
    }

    /// Device memory held.
    pub fn bytes(&self) -> u64 {
        self.buffer.size
    }

    /// Writes the frame's parameters to the device (before the submission).
    pub fn upload(&self, context: &GpuContext) {
        if !self.bytes.is_empty() {
            context
                .queue()
                .write_buffer(&self.buffer.buffer, 0, &self.bytes);
        }
    }
}
