"""The learning section's readouts for the tour's conditions: the shipped paths the page plays
(``bandwidth_trajectory`` and ``metric_trajectory`` in app/learning/view.py, computed by
``attention.train_bandwidth`` and ``attention.train_metric``) at the steps shown.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

import attention
from attention.regression import LOO_GRID

from app.contract import Readout

from .view import bandwidth_trajectory, metric_trajectory

BANDWIDTH_PATH_NAMES = ("lr", "step", "learned_h", "learned_excess", "refused", "finished")


# The names this section's readouts publish, which a tour step's "when" may compare (the README lists them).
CONDITIONS = {
    "lr": Readout("choice", "the learning rate on log h, one of the presets", "a preset, written as text"),
    "step": Readout("number", "the step of the bandwidth's path shown (0 is the start; a link or Show me "
                    "past the path's end shows its last step)", "steps"),
    "learned_h": Readout("number", "the bandwidth h·√T the path has reached at that step", "x units"),
    "learned_excess": Readout("number", "leave-one-out error at learned_h over its lowest value across "
                              "bandwidths, minus 1 (0 at the bias–variance optimum)",
                              "a fraction: 0.01 is 1 % above the lowest"),
    "refused": Readout("bool", "whether the step shown was refused, the learning rate being too large",
                       "true or false"),
    "finished": Readout("bool", "whether the step shown is the path's last (done, or stopped by a refusal)",
                        "true or false"),
    "playing": Readout("bool", "whether Play is running the bandwidth's path", "true or false", runtime=True),
    "metric_lr": Readout("choice", "the learning rate on the metric W, one of the presets",
                         "a preset, written as text"),
    "metric_step": Readout("number", "the step of the metric's path shown", "steps"),
    "column_ratio": Readout("number", "how much a step along x₂ counts against one along x₁: the length "
                            "of W's x₂ column over its x₁ column (1 at the start)", "a ratio: 0.05 is 5 %"),
    "metric_refused": Readout("bool", "whether the metric's step shown was refused", "true or false"),
    "metric_finished": Readout("bool", "whether the metric's step shown is its path's last",
                               "true or false"),
    "metric_playing": Readout("bool", "whether Play is running the metric's path", "true or false",
                              runtime=True),
}


@lru_cache(maxsize=16)
def lowest_loo(dataset: str) -> float:
    """The lowest leave-one-out error of a shipped dataset across LOO_GRID (Gaussian kernel, T = 1)."""
    d = attention.load_dataset(dataset)
    grid = np.geomspace(*LOO_GRID[:2], LOO_GRID[2])
    return float(attention.loo_error(d.x, d.y, bandwidths=grid).min())


def learning_readouts(s: dict, needs=None, dataset=None) -> dict:
    """The learning names for the full state ``s``.

    The page shows step min(step, last) of a path that stopped early; ``learned_excess`` is the path's loss
    at that step over min(lowest across LOO_GRID, that loss), minus 1.  ``needs``: the names wanted (None:
    all); without a name of the bandwidth's path, that path is not looked up.  ``dataset`` is not used (the
    paths are the shipped datasets').
    """
    m = metric_trajectory(s["metric_lr"])
    km = min(int(s["metric_step"]), len(m["W"]) - 1)
    lengths = np.linalg.norm(np.asarray(m["W"][km], dtype=float), axis=0)   # W's columns, x1's then x2's
    out = {"metric_lr": s["metric_lr"], "metric_step": km, "column_ratio": float(lengths[1] / lengths[0]),
           "metric_refused": m["status"][km] == attention.learn.STATUS_DIVERGED,
           "metric_finished": km == len(m["W"]) - 1}
    if needs is not None and not set(needs) & set(BANDWIDTH_PATH_NAMES):
        return out
    bw = bandwidth_trajectory(s["dataset"], s["lr"])
    k = min(int(s["step"]), len(bw["h"]) - 1)
    loss = float(bw["loss"][k])
    best = min(lowest_loo(s["dataset"]), loss)
    out.update({"lr": s["lr"], "step": k, "learned_h": float(bw["h"][k]),
                "learned_excess": loss / best - 1.0 if best > 0 else 0.0,
                "refused": bw["status"][k] == attention.learn.STATUS_DIVERGED, "finished": k == len(bw["h"]) - 1})
    return out
