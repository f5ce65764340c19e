"""Bad input raises the right exception, naming the shape, body or pair at
fault, and leaves nothing half-done."""

import numpy as np
import pytest

import gpusat

SQUARE = [[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]


def two_bodies():
    shapes = gpusat.Shapes2D()
    shapes.add_polygon(SQUARE)
    shapes.add_circle(0.4)
    return shapes, np.array([[0.0, 0.0], [0.7, 0.0]]), np.zeros(2), np.array([0, 1])


def test_the_hierarchy():
    for error in (gpusat.ShapeError, gpusat.BodyError, gpusat.PairError, gpusat.SceneFileError):
        assert issubclass(error, gpusat.InputError)
    assert issubclass(gpusat.InputError, ValueError) and issubclass(gpusat.InputError, gpusat.Error)
    assert issubclass(gpusat.GpuError, RuntimeError) and issubclass(gpusat.GpuError, gpusat.Error)


def test_bad_shapes_are_refused_and_not_added():
    shapes = gpusat.Shapes2D()
    shapes.add_circle(1.0)
    cases = [
        (lambda: shapes.add_polygon([[0, 0], [1, 0], [2, 0]]), "collinear"),
        (lambda: shapes.add_polygon([[0, 0], [1, 0], [0, 1], [1, 1]]), "not convex"),
        (lambda: shapes.add_circle(-1.0), "radius"),
        (lambda: shapes.add_circle(float("nan")), "radius"),
        (lambda: shapes.add_capsule([0, 0], [0, 0], 0.5), "capsule"),
        (lambda: shapes.add_polygon(SQUARE, radius=-0.1), "radius"),
    ]
    for add, _ in cases:
        with pytest.raises(gpusat.ShapeError) as caught:
            add()
        assert caught.value.index == 1, caught.value
        assert "shape 1" in str(caught.value)
    assert len(shapes) == 1
    shapes3 = gpusat.Shapes3D()
    with pytest.raises(gpusat.ShapeError) as caught:
        shapes3.add_hull(np.zeros((4, 3)))
    assert caught.value.index == 0 and len(shapes3) == 0
    with pytest.raises(gpusat.InputError, match="points has shape"):
        shapes3.add_hull(np.zeros((4, 2)))
    with pytest.raises(gpusat.InputError, match="not an array of numbers"):
        shapes.add_polygon([["a", "b"]])


def test_bad_bodies_name_the_body():
    shapes, positions, angles, ids = two_bodies()
    with pytest.raises(gpusat.BodyError) as caught:
        gpusat.collide(shapes, positions, angles, [0, 7], backend="cpu")
    assert caught.value.index == 1 and "body 1" in str(caught.value)
    bad = positions.copy()
    bad[0, 1] = np.inf
    with pytest.raises(gpusat.BodyError) as caught:
        gpusat.collide(shapes, bad, angles, ids, backend="cpu")
    assert caught.value.index == 0
    with pytest.raises(gpusat.InputError, match="shape_ids holds -1"):
        gpusat.collide(shapes, positions, angles, [0, -1], backend="cpu")
    with pytest.raises(gpusat.InputError, match="shape_ids holds float64"):
        gpusat.collide(shapes, positions, angles, [0.0, 1.0], backend="cpu")
    with pytest.raises(gpusat.InputError, match="rotations has shape"):
        gpusat.collide(shapes, positions, np.zeros(3), ids, backend="cpu")
    with pytest.raises(gpusat.InputError, match="positions has shape"):
        gpusat.collide(shapes, np.zeros((2, 3)), angles, ids, backend="cpu")


def test_bad_pairs_name_the_pair():
    shapes, positions, angles, ids = two_bodies()
    with pytest.raises(gpusat.PairError) as caught:
        gpusat.collide(shapes, positions, angles, ids, pairs=[[0, 1], [0, 5]], backend="cpu")
    assert caught.value.index == 1 and "pair 1" in str(caught.value)
    with pytest.raises(gpusat.PairError) as caught:
        gpusat.collide(shapes, positions, angles, ids, pairs=[[1, 1]], backend="cpu")
    assert caught.value.index == 0
    with pytest.raises(gpusat.InputError, match="pairs holds -3"):
        gpusat.collide(shapes, positions, angles, ids, pairs=[[0, -3]], backend="cpu")
    with pytest.raises(gpusat.InputError, match="pairs has shape"):
        gpusat.collide(shapes, positions, angles, ids, pairs=[0, 1], backend="cpu")


def test_bad_arguments():
    shapes, positions, angles, ids = two_bodies()
    with pytest.raises(gpusat.InputError, match="dim"):
        gpusat.Narrowphase(-1, "cpu")
    with pytest.raises(gpusat.InputError, match="shape_ids has shape"):
        gpusat.collide(shapes, positions, angles, [], backend="cpu")
    with pytest.raises(gpusat.InputError, match="pairs has shape"):
        gpusat.collide(shapes, positions, angles, ids, pairs=np.zeros((3, 0), dtype=int), backend="cpu")
    # Refused before the broadphase (which would pair every body with every other).
    many = np.random.default_rng(0).uniform(-1e3, 1e3, (20000, 2))
    with pytest.raises(gpusat.InputError, match="margin"):
        gpusat.collide(shapes, many, np.zeros(20000), np.zeros(20000, dtype=int), margin=np.inf, backend="cpu")
    with pytest.raises(gpusat.InputError, match="margin"):
        gpusat.collide(shapes, positions, angles, ids, margin=-1.0, backend="cpu")
    with pytest.raises(gpusat.InputError, match="backend"):
        gpusat.Narrowphase(2, "tpu")
    with pytest.raises(gpusat.InputError, match="dim"):
        gpusat.Narrowphase(4, "cpu")
    with pytest.raises(gpusat.InputError, match="Shapes2D"):
        gpusat.Narrowphase(3, "cpu").collide(shapes, positions, angles, ids)
    with pytest.raises(gpusat.InputError, match="not a gpusat.Shapes2D or Shapes3D"):
        gpusat.collide([], positions, angles, ids)
    with pytest.raises(gpusat.InputError, match="frames"):
        gpusat.World(shapes, positions, angles, ids).step(-1)
    with pytest.raises(gpusat.InputError, match="gravity"):
        gpusat.World(shapes, positions, angles, ids, gravity=[0, -10, 0])
    with pytest.raises(gpusat.BodyError):
        gpusat.World(shapes, positions, angles, [0, 9])


def test_bad_scene_files(tmp_path):
    with pytest.raises(gpusat.SceneFileError, match="missing.json"):
        gpusat.load_scene(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"shapes": [{"circle": -1}], "bodies": []}')
    with pytest.raises(gpusat.InputError, match="broken.json"):
        gpusat.load_scene(broken)
    broken.write_text("{not json")
    with pytest.raises(gpusat.InputError, match="broken.json"):
        gpusat.load_scene(broken)
