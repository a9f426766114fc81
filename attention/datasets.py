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
# Every shipped dataset's x lies in DATA_RANGE, and the generator draws there by default; queries and curves
# (X_RANGE) reach half a unit further each side, so a query can stand beyond the outermost sample.
DATA_RANGE = (0.0, 6.0)
X_RANGE = (DATA_RANGE[0] - 0.5, DATA_RANGE[1] + 0.5)


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
    """Path (or importlib Traversable) of a shipped data file, from a checkout or an installed package.

    Parameters
    ----------
    *parts : str
        The file's path under ``data/``, one folder or file name each.

    Returns
    -------
    path : pathlib.Path or importlib.resources.abc.Traversable
        It has ``read_text``, ``iterdir`` and ``/``, whichever it is.
    """
    p = _data_dir()
    for part in parts:
        p = p / part
    return p


@lru_cache(maxsize=None)
def _read(name: str) -> dict:
    return json.loads(data_path("datasets", f"{name}.json").read_text(encoding="utf-8"))


def list_datasets() -> list[str]:
    """Names of the shipped datasets, ``default`` first.

    Returns
    -------
    names : list of str
        The files of ``data/datasets/`` without ``.json``.
    """
    names = [p.name[:-5] for p in data_path("datasets").iterdir() if p.name.endswith(".json")]
    return sorted(names, key=lambda s: (s != "default", s))


def load_dataset(name: str = "default") -> Dataset:
    """Load a shipped dataset by name (see ``list_datasets()``).

    Parameters
    ----------
    name : str, default "default"
        One of ``list_datasets()``.

    Returns
    -------
    dataset : Dataset
        x, y, the true function (when the file names one), the noise and a description.
    """
    names = list_datasets()
    if name not in names:
        raise ValueError(f"dataset must be one of {', '.join(map(repr, names))}, got {name!r}")
    d = _read(name)
    func = d.get("function")
    return Dataset(name=name, x=np.asarray(d["x"], dtype=float), y=np.asarray(d["y"], dtype=float),
                   true_function=FUNCTIONS[func][0] if func else None, description=d["description"],
                   function=func, noise=d.get("noise"), meta=d)


SEED_MAX = 2 ** 32 - 1     # the generator's state is seeded from one 32-bit word

_M32 = 0xFFFFFFFF


def _splitmix32(state: int) -> tuple[int, int]:
    """One step of splitmix32: (new state, output), all arithmetic mod 2^32.

    state += 0x9E3779B9 (a Weyl sequence); the output is murmur3's finaliser of
    the new state: z ^= z >> 16; z *= 0x85EBCA6B; z ^= z >> 13; z *= 0xC2B2AE35;
    z ^= z >> 16.  The finaliser is a bijection, so distinct states give distinct
    outputs (four successive outputs are never all 0).
    """
    state = (state + 0x9E3779B9) & _M32
    z = state
    z = ((z ^ (z >> 16)) * 0x85EBCA6B) & _M32
    z = ((z ^ (z >> 13)) * 0xC2B2AE35) & _M32
    return state, z ^ (z >> 16)


def _rotl(v: int, k: int) -> int:
    return ((v << k) | (v >> (32 - k))) & _M32


def _xoshiro128ss(state, count: int) -> list[int]:
    """``count`` 32-bit outputs of xoshiro128** (Blackman and Vigna) from four 32-bit state words."""
    s0, s1, s2, s3 = state
    out = []
    for _ in range(count):  # a loop over the generator's outputs
        out.append(_rotl((s1 * 5) & _M32, 7) * 9 & _M32)
        t = (s1 << 9) & _M32
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = _rotl(s3, 11)
    return out


def _uniforms(seed: int, count: int) -> np.ndarray:
    """``count`` doubles in [0, 1) from xoshiro128** seeded with ``seed`` (the uniforms of ``make_dataset``).

    xoshiro128** (Blackman and Vigna) starts from four 32-bit state words, the
    first four outputs of splitmix32 (see ``_splitmix32``) started at the seed.
    Each step outputs rotl(s1 * 5, 7) * 9 and then updates
    t = s1 << 9; s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3; s2 ^= t; s3 = rotl(s3, 11),
    all mod 2^32.  A uniform takes two outputs, their 27 and 26 high bits:
    (floor(o1 / 2^5) 2^26 + floor(o2 / 2^6)) / 2^53, in [0, 1).  Only 32-bit
    integer arithmetic and exact double operations are involved, so a
    re-implementation (``attention/generator.js`` uses Math.imul and >>> 0)
    produces the same uniforms, bit for bit.
    """
    st, state = seed, []
    for _ in range(4):
        st, z = _splitmix32(st)
        state.append(z)
    w = np.array(_xoshiro128ss(state, 2 * count), dtype=np.float64).reshape(count, 2)
    # 27 high bits of the first word and 26 of the second: (a 2^26 + b) / 2^53, exact in a double
    return (np.floor(w[:, 0] / 32.0) * 67108864.0 + np.floor(w[:, 1] / 64.0)) / 9007199254740992.0


def _generator_args(function, n, noise, seed, x_range) -> tuple[int, float, int, float, float]:
    """``make_dataset``'s arguments checked: (n, noise, seed, lo, hi), or a ValueError naming the first bad one."""
    if function not in FUNCTIONS:
        raise ValueError(f"function must be one of {', '.join(map(repr, FUNCTIONS))}, got {function!r}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 2 <= n <= MAX_GENERATED_N:
        raise ValueError(f"n must be a whole number from 2 to {MAX_GENERATED_N}, got {n!r}")
    sigma = float(noise)
    if not np.isfinite(sigma) or not 0 <= sigma <= 10:
        raise ValueError(f"noise must be a number from 0 to 10, got {noise!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed <= SEED_MAX:
        raise ValueError(f"seed must be a whole number from 0 to {SEED_MAX}, got {seed!r}")
    lo, hi = (float(v) for v in x_range)
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise ValueError(f"x_range must be two finite numbers lo < hi, got {x_range!r}")
    return int(n), sigma, int(seed), lo, hi


def make_dataset(function: str = "wave", n: int = 24, noise: float = 0.3, seed: int = 0,
                 x_range: tuple[float, float] = DATA_RANGE) -> Dataset:
    """Draw n noisy samples y = f(x) + N(0, noise^2) of a named true function.

    x is a jittered grid, y the true function plus Gaussian noise, both rounded
    to 2 decimals as in the shipped files:

        x_i = round(lo + (i + 1/2) s + (a + (b - a) u_i), 2),   s = (hi - lo) / n,
              a = -0.4 s,  b = 0.4 s,                           then sorted;
        y_i = round(f(x_i) + noise z_i, 2),
              z_i = sqrt(-2 log(1 - v_i)) cos(2 pi w_i)         (Box-Muller),

    where round(v, 2) = rint(100 v) / 100 with ties to even (numpy's np.round).
    Before rounding, sample i lies inside its own cell [lo + i s, lo + (i + 1) s]
    and rounding keeps the order, so sorting changes nothing (it is kept as a
    promise).  The uniforms u_0 .. u_{n-1}, v_0, w_0, v_1, w_1, ... (in that
    order) come from xoshiro128** seeded with ``seed`` (``_uniforms`` gives the
    recipe), which ``attention/generator.js`` repeats bit for bit: the same seed
    gives the same samples on every machine and in the browser.

    y also goes through log, cos and f's sin, cos or exp, which may differ by an
    ulp or two between math libraries (numpy, libm, a browser's JavaScript).
    Before rounding, that is a difference of 1e-15 to 1e-14; rounding to 2
    decimals removes it unless the value lies within that distance of a
    rounding boundary (for one sample the odds are below 1e-11).  So every
    implementation gives the same y, which tests/browser/test_compute_parity.py
    checks (within 1e-12) for 50 settings.  (Samples drawn before this
    generator, with numpy's default_rng, differ: the shipped files keep theirs.)

    Parameters
    ----------
    function : str, default "wave"
        The true function f, a name in ``FUNCTIONS``.
    n : int, 2 <= n <= 2000, default 24
        Number of samples (``MAX_GENERATED_N`` at most).
    noise : float in [0, 10], default 0.3
        Standard deviation of the noise.
    seed : int, 0 <= seed <= 2^32 - 1, default 0
        The generator's seed (``SEED_MAX`` at most).
    x_range : (float, float), default (0.0, 6.0)
        lo < hi, the interval the grid covers.

    Returns
    -------
    dataset : Dataset
        Sorted x, y, f and a description; ``meta["generator"]`` holds the arguments.
    """
    n, sigma, seed, lo, hi = _generator_args(function, n, noise, seed, x_range)
    f, formula = FUNCTIONS[function]
    u = _uniforms(seed, 3 * n)
    s = (hi - lo) / n
    a, b = -0.4 * s, 0.4 * s
    x = np.sort(np.round(lo + (np.arange(n) + 0.5) * s + (a + (b - a) * u[:n]), 2))
    z = np.sqrt(-2.0 * np.log(1.0 - u[n::2])) * np.cos(2.0 * np.pi * u[n + 1::2])
    y = np.round(f(x) + sigma * z, 2)
    desc = f"{n} samples of {formula} with noise {sigma:g} (seed {seed})"
    return Dataset(name=f"generated:{function}:{n}:{sigma:g}:{seed}", x=x, y=y, true_function=f,
                   description=desc, function=function, noise=sigma,
                   meta={"generator": {"function": function, "n": n, "noise": sigma, "seed": seed,
                                       "x_range": [lo, hi]}})


__all__ = ["Dataset", "FUNCTIONS", "MAX_GENERATED_N", "SEED_MAX", "data_path", "list_datasets",
           "load_dataset", "make_dataset"]
