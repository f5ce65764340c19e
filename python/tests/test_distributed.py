"""Scene sets over Ray: 200 scenes on a local instance with two workers,
every result checked against the same scene in this process."""

import os

import numpy as np
import pytest

import gpusat
from conftest import scene_2d, scene_3d, write_scene

ray = pytest.importorskip("ray") if os.environ.get("GPUSAT_REQUIRE_RAY") != "1" else __import__("ray")

from gpusat.distributed import collide_scenes, step_scenes  # noqa: E402


def small_scenes(tmp_path, count):
    """Small 2D and 3D scenes, every fifth one as a file's path."""
    scenes = []
    for k in range(count):
        if k % 2 == 0:
            shapes, described, positions, rotations, ids = scene_2d(1000 + k, bodies=60, extent=2.5)
        else:
            shapes, described, positions, rotations, ids = scene_3d(1000 + k, bodies=40, extent=1.6)
        if k % 5 == 0:
            scenes.append(str(write_scene(tmp_path / f"scene{k}.json", described, positions, rotations, ids, 0.01)))
        else:
            scenes.append(gpusat.Scene(shapes, positions, rotations, ids, margin=0.01))
    return scenes


def fields(hits):
    return [
        getattr(hits, name).tobytes()
        for name in ("pair", "a", "b", "normal", "depth", "axis", "points", "point_depth", "point_id", "point_count")
    ]


@pytest.fixture(scope="module")
def local_ray():
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_200_scenes_on_two_workers_equal_one_process(tmp_path, local_ray):
    scenes = small_scenes(tmp_path, 200)
    seen = {}
    for index, hits in collide_scenes(scenes, workers=2, backend="cpu", progress=False):
        assert index not in seen
        seen[index] = hits
    assert sorted(seen) == list(range(200))
    reported = 0
    for index, scene in enumerate(scenes):
        if isinstance(scene, str):
            scene = gpusat.load_scene(scene)
        expected = scene.collide("cpu")
        assert fields(seen[index]) == fields(expected), f"scene {index}"
        reported += len(expected)
    assert reported > 2000


def test_worlds_stepped_on_the_workers_equal_one_process(tmp_path, local_ray):
    scenes = small_scenes(tmp_path, 8)
    results = dict(step_scenes(scenes, 30, workers=2, progress=False))
    for index, scene in enumerate(scenes):
        if isinstance(scene, str):
            scene = gpusat.load_scene(scene)
        world = gpusat.World(
            scene.shapes, scene.positions, scene.rotations, scene.shape_ids,
            inv_mass=scene.inv_mass, margin=scene.margin,
        )
        world.step(30)
        for key, value in world.state().items():
            assert results[index][key].tobytes() == value.tobytes(), (index, key)
        assert fields(results[index]["contacts"]) == fields(world.contacts())


def test_a_loaded_library_extended_travels_whole(tmp_path):
    import pickle

    shapes, described, positions, angles, ids = scene_2d(77, bodies=30)
    path = write_scene(tmp_path / "scene.json", described, positions, angles, ids)
    scene = gpusat.load_scene(path)
    extra = scene.shapes.add_circle(0.25)
    assert extra == len(described)
    copy = pickle.loads(pickle.dumps(scene))
    assert len(copy.shapes) == len(described) + 1
    ids = ids.copy()
    ids[:5] = extra
    one = gpusat.collide(scene.shapes, positions, angles, ids, backend="cpu")
    other = gpusat.collide(copy.shapes, positions, angles, ids, backend="cpu")
    assert fields(one) == fields(other)


def test_more_workers_than_cpus_is_an_error(local_ray):
    with pytest.raises(gpusat.InputError, match="CPUs"):
        list(collide_scenes([], workers=3, progress=False))


def test_bad_arguments_before_any_work():
    with pytest.raises(gpusat.InputError, match="workers"):
        list(collide_scenes([], workers=0))
    with pytest.raises(gpusat.InputError, match="backend"):
        list(collide_scenes([], backend="tpu"))


def test_scenes_on_the_workers_gpus(tmp_path, local_ray):
    """The GPU backend on the workers (each worker's 2D and 3D narrowphases
    on one device), equal to this process's GPU answers."""
    from conftest import gpu_narrowphase

    gpu_narrowphase(2)  # fails (or skips) here without an adapter
    scenes = small_scenes(tmp_path, 12)
    results = dict(collide_scenes(scenes, workers=2, backend="gpu", progress=False))
    for index, scene in enumerate(scenes):
        if isinstance(scene, str):
            scene = gpusat.load_scene(scene)
        assert fields(results[index]) == fields(scene.collide("gpu")), f"scene {index}"
