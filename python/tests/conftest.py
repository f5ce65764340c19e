"""Seeded scenes for the tests, written both as arrays and as scene files of
the command's format, and the command itself (the Rust API's answers)."""

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import gpusat

ROOT = Path(__file__).resolve().parents[2]


def command() -> Path:
    """The command built by `cargo build --release` (or GPUSAT_COMMAND)."""
    path = Path(os.environ.get("GPUSAT_COMMAND", ROOT / "target" / "release" / "gpusat"))
    if not path.exists():
        raise FileNotFoundError(f"{path}: build it with cargo build --release -p gpusat-cli")
    return path


def run_command(*arguments: str) -> dict:
    env = dict(os.environ)
    env.setdefault("XDG_RUNTIME_DIR", "/tmp")
    done = subprocess.run(
        [str(command()), *arguments], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _convex_points(rng, count, scale):
    angles = np.sort(rng.uniform(0.0, 2 * np.pi, count))
    radii = np.full(count, scale)
    return np.stack([radii * np.cos(angles), radii * np.sin(angles)], axis=1)


def scene_2d(seed: int, bodies: int = 400, extent: float = 5.0):
    """Polygons (3 to 8 vertices, some rounded), circles, capsules and
    segments, scattered so that many pairs overlap: the shapes, the file's
    shape list, positions, angles and shape indices."""
    rng = np.random.default_rng(seed)
    shapes, described = gpusat.Shapes2D(), []
    for k in range(16):
        kind = k % 5
        scale = float(rng.uniform(0.3, 0.8))
        if kind in (0, 1):
            points = _convex_points(rng, int(rng.integers(3, 9)), scale).astype(np.float32)
            radius = float(np.float32(0.1 * scale)) if kind == 1 else 0.0
            shapes.add_polygon(points, radius)
            desc = {"polygon": points.tolist()}
            if radius:
                desc["radius"] = radius
        elif kind == 2:
            radius = float(np.float32(scale * 0.6))
            shapes.add_circle(radius)
            desc = {"circle": radius}
        elif kind == 3:
            a, b = [float(np.float32(-scale)), 0.0], [float(np.float32(scale)), 0.0]
            radius = float(np.float32(scale * 0.3))
            shapes.add_capsule(a, b, radius)
            desc = {"capsule": [a, b], "radius": radius}
        else:
            a, b = [float(np.float32(-scale)), 0.1], [float(np.float32(scale)), -0.1]
            shapes.add_segment(a, b)
            desc = {"segment": [a, b]}
        described.append(desc)
    positions = rng.uniform(-extent, extent, (bodies, 2)).astype(np.float32)
    angles = rng.uniform(-np.pi, np.pi, bodies).astype(np.float32)
    shape_ids = rng.integers(0, len(described), bodies).astype(np.uint32)
    return shapes, described, positions, angles, shape_ids


def scene_3d(seed: int, bodies: int = 300, extent: float = 3.0):
    """Hulls (some rounded), boxes (some rounded), spheres and capsules."""
    rng = np.random.default_rng(seed)
    shapes, described = gpusat.Shapes3D(), []
    for k in range(12):
        kind = k % 6
        scale = float(rng.uniform(0.3, 0.7))
        if kind in (0, 1):
            points = (scale * rng.normal(size=(int(rng.integers(8, 33)), 3))).astype(np.float32)
            radius = float(np.float32(0.1 * scale)) if kind == 1 else 0.0
            shapes.add_hull(points, radius)
            desc = {"hull": points.tolist()}
            if radius:
                desc["radius"] = radius
        elif kind in (2, 3):
            half = [float(np.float32(scale * f)) for f in rng.uniform(0.5, 1.0, 3)]
            radius = float(np.float32(0.1 * scale)) if kind == 3 else 0.0
            shapes.add_cuboid(half, radius)
            desc = {"cuboid": half}
            if radius:
                desc["radius"] = radius
        elif kind == 4:
            radius = float(np.float32(scale))
            shapes.add_sphere(radius)
            desc = {"sphere": radius}
        else:
            a, b = [0.0, float(np.float32(-scale)), 0.0], [0.0, float(np.float32(scale)), 0.0]
            radius = float(np.float32(0.4 * scale))
            shapes.add_capsule(a, b, radius)
            desc = {"capsule": [a, b], "radius": radius}
        described.append(desc)
    positions = rng.uniform(-extent, extent, (bodies, 3)).astype(np.float32)
    rotations = rng.normal(size=(bodies, 4))
    rotations = (rotations / np.linalg.norm(rotations, axis=1, keepdims=True)).astype(np.float32)
    shape_ids = rng.integers(0, len(described), bodies).astype(np.uint32)
    return shapes, described, positions, rotations, shape_ids


def write_scene(path: Path, described, positions, rotations, shape_ids, margin=0.0, pairs=None):
    """The scene as a file of the command's format."""
    bodies = []
    for i in range(len(positions)):
        body = {"shape": int(shape_ids[i]), "position": positions[i].tolist()}
        if positions.shape[1] == 2:
            body["angle"] = float(rotations[i])
        else:
            body["rotation"] = rotations[i].tolist()
        bodies.append(body)
    scene = {"shapes": described, "bodies": bodies, "margin": float(margin)}
    if pairs is not None:
        scene["pairs"] = [[int(a), int(b)] for a, b in pairs]
    path.write_text(json.dumps(scene))
    return path


def gpu_narrowphase(dim: int) -> gpusat.Narrowphase:
    """A GPU narrowphase; without an adapter, a failure when
    GPUSAT_REQUIRE_GPU=1 (as CI sets it), else the test is skipped."""
    try:
        return gpusat.Narrowphase(dim, "gpu")
    except gpusat.GpuError as error:
        if os.environ.get("GPUSAT_REQUIRE_GPU") == "1":
            raise
        pytest.skip(f"no GPU adapter: {error}")
