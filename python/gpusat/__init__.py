"""gpusat from Python: batch collision detection in 2D and 3D with the
Separating Axis Test, on the GPU (WGSL through wgpu) and the CPU, numpy
arrays in and out.

A shape library holds every shape once; bodies are arrays (positions,
rotations, the index of each body's shape); candidate pairs are an
``(M, 2)`` array of body indices, or found by the broadphase::

    import numpy as np
    import gpusat

    shapes = gpusat.Shapes2D()
    box = shapes.add_polygon(np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]))
    ball = shapes.add_circle(0.4)
    hits = gpusat.collide(
        shapes,
        positions=np.array([[0.0, 0.0], [0.8, 0.1]]),
        rotations=np.array([0.1, 0.0]),
        shape_ids=np.array([box, ball]),
    )
    hits.normal, hits.depth, hits.points[:, :, :]  # arrays, one row a reported pair

Every result is bit for bit what the Rust library returns for the same
input. The work runs with the GIL released. Errors are :class:`Error`
subclasses; bad input is also a :class:`ValueError` naming the shape, body
or pair at fault (``error.index``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple, Union

import numpy as np

from . import _gpusat
from ._errors import (
    BodyError,
    Error,
    GpuError,
    InputError,
    PairError,
    SceneFileError,
    ShapeError,
)
from ._gpusat import GpuContext, adapters

__version__: str = _gpusat.__version__

__all__ = [
    "AXIS_KINDS_3D",
    "BACKENDS",
    "BodyError",
    "Error",
    "GpuContext",
    "GpuError",
    "Hits",
    "InputError",
    "Narrowphase",
    "PairError",
    "Scene",
    "SceneFileError",
    "ShapeError",
    "Shapes2D",
    "Shapes3D",
    "World",
    "adapters",
    "collide",
    "load_scene",
]

#: The backends a narrowphase or a world runs on.
BACKENDS = ("cpu", "cpu-parallel", "gpu", "auto")

#: The kinds of a 3D axis, by the number in bits 28 to 31 of ``Hits.axis``
#: (the names `gpusat collide` writes).
AXIS_KINDS_3D = (
    "face_a",
    "face_b",
    "edges",
    "edge_a",
    "edge_b",
    "vertex_a",
    "vertex_b",
    "centres",
    "vertex_edge",
    "edge_vertex",
    "vertices",
)


class _Pickled:
    """How a shape library travels to another process (Ray's workers): as
    the calls that built it, replayed there (the same shapes bit for bit);
    one read from a scene file as the file's path, then its own calls."""

    def __init__(self) -> None:
        self._recipe: List[Tuple[str, tuple]] = []
        # Calls and their record in the same order, whatever the threads.
        self._adding = threading.Lock()

    def _add(self, method: str, *arguments) -> int:
        with self._adding:
            index = getattr(super(), method)(*arguments)
            self._recipe.append((method, arguments))
        return index

    def __reduce__(self):
        return (_shapes_from_recipe, (type(self), list(self._recipe)))


def _shapes_from_recipe(kind, recipe):
    if recipe and recipe[0][0] == _FROM_FILE:
        shapes = load_scene(recipe[0][1][0]).shapes
        recipe = recipe[1:]
    else:
        shapes = kind()
    for method, arguments in recipe:
        getattr(shapes, method)(*arguments)
    return shapes


#: The first step of a loaded library's recipe: the scene file it came from.
_FROM_FILE = "load_scene"


class Shapes2D(_Pickled, _gpusat.Shapes2D):
    """The 2D shape library: every shape once, bodies refer to them by the
    index each ``add_*`` returns. Shapes are validated as they are added
    (:class:`ShapeError` names the index the shape would have had)."""

    def add_polygon(self, points, radius: float = 0.0) -> int:
        """A convex polygon of ``(k, 2)`` points in order around it (either
        winding; at most 64 after collinear points are dropped), grown by
        ``radius`` (a rounded polygon) when it is above 0."""
        return self._add("add_polygon", _floats("points", points, (None, 2)), float(radius))

    def add_circle(self, radius: float) -> int:
        """A circle about the body's origin."""
        return self._add("add_circle", float(radius))

    def add_capsule(self, a, b, radius: float) -> int:
        """The segment from ``a`` to ``b`` grown by ``radius``."""
        return self._add("add_capsule", _point("a", a, 2), _point("b", b, 2), float(radius))

    def add_segment(self, a, b) -> int:
        """The segment from ``a`` to ``b`` (no area)."""
        return self._add("add_segment", _point("a", a, 2), _point("b", b, 2))


class Shapes3D(_Pickled, _gpusat.Shapes3D):
    """The 3D shape library (see :class:`Shapes2D`)."""

    def add_hull(self, points, radius: float = 0.0) -> int:
        """The convex hull of a ``(k, 3)`` point cloud, grown by ``radius``
        (a rounded hull) when it is above 0."""
        return self._add("add_hull", _floats("points", points, (None, 3)), float(radius))

    def add_cuboid(self, half_extents, radius: float = 0.0) -> int:
        """A box of these half extents, grown by ``radius``."""
        return self._add("add_cuboid", _point("half_extents", half_extents, 3), float(radius))

    def add_sphere(self, radius: float) -> int:
        """A sphere about the body's origin."""
        return self._add("add_sphere", float(radius))

    def add_capsule(self, a, b, radius: float) -> int:
        """The segment from ``a`` to ``b`` grown by ``radius``."""
        return self._add("add_capsule", _point("a", a, 3), _point("b", b, 3), float(radius))


Shapes = Union[Shapes2D, Shapes3D]


def _point(name: str, values, dim: int) -> List[float]:
    return [float(v) for v in _floats(name, values, (dim,))]


def _dim_of(shapes) -> int:
    if isinstance(shapes, _gpusat.Shapes2D):
        return 2
    if isinstance(shapes, _gpusat.Shapes3D):
        return 3
    raise InputError(f"shapes is a {type(shapes).__name__}, not a gpusat.Shapes2D or Shapes3D")


def _floats(name: str, values, shape: Tuple[Optional[int], ...]) -> np.ndarray:
    """``values`` as a C-contiguous float32 array of ``shape`` (None: any
    length), without a copy when it already is one."""
    try:
        array = np.ascontiguousarray(values, dtype=np.float32)
    except (TypeError, ValueError) as error:
        raise InputError(f"{name} is not an array of numbers: {error}") from None
    if array.ndim != len(shape) or any(
        want is not None and got != want for got, want in zip(array.shape, shape)
    ):
        wanted = "(" + ", ".join("N" if s is None else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
        raise InputError(f"{name} has shape {array.shape}, not {wanted}")
    return array


def _indices(name: str, values, shape: Tuple[Optional[int], ...]) -> np.ndarray:
    """``values`` as a C-contiguous uint32 array of ``shape``: integers from
    0 to 2**32 - 1 (a copy only when the dtype or layout differs)."""
    array = np.asarray(values)
    if array.size == 0 and array.dtype.kind not in "iu":
        # An empty list has no integer dtype of its own.
        array = array.astype(np.uint32)
    if array.shape == (0,) and len(shape) == 2:
        # No pairs, given as an empty list.
        array = array.reshape(0, shape[1])
    if not np.issubdtype(array.dtype, np.integer):
        raise InputError(f"{name} holds {array.dtype}, not integers")
    if array.ndim != len(shape) or any(
        want is not None and got != want for got, want in zip(array.shape, shape)
    ):
        raise InputError(f"{name} has shape {array.shape}, not {shape}")
    if array.dtype != np.uint32 and array.size:
        low, high = int(array.min()), int(array.max())
        if low < 0 or high > 0xFFFFFFFF:
            bad = int(np.flatnonzero((array < 0) | (array > 0xFFFFFFFF))[0])
            raise InputError(f"{name} holds {array.flat[bad]} at flat index {bad}, outside 0 to 2**32 - 1")
    return np.ascontiguousarray(array, dtype=np.uint32)


def _bodies(dim: int, positions, rotations, shape_ids) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    positions = _floats("positions", positions, (None, dim))
    n = positions.shape[0]
    if dim == 2:
        rotations = _floats("rotations", rotations, (n,)).reshape(n, 1)
    else:
        rotations = _floats("rotations", rotations, (n, 4))
    shape_ids = _indices("shape_ids", shape_ids, (n,))
    return positions, rotations, shape_ids


@dataclass(frozen=True)
class Hits:
    """The reported pairs of one call, a row each, in pair order.

    ``pair`` indexes the candidate pairs (the broadphase's list when none
    were given); ``a``, ``b`` are body indices; ``normal`` ``(H, dim)`` is
    the unit normal from A to B; ``depth`` is positive where the shapes
    overlap (negative: a gap within the margin); ``axis`` is the axis the
    depth was measured along, packed as the Rust ``Axis::pack`` does (see
    :meth:`axes`).

    With contacts: ``points`` ``(H, P, dim)`` (P = 2 in 2D, 4 in 3D), each
    point midway between the two surfaces, NaN past ``point_count``;
    ``point_depth`` ``(H, P)``; ``point_id`` ``(H, P)`` the feature ids;
    ``point_count`` ``(H,)``. Without contacts these are None.

    ``pairs_tested`` is the number of candidate pairs, ``seconds`` the time
    spent in the library (GIL released); both 0 in :meth:`World.contacts`.
    """

    dim: int
    pair: np.ndarray
    a: np.ndarray
    b: np.ndarray
    normal: np.ndarray
    depth: np.ndarray
    axis: np.ndarray
    points: Optional[np.ndarray]
    point_depth: Optional[np.ndarray]
    point_id: Optional[np.ndarray]
    point_count: Optional[np.ndarray]
    pairs_tested: int
    seconds: float

    def __len__(self) -> int:
        return len(self.pair)

    @staticmethod
    def _from(dim: int, columns: Dict) -> "Hits":
        return Hits(
            dim=dim,
            pair=columns["pair"],
            a=columns["a"],
            b=columns["b"],
            normal=columns["normal"],
            depth=columns["depth"],
            axis=columns["axis"],
            points=columns.get("points"),
            point_depth=columns.get("point_depth"),
            point_id=columns.get("point_id"),
            point_count=columns.get("point_count"),
            pairs_tested=columns["pairs_tested"],
            seconds=columns["seconds"],
        )

    @property
    def axis_kind(self) -> np.ndarray:
        """Each hit's kind of axis, ``(H,)`` uint8: in 2D 0 for a feature of
        A, 1 of B; in 3D the index of its name in :data:`AXIS_KINDS_3D`."""
        if self.dim == 2:
            return (self.axis >> 31).astype(np.uint8)
        return (self.axis >> 28).astype(np.uint8)

    @property
    def axis_features(self) -> np.ndarray:
        """Each hit's features, ``(H, 2)`` int64: a face, edge, vertex (or
        a 2D feature) in column 0 and -1 in column 1; for two features (3D
        edge pairs, and vertices or edges of two cores) both."""
        features = np.full((len(self.axis), 2), -1, dtype=np.int64)
        if self.dim == 2:
            features[:, 0] = self.axis & 0x7FFFFFFF
            return features
        index = (self.axis & ((1 << 28) - 1)).astype(np.int64)
        kind = self.axis_kind
        two = np.isin(kind, [2, 8, 9, 10])
        features[:, 0] = np.where(two, index >> 14, index)
        features[two, 1] = index[two] & ((1 << 14) - 1)
        return features

    def axes(self) -> List[Tuple[str, Tuple[int, ...]]]:
        """Each hit's axis as ``(kind, features)``, the way `gpusat collide`
        writes it: in 2D the owner (``"a"`` or ``"b"``) and its feature; in
        3D a kind of :data:`AXIS_KINDS_3D` and one or two features."""
        out: List[Tuple[str, Tuple[int, ...]]] = []
        for bits in self.axis.tolist():
            if self.dim == 2:
                out.append(("b" if bits >> 31 else "a", (bits & 0x7FFFFFFF,)))
                continue
            kind, index = bits >> 28, bits & ((1 << 28) - 1)
            name = AXIS_KINDS_3D[kind] if kind < len(AXIS_KINDS_3D) else "centres"
            if name in ("edges", "vertex_edge", "edge_vertex", "vertices"):
                out.append((name, (index >> 14, index & ((1 << 14) - 1))))
            else:
                out.append((name, (index,)))
        return out


class Narrowphase:
    """A narrowphase of one dimension on one backend ("cpu",
    "cpu-parallel", "gpu", or "auto": a hardware GPU when there is one, else
    the CPU). A GPU's device, pipelines and buffers are created once and
    kept across calls; with ``context`` (a :class:`GpuContext`, backend
    "gpu") the device is that one, shared. Safe to share between threads
    (calls take turns)."""

    def __init__(self, dim: int = 2, backend: str = "auto", context: Optional[GpuContext] = None) -> None:
        if dim not in (2, 3):
            raise InputError(f"dim is {dim!r}, not 2 or 3")
        self._inner = _gpusat.Narrowphase(dim, backend, context)

    @property
    def dim(self) -> int:
        """2 or 3."""
        return self._inner.dim

    @property
    def backend(self) -> str:
        """What runs: "cpu", "cpu-parallel" or "gpu"."""
        return self._inner.backend

    @property
    def note(self) -> Optional[str]:
        """Why "auto" chose what it did, when it says."""
        return self._inner.note

    @property
    def context(self) -> Optional[GpuContext]:
        """The GPU device it runs on (None on the CPU), for another
        narrowphase on the same device: ``Narrowphase(3, "gpu", context=n.context)``."""
        return self._inner.context

    def collide(
        self,
        shapes: Shapes,
        positions,
        rotations,
        shape_ids,
        pairs=None,
        margin: float = 0.0,
        contacts: bool = True,
    ) -> Hits:
        """Tests the candidate pairs (``pairs``, ``(M, 2)`` body indices, or
        the broadphase's when None) and returns the reported ones.

        ``positions`` ``(N, dim)``; ``rotations`` angles ``(N,)`` in 2D
        (radians, counter-clockwise), unit quaternions ``(N, 4)`` (x, y, z,
        w) in 3D; ``shape_ids`` ``(N,)`` indices into ``shapes``. Pairs
        within ``margin`` of touching are reported too, with a negative
        depth. Arrays already float32 (uint32 for indices) and C-contiguous
        are read without a copy.
        """
        dim = _dim_of(shapes)
        if dim != self.dim:
            raise InputError(f"shapes is a Shapes{dim}D, but this narrowphase is {self.dim}D")
        positions, rotations, shape_ids = _bodies(dim, positions, rotations, shape_ids)
        if pairs is not None:
            pairs = _indices("pairs", pairs, (None, 2))
        columns = self._inner.collide(
            shapes, positions, rotations, shape_ids, pairs, float(margin), bool(contacts)
        )
        return Hits._from(dim, columns)


_narrowphases: Dict[Tuple[int, str], Narrowphase] = {}
_narrowphases_lock = threading.Lock()


def collide(
    shapes: Shapes,
    positions,
    rotations,
    shape_ids,
    pairs=None,
    margin: float = 0.0,
    backend: str = "auto",
    contacts: bool = True,
) -> Hits:
    """:meth:`Narrowphase.collide` on a narrowphase of ``shapes``'
    dimension and ``backend``, created at the first call and kept."""
    dim = _dim_of(shapes)
    with _narrowphases_lock:
        narrowphase = _narrowphases.get((dim, backend))
        if narrowphase is None:
            narrowphase = Narrowphase(dim, backend)
            _narrowphases[(dim, backend)] = narrowphase
    return narrowphase.collide(shapes, positions, rotations, shape_ids, pairs, margin, contacts)


@dataclass
class Scene:
    """A scene: shapes, the bodies' arrays, candidate pairs (or None: the
    broadphase finds them) and the margin. :func:`load_scene` reads one from
    a file of the command's format."""

    shapes: Shapes
    positions: np.ndarray
    rotations: np.ndarray
    shape_ids: np.ndarray
    pairs: Optional[np.ndarray] = None
    margin: float = 0.0
    inv_mass: Optional[np.ndarray] = None

    @property
    def dim(self) -> int:
        return _dim_of(self.shapes)

    def collide(self, backend: str = "auto", contacts: bool = True) -> Hits:
        """:func:`collide` on this scene."""
        return collide(
            self.shapes,
            self.positions,
            self.rotations,
            self.shape_ids,
            self.pairs,
            self.margin,
            backend,
            contacts,
        )


def load_scene(path) -> Scene:
    """Reads a scene file (JSON, 2D or 3D, the format `gpusat collide`
    reads); errors name the file and the place in it."""
    fields = _gpusat.load_scene(str(path))
    fields["shapes"]._recipe = [(_FROM_FILE, (str(Path(path).resolve()),))]
    return Scene(
        shapes=fields["shapes"],
        positions=fields["positions"],
        rotations=fields["rotations"],
        shape_ids=fields["shape_ids"],
        pairs=fields["pairs"],
        margin=fields["margin"],
        inv_mass=fields["inv_mass"],
    )


class World:
    """Bodies stepped through time: each frame the broadphase, the
    narrowphase (on ``backend``), contact manifolds, impulses and positional
    correction. ``inv_mass`` 0 makes a body static (default: 1 for every
    body). ``gravity`` (dim values) and ``margin`` default to the library's
    ``WorldOptions``."""

    def __init__(
        self,
        shapes: Shapes,
        positions,
        rotations,
        shape_ids,
        inv_mass=None,
        backend: str = "cpu",
        gravity=None,
        margin: Optional[float] = None,
    ) -> None:
        dim = _dim_of(shapes)
        positions, rotations, shape_ids = _bodies(dim, positions, rotations, shape_ids)
        if inv_mass is not None:
            inv_mass = _floats("inv_mass", inv_mass, (positions.shape[0],))
        if gravity is not None:
            gravity = [float(g) for g in np.asarray(gravity, dtype=np.float64).ravel()]
        self._inner = _gpusat.World(
            shapes, positions, rotations, shape_ids, inv_mass, backend, gravity,
            None if margin is None else float(margin),
        )

    @property
    def dim(self) -> int:
        return self._inner.dim

    def step(self, frames: int = 1, dt: float = 1.0 / 60.0) -> None:
        """Runs ``frames`` frames of ``dt`` seconds (GIL released). A frame
        that fails raises, the frames before it kept."""
        if frames < 0:
            raise InputError(f"frames is {frames}, not a count >= 0")
        self._inner.step(int(frames), float(dt))

    def state(self) -> Dict[str, np.ndarray]:
        """``positions``, ``rotations`` (2D angles ``(N,)``, 3D quaternions
        ``(N, 4)``), ``velocities``, ``angular_velocities``: copies."""
        return self._inner.state()

    @property
    def positions(self) -> np.ndarray:
        return self.state()["positions"]

    @property
    def rotations(self) -> np.ndarray:
        return self.state()["rotations"]

    @property
    def velocities(self) -> np.ndarray:
        return self.state()["velocities"]

    def contacts(self) -> Hits:
        """The last frame's reported pairs and their contact points."""
        return Hits._from(self.dim, self._inner.contacts())

    def kinetic_energy(self) -> float:
        return self._inner.kinetic_energy()
