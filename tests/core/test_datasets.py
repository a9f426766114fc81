"""The shipped datasets, the seeded generator and the worked example's numbers."""

from __future__ import annotations

import ast
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attention
from attention import datasets


def _recipe_call(recipe: str):
    """Parse "attention.make_dataset('wave', n=24, noise=0.3, seed=68545)" without eval."""
    call = ast.parse(recipe, mode="eval").body
    assert isinstance(call, ast.Call)
    assert ast.unparse(call.func) == "attention.make_dataset"
    args = [ast.literal_eval(a) for a in call.args]
    kwargs = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
    return args, kwargs


def test_list_datasets_starts_with_default():
    names = attention.list_datasets()
    assert names[0] == "default"
    assert {"default", "bump", "step", "large"} <= set(names)
    assert names[1:] == sorted(names[1:])
    assert len(set(names)) == len(names)


def test_the_worked_example():
    d = attention.load_dataset()
    assert d.name == "default" and d.n == 24 and d.function == "wave" and d.noise == 0.3
    r = attention.readout(3.2, d.x, d.y, bandwidth=0.62, temperature=1.0, true_function=d.true_function)
    assert round(r.max_weight, 3) == 0.163
    assert round(r.entropy_bits, 2) == 3.35
    assert round(r.effective_points, 1) == 10.2
    assert round(r.prediction, 2) == -0.30
    assert round(r.true_value, 2) == -0.43
    assert r.true_value == pytest.approx(0.5 * np.sin(6.4) + 0.5 * np.cos(9.6), abs=1e-15)


@pytest.mark.parametrize("name", attention.list_datasets())
def test_every_shipped_dataset_regenerates_from_its_recipe(name):
    d = attention.load_dataset(name)
    raw = json.loads(datasets.data_path("datasets", f"{name}.json").read_text(encoding="utf-8"))
    assert raw["name"] == name == d.name
    assert len(raw["x"]) == len(raw["y"]) == raw["n"] == d.n
    assert d.x.dtype == d.y.dtype == np.float64
    assert np.all(np.diff(d.x) >= 0)
    assert d.description and isinstance(d.description, str)
    assert raw["function"] in attention.FUNCTIONS and d.true_function is attention.FUNCTIONS[raw["function"]][0]
    assert raw["formula"] == attention.FUNCTIONS[raw["function"]][1]
    args, kwargs = _recipe_call(raw["generated_by"])
    g = attention.make_dataset(*args, **kwargs)
    assert np.array_equal(g.x, d.x) and np.array_equal(g.y, d.y)
    assert g.function == d.function and g.noise == d.noise


def test_load_dataset_returns_fresh_equal_data():
    a, b = attention.load_dataset("bump"), attention.load_dataset("bump")
    assert np.array_equal(a.x, b.x) and np.array_equal(a.y, b.y)
    a.x[0] = 99.0                                  # changing one copy does not change the next load
    assert attention.load_dataset("bump").x[0] != 99.0


def test_unknown_dataset():
    with pytest.raises(ValueError, match=r"^dataset must be one of 'default', .*got 'nope'"):
        attention.load_dataset("nope")
    with pytest.raises(ValueError, match=r"^dataset must be one of"):
        attention.load_dataset("../datasets/default")


@settings(max_examples=25, deadline=None)
@given(function=st.sampled_from(sorted(attention.FUNCTIONS)), n=st.integers(2, 200),
       noise=st.floats(0.0, 2.0), seed=st.integers(0, 2 ** 31))
def test_make_dataset_is_deterministic_and_well_formed(function, n, noise, seed):
    a = attention.make_dataset(function, n=n, noise=noise, seed=seed)
    b = attention.make_dataset(function, n=n, noise=noise, seed=seed)
    assert np.array_equal(a.x, b.x) and np.array_equal(a.y, b.y)
    assert a.n == n and a.x.shape == a.y.shape == (n,)
    assert np.all(np.diff(a.x) >= 0) and np.all((a.x >= 0.0) & (a.x <= 6.0))
    assert np.allclose(a.x * 100, np.round(a.x * 100), atol=1e-6)     # two decimals
    assert np.allclose(a.y * 100, np.round(a.y * 100), atol=1e-6)
    assert a.true_function is attention.FUNCTIONS[function][0]
    if noise == 0.0:
        assert np.allclose(a.y, np.round(a.true_function(a.x), 2))


def test_make_dataset_seeds_differ_and_jitter_stays_in_its_cell():
    a = attention.make_dataset("wave", n=50, seed=1)
    b = attention.make_dataset("wave", n=50, seed=2)
    assert not np.array_equal(a.y, b.y)
    # x_i = lo + (i + 1/2) s + U(-0.4 s, 0.4 s): sample i stays in cell i, so sorting keeps the order
    s = 6.0 / 50
    cells = np.floor(a.x / s)
    assert np.array_equal(cells, np.arange(50))
    c = attention.make_dataset("sine", n=10, noise=0.0, x_range=(-1.0, 1.0))
    assert np.all((c.x >= -1.0) & (c.x <= 1.0))


def test_true_functions_by_hand():
    f = {k: v[0] for k, v in attention.FUNCTIONS.items()}
    assert f["wave"](0.0) == 0.5
    assert f["bump"](3.0) == 1.0
    assert f["sine"](0.0) == 0.0
    assert f["step"](np.array([1.0, 2.0, 3.9, 4.0])).tolist() == [-0.5, 0.5, 0.5, -0.5]


@pytest.mark.parametrize("kwargs, argument", [
    ({"n": 2001}, "n"), ({"n": 1}, "n"), ({"n": 2.5}, "n"), ({"n": True}, "n"), ({"n": "24"}, "n"),
    ({"noise": -0.1}, "noise"), ({"noise": float("nan")}, "noise"), ({"noise": float("inf")}, "noise"),
    ({"noise": 11.0}, "noise"),
    ({"function": "cosine"}, "function"), ({"function": None}, "function"),
    ({"seed": -1}, "seed"), ({"seed": 1.5}, "seed"),
    ({"x_range": (1.0, 1.0)}, "x_range"), ({"x_range": (2.0, 1.0)}, "x_range"),
    ({"x_range": (0.0, float("inf"))}, "x_range"),
])
def test_make_dataset_checks(kwargs, argument):
    with pytest.raises(ValueError, match=rf"^{argument} must be"):
        attention.make_dataset(**kwargs)


def test_make_dataset_largest_n():
    assert attention.make_dataset(n=datasets.MAX_GENERATED_N).n == 2000
