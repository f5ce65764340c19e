//! Running a frame and reading it back: one submission and one map of the
//! counters, hits and manifolds (a second map only when the hits outgrew
//! the last frame's by more than an eighth), handed to the caller in place.

use std::sync::{Arc, Mutex};

use super::grid::MAX_LARGE_BODIES;
use super::stages::STAGE_TIMESTAMP_BYTES;
use super::state::{
    STATE_CROWDED, STATE_ENTRIES, STATE_HEADER_WORDS, STATE_HITS, STATE_LARGE, STATE_PAIR_OVERFLOW,
    STATE_PAIRS,
};
use super::{FrameHit, FrameManifold, GpuError, GpuFrame};
use crate::core::pair::Pair;
use crate::gpu::buffers::GrowBuffer;
use crate::gpu::windows::CAPACITY_SLACK;

/// Bytes of a [`FrameManifold`].
pub(super) const MANIFOLD_BYTES: u64 = 48;

/// One frame's results where the GPU left them (the mapped readback):
/// see [`GpuFrame::step_with`].
#[derive(Clone, Copy, Debug)]
pub struct FrameView<'a> {
    /// The candidate pairs the broadphase found.
    pub pairs: u32,
    /// The reported pairs, in `(a, b)` order.
    pub hits: &'a [FrameHit],
    /// Their contact manifolds, one per hit.
    pub manifolds: &'a [FrameManifold],
}

/// One frame's results, read back.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameOutput {
    /// The candidate pairs the broadphase found.
    pub pairs: u32,
    /// The reported pairs, in `(a, b)` order.
    pub hits: Vec<FrameHit>,
    /// Their contact manifolds, one per hit.
    pub manifolds: Vec<FrameManifold>,
}

impl GpuFrame {
    /// Finds the frame's candidate pairs and reads them back, in
    /// `(a, b)`: the broadphase alone, for tests and for callers who want
    /// the pairs on the host. Two maps (the count, then the pairs).
    pub fn find_pairs(&mut self) -> Result<Vec<Pair>, GpuError> {
        loop {
            let mut encoder =
                self.context
                    .device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("frame broadphase"),
                    });
            self.record(&mut encoder, false);
            let header = self.read(encoder, &self.state.buffer.clone(), STATE_HEADER_WORDS * 4)?;
            let words: Vec<u32> = bytemuck::pod_collect_to_vec(&header);
            if self.check_counts(&words)? {
                continue;
            }
            let count = words[STATE_PAIRS as usize];
            let encoder =
                self.context
                    .device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("frame pairs"),
                    });
            let bytes = self.read(encoder, &self.pairs.buffer.clone(), u64::from(count) * 8)?;
            let records: Vec<[u32; 2]> = bytemuck::pod_collect_to_vec(&bytes);
            return Ok(records.iter().map(|&[a, b]| Pair::new(a, b)).collect());
        }
    }

    /// Runs one frame: one submission (the broadphase, the partition, the
    /// narrowphase by indirect dispatch, the compaction) and one map of the
    /// counters and the hits, in `(a, b)` order. Nothing per pair runs on
    /// the host but copying the hits out. A second map is needed only when
    /// the hits outgrow the last frame's by more than an eighth; an
    /// overflowing buffer grows and the frame runs again.
    pub fn step(&mut self) -> Result<FrameOutput, GpuError> {
        self.step_with(|view| FrameOutput {
            pairs: view.pairs,
            hits: view.hits.to_vec(),
            manifolds: view.manifolds.to_vec(),
        })
    }

    /// [`GpuFrame::step`] without copying the hits out: `read` gets them
    /// where the GPU left them (the mapped readback), and what it returns
    /// is returned. The view lives until `read` returns.
    pub fn step_with<R>(&mut self, read: impl FnOnce(FrameView<'_>) -> R) -> Result<R, GpuError> {
        self.stats.frames += 1;
        let header_bytes = STATE_HEADER_WORDS * 4;
        let mut read = Some(read);
        let (words, early) = loop {
            let mut encoder =
                self.context
                    .device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("frame"),
                    });
            self.record(&mut encoder, true);
            // The last frame's hits and an eighth more, plus 256 (as the
            // batch path sizes its windows: `CAPACITY_GROWTH`): the copy
            // back moves little more than the hits.
            let expected = self.expected_hits();
            let state = self.state.buffer.clone();
            let hits = self.hits.buffer.clone();
            let manifolds = self.manifolds.buffer.clone();
            let room = (self.pair_capacity, self.entry_capacity);
            let mut regions = vec![
                (&state, 0, header_bytes),
                (&hits, 0, u64::from(expected) * 16),
                (&manifolds, 0, u64::from(expected) * MANIFOLD_BYTES),
            ];
            // The stages' timestamps, last, when they are timed.
            let clock = self
                .stage_clock
                .as_ref()
                .map(|clock| clock.resolved.clone());
            if let Some(resolved) = &clock {
                regions.push((resolved, 0, STAGE_TIMESTAMP_BYTES));
            }
            let mut stamps = Vec::new();
            // The counters, and when they show a frame that fit and hits
            // that fit the copy, the hits handed over in place.
            let (words, early) = self.map_regions(encoder, &regions, |bytes| {
                if clock.is_some() {
                    stamps = bytes[bytes.len() - STAGE_TIMESTAMP_BYTES as usize..].to_vec();
                }
                let words: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes[..header_bytes as usize]);
                let hit_count = words[STATE_HITS as usize];
                let fits = fits(&words, room, expected);
                let at = header_bytes as usize;
                let manifolds_at = at + expected as usize * 16;
                let early = match read.take() {
                    Some(reader) if fits => Some(read_view(
                        words[STATE_PAIRS as usize],
                        &bytes[at..at + hit_count as usize * 16],
                        &bytes[manifolds_at
                            ..manifolds_at + hit_count as usize * MANIFOLD_BYTES as usize],
                        reader,
                    )),
                    unused => {
                        read = unused;
                        None
                    }
                };
                (words, early)
            })?;
            if let Some(clock) = &self.stage_clock {
                self.stats.stage_times = clock.times(&stamps, &self.last_stages);
            }
            if self.check_counts(&words)? {
                self.stats.reruns += 1;
                continue;
            }
            break (words, early);
        };
        let hit_count = words[STATE_HITS as usize];
        self.last_hits = Some(hit_count);
        if let Some(result) = early {
            return Ok(result);
        }
        // More hits than the last frame's by over an eighth: all of them
        // in a second map.
        let encoder =
            self.context
                .device()
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("frame hits"),
                });
        let hits = self.hits.buffer.clone();
        let manifolds = self.manifolds.buffer.clone();
        let pairs = words[STATE_PAIRS as usize];
        let reader = read.take();
        let hit_bytes = hit_count as usize * 16;
        self.map_regions(
            encoder,
            &[
                (&hits, 0, hit_bytes as u64),
                (&manifolds, 0, u64::from(hit_count) * MANIFOLD_BYTES),
            ],
            |bytes| {
                reader.map(|reader| {
                    read_view(pairs, &bytes[..hit_bytes], &bytes[hit_bytes..], reader)
                })
            },
        )?
        .ok_or_else(|| GpuError::Readback {
            message: "the frame's hits were read twice".to_string(),
        })
    }

    /// [`GpuFrame::step`] without waiting: records and submits the frame
    /// and the copy back of its counters and hits, and returns; collect it
    /// with [`GpuFrame::poll_step_with`]. A page's way to run a frame (it
    /// cannot wait), and a native application's to do other work meanwhile.
    /// One frame at a time: [`GpuError::Busy`] while one is started.
    pub fn begin_step(&mut self) -> Result<(), GpuError> {
        if self.started.is_some() {
            return Err(GpuError::Busy);
        }
        self.stats.frames += 1;
        let read = self.submit_frame()?;
        self.started = Some(read);
        Ok(())
    }

    /// The started frame's results once they are in: `read` gets them as
    /// [`GpuFrame::step_with`]'s does, and what it returns is returned;
    /// `None` while the GPU is at it (call again later; `read` is not
    /// called). Never waits. A frame whose buffers overflowed grows them
    /// and runs again, and hits beyond the copy's room take a second copy:
    /// then the results come a call or two later. An error drops the frame.
    pub fn poll_step_with<R>(
        &mut self,
        read: impl FnOnce(FrameView<'_>) -> R,
    ) -> Result<Option<R>, GpuError> {
        let Some(started) = self.started.take() else {
            return Err(GpuError::NotPending);
        };
        self.context.poll()?;
        match started {
            FrameRead::Counters {
                submitted,
                expected,
            } => {
                let header_bytes = (STATE_HEADER_WORDS * 4) as usize;
                let (room, timed) = (
                    (self.pair_capacity, self.entry_capacity),
                    self.stage_clock.is_some(),
                );
                let mut reader = Some(read);
                let got = self.read_submitted(&submitted, |bytes| {
                    let stamps = timed
                        .then(|| bytes[bytes.len() - STAGE_TIMESTAMP_BYTES as usize..].to_vec());
                    let words: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes[..header_bytes]);
                    let hit_count = words[STATE_HITS as usize];
                    let manifolds_at = header_bytes + expected as usize * 16;
                    let early = match reader.take() {
                        Some(reader) if fits(&words, room, expected) => Some(read_view(
                            words[STATE_PAIRS as usize],
                            &bytes[header_bytes..header_bytes + hit_count as usize * 16],
                            &bytes[manifolds_at
                                ..manifolds_at + hit_count as usize * MANIFOLD_BYTES as usize],
                            reader,
                        )),
                        _ => None,
                    };
                    (words, stamps, early)
                })?;
                let Some((words, stamps, early)) = got else {
                    self.started = Some(FrameRead::Counters {
                        submitted,
                        expected,
                    });
                    return Ok(None);
                };
                if let (Some(clock), Some(stamps)) = (&self.stage_clock, stamps) {
                    self.stats.stage_times = clock.times(&stamps, &self.last_stages);
                }
                if self.check_counts(&words)? {
                    self.stats.reruns += 1;
                    self.started = Some(self.submit_frame()?);
                    return Ok(None);
                }
                let hit_count = words[STATE_HITS as usize];
                self.last_hits = Some(hit_count);
                if let Some(result) = early {
                    return Ok(Some(result));
                }
                // More hits than the copy had room for: all of them in a
                // second copy.
                let encoder =
                    self.context
                        .device()
                        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                            label: Some("frame hits"),
                        });
                let (hits, manifolds) = (self.hits.buffer.clone(), self.manifolds.buffer.clone());
                let submitted = self.submit_regions(
                    encoder,
                    &[
                        (&hits, 0, u64::from(hit_count) * 16),
                        (&manifolds, 0, u64::from(hit_count) * MANIFOLD_BYTES),
                    ],
                )?;
                self.started = Some(FrameRead::Hits {
                    submitted,
                    pairs: words[STATE_PAIRS as usize],
                    hit_count,
                });
                Ok(None)
            }
            FrameRead::Hits {
                submitted,
                pairs,
                hit_count,
            } => {
                let hit_bytes = hit_count as usize * 16;
                let got = self.read_submitted(&submitted, |bytes| {
                    read_view(pairs, &bytes[..hit_bytes], &bytes[hit_bytes..], read)
                })?;
                if got.is_none() {
                    self.started = Some(FrameRead::Hits {
                        submitted,
                        pairs,
                        hit_count,
                    });
                }
                Ok(got)
            }
        }
    }

    /// Records and submits a frame and the copy back of its counters, its
    /// expected hits and manifolds, and its stages' timestamps.
    fn submit_frame(&mut self) -> Result<FrameRead, GpuError> {
        let mut encoder =
            self.context
                .device()
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("frame"),
                });
        self.record(&mut encoder, true);
        let expected = self.expected_hits();
        let (state, hits, manifolds) = (
            self.state.buffer.clone(),
            self.hits.buffer.clone(),
            self.manifolds.buffer.clone(),
        );
        let clock = self
            .stage_clock
            .as_ref()
            .map(|clock| clock.resolved.clone());
        let mut regions = vec![
            (&state, 0, STATE_HEADER_WORDS * 4),
            (&hits, 0, u64::from(expected) * 16),
            (&manifolds, 0, u64::from(expected) * MANIFOLD_BYTES),
        ];
        if let Some(resolved) = &clock {
            regions.push((resolved, 0, STAGE_TIMESTAMP_BYTES));
        }
        let submitted = self.submit_regions(encoder, &regions)?;
        Ok(FrameRead::Counters {
            submitted,
            expected,
        })
    }

    /// The hits a frame's first copy makes room for: the last frame's and
    /// an eighth more, plus 256 (as the batch path sizes its windows:
    /// `CAPACITY_GROWTH`), so that the copy back moves little more than the
    /// hits; every pair's room for the first frame.
    fn expected_hits(&self) -> u32 {
        self.last_hits
            .map_or(self.pair_capacity, |last| {
                last.saturating_add(last / 8)
                    .saturating_add(CAPACITY_SLACK as u32)
            })
            .min(self.pair_capacity)
    }

    /// Submits `encoder` with a copy of `bytes` of `source` and reads them back.
    pub(super) fn read(
        &mut self,
        encoder: wgpu::CommandEncoder,
        source: &wgpu::Buffer,
        bytes: u64,
    ) -> Result<Vec<u8>, GpuError> {
        self.read_regions(encoder, &[(source, 0, bytes)])
    }

    /// Submits `encoder` with copies of `(source, offset, bytes)` regions
    /// back to back (each rounded up to 4 bytes) and reads them back: one
    /// map.
    fn read_regions(
        &mut self,
        encoder: wgpu::CommandEncoder,
        regions: &[(&wgpu::Buffer, u64, u64)],
    ) -> Result<Vec<u8>, GpuError> {
        self.map_regions(encoder, regions, |bytes| bytes.to_vec())
    }

    /// [`GpuFrame::read_regions`], handing the mapped bytes to `read`
    /// instead of copying them.
    pub(super) fn map_regions<R>(
        &mut self,
        encoder: wgpu::CommandEncoder,
        regions: &[(&wgpu::Buffer, u64, u64)],
        read: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, GpuError> {
        let context = self.context.clone();
        let submitted = self.submit_regions(encoder, regions)?;
        context.wait(Some(submitted.submission.clone()))?;
        // On a device shared between threads, another thread's poll may have
        // seen the work finish and not yet run the mapping's callback when
        // this wait returns: poll until it has run (a bounded number of
        // times: a callback that never comes is an error below).
        for _ in 0..10_000 {
            if submitted.is_mapped() {
                break;
            }
            std::thread::yield_now();
            context.wait(None)?;
        }
        self.read_submitted(&submitted, read)?
            .ok_or_else(|| GpuError::Readback {
                message: "the frame's readback was not mapped after the wait".to_string(),
            })
    }

    /// Submits `encoder` with copies of `(source, offset, bytes)` regions
    /// back to back (each rounded up to 4 bytes) into the staging buffer,
    /// mapped once the work is done; does not wait.
    fn submit_regions(
        &mut self,
        mut encoder: wgpu::CommandEncoder,
        regions: &[(&wgpu::Buffer, u64, u64)],
    ) -> Result<Submitted, GpuError> {
        let context = self.context.clone();
        let bytes: u64 = regions
            .iter()
            .map(|region| region.2.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT))
            .sum();
        let limit = (context.limits().max_buffer_size, "max_buffer_size");
        let staging = match self.staging.take() {
            Some(mut staging) => {
                staging.ensure(&context, bytes, limit)?;
                staging
            }
            None => GrowBuffer::new(
                &context,
                "frame readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                bytes,
            )?,
        };
        let staging = self.staging.insert(staging);
        let mut at = 0;
        for &(source, offset, region_bytes) in regions {
            let region_bytes = region_bytes.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
            if region_bytes > 0 {
                encoder.copy_buffer_to_buffer(source, offset, &staging.buffer, at, region_bytes);
            }
            at += region_bytes;
        }
        self.stats.maps += 1;
        let mapped = Arc::new(Mutex::new(None));
        let sink = mapped.clone();
        let map_bytes = bytes.max(wgpu::COPY_BUFFER_ALIGNMENT);
        encoder.map_buffer_on_submit(
            &staging.buffer,
            wgpu::MapMode::Read,
            0..map_bytes,
            move |result| {
                if let Ok(mut flag) = sink.lock() {
                    *flag = Some(result);
                }
            },
        );
        let submission = context.queue().submit([encoder.finish()]);
        Ok(Submitted {
            bytes,
            mapped,
            submission,
        })
    }

    /// What `read` makes of a submitted readback's bytes once they are
    /// mapped (the staging buffer unmapped after); `None` while they are
    /// not. Never waits.
    fn read_submitted<R>(
        &mut self,
        submitted: &Submitted,
        read: impl FnOnce(&[u8]) -> R,
    ) -> Result<Option<R>, GpuError> {
        let outcome = submitted
            .mapped
            .lock()
            .ok()
            .and_then(|mut flag| flag.take());
        match outcome {
            None => return Ok(None),
            Some(Err(err)) => {
                return Err(GpuError::Readback {
                    message: format!("mapping the frame's readback failed: {err}"),
                });
            }
            Some(Ok(())) => {}
        }
        let Some(staging) = self.staging.as_ref() else {
            return Err(GpuError::Readback {
                message: "the frame's staging buffer is gone".to_string(),
            });
        };
        let bytes = submitted.bytes;
        let slice = staging
            .buffer
            .slice(0..bytes.max(wgpu::COPY_BUFFER_ALIGNMENT));
        let data = {
            let view = slice.get_mapped_range().map_err(|err| GpuError::Readback {
                message: format!("the mapped readback cannot be read: {err}"),
            })?;
            read(&view[..bytes as usize])
        };
        staging.buffer.unmap();
        Ok(Some(data))
    }
}

/// A readback submitted and not yet read: its bytes, the flag its
/// mapping's callback sets, and its submission.
pub(super) struct Submitted {
    bytes: u64,
    mapped: Arc<Mutex<Option<Result<(), wgpu::BufferAsyncError>>>>,
    submission: wgpu::SubmissionIndex,
}

impl Submitted {
    fn is_mapped(&self) -> bool {
        self.mapped.lock().map_or(true, |flag| flag.is_some())
    }
}

/// Which copy back of a started frame is in flight.
pub(super) enum FrameRead {
    /// The counters, and room for `expected` hits and their manifolds.
    Counters { submitted: Submitted, expected: u32 },
    /// All `hit_count` hits and manifolds, the first copy having had too
    /// little room; the frame's candidate pairs.
    Hits {
        submitted: Submitted,
        pairs: u32,
        hit_count: u32,
    },
}

/// Whether a frame's counters show it fit its buffers and its hits fit the
/// first copy's room for `expected`.
fn fits(words: &[u32], (pair_room, entry_room): (u32, u32), expected: u32) -> bool {
    words[STATE_CROWDED as usize] == 0
        && words[STATE_PAIR_OVERFLOW as usize] == 0
        && words[STATE_PAIRS as usize] <= pair_room
        && words[STATE_ENTRIES as usize] <= entry_room
        && words[STATE_LARGE as usize] <= MAX_LARGE_BODIES
        && words[STATE_HITS as usize] <= expected
}

/// Hands the hits and manifolds to `read`, in place when they are aligned
/// for it (a mapped range is), else copied.
fn read_view<R>(
    pairs: u32,
    hits: &[u8],
    manifolds: &[u8],
    read: impl FnOnce(FrameView<'_>) -> R,
) -> R {
    match (
        bytemuck::try_cast_slice(hits),
        bytemuck::try_cast_slice(manifolds),
    ) {
        (Ok(hits), Ok(manifolds)) => read(FrameView {
            pairs,
            hits,
            manifolds,
        }),
        _ => read(FrameView {
            pairs,
            hits: &bytemuck::pod_collect_to_vec(hits),
            manifolds: &bytemuck::pod_collect_to_vec(manifolds),
        }),
    }
}
