//! A batch on the CPU and on the GPU, compared: a few hundred random convex
//! polygons and circles, 200,000 candidate pairs, run through the CPU
//! reference, the parallel CPU backend and the WGSL kernel, and the results
//! compared pair by pair (on Mesa's lavapipe the GPU's are the CPU's bit for
//! bit; elsewhere within the documented tolerances).
//!
//! ```sh
//! cargo run --release --example batch_cpu_gpu
//! ```

use std::sync::Arc;
use std::time::Instant;

use gpusat::glam::Vec2;
use gpusat::gpu::{AdapterChoice, GpuContext, GpuNarrowphase, GpuOptions};
use gpusat::{Batch, Body, Pair, ShapeSet, collide_cpu, collide_cpu_parallel, compare_hits};

/// A small seeded generator (xorshift64*), so that the example needs nothing
/// but the library.
struct Random(u64);

impl Random {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32
    }

    fn range(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * self.next()
    }
}

fn main() -> Result<(), gpusat::Error> {
    let mut random = Random(0x5EED);
    let mut shapes = ShapeSet::new();
    for _ in 0..200 {
        let radius = random.range(0.2, 0.6);
        if random.next() < 0.2 {
            shapes.add_circle(radius)?;
        } else {
            // Points on a circle at sorted random angles: a convex polygon.
            let count = 3 + (random.next() * 6.0) as usize;
            let mut angles: Vec<f32> = (0..count)
                .map(|_| random.range(0.0, std::f32::consts::TAU))
                .collect();
            angles.sort_by(f32::total_cmp);
            let points: Vec<Vec2> = angles
                .iter()
                .map(|a| radius * Vec2::new(a.cos(), a.sin()))
                .collect();
            // Nearly coincident angles can fail validation: skip those.
            let _ = shapes.add_polygon(&points);
        }
    }
    let bodies: Vec<Body> = (0..2000)
        .map(|_| {
            let shape = (random.next() * shapes.len() as f32) as u32 % shapes.len() as u32;
            let position = Vec2::new(random.range(-3.0, 3.0), random.range(-3.0, 3.0));
            Body::new(
                shape,
                position,
                random.range(-std::f32::consts::PI, std::f32::consts::PI),
            )
        })
        .collect();
    let pairs: Vec<Pair> = (0..200_000)
        .map(|_| {
            let a = (random.next() * 2000.0) as u32 % 2000;
            let b = (a + 1 + (random.next() * 1999.0) as u32 % 1999) % 2000;
            Pair::new(a, b)
        })
        .collect();
    let batch = Batch::new(&shapes, &bodies, &pairs, 0.0)?;

    let start = Instant::now();
    let cpu = collide_cpu(&batch);
    println!(
        "cpu:          {} of {} pairs overlap ({:.1} ms)",
        cpu.len(),
        pairs.len(),
        start.elapsed().as_secs_f64() * 1e3
    );
    let start = Instant::now();
    let parallel = collide_cpu_parallel(&batch);
    println!(
        "cpu-parallel: {} ({:.1} ms), identical: {}",
        parallel.len(),
        start.elapsed().as_secs_f64() * 1e3,
        parallel == cpu
    );

    let context = match GpuContext::new(&AdapterChoice::Auto) {
        Ok(context) => Arc::new(context),
        Err(err) => {
            println!("gpu: not run ({err})");
            return Ok(());
        }
    };
    println!("gpu:          {}", context.adapter());
    let mut gpu = GpuNarrowphase::new(context, GpuOptions::default())?;
    gpu.collide(&batch)?; // the first call uploads the shape library
    let start = Instant::now();
    let on_gpu = gpu.collide(&batch)?;
    println!(
        "gpu:          {} ({:.1} ms end to end{})",
        on_gpu.len(),
        start.elapsed().as_secs_f64() * 1e3,
        gpu.stats()
            .kernel
            .map(|kernel| format!(", kernel {:.1} ms", kernel.as_secs_f64() * 1e3))
            .unwrap_or_default()
    );
    let agreement = compare_hits(&batch, &cpu, &on_gpu);
    println!(
        "gpu against cpu: {} identical (same axis, same depth bits), {} near-ties, {} near-touching, \
         largest depth difference {:.1e} of size, {} disagreements",
        agreement.identical,
        agreement.near_ties,
        agreement.near_touching,
        agreement.max_depth_error,
        agreement.disagreements.len()
    );
    if !agreement.agrees() {
        eprintln!("first disagreement: {}", agreement.disagreements[0]);
        std::process::exit(1);
    }
    // The world normal of one hit, rebuilt from the feature the backend chose.
    if let Some(first) = on_gpu.first() {
        let hit = batch.hit(*first);
        println!(
            "first hit: pair {} (bodies {} and {}), normal ({:.3}, {:.3}), depth {:.4}",
            hit.pair, hit.a, hit.b, hit.normal.x, hit.normal.y, hit.depth
        );
    }
    Ok(())
}
