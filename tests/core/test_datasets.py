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


def _numpy_rng_recipe(function, n=24, noise=0.3, seed=0):
    """The generator the shipped files were drawn with (attention.make_dataset before its own PRNG):
    x_i = lo + (i + 1/2) s + U(-0.4 s, 0.4 s) and y = f(x) + N(0, noise^2) from numpy's default_rng(seed),
    both rounded to 2 decimals.  The shipped files keep these samples; the worked example's numbers depend
    on them."""
    f = attention.FUNCTIONS[function][0]
    rng = np.random.default_rng(seed)
    s = 6.0 / n
    x = np.sort(np.round((np.arange(n) + 0.5) * s + rng.uniform(-0.4 * s, 0.4 * s, n), 2))
    return x, np.round(f(x) + rng.normal(0.0, noise, n), 2)


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
    x, y = _numpy_rng_recipe(*args, **kwargs)
    assert np.array_equal(x, d.x) and np.array_equal(y, d.y)
    g = attention.make_dataset(*args, **kwargs)      # today's generator: same design, its own random numbers
    assert g.function == d.function and g.noise == d.noise and g.n == d.n
    assert not np.array_equal(g.y, d.y)


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
       noise=st.floats(0.0, 2.0), seed=st.integers(0, datasets.SEED_MAX))
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
    ({"seed": -1}, "seed"), ({"seed": 1.5}, "seed"), ({"seed": 2 ** 32}, "seed"), ({"seed": True}, "seed"),
    ({"x_range": (1.0, 1.0)}, "x_range"), ({"x_range": (2.0, 1.0)}, "x_range"),
    ({"x_range": (0.0, float("inf"))}, "x_range"),
])
def test_make_dataset_checks(kwargs, argument):
    with pytest.raises(ValueError, match=rf"^{argument} must be"):
        attention.make_dataset(**kwargs)


def test_make_dataset_largest_n():
    assert attention.make_dataset(n=datasets.MAX_GENERATED_N).n == 2000


# ---------------------------------------------------------------------------
# the generator's random numbers (the recipe in make_dataset's docstring)
# ---------------------------------------------------------------------------

def test_xoshiro128ss_gives_the_reference_outputs():
    # the first outputs of the reference C code (Blackman and Vigna, prng.di.unimi.it) from the state {1, 2, 3, 4}
    assert datasets._xoshiro128ss((1, 2, 3, 4), 10) == [11520, 0, 5927040, 70819200, 2031721883, 1637235492,
                                                         1287239034, 3734860849, 3729100597, 4258142804]


def test_splitmix32_is_murmur3s_finaliser_on_a_weyl_sequence():
    def fmix32(h):   # murmur3's finaliser, written out independently
        h ^= h >> 16
        h = (h * 0x85EBCA6B) % 2 ** 32
        h ^= h >> 13
        h = (h * 0xC2B2AE35) % 2 ** 32
        return h ^ (h >> 16)

    state = 2 ** 32 - 5
    for k in range(1, 6):
        state, z = datasets._splitmix32(state)
        assert state == (2 ** 32 - 5 + k * 0x9E3779B9) % 2 ** 32 and z == fmix32(state)
    assert fmix32(0) == 0 and datasets._splitmix32(2 ** 32 - 0x9E3779B9)[1] == 0   # the one state that gives 0


def test_uniforms_use_53_bits_and_look_uniform():
    u = datasets._uniforms(0, 200_000)
    assert u.min() >= 0.0 and u.max() < 1.0
    assert np.array_equal(u * 2.0 ** 53, np.floor(u * 2.0 ** 53))           # multiples of 2^-53
    assert np.count_nonzero((u * 2.0 ** 53) % 2) > 90_000                    # ... and the lowest bit is used
    assert abs(u.mean() - 0.5) < 0.003 and abs(u.var() - 1 / 12) < 0.001
    counts = np.histogram(u, bins=20, range=(0, 1))[0]
    assert counts.min() > 0.95 * 10_000 and counts.max() < 1.05 * 10_000
    assert abs(np.corrcoef(u[:-1], u[1:])[0, 1]) < 0.01                       # successive draws unrelated
    other = datasets._uniforms(1, 1000)
    assert not np.array_equal(other, u[:1000])


def test_noise_is_gaussian_with_the_asked_spread():
    d = attention.make_dataset("sine", n=2000, noise=1.0, seed=5)
    e = d.y - d.true_function(d.x)
    assert abs(e.mean()) < 0.1 and abs(e.std() - 1.0) < 0.05
    assert 0.66 < np.mean(np.abs(e) < 1.0) < 0.70                            # about 68 % within one sigma
    assert 0.93 < np.mean(np.abs(e) < 2.0) < 0.97


def test_rounding_is_numpys_round_half_to_even():
    """The docstring's round(v, 2) = rint(100 v) / 100 is what np.round does (the JS twin relies on it)."""
    rng = np.random.default_rng(0)
    v = np.concatenate([rng.uniform(-10, 10, 100_000), np.arange(-400, 400) / 200 + 0.0025, [0.125, -0.125, 2.675]])
    np.testing.assert_array_equal(np.round(v, 2), np.rint(v * 100) / 100)


def test_the_largest_seed():
    d = attention.make_dataset("wave", n=30, seed=datasets.SEED_MAX)
    assert d.n == 30 and d.description.endswith(f"(seed {datasets.SEED_MAX})")
    assert not np.array_equal(d.y, attention.make_dataset("wave", n=30, seed=0).y)


def test_hypothesis_draws_the_same_examples_on_every_run():
    """tests/conftest.py loads a profile every test's @settings inherits: derandomized, with no deadline."""
    assert settings().derandomize is True and settings().deadline is None
    assert settings(max_examples=3).derandomize is True
