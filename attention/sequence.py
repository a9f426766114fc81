"""Sequential versus parallel: a recurrent network against self-attention.

A recurrent network (RNN) reads a sequence one position at a time,

    h_t = tanh(W h_{t-1} + U x_t),    t = 1 ... n,   h_0 given (zeros by default),

so carrying the first word's information to the last takes n steps that must
run one after another: step t needs h_{t-1}.  Self-attention computes all
n x n scores q_i . k_j in one matrix product, so no step waits for another:
one sequential step, at the price of n^2 scores (and the memory to hold them).

``dependency_edges`` lists who feeds whom in the two models (a chain against
all pairs) and ``time_rnn_and_attention`` measures both in numpy.  On one CPU
core, total time follows total arithmetic; the difference that matters on
parallel hardware is the sequential step count, which the timing reports too.

This module uses numpy and the standard library only.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from . import _checks
from .selfattention import dot_product_attention

TIMING_N = (64, 128, 256, 512, 1024, 2048)
TIMING_D = 64
TIMING_BUDGET_S = 0.5


def _matrix(name, value, rows=None, cols=None):
    a = _checks.finite_array(name, value, min_ndim=2, max_ndim=2)
    if 0 in a.shape:
        raise ValueError(f"{name} must not be empty, got shape {a.shape}")
    if rows is not None and a.shape[0] != rows:
        raise ValueError(f"{name} must have {rows} rows, got shape {a.shape}")
    if cols is not None and a.shape[1] != cols:
        raise ValueError(f"{name} must have {cols} columns, got shape {a.shape}")
    return a


def rnn_forward(X, W, U, h0=None) -> np.ndarray:
    """Run a plain (Elman) RNN over the sequence X, one step per position.

        h_t = tanh(W h_{t-1} + U x_t),   t = 1 ... n,   h_0 = h0 (zeros if omitted)

    Parameters
    ----------
    X : array-like of shape (n, d_in)
        One input vector per position (row t - 1 is x_t).
    W : array-like of shape (d_h, d_h)
        The recurrent matrix, state to state.
    U : array-like of shape (d_h, d_in)
        The input matrix.
    h0 : array-like of shape (d_h,), optional
        The state before the first step (zeros if omitted).

    Returns
    -------
    H : ndarray of shape (n, d_h)
        Row t - 1 is h_t.  Each row needs the one before it: n sequential steps.
    """
    Xa = _matrix("X", X)
    Wa = _matrix("W", W)
    if Wa.shape[0] != Wa.shape[1]:
        raise ValueError(f"W must be square (d_h, d_h), got shape {Wa.shape}")
    d_h = Wa.shape[0]
    Ua = _matrix("U", U, rows=d_h, cols=Xa.shape[1])
    if h0 is None:
        h = np.zeros(d_h)
    else:
        h = _checks.finite_array("h0", h0, min_ndim=1, max_ndim=1)
        if h.shape != (d_h,):
            raise ValueError(f"h0 must have shape ({d_h},) to match W, got shape {h.shape}")
    inputs = Xa @ Ua.T                      # U x_t for every t at once: this part does not wait
    H = np.empty((Xa.shape[0], d_h))
    for t in range(Xa.shape[0]):            # a loop over positions: step t needs h_{t-1}
        h = np.tanh(Wa @ h + inputs[t])
        H[t] = h
    return H


def _count(name, n, lo=1):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < lo:
        raise ValueError(f"{name} must be a whole number >= {lo}, got {n!r}")
    return int(n)


def dependency_edges(n) -> dict:
    """Who feeds whom, for n positions numbered 0 ... n - 1.

    * ``rnn``: the chain (i, i + 1) for i = 0 ... n - 2; the longest path is n - 1 edges.
    * ``attention``: every unordered pair (i, j), i < j, in row order: n (n - 1) / 2 pairs, each
      one edge long (every position also reads itself, not drawn).

    Parameters
    ----------
    n : int >= 1
        Number of positions.

    Returns
    -------
    edges : dict
        {"rnn": [(i, i + 1), ...], "attention": [(i, j), ...]} as lists of int pairs.
    """
    n = _count("n", n)
    return {"rnn": [(i, i + 1) for i in range(n - 1)],
            "attention": [(i, j) for i in range(n) for j in range(i + 1, n)]}


def sequential_steps(n) -> dict:
    """Steps that must run one after another, and scores, for a sequence of n positions.

    RNN: n steps (h_t waits for h_{t-1}), no scores.  Attention: 1 step (one matrix
    product, all positions at once) and n^2 scores.

    Parameters
    ----------
    n : int >= 1
        Number of positions.

    Returns
    -------
    counts : dict
        {"rnn": n, "attention": 1, "scores": n^2}.
    """
    n = _count("n", n)
    return {"rnn": n, "attention": 1, "scores": n * n}


@dataclass(frozen=True)
class SequenceTimings:
    """Measured seconds per call for each n (fastest run), with the step and score counts.

    ``rnn_steps`` is n, ``attention_steps`` is 1 and ``scores`` is n^2, for each measured n.
    ``complete`` is False when the time budget stopped the measurement before the last n.
    """

    n: tuple[int, ...]
    rnn_s: tuple[float, ...]
    attention_s: tuple[float, ...]
    rnn_steps: tuple[int, ...]
    attention_steps: tuple[int, ...]
    scores: tuple[int, ...]
    d: int
    budget_s: float
    spent_s: float
    complete: bool

    def as_dict(self) -> dict:
        return {"n": list(self.n), "rnn_s": list(self.rnn_s), "attention_s": list(self.attention_s),
                "rnn_steps": list(self.rnn_steps), "attention_steps": list(self.attention_steps),
                "scores": list(self.scores), "d": self.d, "budget_s": self.budget_s, "spent_s": self.spent_s,
                "complete": self.complete}


def _best_time(fn, repeats, deadline):
    """Fastest of up to ``repeats`` runs of fn(); at least one run, no new run after ``deadline``."""
    best = math.inf
    for k in range(repeats):
        if k and time.perf_counter() > deadline:
            break
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _increasing(name, ns) -> list[int]:
    try:
        ns = [int(v) if not isinstance(v, bool) and float(v) == int(v) else None for v in ns]
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a sequence of whole numbers >= 1, got {ns!r}") from None
    if not ns or any(v is None or v < 1 for v in ns) or ns != sorted(set(ns)):
        raise ValueError(f"{name} must be increasing whole numbers >= 1, got {ns!r}")
    return ns


def _timed_rows(ns, rng, W, U, repeats, deadline) -> list[tuple[int, float, float]]:
    """(n, RNN seconds, attention seconds) for each n of ``ns`` measured before ``deadline`` (see
    ``time_rnn_and_attention``): X (n, d) is drawn from ``rng``; the next n is skipped when the RNN's
    last time x 2 plus attention's x 4 would pass the deadline."""
    d = W.shape[0]
    rows = []
    for n in ns:
        if rows:
            estimate = 2 * rows[-1][1] + 4 * rows[-1][2]
            if time.perf_counter() + estimate > deadline:
                break
        X = rng.standard_normal((n, d))
        t_rnn = _best_time(lambda: rnn_forward(X, W, U), repeats, deadline)
        t_att = _best_time(lambda: dot_product_attention(X, X, X), repeats, deadline)
        rows.append((n, t_rnn, t_att))
    return rows


def time_rnn_and_attention(ns=TIMING_N, *, d=TIMING_D, budget_s=TIMING_BUDGET_S, repeats=5,
                           seed=0) -> SequenceTimings:
    """Time ``rnn_forward`` (a numpy loop, n steps) against ``dot_product_attention`` (one product).

    For each n in increasing order: random inputs X (n, d), an RNN with W, U (d, d)
    scaled by 1 / sqrt(d), and attention with Q = K = V = X.  Each is run up to
    ``repeats`` times and the fastest is kept.  The budget: the next n is skipped
    when the time already spent plus an estimate of the next n (the RNN's last time
    x 2, attention's x 4) would pass ``budget_s``, and no repeat starts after it; the
    smallest n is always measured, so a slow machine can overrun the budget by the runs
    already started.

    Parameters
    ----------
    ns : sequence of int, default (64, 128, 256, 512, 1024, 2048)
        Increasing sequence lengths.
    d : int >= 1, default 64
        Width of the inputs and of the RNN's state.
    budget_s : float > 0, default 0.5
        Seconds the measurement aims to stay within.
    repeats : int >= 1, default 5
        Runs of each computation per n; the fastest counts.
    seed : int >= 0, default 0
        Seed of numpy's default_rng for W, U and X.

    Returns
    -------
    timings : SequenceTimings
        Seconds per call, the step counts n (RNN) and 1 (attention) and the n^2
        scores for every measured n.
    """
    ns = _increasing("ns", ns)
    d = _count("d", d)
    budget = _checks.positive("budget_s", budget_s)
    repeats = _count("repeats", repeats)
    seed = _count("seed", seed, lo=0)
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((d, d)) / math.sqrt(d)
    U = rng.standard_normal((d, d)) / math.sqrt(d)
    start = time.perf_counter()
    rows = _timed_rows(ns, rng, W, U, repeats, start + budget)
    got = [r[0] for r in rows]
    return SequenceTimings(n=tuple(got), rnn_s=tuple(r[1] for r in rows), attention_s=tuple(r[2] for r in rows),
                           rnn_steps=tuple(got), attention_steps=tuple(1 for _ in got),
                           scores=tuple(n * n for n in got), d=d, budget_s=budget,
                           spent_s=time.perf_counter() - start, complete=len(got) == len(ns))


__all__ = ["rnn_forward", "dependency_edges", "sequential_steps", "time_rnn_and_attention", "SequenceTimings",
           "TIMING_N"]
