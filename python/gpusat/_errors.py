"""The exceptions gpusat raises.

Every error of the library is a :class:`Error`. Bad input is also a
:class:`ValueError` (:class:`InputError` and its subclasses, which name the
shape, body or pair at fault in ``index``); a GPU that fails is also a
:class:`RuntimeError`.
"""

from typing import Optional


class Error(Exception):
    """Any error gpusat reports.

    ``index`` is the index of the shape, body or pair at fault, where the
    error names one, else None.
    """

    def __init__(self, message: str, index: Optional[int] = None) -> None:
        super().__init__(message)
        self.index = index


class InputError(Error, ValueError):
    """An argument that is not what it should be (an array's shape, a
    margin, a backend's name, a scene file's content)."""


class ShapeError(InputError):
    """A shape that fails validation (``index``: the shape's index)."""


class BodyError(InputError):
    """A body that fails validation (``index``: the body's index)."""


class PairError(InputError):
    """A candidate pair that fails validation (``index``: the pair's index)."""


class SceneFileError(InputError):
    """A scene file that cannot be read."""


class GpuError(Error, RuntimeError):
    """The GPU backend could not run: no adapter, a missing capability, a
    limit, a lost device."""
