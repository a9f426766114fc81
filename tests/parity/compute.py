"""What the page computes itself (attention/generator.js and attention/train.js) against the numpy core: the
generator's settings, the datasets trained and how a path is compared, and the checks both tests/js and
tests/browser/test_compute_parity.py run.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest

import attention
from app.learning import view as lv
from app.learning.state import BANDWIDTH_LR_PRESETS

from tests.parity import answers

REL = 1e-6


# ---- the generator -------------------------------------------------------------------------------------------

@cache
def generator_cases():
    """50 settings: every function, n from 2 to 2000 (both ends included), noise 0 to 2, seeds from 0 to
    2^31 - 1 (the page's range) and the generator's largest, 2^32 - 1; with the core's datasets."""
    rng = np.random.default_rng(2026)
    fns = sorted(attention.FUNCTIONS)
    ns = [2, 2000, 3, 24, 400, 1999] + [int(v) for v in np.round(10 ** rng.uniform(math.log10(2), 3.3, 44))]
    noises = [0.0, 2.0, 0.3, 1.0, 0.05, 1.2345678] + [float(v) for v in rng.uniform(0, 2, 44)]
    seeds = [0, 2 ** 31 - 1, attention.datasets.SEED_MAX, 1, 68545, 7] + [int(v) for v in
                                                                           rng.integers(0, 2 ** 31, 44)]
    cases = [{"fn": fns[i % len(fns)], "n": min(ns[i], 2000), "noise": noises[i], "seed": seeds[i]}
             for i in range(50)]
    return cases, [attention.make_dataset(c["fn"], c["n"], c["noise"], c["seed"]) for c in cases]


def check_generated_samples(js):
    """x equal bit for bit (only exact arithmetic), y within 1e-12, the description Python's."""
    cases, want = generator_cases()
    assert {c["fn"] for c in cases} == set(attention.FUNCTIONS) and {2, 2000} <= {c["n"] for c in cases}
    for c, g, d in zip(cases, answers(js, "datasets", cases), want):
        assert g["x"] == d.x.tolist(), c
        assert np.max(np.abs(np.asarray(g["y"]) - d.y)) <= 1e-12, c
        assert g["description"] == d.description
        assert (g["function"], g["noise"]) == (d.function, d.noise)


def check_random_stream(js):
    """The generator's uniform numbers are the core's bit for bit."""
    cases = [{"seed": s, "count": 500} for s in (0, 1, 2 ** 31 - 1, attention.datasets.SEED_MAX, 123456789)]
    for c, got in zip(cases, answers(js, "uniforms", cases)):
        assert got == attention.datasets._uniforms(c["seed"], c["count"]).tolist()


BAD_SETTINGS = [{"fn": "cosine", "n": 10, "noise": 0.3, "seed": 0}, {"fn": "wave", "n": 2001, "noise": 0.3, "seed": 0},
                {"fn": "wave", "n": 1, "noise": 0.3, "seed": 0}, {"fn": "wave", "n": 2.5, "noise": 0.3, "seed": 0},
                {"fn": "wave", "n": 10, "noise": -0.1, "seed": 0}, {"fn": "wave", "n": 10, "noise": 11, "seed": 0},
                {"fn": "wave", "n": 10, "noise": 0.3, "seed": -1},
                {"fn": "wave", "n": 10, "noise": 0.3, "seed": 2 ** 32}]


def check_generator_refusals(js):
    """The generator refuses what the core refuses, in its words."""
    for c, message in zip(BAD_SETTINGS, answers(js, "badDatasets", BAD_SETTINGS)):
        with pytest.raises(ValueError) as err:
            attention.make_dataset(c["fn"], c["n"], c["noise"], c["seed"])
        assert message == str(err.value), c


# ---- training -------------------------------------------------------------------------------------------------

@cache
def training_datasets():
    """30 datasets with the presets each is trained at: the shipped ones and generated ones up to n = 300 at
    every preset, generated ones from n = 400 to 2000 at two presets each (every preset among them)."""
    presets = list(BANDWIDTH_LR_PRESETS)
    out = [(name, attention.load_dataset(name), presets) for name in attention.list_datasets()]
    fns = sorted(attention.FUNCTIONS)
    small = [2, 3, 5, 8, 12, 16, 24, 30, 40, 50, 60, 90, 120, 160, 200, 250, 275, 300, 150, 80]
    large = [2000, 1500, 1000, 700, 500, 400]
    for i, n in enumerate(small + large):
        d = attention.make_dataset(fns[i % len(fns)], n, [0.0, 0.1, 0.3, 1.0, 2.0][i % 5], 1000 + i)
        k = i - len(small)
        out.append((d.name, d, presets if n <= 300 else [presets[k % 6], presets[(k + 3) % 6]]))
    return tuple(out)


def column_cases(datasets):
    """The learning engine's payloads for ``datasets`` ((name, dataset, presets) each), one per preset."""
    return [{"x": d.x.tolist(), "y": d.y.tolist(), "lr": lr, "h0": lv.H0, "steps": lv.STEPS,
             "presets": list(BANDWIDTH_LR_PRESETS), "name": name}
            for name, d, presets in datasets for lr in presets]


def columns_want(c):
    """What app/learning/view.py ships for one payload."""
    return lv.bandwidth_trajectory_for(np.asarray(c["x"]), np.asarray(c["y"]), c["lr"])


def assert_close(js_values, py_values, what, floor=0.0):
    """Within REL relative, or within ``floor`` (absolute) where the value is smaller than that."""
    a, b = np.asarray(js_values, dtype=float), np.asarray(py_values, dtype=float)
    assert a.shape == b.shape, what
    err = np.abs(a - b)
    assert np.all(err <= np.maximum(REL * np.abs(b), floor)), (what, np.max(err / np.maximum(np.abs(b), 1e-300)))


def assert_path(got, want, what, keys=("h", "loss", "grad"), xy=None, temperature=1.0):
    """Status and message equal; h and loss within REL; the slope within REL, or within 1e-12 of the loss once
    it is flatter than that (a converged path: the slope is rounding noise of about 1e-17 there).

    With ``xy`` (the data), the slope is the core's at the browser's own h at each step: on a path that swings
    (a large rate, a step function) h differs from the core's by up to REL after many steps, and the slope,
    steep in h there, by more; the h path is held to the core above, and the slope function here."""
    assert got["status"] == want["status"], what
    assert got["message"] == want["message"], what
    for key in keys:
        floor = 1e-12 * np.asarray(want["loss"]) if key == "grad" else 0.0
        target = want[key]
        if key == "grad" and xy is not None:
            target = [attention.loo_loss_and_grad(*xy, math.log(h), temperature=temperature)[1] for h in got["h"]]
        assert_close(got[key], target, (what, key), floor)


def assert_columns(got, want, what, xy=None):
    assert_path(got, want, what, xy=xy)


def check_columns(js, cases, want) -> set:
    """The learning engine's columns for ``cases`` against ``want`` (columns_want), the slope at the browser's
    own h; returns the statuses the paths ended with."""
    statuses = set()
    for c, got, w in zip(cases, answers(js, "columns", cases), want):
        assert_columns(got, w, (c["name"], c["lr"]), xy=(np.asarray(c["x"]), np.asarray(c["y"])))
        statuses.add(w["status"][-1])
    return statuses


@cache
def lowest_loo_cases():
    """The shipped datasets, generated ones up to n = 600 and one with repeated x, over the tour's grid
    (app/tour/model.py LOO_GRID); with the lowest leave-one-out error of attention.loo_error's full sums."""
    from attention.regression import LOO_GRID

    grid = np.geomspace(*LOO_GRID[:2], LOO_GRID[2])
    data = [attention.load_dataset(name) for name in attention.list_datasets()]
    data += [attention.make_dataset(fn, n, 0.3, 7 + n) for fn, n in
             (("step", 2), ("wave", 40), ("bump", 300), ("sine", 600))]
    cases = [{"x": d.x.tolist(), "y": d.y.tolist(), "grid": list(LOO_GRID)} for d in data]
    cases.append({"x": [0.0, 0.0, 1.0, 1.0, 2.5, 2.5, 4.0], "y": [1.0, 2.0, 0.5, 0.25, 3.0, 3.5, -1.0],
                  "grid": list(LOO_GRID)})
    return cases, [float(attention.loo_error(np.asarray(c["x"]), np.asarray(c["y"]), bandwidths=grid).min())
                   for c in cases]


def check_lowest_loo(js):
    """AttnTrain.lowestLoo (the tour's "near the best h", windowed sums) within 1e-9 relative of the core's."""
    cases, want = lowest_loo_cases()
    for c, got, w in zip(cases, answers(js, "lowestLoo", cases), want):
        assert math.isclose(got, w, rel_tol=1e-9), (len(c["x"]), got, w)


def check_trainers_exponential(js):
    """train.js computes exp(-s) over a window's scores (0 <= s <= WINDOW_SCORE) from a table and a polynomial:
    within four units in the last place of the exact one."""
    rng = np.random.default_rng(5)
    s = np.concatenate([rng.uniform(0, attention.learn.WINDOW_SCORE, 20000), np.arange(0, 2359) / 64,
                        np.arange(1, 2359) / 64 - 2.0 ** -40, [0.0, attention.learn.WINDOW_SCORE]])
    got = np.asarray(js("exp", s.tolist()))
    assert got.shape == s.shape
    exact = np.exp(-s.astype(np.longdouble))
    assert np.max(np.abs((got - exact) / exact)) <= 4e-16
