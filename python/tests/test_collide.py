"""`gpusat.collide` gives bit for bit what the Rust library gives: against
the command (`gpusat collide`, the same library from Rust) on seeded 2D and
3D scenes of every kind of shape, and between the backends."""

import numpy as np
import pytest

import gpusat
from conftest import gpu_narrowphase, run_command, scene_2d, scene_3d, write_scene


def f32(values):
    return np.asarray(values, dtype=np.float64).astype(np.float32)


def assert_matches_command(hits: gpusat.Hits, expected: dict):
    """Every hit's fields, bit for bit, against the command's JSON (whose
    floats are the shortest text that reads back as the same float32)."""
    rows = expected["hits"]
    assert len(hits) == len(rows), (len(hits), len(rows))
    assert hits.pairs_tested == expected["pairs_tested"]
    axes = hits.axes()
    # The same axes as arrays.
    kinds, features = hits.axis_kind, hits.axis_features
    for k, (kind, numbers) in enumerate(axes):
        name = ("a", "b")[kinds[k]] if hits.dim == 2 else gpusat.AXIS_KINDS_3D[kinds[k]]
        assert (name, numbers) == (kind, tuple(int(f) for f in features[k] if f >= 0)), k
    for k, row in enumerate(rows):
        where = f"hit {k} (pair {row['pair']})"
        assert (hits.pair[k], hits.a[k], hits.b[k]) == (row["pair"], row["a"], row["b"]), where
        assert hits.normal[k].tobytes() == f32(row["normal"]).tobytes(), where
        assert hits.depth[k].tobytes() == f32(row["depth"]).tobytes(), where
        axis = row["axis"]
        if hits.dim == 2:
            assert axes[k] == (axis["owner"], (axis["feature"],)), where
        else:
            feature = axis.get("feature", axis.get("features"))
            features = tuple(feature) if isinstance(feature, list) else (() if feature is None else (feature,))
            assert axes[k] == (axis["kind"], features), (where, axes[k], axis)
        contacts = row["contacts"]
        assert hits.point_count[k] == len(contacts), where
        for j, contact in enumerate(contacts):
            assert hits.points[k, j].tobytes() == f32(contact["point"]).tobytes(), where
            assert hits.point_depth[k, j].tobytes() == f32(contact["depth"]).tobytes(), where
            assert hits.point_id[k, j] == contact["id"], where
        assert np.isnan(hits.points[k, len(contacts):]).all(), where


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("margin", [0.0, 0.05])
def test_2d_equals_the_command(tmp_path, seed, margin):
    shapes, described, positions, angles, ids = scene_2d(seed)
    path = write_scene(tmp_path / "scene.json", described, positions, angles, ids, margin)
    expected = run_command("collide", str(path), "--backend", "cpu")
    # From the arrays, the broadphase finding the pairs.
    hits = gpusat.collide(shapes, positions, angles, ids, margin=margin, backend="cpu")
    assert len(hits) > 200
    assert_matches_command(hits, expected)
    # From the file.
    scene = gpusat.load_scene(path)
    assert_matches_command(scene.collide("cpu"), expected)


@pytest.mark.parametrize("seed", [3, 4])
@pytest.mark.parametrize("margin", [0.0, 0.05])
def test_3d_equals_the_command(tmp_path, seed, margin):
    shapes, described, positions, rotations, ids = scene_3d(seed)
    path = write_scene(tmp_path / "scene.json", described, positions, rotations, ids, margin)
    expected = run_command("collide", str(path), "--backend", "cpu")
    scene = gpusat.load_scene(path)
    hits = scene.collide("cpu")
    assert len(hits) > 150
    assert_matches_command(hits, expected)
    # The arrays of the loaded scene (its quaternions normalised on load,
    # as the command's), through shapes built here.
    again = gpusat.collide(shapes, scene.positions, scene.rotations, ids, margin=margin, backend="cpu")
    assert_matches_command(again, expected)


def test_given_pairs_equal_the_command(tmp_path):
    shapes, described, positions, angles, ids = scene_2d(5, bodies=200)
    rng = np.random.default_rng(5)
    pairs = rng.integers(0, 200, (3000, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    path = write_scene(tmp_path / "scene.json", described, positions, angles, ids, 0.0, pairs)
    expected = run_command("collide", str(path))
    # int64 pairs, converted; then uint32 pairs, read in place.
    assert_matches_command(gpusat.collide(shapes, positions, angles, ids, pairs, backend="cpu"), expected)
    exact = np.ascontiguousarray(pairs, dtype=np.uint32)
    assert_matches_command(gpusat.collide(shapes, positions, angles, ids, exact, backend="cpu"), expected)


def fields(hits: gpusat.Hits):
    return [
        getattr(hits, name).tobytes()
        for name in ("pair", "a", "b", "normal", "depth", "axis", "points", "point_depth", "point_id", "point_count")
    ]


def test_backends_agree_bit_for_bit():
    shapes, _, positions, angles, ids = scene_2d(6, bodies=2000, extent=12.0)
    cpu = gpusat.collide(shapes, positions, angles, ids, backend="cpu")
    parallel = gpusat.collide(shapes, positions, angles, ids, backend="cpu-parallel")
    assert len(cpu) > 1000
    assert fields(cpu) == fields(parallel)


@pytest.mark.parametrize("dim", [2, 3])
def test_gpu_equals_cpu_bit_for_bit(dim):
    """On lavapipe the kernel computes the CPU's bits; a hardware GPU's are
    checked within the library's tolerances (`gpusat.compare` in Rust)."""
    make = scene_2d if dim == 2 else scene_3d
    shapes, _, positions, rotations, ids = make(7, bodies=1500, extent=9.0 if dim == 2 else 5.0)
    cpu = gpusat.Narrowphase(dim, "cpu").collide(shapes, positions, rotations, ids, margin=0.02)
    gpu = gpu_narrowphase(dim)
    assert gpu.backend == "gpu"
    on_gpu = gpu.collide(shapes, positions, rotations, ids, margin=0.02)
    assert len(cpu) > 300
    if "llvmpipe" in gpu.context.adapter:
        assert fields(on_gpu) == fields(cpu)
    else:
        assert np.array_equal(on_gpu.pair, cpu.pair)
        np.testing.assert_allclose(on_gpu.depth, cpu.depth, atol=1e-4)
    # The narrowphase keeps its device: a second batch on it.
    again = gpu.collide(shapes, positions, rotations, ids, margin=0.02)
    assert fields(again) == fields(on_gpu)


def test_without_contacts():
    shapes, _, positions, angles, ids = scene_2d(8)
    hits = gpusat.collide(shapes, positions, angles, ids, backend="cpu", contacts=False)
    full = gpusat.collide(shapes, positions, angles, ids, backend="cpu")
    assert hits.points is None and hits.point_count is None
    assert hits.depth.tobytes() == full.depth.tobytes()


def test_empty_inputs():
    shapes = gpusat.Shapes2D()
    shapes.add_circle(1.0)
    hits = gpusat.collide(shapes, np.zeros((0, 2)), np.zeros(0), np.zeros(0, dtype=int), backend="cpu")
    assert len(hits) == 0 and hits.normal.shape == (0, 2) and hits.points.shape == (0, 2, 2)
    hits = gpusat.collide(shapes, [[0, 0], [1.5, 0]], [0, 0], [0, 0], pairs=np.zeros((0, 2)), backend="cpu")
    assert len(hits) == 0 and hits.pairs_tested == 0


def test_threads_share_a_narrowphase_and_a_world():
    """Calls from several threads take turns (the GIL is released while
    each works): the same answers, and no thread left waiting."""
    from concurrent.futures import ThreadPoolExecutor

    shapes, _, positions, angles, ids = scene_2d(9, bodies=800, extent=6.0)
    narrowphase = gpusat.Narrowphase(2, "cpu")
    expected = fields(narrowphase.collide(shapes, positions, angles, ids))
    world = gpusat.World(shapes, positions, angles, ids)

    def work(k):
        if k % 4 == 2:
            world.step(2)
            return world.state()["positions"].shape
        if k % 4 == 3:
            # Shapes added, and refused, while others collide on the library.
            shapes.add_circle(0.1 + 0.01 * k)
            with pytest.raises(gpusat.ShapeError):
                shapes.add_circle(-1.0)
            return len(shapes)
        assert narrowphase.backend == "cpu"
        return fields(narrowphase.collide(shapes, positions, angles, ids))

    with ThreadPoolExecutor(4) as pool:
        results = [f.result(timeout=120) for f in [pool.submit(work, k) for k in range(32)]]
    for k, result in enumerate(results):
        if k % 4 in (0, 1):
            assert result == expected
    assert len(shapes) == 16 + 8


def test_results_keep_their_memory_while_alive():
    """A result's arrays share a buffer that is reused only once all of them
    are gone: a kept column never changes under a later call."""
    import gc

    first = scene_2d(10, bodies=600, extent=5.0)
    second = scene_2d(11, bodies=600, extent=5.0)
    shapes_1, _, positions_1, angles_1, ids_1 = first
    shapes_2, _, positions_2, angles_2, ids_2 = second
    hits = gpusat.collide(shapes_1, positions_1, angles_1, ids_1, backend="cpu")
    expected = fields(hits)
    depth, points = hits.depth, hits.points
    kept_depth, kept_points = depth.tobytes(), points.tobytes()
    del hits
    gc.collect()
    for _ in range(6):  # more results than the pool keeps buffers
        gpusat.collide(shapes_2, positions_2, angles_2, ids_2, backend="cpu")
    assert depth.tobytes() == kept_depth and points.tobytes() == kept_points
    del depth, points
    gc.collect()
    # The buffers come back and are written again: the same answers.
    for _ in range(3):
        assert fields(gpusat.collide(shapes_1, positions_1, angles_1, ids_1, backend="cpu")) == expected


def test_both_dimensions_on_one_device():
    narrowphase_2d = gpu_narrowphase(2)
    context = narrowphase_2d.context
    assert context is not None and context.adapter
    narrowphase_3d = gpusat.Narrowphase(3, "gpu", context=context)
    assert narrowphase_3d.backend == "gpu"
    shapes, _, positions, rotations, ids = scene_3d(12, bodies=400)
    on_shared = narrowphase_3d.collide(shapes, positions, rotations, ids)
    on_its_own = gpu_narrowphase(3).collide(shapes, positions, rotations, ids)
    assert fields(on_shared) == fields(on_its_own)
    assert gpusat.Narrowphase(2, "cpu").context is None
    with pytest.raises(gpusat.InputError, match="context"):
        gpusat.Narrowphase(2, "cpu", context=context)
