"""The datasets and states the sentence sweep renders every sentence in, and the core's numbers for each state.

Datasets: the four shipped ones, a generated one, and three of your own data as CSV texts of different scales and
sizes (days, 365 rows: data/examples/temperatures.csv; millimetres, 10 rows; millions of units, 2000 rows), read by
the page's own reader (app/userdata/) and scaled onto the sliders as the page scales them.  A state is a
dataset with a kernel, a key-norm tilt, h, T and a query, all on the sliders' scale; ``Core`` holds the numpy core's
numbers for it, the facts the sentences may claim, and the page's inputs for the sentence builders.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cache, cached_property

import numpy as np

import attention
from attention import kernels
from app.regression import text
from app.regression import view as RV
from attention.regression import GRID_N
from app.regression.text import SHARP_WEIGHT
from attention.datasets import X_RANGE
from app import userdata

GRID = np.linspace(*X_RANGE, GRID_N)


@dataclass(frozen=True)
class Data:
    """A dataset as the page holds it: x on the sliders' scale, y, and for your own data its units."""

    name: str
    x: np.ndarray
    y: np.ndarray
    true_function: object = None
    own: userdata.UserData | None = None
    scale: userdata.Scale | None = None
    noise: float | None = None

    @property
    def units(self) -> bool:
        return self.own is not None

    @property
    def span(self) -> float:
        """The data's x span in its own units."""
        return float(self.own.x.max() - self.own.x.min())


def _csv(header: str, xs, ys, xfmt: str, yfmt: str) -> str:
    return header + "\n" + "".join(f"{x:{xfmt}},{y:{yfmt}}\n" for x, y in zip(xs, ys))


def millimetres_csv() -> str:
    """10 rows: a spring's stretch in millimetres against its load."""
    x = np.linspace(12.5, 58.0, 10)
    return _csv("stretch_mm,load_n", x, 0.8 * x + 3 * np.sin(x / 4), ".1f", ".2f")


def millions_csv() -> str:
    """2000 rows: x in millions of units (a town's population), y a smooth trend with a seeded wiggle."""
    rng = np.random.default_rng(5)
    x = np.sort(rng.uniform(1.2e6, 9.8e6, 2000)).round(0)
    return _csv("population,trips", x, 40 + 12 * np.sin(x / 1.1e6) + rng.normal(0, 2, 2000), ".0f", ".3f")


def days_csv() -> str:
    return attention.datasets.data_path("examples", "temperatures.csv").read_text(encoding="utf-8")


CSVS = {"own-days-365": days_csv, "own-mm-10": millimetres_csv, "own-millions-2000": millions_csv}
GENERATED = dict(function="step", n=200, noise=0.2, seed=7)
DATASETS = [*attention.list_datasets(), "generated", *CSVS]


@cache
def dataset(name: str) -> Data:
    if name in CSVS:
        own = userdata.parse_text(CSVS[name]())
        s = userdata.scale_for(own.x)
        return Data(name, np.asarray(s.from_units(own.x), float), own.y, None, own, s)
    d = attention.make_dataset(**GENERATED) if name == "generated" else attention.load_dataset(name)
    return Data(name, d.x, d.y, d.true_function, noise=d.noise if d.true_function else None)


# The grid of states: every kernel and tilt, bandwidths from the sharp limit to the flat one, three temperatures, and
# queries across the plot (its edges included).  Your own data and the generated set take fewer bandwidths.
KERNELS = [("gaussian", 0.0), ("dot", 0.0), ("dot", 0.05), ("dot", 0.1), ("dot", 0.25), ("dot", -0.15)]
BANDWIDTHS = [0.01, 0.05, 0.2, 0.62, 3.0, 30.0]
TEMPERATURES = [0.3, 1.0, 4.0]
QUERIES = [-0.3, 1.0, 3.2, 5.9, 6.3]
SMALL = dict(kernels=[("gaussian", 0.0), ("dot", 0.0), ("dot", 0.25), ("dot", -0.15)],
             bandwidths=[0.005, 0.05, 0.62, 30.0], temperatures=[1.0, 4.0], queries=[0.0, 3.2, 6.0])


def states(name: str):
    """(dataset, kernel, tilt, h, T, query) for every state of the sweep on one dataset."""
    big = name in attention.list_datasets()
    k, b, t, q = ((KERNELS, BANDWIDTHS, TEMPERATURES, QUERIES) if big else
                  (SMALL["kernels"], SMALL["bandwidths"], SMALL["temperatures"], SMALL["queries"]))
    for (kernel, tilt), h, temp, query in itertools.product(k, b, t, q):
        yield name, kernel, tilt, h, temp, query


# The error plot's bandwidths (at T = 1): app/regression/view.py H_GRID.
H_GRID = np.geomspace(*RV.H_GRID[:2], RV.H_GRID[2])


# The leave-one-out curve is attention.loo_error's, worked out ROWS queries at a time.  loo_error scores all n
# samples against all n at once: on your own data's 2000 rows each of its steps runs over a fresh 32 MB array, and
# the weighted sum of 4 million weights is shared out to BLAS threads, which wait on each other on a busy machine
# (CI runs 3 test processes on 2 cores); for 61 bandwidths and 4 kernels, 12 of the 15 s that dataset's sweep took.
# Row i's prediction needs row i of the scores only, so ``loo_curve`` runs the core's own steps (kernels.scores, the
# sample left out of its own prediction, kernels.softmax, the weighted sum) on blocks of rows that stay in the
# cache: the same operations on the same numbers, row by row (the same curve bit for bit, on every dataset of the
# sweep), in less than half the time.  It checks itself against loo_error where the words look (the curve's
# lowest point) and at both ends of the grid.
ROWS = 64


def loo_curve(x, y, *, kernel: str, key_scale) -> np.ndarray:
    """``attention.loo_error(x, y, bandwidths=H_GRID, kernel=kernel, key_scale=key_scale)`` (T = 1), a block
    of rows at a time (above)."""
    if len(x) <= ROWS:
        return attention.loo_error(x, y, bandwidths=H_GRID, kernel=kernel, key_scale=key_scale)
    k, y = np.asarray(x, float)[:, None], np.asarray(y, float)
    n, pred, out = len(k), np.empty(len(k)), np.empty(len(H_GRID))
    for g, h in enumerate(H_GRID):
        for a in range(0, n, ROWS):
            b = min(a + ROWS, n)
            s = kernels.scores(k[a:b], k, kernel=kernel, bandwidth=float(h), key_scale=key_scale)
            s[np.arange(b - a), np.arange(a, b)] = -np.inf          # each sample left out of its own prediction
            pred[a:b] = kernels.softmax(s, out=s) @ y
        out[g] = np.mean((y - pred) ** 2)
    spot = sorted({0, int(np.argmin(out)), len(H_GRID) - 1})
    core = attention.loo_error(x, y, bandwidths=H_GRID[spot], kernel=kernel, key_scale=key_scale)
    np.testing.assert_allclose(out[spot], core, rtol=1e-12, atol=0, err_msg="loo_curve is not attention.loo_error")
    return out


@cache
def error_curves(name: str, kernel: str, tilt: float) -> tuple:
    """The error plot's curves on a dataset with a kernel: the leave-one-out error over ``H_GRID`` and, with a true
    function, bias² + variance (exact expectations, as the page draws them), else None."""
    d = dataset(name)
    scale = attention.key_norm_tilt(d.x, tilt) if kernel == "dot" and tilt else None
    kw = dict(bandwidths=H_GRID, kernel=kernel, temperature=1.0, key_scale=scale)
    loo = loo_curve(d.x, d.y, kernel=kernel, key_scale=scale)
    err = (attention.bias_variance(d.x, d.true_function, noise=d.noise, n_resamples=None, **kw)["error"]
           if d.true_function is not None and d.noise is not None else None)
    return loo, err


class Curve:
    """The weights of every query on the plot's grid, the prediction curve they make and its facts, for a dataset,
    kernel, tilt, h and T.  They do not depend on the query (moving it moves along the curve), so the sweep's
    states that differ only in their query (3 to 5 each) share one: made once by ``curve_of``."""

    def __init__(self, name, kernel, tilt, h, t):
        d = dataset(name)
        scale = attention.key_norm_tilt(d.x, tilt) if kernel == "dot" and tilt else None
        self.W = attention.weights(GRID, d.x, kernel=kernel, bandwidth=h, temperature=t, key_scale=scale)
        self.pred = self.W @ d.y     # attention.predict(GRID, ...), which is weights(GRID, ...) @ y: not scored twice
        self.winners = np.argmax(self.W, axis=1)
        self.facts = text.curve_facts(GRID, d.x, self.W, d.y)


@cache
def curve_of(name, kernel, tilt, h, t) -> Curve:
    return Curve(name, kernel, tilt, h, t)


class Core:
    """The numpy core's numbers for one state (on the sliders' scale), and the facts the sentences may claim."""

    def __init__(self, name, kernel, tilt, h, t, q):
        d = dataset(name)
        self.data, self.kernel, self.tilt, self.h, self.t, self.q = d, kernel, tilt, h, t, q
        self.x, self.y, self.n = d.x, d.y, len(d.x)
        self.scale = attention.key_norm_tilt(d.x, tilt) if kernel == "dot" and tilt else None
        kw = dict(kernel=kernel, bandwidth=h, temperature=t, key_scale=self.scale)
        self.r = attention.readout(q, d.x, d.y, true_function=d.true_function, **kw)
        self.w = np.asarray(attention.weights(q, d.x, **kw)).reshape(-1)
        c = curve_of(name, kernel, tilt, h, t)
        self.W, self.pred, self.winners, self.curve = c.W, c.pred, c.winners, c.facts   # (read, never changed)
        self.top = int(np.argmax(self.w))
        self.span = float(self.y.max() - self.y.min())

    # -- the page's inputs for the builders -------------------------------------------------------------------
    @cached_property
    def heaviest(self) -> dict:
        """(cached: the Python and the JavaScript builders both read it, and a Core is made once per state)"""
        return text.heaviest_sample(self.q, self.x, self.y, self.w)

    @property
    def shown_tilt(self) -> float:
        return self.tilt if self.kernel == "dot" else 0.0

    def units_words(self) -> dict | None:
        d = self.data
        if not d.units:
            return None
        return text.units_words(d.own.x_name, d.scale, d.span, self.q, self.h)

    def errors(self) -> tuple:
        """(leave-one-out error, bias² + variance or None) over ``H_GRID``, as the error plot draws them."""
        return error_curves(self.data.name, self.kernel, self.shown_tilt)

    @property
    def marker(self) -> float:
        """Where the error plot's marker stands: h·√T."""
        return self.h * math.sqrt(self.t)

    def h_text(self):
        """How the error plot's words write a bandwidth (in the data's units on your own data)."""
        d = self.data
        if not d.units:
            return text.length_text
        return lambda h: f"{text.length_text(d.scale.h_to_units(h))} on the {d.own.x_name} axis"

    def h_shown(self, h: float) -> float:
        """A bandwidth as the words give it: in the data's units on your own data."""
        return self.data.scale.h_to_units(h) if self.data.units else h

    def at(self):
        """How a notice writes a sample's position (None: the default, "x = 2.10")."""
        d = self.data
        if not d.units:
            return None
        return lambda v: f"{d.own.x_name} = {text.unit_text(d.scale.to_units(v), d.span)}"

    # -- facts ------------------------------------------------------------------------------------------------
    def top_is_nearest(self) -> bool:
        return abs(self.x[self.top] - self.q) <= np.abs(self.x - self.q).min() + 1e-9

    def one_winner_everywhere(self) -> bool:
        return len(set(self.winners.tolist())) == 1 and int(self.winners[0]) == self.top

    def nearest_everywhere(self) -> bool:
        dist = np.abs(GRID[:, None] - self.x[None, :])
        return bool(np.all(np.abs(GRID - self.x[self.winners]) <= dist.min(axis=1) + 1e-9))

    def steps(self) -> bool:
        """The curve is made of flat steps: one sample holds SHARP_WEIGHT of the weight over 80 % of it, and
        several samples win along it."""
        return np.mean(self.W.max(axis=1) >= SHARP_WEIGHT) >= 0.8 and len(set(self.winners.tolist())) >= 2

    def spreads_somewhere(self) -> bool:
        """Somewhere along the curve no sample holds SHARP_WEIGHT of the weight."""
        return bool(np.any(self.W.max(axis=1) < SHARP_WEIGHT))

    def flat_at(self, shown: str, digits: int) -> bool:
        """The curve is flat at the value ``shown`` at the digits shown: the prediction at the query, and over
        80 % of the curve's length, rounds to it."""
        v, half = parse_number(shown), 0.5 * 10 ** -digits + 1e-12
        return abs(self.r.prediction - v) <= half and np.mean(np.abs(self.pred - v) <= half) >= 0.8

    def flattens_near(self, value: float) -> bool:
        """The curve flattens out near ``value``: over 80 % of its length within 5 % of the data's spread of it."""
        return np.mean(np.abs(self.pred - value) <= 0.05 * self.span) >= 0.8

    def leans_towards(self, value: float) -> bool:
        """Over most of the curve the prediction is nearer the value than the data's mean is."""
        return np.mean(np.abs(self.pred - value) < abs(float(self.y.mean()) - value)) >= 0.5

    def top_key_longer_than_nearer(self) -> bool:
        if self.scale is None:
            return False
        nearer = np.abs(self.x - self.q) < abs(self.x[self.top] - self.q) - 1e-9
        return bool(np.all(self.scale[self.top] > self.scale[nearer]))

    def a_longer_key_wins_elsewhere(self, side: str) -> bool:
        dist = np.abs(GRID[:, None] - self.x[None, :])
        nearest = self.x[np.argmin(dist, axis=1)]
        won = self.x[self.winners]
        far = np.abs(GRID - won) > dist.min(axis=1) + 1e-9
        further = won > nearest if side == "right" else won < nearest
        return bool(np.any(far & further))

    def keys_longer_to(self) -> str | None:
        """Which side has the longer keys under the tilt ("right", "left"), or None without one."""
        if self.scale is None:
            return None
        return "right" if self.scale[np.argmax(self.x)] > self.scale[np.argmin(self.x)] else "left"


@cache
def core(*args) -> Core:
    return Core(*args)


MINUS = "\u2212"


WORDS = {"million": 1e6, "billion": 1e9, "trillion": 1e12}


def parse_number(shown: str) -> float:
    """A number as the page writes it (the minus sign U+2212, no exponent, "58.7 million") back to a float."""
    number, _, word = shown.partition(" ")
    return float(number.replace(MINUS, "-")) * WORDS.get(word, 1.0)


def digits_of(shown: str) -> int:
    """Decimals shown (of the number before a word such as "million")."""
    number = shown.partition(" ")[0]
    return len(number.split(".")[1]) if "." in number else 0


def same_at_digits(shown: str, value: float) -> bool:
    """``shown`` is ``value`` written at the digits shown (ties either way: the writers round half to even)."""
    unit = 10 ** -digits_of(shown) * WORDS.get(shown.partition(" ")[2], 1.0)
    return abs(parse_number(shown) - value) <= 0.5 * unit + 1e-9 * max(1.0, abs(value))


def same_sig(shown: str, value: float, sig: int = 3) -> bool:
    """``shown`` is ``value`` to ``sig`` significant digits (as app.ui.text.plain writes a length)."""
    if value == 0:
        return parse_number(shown) == 0
    unit = 10 ** (math.floor(math.log10(abs(value))) - sig + 1)
    return abs(parse_number(shown) - value) <= 0.5 * unit + 1e-12 * abs(value)
