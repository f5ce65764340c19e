"""Scene sets on a local Ray instance against one process.

Scenes a second through `gpusat.distributed.collide_scenes` on two local
workers, and in this process one after the other, with what each part
costs: starting Ray and the workers, shipping a scene (its pickled size),
the collision work itself.

    python python/bench/cluster.py [--scenes 400] [--bodies 2000] [--workers 2]
"""

import argparse
import os
import pickle
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import gpusat  # noqa: E402
from conftest import scene_2d  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=400)
    parser.add_argument("--bodies", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--backend", default="cpu")
    args = parser.parse_args()
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    import ray

    from gpusat.distributed import collide_scenes

    extent = 0.2 * np.sqrt(args.bodies)
    scenes = []
    for k in range(args.scenes):
        shapes, _, positions, angles, ids = scene_2d(k, bodies=args.bodies, extent=extent)
        scenes.append(gpusat.Scene(shapes, positions, angles, ids))
    shipped = np.median([len(pickle.dumps(s)) for s in scenes[:20]])

    narrowphase = gpusat.Narrowphase(2, args.backend)
    started = time.perf_counter()
    hits = inside = 0
    for scene in scenes:
        result = narrowphase.collide(scene.shapes, scene.positions, scene.rotations, scene.shape_ids)
        hits += len(result)
        inside += result.seconds
    alone = time.perf_counter() - started

    started = time.perf_counter()
    ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
    ray_start = time.perf_counter() - started
    started = time.perf_counter()
    first = None
    spread_hits = 0
    for _, result in collide_scenes(scenes, workers=args.workers, backend=args.backend, progress=False):
        if first is None:
            first = time.perf_counter() - started
        spread_hits += len(result)
    spread = time.perf_counter() - started
    ray.shutdown()
    assert spread_hits == hits, (spread_hits, hits)

    n = args.scenes
    print(f"{n} scenes of {args.bodies} bodies, {hits / n:.0f} hits a scene, backend {args.backend}")
    print(f"one process:      {n / alone:8.1f} scenes/s ({alone:.2f} s; the library {inside:.2f} s of it)")
    print(f"{args.workers} Ray workers:    {n / spread:8.1f} scenes/s ({spread:.2f} s; Ray's start {ray_start:.2f} s before)")
    print(f"first result after {first:.2f} s (the workers' start); a scene ships as {shipped / 1024:.1f} KiB pickled")


if __name__ == "__main__":
    main()
