"""Benchmarks for attention.learn: one gradient step on the bandwidth and on a 2-D metric.

``run(quick)`` returns one row per measurement (see tests/bench/__main__.py):
section, name, median_us, p95_us, n_runs and, where there is a budget,
target (microseconds), meets_target (median <= target) and ratio (median / target).
Run this file directly to print the rows.
"""

from __future__ import annotations

import math
import time

import numpy as np

import attention
from attention import learn

SECTION = "learn"
TARGET_STEP_1D_US = 200.0      # one bandwidth step, default dataset (n = 24)
TARGET_STEP_2D_US = 2000.0     # one metric step, n = 200


def _time(fn, repeats: int, warmup: int = 5) -> np.ndarray:
    """Wall time of each of ``repeats`` calls, in microseconds."""
    for _ in range(warmup):
        fn()
    out = np.empty(repeats)
    for k in range(repeats):
        t0 = time.perf_counter_ns()
        fn()
        out[k] = (time.perf_counter_ns() - t0) / 1e3
    return out


def _row(name, us, *, target=None, note="", per=1):
    us = us / per
    row = {"section": SECTION, "name": name, "median_us": float(np.median(us)),
           "p95_us": float(np.percentile(us, 95)), "n_runs": int(us.shape[0])}
    if target is not None:
        row.update(target=target, meets_target=row["median_us"] <= target, ratio=row["median_us"] / target)
    if note:
        row["note"] = note
    return row


def run(quick: bool) -> list[dict]:
    reps_1d, reps_2d, reps_train = (300, 100, 5) if quick else (5000, 1000, 30)
    rows = []

    d = attention.load_dataset()
    u = math.log(0.62)
    lr = learn.DEFAULT_BANDWIDTH_LEARNING_RATE
    rows.append(_row(f"bandwidth_step, 1-D, n = {d.n}",
                     _time(lambda: learn.bandwidth_step(d.x, d.y, u, lr), reps_1d),
                     target=TARGET_STEP_1D_US,
                     note="loss + gradient at log h, then the loss at the proposed step (divergence check)"))
    rows.append(_row(f"loo_loss_and_grad, 1-D, n = {d.n}",
                     _time(lambda: learn.loo_loss_and_grad(d.x, d.y, u), reps_1d)))
    steps = learn.DEFAULT_BANDWIDTH_STEPS
    rows.append(_row(f"train_bandwidth per step ({steps} steps), n = {d.n}",
                     _time(lambda: learn.train_bandwidth(d.x, d.y, h0=0.15, learning_rate=lr, steps=steps),
                           reps_train, warmup=1), per=steps, note="median of whole runs divided by the steps"))

    m = learn.make_metric_dataset(n=200, noise=0.1, seed=0)
    W = np.eye(2)
    lr2 = learn.DEFAULT_METRIC_LEARNING_RATE
    rows.append(_row("metric_step, 2-D, n = 200",
                     _time(lambda: learn.metric_step(m.X, m.y, W, lr2), reps_2d),
                     target=TARGET_STEP_2D_US,
                     note="loss + gradient at W, then the loss at the proposed step (divergence check)"))
    rows.append(_row("metric_loss_and_grad, 2-D, n = 200",
                     _time(lambda: learn.metric_loss_and_grad(m.X, m.y, W), reps_2d)))
    steps2 = 50
    rows.append(_row(f"train_metric per step ({steps2} steps), n = 200",
                     _time(lambda: learn.train_metric(m.X, m.y, W0=W, learning_rate=lr2, steps=steps2),
                           reps_train, warmup=1), per=steps2, note="median of whole runs divided by the steps"))
    mm = learn.load_metric_dataset()
    rows.append(_row(f"metric_step, 2-D, n = {mm.n} (metric2d.json)",
                     _time(lambda: learn.metric_step(mm.X, mm.y, W, lr2), reps_2d)))
    return rows


if __name__ == "__main__":
    import sys

    for r in run(quick="--quick" in sys.argv):
        extra = f"  target {r['target']:.0f} us, {'ok' if r['meets_target'] else 'MISSED'}" if "target" in r else ""
        print(f"{r['name']:<50} median {r['median_us']:9.1f} us  p95 {r['p95_us']:9.1f} us  "
              f"(n={r['n_runs']}){extra}")
