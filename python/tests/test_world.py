"""Worlds built from arrays: a pile settles on a static floor, in 2D and 3D,
and a world's frames are the same on every run."""

import numpy as np

import gpusat


def pile_2d(columns=8, rows=6):
    shapes = gpusat.Shapes2D()
    floor = shapes.add_polygon([[-10, -0.5], [10, -0.5], [10, 0.5], [-10, 0.5]])
    box = shapes.add_polygon([[-0.25, -0.25], [0.25, -0.25], [0.25, 0.25], [-0.25, 0.25]])
    rounded = shapes.add_polygon([[-0.2, -0.2], [0.2, -0.2], [0.2, 0.2], [-0.2, 0.2]], radius=0.05)
    pill = shapes.add_capsule([-0.2, 0], [0.2, 0], 0.15)
    # Nothing that rolls for ever (a circle on a flat floor does).
    kinds = [box, rounded, pill]
    positions = [[0.0, -0.5]]
    ids = [floor]
    for r in range(rows):
        for c in range(columns):
            positions.append([(c - columns / 2) * 0.6 + 0.05 * (r % 2), 0.4 + 0.6 * r])
            ids.append(kinds[(r + c) % 3])
    positions = np.array(positions)
    inv_mass = np.ones(len(ids))
    inv_mass[0] = 0.0
    return shapes, positions, np.zeros(len(ids)), np.array(ids), inv_mass


def test_a_2d_pile_settles_on_the_floor():
    shapes, positions, angles, ids, inv_mass = pile_2d()
    world = gpusat.World(shapes, positions, angles, ids, inv_mass=inv_mass, backend="cpu")
    world.step(240)
    state = world.state()
    assert state["positions"].shape == positions.shape
    assert state["positions"][0].tolist() == [0.0, -0.5]  # static
    assert (state["positions"][1:, 1] > -0.05).all(), "a body fell through the floor"
    assert state["positions"][1:, 1].max() < positions[1:, 1].max() - 0.3, "the pile did not fall"
    assert world.kinetic_energy() < 0.05 * len(ids), world.kinetic_energy()
    contacts = world.contacts()
    assert len(contacts) >= len(ids) - 1  # everything rests on something
    assert (contacts.point_count >= 1).all()
    assert (contacts.depth < 0.05).all()


def test_a_world_repeats_itself():
    shapes, positions, angles, ids, inv_mass = pile_2d(4, 3)
    runs = []
    for _ in range(2):
        world = gpusat.World(shapes, positions, angles, ids, inv_mass=inv_mass, backend="cpu-parallel")
        world.step(60)
        runs.append({k: v.tobytes() for k, v in world.state().items()})
    assert runs[0] == runs[1]


def test_a_3d_pile_settles_on_the_floor():
    shapes = gpusat.Shapes3D()
    floor = shapes.add_cuboid([10, 0.5, 10])
    box = shapes.add_cuboid([0.25, 0.25, 0.25])
    ball = shapes.add_sphere(0.25)
    rounded = shapes.add_cuboid([0.2, 0.2, 0.2], radius=0.05)
    positions, ids = [[0.0, -0.5, 0.0]], [floor]
    for k in range(27):
        x, y, z = k % 3, k // 9, (k // 3) % 3
        positions.append([(x - 1) * 0.7, 0.4 + 0.7 * y, (z - 1) * 0.7])
        ids.append([box, ball, rounded][k % 3])
    n = len(ids)
    rotations = np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))
    inv_mass = np.ones(n)
    inv_mass[0] = 0.0
    world = gpusat.World(shapes, np.array(positions), rotations, np.array(ids), inv_mass=inv_mass)
    assert world.dim == 3
    world.step(180)
    state = world.state()
    assert state["rotations"].shape == (n, 4)
    assert (state["positions"][1:, 1] > -0.05).all(), "a body fell through the floor"
    assert world.kinetic_energy() < 0.05 * n, world.kinetic_energy()
    assert len(world.contacts()) >= n - 1


def test_world_options_and_the_gpu_backend():
    """Gravity and margin reach the world; a world on the GPU follows the
    CPU world frame for frame on lavapipe (the kernel's bits are the CPU's)."""
    from conftest import gpu_narrowphase

    shapes, positions, angles, ids, inv_mass = pile_2d(4, 3)
    sideways = gpusat.World(shapes, positions, angles, ids, inv_mass=inv_mass, gravity=[10.0, 0.0])
    sideways.step(10)
    moved = sideways.state()["positions"][1:] - positions[1:]
    assert (moved[:, 0] > 0.01).any() and np.abs(moved[:, 1]).max() < 0.05
    narrowphase = gpu_narrowphase(2)
    worlds = {
        backend: gpusat.World(shapes, positions, angles, ids, inv_mass=inv_mass, backend=backend, margin=0.01)
        for backend in ("cpu", "gpu")
    }
    for world in worlds.values():
        world.step(30)
    if "llvmpipe" in narrowphase.context.adapter:
        assert worlds["gpu"].state()["positions"].tobytes() == worlds["cpu"].state()["positions"].tobytes()
    else:
        assert np.abs(worlds["gpu"].positions - worlds["cpu"].positions).max() < 0.05
