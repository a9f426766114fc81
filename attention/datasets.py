"""The shipped 1-D datasets and a seeded generator.

Each dataset is a small JSON file in the project's ``data/`` folder: the
samples (x, y), the name of the true function they were drawn from, the noise
level and how they were generated.  True functions are looked up by name in
``FUNCTIONS`` (a data file never holds code).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Callable

import numpy as np


def _wave(x):
    return 0.5 * np.sin(2 * x) + 0.5 * np.cos(3 * x)


def _bump(x):
    return 1.5 * np.exp(-0.5 * (np.asarray(x, dtype=float) - 3.0) ** 2) - 0.5


def _step(x):
    x = np.asarray(x, dtype=float)
    return np.where(x < 2.0, -0.5, np.where(x < 4.0, 0.5, -0.5)) + 0.0 * x


def _sine(x):
    return np.sin(x)


# name -> (callable, formula as printed); the browser mirror has the same table.
FUNCTIONS: dict[str, tuple[Callable, str]] = {
    "wave": (_wave, "f(x) = 0.5 sin(2x) + 0.5 cos(3x)"),
    "bump": (_bump, "f(x) = 1.5 exp(-(x - 3)^2 / 2) - 0.5"),
    "step": (_step, "f(x) = -0.5 for x < 2, 0.5 for 2 <= x < 4, -0.5 for x >= 4"),
    "sine": (_sine, "f(x) = sin(x)"),
}

MAX_GENERATED_N = 2000


@dataclass(frozen=True)
class Dataset:
    """Samples (x, y) of a 1-D regression problem.

    ``true_function`` is a callable f(x) (or None when the truth is unknown);
    ``description`` is one line for people.
    """

    name: str
    x: np.ndarray
    y: np.ndarray
    true_function: Callable | None
    description: str
    function: str | None = None
    noise: float | None = None
    meta: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def n(self) -> int:
        return int(self.x.shape[0])


def _data_dir():
    checkout = Path(__file__).resolve().parent.parent / "data"
    if (checkout / "datasets" / "default.json").is_file():
        return checkout
    return resources.files("attention_data")  # installed with `pip install .`


def data_path(*parts: str):
    """Path (or importlib Traversable) of a shipped data file, from a checkout or an installed package."""
    p = _data_dir()
    for part in parts:
        p = p / part
    return p


@lru_cache(maxsize=None)
def _read(name: str) -> dict:
    return json.loads(data_path("datasets", f"{name}.json").read_text(encoding="utf-8"))


def list_datasets() -> list[str]:
    """Names of the shipped datasets, ``default`` first."""
    names = [p.name[:-5] for p in data_path("datasets").iterdir() if p.name.endswith(".json")]
    return sorted(names, key=lambda s: (s != "default", s))


def load_dataset(name: str = "default") -> Dataset:
    """Load a shipped dataset by name (see ``list_datasets()``)."""
    names = list_datasets()
    if name not in names:
        raise ValueError(f"dataset must be one of {', '.join(map(repr, names))}, got {name!r}")
    d = _read(name)
    func = d.get("function")
    return Dataset(name=name, x=np.asarray(d["x"], dtype=float), y=np.asarray(d["y"], dtype=float),
                   true_function=FUNCTIONS[func][0] if func else None, description=d["description"],
                   function=func, noise=d.get("noise"), meta=d)


def make_dataset(function: str = "wave", n: int = 24, noise: float = 0.3, seed: int = 0,
                 x_range: tuple[float, float] = (0.0, 6.0)) -> Dataset:
    """Draw n noisy samples y = f(x) + N(0, noise^2) of a named true function.

    x is a jittered grid: x_i = lo + (i + 1/2) s + U(-0.4 s, 0.4 s) with
    s = (hi - lo) / n, sorted; x and y are rounded to 2 decimals, as in the
    shipped files.  The same seed gives the same samples on every machine.
    """
    if function not in FUNCTIONS:
        raise ValueError(f"function must be one of {', '.join(map(repr, FUNCTIONS))}, got {function!r}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 2 <= n <= MAX_GENERATED_N:
        raise ValueError(f"n must be a whole number from 2 to {MAX_GENERATED_N}, got {n!r}")
    sigma = float(noise)
    if not np.isfinite(sigma) or not 0 <= sigma <= 10:
        raise ValueError(f"noise must be a number from 0 to 10, got {noise!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0, got {seed!r}")
    lo, hi = (float(v) for v in x_range)
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise ValueError(f"x_range must be two finite numbers lo < hi, got {x_range!r}")
    f, formula = FUNCTIONS[function]
    rng = np.random.default_rng(seed)
    s = (hi - lo) / n
    x = np.sort(np.round(lo + (np.arange(n) + 0.5) * s + rng.uniform(-0.4 * s, 0.4 * s, n), 2))
    y = np.round(f(x) + rng.normal(0.0, sigma, n), 2)
    desc = f"{n} samples of {formula} with noise {sigma:g} (seed {seed})"
    return Dataset(name=f"generated:{function}:{n}:{sigma:g}:{seed}", x=x, y=y, true_function=f,
                   description=desc, function=function, noise=sigma,
                   meta={"generator": {"function": function, "n": n, "noise": sigma, "seed": seed,
                                       "x_range": [lo, hi]}})
