"""The regression section's readouts for the tour's conditions, computed with the numpy core.

The section's contract (app/regression/__init__.py) hands ``regression_readouts`` to the composition, which
hands it to the tour; the browser computes the same numbers with attention/mirror.js (app/tour/tour.js).
"""

from __future__ import annotations

import math

import numpy as np

import attention
from attention.datasets import X_RANGE
from attention.regression import GRID_N, LOO_GRID

from app.contract import Readout

from .text import curve_facts

# The names this section's readouts publish, which a tour step's "when" may compare (the README lists them).
CONDITIONS = {
    "query": Readout("number", "the query position x", "x, on the data's axis"),
    "bandwidth": Readout("number", "the bandwidth h", "x units"),
    "temperature": Readout("number", "the temperature T", "none: a factor"),
    "h_eff": Readout("number", "the bandwidth the weights act as, h·√T", "x units"),
    "key_norm": Readout("number", "the key-norm tilt (dot product only)", "none: a tilt"),
    "kernel": Readout("choice", "the similarity: gaussian or dot", "a name"),
    "dataset": Readout("choice", "the dataset's name", "a name"),
    "n": Readout("number", "the number of samples", "samples"),
    "max_weight": Readout("number", "the largest weight", "share of the weight, 0 to 1"),
    "entropy_bits": Readout("number", "the entropy of the weights", "bits"),
    "effective_points": Readout("number", "effective points, 2 to the power of the entropy", "samples"),
    "effective_share": Readout("number",
                               "effective points divided by the number of samples (1 = uniform weights)", "0 to 1"),
    "prediction": Readout("number", "the prediction at the query", "y, on the data's axis"),
    "global_mean": Readout("number", "the mean of all the samples' y values", "y units"),
    "winner_gap": Readout("number", "how much farther the heaviest sample is from the query than the "
                          "nearest one (0 when the nearest wins)", "x units"),
    "loo_excess": Readout("number", "leave-one-out error at h·√T over its lowest value across "
                          "bandwidths, minus 1 (0 at the best h)", "a fraction: 0.02 is 2 % above the lowest"),
    "curve_winners": Readout("number", "how many samples take the largest weight somewhere along the "
                             "prediction curve (1: the same sample wins wherever the query is)", "samples"),
    "nearest_share": Readout("number", "the share of the prediction curve where the query's nearest "
                             "sample has the largest weight (1: nearest-neighbour everywhere)", "0 to 1"),
    "sharp_share": Readout("number", "the share of the prediction curve where one sample holds at "
                           "least 0.9 of the weight (near 1: the curve is made of flat steps)", "0 to 1"),
    "curve_range": Readout("number", "how far the prediction curve rises and falls across the plot, over "
                           "the range of the samples' y values (0: the curve is flat)", "0 to 1"),
}


def regression_readouts(s: dict, needs=None, dataset=None) -> dict:
    """Every regression name for the full state ``s`` (deep-link values, every setting given).

    ``needs``: the names wanted (None: all); without curve_range, curve_winners, nearest_share, sharp_share or
    loo_excess, the curve over ``X_RANGE`` (``GRID_N`` points) or the leave-one-out error over ``LOO_GRID`` is
    not computed.  ``dataset``: your own samples (an ``attention.Dataset``), else the one ``s`` names.
    """
    d = dataset if dataset is not None else attention.load_dataset(s["dataset"])
    x, y = np.asarray(d.x, dtype=float), np.asarray(d.y, dtype=float)
    q, h, t, kernel = float(s["query"]), float(s["bandwidth"]), float(s["temperature"]), s["kernel"]
    ks = attention.key_norm_tilt(x, s["key_norm"]) if kernel == "dot" and s["key_norm"] else None
    r = attention.readout(q, x, y, kernel=kernel, bandwidth=h, temperature=t, key_scale=ks)
    w = np.asarray(attention.weights(q, x, kernel=kernel, bandwidth=h, temperature=t, key_scale=ks)).reshape(-1)
    dist = np.abs(x - q)
    out = {
        "query": q, "bandwidth": h, "temperature": t, "h_eff": h * math.sqrt(t), "key_norm": float(s["key_norm"]),
        "kernel": kernel, "dataset": s["dataset"], "n": r.n, "max_weight": r.max_weight,
        "entropy_bits": r.entropy_bits, "effective_points": r.effective_points,
        "effective_share": r.effective_points / r.n, "prediction": r.prediction, "global_mean": r.global_mean,
        "winner_gap": float(dist[int(np.argmax(w))] - dist.min()),
    }
    kw = {"kernel": kernel, "bandwidth": h, "temperature": t, "key_scale": ks}
    if needs is None or {"curve_range", "curve_winners", "nearest_share", "sharp_share"} & set(needs):
        out.update(_curve(x, y, kw))
    if needs is None or "loo_excess" in needs:
        out["loo_excess"] = _loo_excess(x, y, out["h_eff"], kernel, ks)
    return out


def _curve(x, y, kw) -> dict:
    """The prediction curve's names: its range over the samples' spread, and ``curve_facts`` of its weights."""
    grid = np.linspace(*X_RANGE, GRID_N)
    pred = attention.predict(grid, x, y, **kw)
    spread = float(y.max() - y.min())
    facts = curve_facts(grid, x, attention.weights(grid, x, **kw), y)
    return {"curve_range": float(pred.max() - pred.min()) / spread if spread > 0 else 0.0,
            "curve_winners": facts["winners"], "nearest_share": facts["nearest_share"],
            "sharp_share": facts["sharp_share"]}


def _loo_excess(x, y, h_eff, kernel, ks) -> float:
    """The leave-one-out error at ``h_eff`` over the lowest across ``LOO_GRID`` (or at ``h_eff``), minus 1."""
    grid = np.geomspace(*LOO_GRID[:2], LOO_GRID[2])
    loo_grid = attention.loo_error(x, y, bandwidths=grid, kernel=kernel, key_scale=ks)
    loo_here = float(attention.loo_error(x, y, bandwidths=[h_eff], kernel=kernel, key_scale=ks)[0])
    best = min(float(loo_grid.min()), loo_here)
    return loo_here / best - 1.0 if best > 0 else 0.0
