"""The Python call's overhead over the Rust call it wraps.

For each size and backend: the median wall time of `Narrowphase.collide`
seen from Python (converting the arrays, building the bodies, releasing the
GIL, the result arrays) against the median time the same calls spent inside
the library (`Hits.seconds`), on seeded 8-gons whose pairs mostly overlap
(as `gpusat bench`'s reference distribution).

    python python/bench/overhead.py [--sizes 100000,1000000] [--backends cpu,gpu] [--samples 7]
"""

import argparse
import statistics
import time

import numpy as np

import gpusat


def workload(pairs: int, seed: int = 0x5A72D):
    rng = np.random.default_rng(seed)
    shapes = gpusat.Shapes2D()
    for k in range(64):
        angles = np.sort(rng.uniform(0, 2 * np.pi, 8))
        radius = rng.uniform(0.3, 0.5)
        shapes.add_polygon(np.stack([radius * np.cos(angles), radius * np.sin(angles)], 1))
    bodies = 4096
    positions = rng.uniform(-8, 8, (bodies, 2)).astype(np.float32)
    angles = rng.uniform(-np.pi, np.pi, bodies).astype(np.float32)
    ids = rng.integers(0, 64, bodies).astype(np.uint32)
    # Each pair's B near its A: most pairs overlap.
    a = rng.integers(0, bodies, pairs)
    order = np.argsort(positions[:, 0] + 16 * np.floor(positions[:, 1]))
    rank = np.empty(bodies, dtype=np.int64)
    rank[order] = np.arange(bodies)
    b = order[np.clip(rank[a] + rng.integers(1, 4, pairs), 0, bodies - 1)]
    keep = a != b
    return shapes, positions, angles, ids, np.ascontiguousarray(np.stack([a[keep], b[keep]], 1), dtype=np.uint32)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--backends", default="cpu,gpu")
    parser.add_argument("--samples", type=int, default=7)
    args = parser.parse_args()
    print("pairs,backend,hits,python_ms,library_ms,overhead_percent")
    for size in [int(s) for s in args.sizes.split(",")]:
        shapes, positions, angles, ids, pairs = workload(size)
        for backend in args.backends.split(","):
            try:
                narrowphase = gpusat.Narrowphase(2, backend)
            except gpusat.GpuError as error:
                print(f"# {backend}: {error}")
                continue
            narrowphase.collide(shapes, positions, angles, ids, pairs)  # warm-up
            wall, inside = [], []
            for _ in range(args.samples):
                # The last result freed first, outside the timed call.
                hits = None
                started = time.perf_counter()
                hits = narrowphase.collide(shapes, positions, angles, ids, pairs)
                wall.append(time.perf_counter() - started)
                inside.append(hits.seconds)
            python_ms, library_ms = 1e3 * statistics.median(wall), 1e3 * statistics.median(inside)
            overhead = 100 * (python_ms - library_ms) / library_ms
            print(f"{len(pairs)},{narrowphase.backend},{len(hits)},{python_ms:.2f},{library_ms:.2f},{overhead:.1f}")


if __name__ == "__main__":
    main()
