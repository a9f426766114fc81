"""Argument checks shared by the public functions.

Every check raises ``ValueError`` with a message that names the argument, the
value received and what is accepted, in the manner of scikit-learn.
"""

from __future__ import annotations

import math

import numpy as np

KERNELS = ("gaussian", "dot")


def positive(name: str, value) -> float:
    """Return ``value`` as a float, or raise unless it is finite and > 0."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}") from None
    if not math.isfinite(v) or v <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return v


def kernel(value) -> str:
    if value not in KERNELS:
        raise ValueError(f"kernel must be one of {', '.join(map(repr, KERNELS))}, got {value!r}")
    return value


def finite_array(name: str, value, *, min_ndim: int = 0, max_ndim: int = 2) -> np.ndarray:
    """Return ``value`` as a float array with no NaN or infinity."""
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of numbers, got {type(value).__name__}") from None
    if not (min_ndim <= a.ndim <= max_ndim):
        raise ValueError(f"{name} must have between {min_ndim} and {max_ndim} dimensions, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must contain only finite numbers (found NaN or infinity)")
    return a


def points(name: str, value, *, allow_scalar: bool) -> tuple[np.ndarray, bool]:
    """Return ``value`` as an (m, d) array and whether it was a single scalar.

    A scalar is one 1-D position, a 1-D array is m positions (d = 1) and a 2-D
    array is m vectors of dimension d.
    """
    a = finite_array(name, value, min_ndim=0 if allow_scalar else 1)
    if a.ndim == 0:
        return a.reshape(1, 1), True
    if a.ndim == 1:
        a = a[:, None]
    if a.shape[0] == 0:
        raise ValueError(f"{name} must not be empty: at least one point is needed")
    if a.shape[1] == 0:
        raise ValueError(f"{name} must have at least one coordinate, got shape {a.shape}")
    return a, False
