"""Scene sets spread over a Ray cluster.

One batch is the unit of one device; a set of scenes (a million scenes to
validate, contact data to generate, a sweep over many piles) is spread over
many processes and machines by Ray::

    import gpusat
    from gpusat.distributed import collide_scenes

    scenes = [gpusat.load_scene(path) for path in paths]   # or the paths themselves
    for index, hits in collide_scenes(scenes, workers=8):   # as they finish
        ...

Each worker is a Ray actor (a process of its own, one CPU) holding one
narrowphase per dimension, created once. Where the cluster has GPUs and
the backend is not a CPU one, each worker asks for an even share of one
(``num_gpus``), which bounds how many workers a GPU node runs, and opens
one GPU context that both dimensions' narrowphases share; CPU workers
otherwise. Each worker opens the adapter ``"auto"`` picks (wgpu does not
follow Ray's GPU ids): on a node with several GPUs they share the best
one. Scenes travel to
the workers pickled (a shape library as the calls that built it; a scene
file as its path, read where the worker runs), results come back as
:class:`gpusat.Hits` as each scene finishes. Given no ``address`` and no
running Ray, a local instance is started for the call and stopped after;
``address`` connects to a cluster (``"auto"``, ``"ray://host:10001"``).
When Ray is already initialised in this process, that instance is used as
it is and ``address`` is ignored.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple, Union

import gpusat

SceneLike = Union["gpusat.Scene", str, os.PathLike]

__all__ = ["collide_scenes", "step_scenes"]


def _ray():
    try:
        import ray
    except ImportError:
        raise gpusat.Error(
            "gpusat.distributed needs Ray: pip install 'ray>=2.9' (or gpusat[distributed])"
        ) from None
    return ray


class _Worker:
    """One worker process: a narrowphase per dimension, created at its first
    scene of that dimension and kept."""

    def __init__(self, backend: str) -> None:
        self.backend = backend
        self.narrowphases: Dict[int, gpusat.Narrowphase] = {}

    def _scene(self, scene: SceneLike) -> gpusat.Scene:
        if isinstance(scene, (str, os.PathLike)):
            return gpusat.load_scene(scene)
        return scene

    def collide(self, index: int, scene: SceneLike, contacts: bool) -> Tuple[int, gpusat.Hits]:
        scene = self._scene(scene)
        narrowphase = self.narrowphases.get(scene.dim)
        if narrowphase is None:
            # One GPU device a worker: the other dimension's narrowphase,
            # if it runs on a GPU, lends its context.
            context = next((n.context for n in self.narrowphases.values() if n.context), None)
            if context is not None:
                narrowphase = gpusat.Narrowphase(scene.dim, "gpu", context=context)
            else:
                narrowphase = gpusat.Narrowphase(scene.dim, self.backend)
            self.narrowphases[scene.dim] = narrowphase
        hits = narrowphase.collide(
            scene.shapes,
            scene.positions,
            scene.rotations,
            scene.shape_ids,
            scene.pairs,
            scene.margin,
            contacts,
        )
        return index, hits

    def step(self, index: int, scene: SceneLike, frames: int, dt: float) -> Tuple[int, Dict[str, Any]]:
        scene = self._scene(scene)
        world = gpusat.World(
            scene.shapes,
            scene.positions,
            scene.rotations,
            scene.shape_ids,
            inv_mass=scene.inv_mass,
            backend=self.backend,
            margin=scene.margin,
        )
        world.step(frames, dt)
        state = world.state()
        state["contacts"] = world.contacts()
        return index, state

    def describe(self) -> Dict[str, Any]:
        """Which process this is and what runs there (for tests and logs)."""
        return {
            "pid": os.getpid(),
            "backends": {dim: n.backend for dim, n in self.narrowphases.items()},
        }


class _Progress:
    """A one-line progress count on standard error."""

    def __init__(self, total: Optional[int], on: bool) -> None:
        self.total, self.on, self.done = total, on, 0
        self.started = time.monotonic()

    def advance(self) -> None:
        self.done += 1
        if self.on:
            of = f"/{self.total}" if self.total is not None else ""
            rate = self.done / max(time.monotonic() - self.started, 1e-9)
            sys.stderr.write(f"\rgpusat: {self.done}{of} scenes, {rate:.1f} a second")
            sys.stderr.flush()

    def close(self) -> None:
        if self.on and self.done:
            sys.stderr.write("\n")


def _run(
    scenes: Iterable[SceneLike],
    call: str,
    arguments: Tuple,
    address: Optional[str],
    workers: int,
    backend: str,
    gpus_per_worker: Optional[float],
    progress: bool,
) -> Iterator[Tuple[int, Any]]:
    ray = _ray()
    if workers < 1:
        raise gpusat.InputError(f"workers is {workers}, not a count >= 1")
    if backend not in gpusat.BACKENDS:
        raise gpusat.InputError(f"backend {backend!r} is not one of {gpusat.BACKENDS}")
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    bar = None
    try:
        resources = ray.cluster_resources()
        cpus = int(resources.get("CPU", 0))
        if workers > cpus:
            # An actor asks for a CPU: the ones past the cluster's would
            # never start, and their scenes never finish.
            raise gpusat.InputError(f"workers is {workers}, but the Ray cluster has {cpus} CPUs")
        if gpus_per_worker is None:
            gpus = int(resources.get("GPU", 0))
            on_cpu = backend in ("cpu", "cpu-parallel")
            # A share that divides one GPU evenly, so that every worker fits.
            gpus_per_worker = 0 if on_cpu or not gpus else 1.0 / -(-workers // gpus)
        actor = ray.remote(num_gpus=gpus_per_worker, num_cpus=1)(_Worker)
        pool = [actor.remote(backend) for _ in range(workers)]
        total = len(scenes) if hasattr(scenes, "__len__") else None
        bar = _Progress(total, progress)
        queue = iter(enumerate(scenes))
        pending: Dict[Any, Any] = {}
        # Two scenes in flight a worker: one running, one shipped.
        for _ in range(2 * workers):
            if not _submit(queue, pending, pool, call, arguments):
                break
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                pending.pop(ref)
                index, result = ray.get(ref)
                bar.advance()
                yield index, result
                _submit(queue, pending, pool, call, arguments)
    finally:
        if bar is not None:
            bar.close()
        if started_here:
            ray.shutdown()


def _submit(queue, pending: Dict, pool: List, call: str, arguments: Tuple) -> bool:
    """Ships the next scene to the worker with the fewest in flight."""
    try:
        index, scene = next(queue)
    except StopIteration:
        return False
    if isinstance(scene, (str, os.PathLike)):
        scene = str(Path(scene).resolve())
    loads = {id(w): 0 for w in pool}
    for worker in pending.values():
        loads[id(worker)] += 1
    worker = min(pool, key=lambda w: loads[id(w)])
    ref = getattr(worker, call).remote(index, scene, *arguments)
    pending[ref] = worker
    return True


def collide_scenes(
    scenes: Iterable[SceneLike],
    *,
    address: Optional[str] = None,
    workers: int = 2,
    backend: str = "auto",
    gpus_per_worker: Optional[float] = None,
    contacts: bool = True,
    progress: bool = True,
) -> Iterator[Tuple[int, "gpusat.Hits"]]:
    """Collides every scene (a :class:`gpusat.Scene`, or a scene file's path)
    on ``workers`` Ray actors and yields ``(index, hits)`` as each finishes,
    ``index`` being the scene's place in ``scenes``; each result is what
    ``scene.collide(backend)`` gives in one process. ``gpus_per_worker``
    defaults to a share of the cluster's GPUs (none for the CPU backends or
    where there are none)."""
    yield from _run(scenes, "collide", (contacts,), address, workers, backend, gpus_per_worker, progress)


def step_scenes(
    scenes: Iterable[SceneLike],
    frames: int,
    *,
    dt: float = 1.0 / 60.0,
    address: Optional[str] = None,
    workers: int = 2,
    backend: str = "cpu",
    gpus_per_worker: Optional[float] = None,
    progress: bool = True,
) -> Iterator[Tuple[int, Dict[str, Any]]]:
    """Steps a :class:`gpusat.World` of each scene ``frames`` frames on the
    workers and yields ``(index, state)`` as each finishes: the bodies'
    arrays (``World.state()``) and ``contacts``, the last frame's
    :class:`gpusat.Hits`."""
    if frames < 0:
        raise gpusat.InputError(f"frames is {frames}, not a count >= 0")
    yield from _run(scenes, "step", (frames, dt), address, workers, backend, gpus_per_worker, progress)
