"""Benchmarks of the numpy core: the numbers behind a slider drag, and self-attention's O(n^2).

``run(quick)`` returns rows for ``python -m tests.bench`` (see __main__.py):

* the 400-point prediction curve over the 24 default samples (target <= 100 us);
* one query's weights and every readout, ``attention.readout`` (target <= 20 us);
* the same two computations as plain Python loops with ``math.exp``, and the speed-up;
* ``dot_product_attention`` at n = 1024, d = 64 against the one-line numpy
  expression softmax(Q K^T / sqrt(d)) V, measured interleaved (target: ratio <= 1.2);
* ``dot_product_attention`` for n = 64 ... 2048 (d = 64), to plot against n^2.

Timing: ``time.perf_counter_ns`` around batches of calls (a batch lasts about a
millisecond, so tiny calls are not lost in the clock's resolution), garbage
collection off while timing; the median and 95th percentile are per call,
across batches.  Run this file directly to print the rows.
"""

from __future__ import annotations

import gc
import math
import statistics
import time

import numpy as np

import attention

SECTION_REGRESSION = "regression (one slider move)"
SECTION_BASELINE = "regression, plain Python"
SECTION_SELF = "self-attention"
SECTION_SCALING = "self-attention scaling (d = 64)"

CURVE_QUERIES = 400
BANDWIDTH = 0.62
QUERY = 3.2
TARGET_CURVE_US = 100.0
TARGET_READOUT_US = 20.0
TARGET_SELF_RATIO = 1.2
SCALING_N = (64, 128, 256, 512, 1024, 2048)
D_MODEL = 64

MAX_BATCH = 100_000


# ---------------------------------------------------------------- timing

def _batch_size(fn, sample_ns: float) -> int:
    """Calls per timed sample so that one sample lasts about ``sample_ns``."""
    fn()  # warm-up (first-call allocations, caches)
    n = 1
    while True:
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        dt = time.perf_counter_ns() - t0
        if dt >= sample_ns / 4 or n >= MAX_BATCH:
            break
        n *= 4
    per_call = max(dt / n, 1.0)
    return int(min(MAX_BATCH, max(1, round(sample_ns / per_call))))


def measure(fns: dict, *, quick: bool, sample_us: float = 1000.0, budget_s: float = 1.5,
            min_samples: int = 15, max_samples: int = 300) -> dict:
    """Time each callable in ``fns``, interleaved sample by sample; per-call microseconds per sample.

    Returns {name: {"samples_us": [...], "batch": calls per sample}}.
    """
    batches = {k: _batch_size(f, sample_us * 1e3) for k, f in fns.items()}
    # one probe round to size the run to the time budget
    t0 = time.perf_counter()
    for k, f in fns.items():
        for _ in range(batches[k]):
            f()
    round_s = max(time.perf_counter() - t0, 1e-9)
    if quick:
        samples = 3
    else:
        samples = int(min(max_samples, max(min_samples, budget_s / round_s)))
    out = {k: [] for k in fns}
    order = list(fns)
    enabled = gc.isenabled()
    gc.disable()
    try:
        for s in range(samples):
            for k in (order if s % 2 == 0 else order[::-1]):  # alternate the order: no fixed first/second
                f, b = fns[k], batches[k]
                t0 = time.perf_counter_ns()
                for _ in range(b):
                    f()
                out[k].append((time.perf_counter_ns() - t0) / b / 1e3)
    finally:
        if enabled:
            gc.enable()
    return {k: {"samples_us": v, "batch": batches[k]} for k, v in out.items()}


def _p95(xs) -> float:
    s = sorted(xs)
    return s[max(0, math.ceil(0.95 * len(s)) - 1)]  # nearest rank


def row(section, name, timing, *, target_us=None, target=None, ratio=None, note=None, **extra) -> dict:
    xs = timing["samples_us"]
    r = {"section": section, "name": name, "median_us": statistics.median(xs), "p95_us": _p95(xs),
         "n_runs": len(xs), "calls_per_run": timing["batch"]}
    if target_us is not None:
        r["target"] = f"<= {target_us:g} us"
        r["meets_target"] = r["median_us"] <= target_us
    elif target is not None:
        r["target"] = target
    if ratio is not None:
        r["ratio"] = ratio
    if note:
        r["note"] = note
    r.update(extra)
    return r


# ---------------------------------------------------------------- plain Python baselines

def python_curve(queries, keys, values, h):
    """The prediction curve with lists and math.exp: sum_i exp(s_i) v_i / sum_i exp(s_i)."""
    c = -0.5 / (h * h)
    out = []
    for q in queries:
        d2 = [(q - k) * (q - k) for k in keys]
        near = min(d2)
        num = den = 0.0
        for d, v in zip(d2, values):
            e = math.exp((d - near) * c)
            num += e * v
            den += e
        out.append(num / den)
    return out


def python_readout(q, keys, values, h, f):
    """Weights and every readout of one query, in plain Python."""
    c = -0.5 / (h * h)
    d2 = [(q - k) * (q - k) for k in keys]
    near = min(d2)
    e = [math.exp((d - near) * c) for d in d2]
    z = sum(e)
    w = [x / z for x in e]
    ent = -sum(x * math.log2(x) for x in w if x > 0)
    top = [v for d, v in zip(d2, values) if d == near]
    return {"max_weight": max(w), "entropy_bits": ent, "effective_points": 2.0 ** ent,
            "prediction": sum(a * v for a, v in zip(w, values)), "true_value": float(f(q)),
            "nearest_neighbor_prediction": sum(top) / len(top), "global_mean": sum(values) / len(values)}


def plain_attention(Q, K, V):
    """softmax(Q K^T / sqrt(d)) V as one would write it inline."""
    d = Q.shape[-1]
    s = Q @ K.T / np.sqrt(d)
    e = np.exp(s - s.max(1, keepdims=True))
    return (e / e.sum(1, keepdims=True)) @ V


# ---------------------------------------------------------------- the benchmarks

def run(quick: bool) -> list[dict]:
    rows = []
    d = attention.load_dataset()
    xs = np.linspace(float(d.x.min()) - 0.5, float(d.x.max()) + 0.5, CURVE_QUERIES)
    xs_list, keys, values = xs.tolist(), d.x.tolist(), d.y.tolist()

    def curve():
        return attention.predict(xs, d.x, d.y, bandwidth=BANDWIDTH)

    def one_readout():
        return attention.readout(QUERY, d.x, d.y, bandwidth=BANDWIDTH, true_function=d.true_function)

    def one_weights():
        return attention.weights(QUERY, d.x, bandwidth=BANDWIDTH)

    def py_curve():
        return python_curve(xs_list, keys, values, BANDWIDTH)

    def py_readout():
        return python_readout(QUERY, keys, values, BANDWIDTH, d.true_function)

    # the baselines compute the same numbers (else the comparison means nothing)
    assert np.allclose(py_curve(), curve(), rtol=0, atol=1e-12)
    ref, got = py_readout(), one_readout().as_dict()
    assert all(abs(ref[k] - got[k]) <= 1e-12 for k in ref), (ref, got)

    # each measured on its own (only the self-attention pair below is interleaved)
    t = {k: measure({k: f}, quick=quick)[k] for k, f in (("curve", curve), ("readout", one_readout),
                                                         ("weights", one_weights))}
    tp = {k: measure({k: f}, quick=quick, budget_s=1.0)[k] for k, f in (("py_curve", py_curve),
                                                                         ("py_readout", py_readout))}
    rows.append(row(SECTION_REGRESSION, f"prediction curve: {CURVE_QUERIES} queries x {d.n} keys (predict)",
                    t["curve"], target_us=TARGET_CURVE_US))
    rows.append(row(SECTION_REGRESSION, f"one query: weights and every readout (readout), n = {d.n}",
                    t["readout"], target_us=TARGET_READOUT_US,
                    note="max weight, entropy, effective points, prediction, f(q), 1-NN and mean limits"))
    rows.append(row(SECTION_REGRESSION, f"one query: weights only (weights), n = {d.n}", t["weights"]))
    for key, base, label in (("py_curve", "curve", f"prediction curve, {CURVE_QUERIES} queries"),
                             ("py_readout", "readout", "one query, every readout")):
        speedup = statistics.median(tp[key]["samples_us"]) / statistics.median(t[base]["samples_us"])
        note = (f"the numpy core is {speedup:.1f}x faster" if speedup >= 1 else
                f"plain Python is {1 / speedup:.1f}x faster: at n = {d.n} numpy's per-call overhead dominates")
        rows.append(row(SECTION_BASELINE, f"{label}: Python loops + math.exp", tp[key], ratio=speedup,
                        note=note + " (ratio = Python median / numpy median)"))

    # self-attention against the inline numpy expression, interleaved in the same run
    rng = np.random.default_rng(0)
    n = 1024
    Q, K, V = (rng.standard_normal((n, D_MODEL)) for _ in range(3))
    assert np.allclose(attention.dot_product_attention(Q, K, V)[0], plain_attention(Q, K, V), rtol=0, atol=1e-12)
    ts = measure({"core": lambda: attention.dot_product_attention(Q, K, V),
                  "plain": lambda: plain_attention(Q, K, V)},
                 quick=quick, sample_us=5000.0, budget_s=4.0, min_samples=15, max_samples=100)
    ratio = statistics.median(ts["core"]["samples_us"]) / statistics.median(ts["plain"]["samples_us"])
    rows.append(row(SECTION_SELF, f"dot_product_attention, n = {n}, d = {D_MODEL}", ts["core"],
                    target=f"ratio <= {TARGET_SELF_RATIO:g}", ratio=ratio,
                    note=f"{ratio:.2f} x the inline expression (checks inputs, also returns the weights)")
                | {"meets_target": ratio <= TARGET_SELF_RATIO})
    rows.append(row(SECTION_SELF, f"inline softmax(Q K^T / sqrt(d)) V, n = {n}, d = {D_MODEL}", ts["plain"],
                    note="measured interleaved with the row above"))

    # O(n^2): one row per sequence length
    for m in SCALING_N:
        Qm, Km, Vm = (rng.standard_normal((m, D_MODEL)) for _ in range(3))
        tm = measure({"core": lambda: attention.dot_product_attention(Qm, Km, Vm)}, quick=quick,
                     sample_us=2000.0, budget_s=1.0, min_samples=10, max_samples=200)
        med = statistics.median(tm["core"]["samples_us"])
        per_score = med * 1e3 / (m * m)
        rows.append(row(SECTION_SCALING, f"dot_product_attention, n = {m}", tm["core"], n=m, d=D_MODEL,
                        scores=m * m, ns_per_score=per_score,
                        note=f"{per_score:.2f} ns per score (n^2 = {m * m})"))
    return rows


if __name__ == "__main__":
    import sys

    for r in run(quick="--quick" in sys.argv):
        print(f"{r['section']:<32} {r['name']:<62} median {r['median_us']:10.1f} us  p95 {r['p95_us']:10.1f} us"
              f"  {r.get('target', '')} {r.get('note', '')}")
