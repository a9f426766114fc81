"""Every sentence the regression section says about its state is true in that state (issue 23, item 4).

Over a grid of states (kernel x key-norm tilt x h x T x query x dataset), each limit notice and each tour
step's "found" sentence is read claim by claim, and every claim is checked against the numpy core's numbers
for that state: which sample wins, whether it is the nearest, whether the prediction curve has steps or is
flat, whether the weights are uniform.  The notices' browser twin is held to these texts character for
character by tests/browser/test_parity.py.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np
import pytest

import attention
from app.regression import text
from app.regression.view import GRID_N
from app.state import X_RANGE
from app.tour import default_tour
from app.tour.model import holds, readouts

GRID = np.linspace(*X_RANGE, GRID_N)
KERNELS = [("gaussian", 0.0), ("dot", 0.0), ("dot", 0.05), ("dot", 0.1), ("dot", 0.25), ("dot", -0.15)]
BANDWIDTHS = [0.01, 0.05, 0.2, 0.62, 3.0, 30.0]
TEMPERATURES = [0.3, 1.0, 4.0]
QUERIES = [-0.3, 1.0, 3.2, 5.9, 6.3]
DATASETS = attention.list_datasets()


class State:
    """The core's numbers for one state, and the facts the sentences may claim."""

    def __init__(self, dataset, kernel, tilt, h, t, q):
        d = attention.load_dataset(dataset)
        self.dataset, self.kernel, self.tilt, self.h, self.t, self.q = dataset, kernel, tilt, h, t, q
        self.x, self.y = d.x, d.y
        self.scale = attention.key_norm_tilt(d.x, tilt) if kernel == "dot" and tilt else None
        kw = dict(kernel=kernel, bandwidth=h, temperature=t, key_scale=self.scale)
        self.r = attention.readout(q, d.x, d.y, **kw)
        self.w = np.asarray(attention.weights(q, d.x, **kw)).reshape(-1)
        self.W = attention.weights(GRID, d.x, **kw)
        self.pred = attention.predict(GRID, d.x, d.y, **kw)
        self.heaviest = text.heaviest_sample(q, d.x, d.y, self.w)
        self.curve = text.curve_facts(GRID, d.x, self.W)
        self.top = int(np.argmax(self.w))
        self.winners = np.argmax(self.W, axis=1)
        self.span = float(self.y.max() - self.y.min())

    def values(self) -> dict:
        return {"dataset": self.dataset, "kernel": self.kernel, "key_norm": self.tilt, "bandwidth": self.h,
                "temperature": self.t, "query": self.q}

    # -- facts ---------------------------------------------------------------------------------------------
    def top_is_nearest(self) -> bool:
        return abs(self.x[self.top] - self.q) <= np.abs(self.x - self.q).min() + 1e-9

    def one_winner_everywhere(self) -> bool:
        return len(set(self.winners.tolist())) == 1 and int(self.winners[0]) == self.top

    def nearest_everywhere(self) -> bool:
        dist = np.abs(GRID[:, None] - self.x[None, :])
        return bool(np.all(np.abs(GRID - self.x[self.winners]) <= dist.min(axis=1) + 1e-9))

    def steps(self) -> bool:
        """The curve is made of flat steps: one sample holds 0.9 of the weight over 80 % of it, several win."""
        sharp = np.mean(self.W.max(axis=1) >= 0.9)
        return sharp >= 0.8 and len(set(self.winners.tolist())) >= 2

    def flat_at(self, value) -> bool:
        """The curve lies within 5 % of the data's spread of ``value`` over 80 % of its length."""
        return np.mean(np.abs(self.pred - value) <= 0.05 * self.span) >= 0.8

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


def states():
    for dataset, (kernel, tilt), h, t, q in itertools.product(DATASETS, KERNELS, BANDWIDTHS, TEMPERATURES, QUERIES):
        yield dataset, kernel, tilt, h, t, q


@lru_cache(maxsize=None)
def state(*args) -> State:
    return State(*args)


def check_notice(s: State, note: str):
    """Every claim a limit notice can make, against the numbers."""
    mw = f"Max weight {s.r.max_weight:.3f}"
    assert note.startswith(mw) or "effective points: the weights are nearly uniform" in note, note
    if note.startswith(mw):
        assert s.r.max_weight >= text.ONE_SAMPLE_WEIGHT
    if "copies its nearest sample" in note:
        assert s.top_is_nearest(), note
    if "the prediction curve turns into steps" in note:
        assert s.nearest_everywhere() and s.steps(), note
    if "wins wherever the query is" in note:
        assert s.one_winner_everywhere(), note
        assert s.top_key_longer_than_nearer() or s.top_is_nearest(), note
    if "The prediction curve is flat at its value" in note:
        assert s.flat_at(s.y[s.top]), note
    if "which is not the nearest one" in note:
        assert not s.top_is_nearest() and s.top_key_longer_than_nearer(), note
    if "here it is also the nearest sample" in note:
        assert s.top_is_nearest(), note
    for side in ("right", "left"):
        if f"a longer key further {side} wins over nearer ones" in note:
            assert s.a_longer_key_wins_elsewhere(side), note
    if "The prediction is close to that sample's value" in note:
        assert abs(s.r.prediction - s.y[s.top]) <= 0.05 * s.span + 1e-12, note
    if "the weights are nearly uniform" in note:
        assert s.r.effective_points >= text.NEAR_UNIFORM_FRACTION * s.r.n
        assert abs(s.r.prediction - s.r.global_mean) <= 0.25 * s.span, note


@pytest.mark.parametrize("dataset", DATASETS)
def test_every_limit_notice_is_true_in_its_state(dataset):
    said = 0
    for args in states():
        if args[0] != dataset:
            continue
        s = state(*args)
        for note in text.limit_notices(s.r, s.heaviest, s.curve, s.tilt):
            check_notice(s, note)
            said += 1
    assert said > 50   # the grid reaches the limits (not a test that passes by saying nothing)


def test_the_tilt_notice_of_the_issue_no_longer_claims_steps():
    """?kernel=dot&key_norm=(the old 2, now the top of the range), query at 6.3: one long key wins everywhere,
    so the curve is flat at its value, whatever sample is nearest the query."""
    s = State("default", "dot", 0.25, 0.62, 1.0, 6.3)
    (note,) = text.limit_notices(s.r, s.heaviest, s.curve, s.tilt)
    assert "turns into steps" not in note and "wins wherever the query is" in note
    assert "flat at its value" in note and s.one_winner_everywhere()


# What each tour step's "found" sentence claims, as checks on the state it is said in.
FOUND_CLAIMS = {
    "query-listens": lambda s: s.nearest_everywhere(),
    "shrink-h": lambda s: s.top_is_nearest() and s.nearest_everywhere() and s.steps(),
    "widen-h": lambda s: np.ptp(s.pred) <= 0.25 * s.span,
    "long-keys-win": lambda s: s.one_winner_everywhere() and s.flat_at(s.y[s.top]),
}


@pytest.mark.parametrize("step_id", sorted(FOUND_CLAIMS))
def test_a_tour_step_is_recognised_only_where_its_found_sentence_is_true(step_id):
    step = next(st for st in default_tour().steps if st.id == step_id)
    recognised = 0
    for args in states():
        s = state(*args)
        if holds(step.when, readouts(s.values(), needs={name for name, _, _ in step.when})):
            recognised += 1
            assert FOUND_CLAIMS[step_id](s), (step_id, args, step.found)
    assert recognised > 0
