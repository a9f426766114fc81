"""The regression section's first screen as posters (app/ui/poster.py): the opening state's main plot, drawn
from the numpy core as the engine draws it (app/regression/views.js queryViews and kernelViews), the line of
readouts under it (querytexts.js) and the page's opening words, in the page's file before BokehJS arrives.

Only a state the poster draws exactly gets one: a shipped or generated dataset small enough for one marker per
sample, and not the limits' curve and line (a toggle).  Any other state (your data, say) gets
"Loading this state…" in the plot's place (``opening_posters`` returns the words alone).
"""

from __future__ import annotations

import numpy as np

import attention
from attention.datasets import X_RANGE
from attention.regression import GRID_N

from app.ui import poster as P
from app.ui import theme
from app.ui.text import signed

from . import text

# twins of the engine's constants (app/regression/views.js): a marker's width and opacity for n samples
def marker_scale(n: int) -> float:
    return float(np.clip(np.sqrt(40 / n), 0.3, 1))


def marker_alpha(n: int) -> float:
    return float(np.clip(np.sqrt(60 / n), 0.3, 0.9))


def marker_sizes(weights) -> np.ndarray:
    """Each sample's marker width in px: 4 + 18 √(w / max w), times ``marker_scale(n)`` (views.js queryViews)."""
    w = np.asarray(weights, dtype=float)
    return marker_scale(w.size) * (4 + 18 * np.sqrt(w / w.max()))


def marker_colours(weights, palette=theme.WEIGHT_PALETTE) -> list[str]:
    """Each sample's fill: the palette's bin of w / max w, as a ``LinearColorMapper`` from 0 to 1 bins it."""
    wn = np.asarray(weights, dtype=float) / np.max(weights)
    return [palette[min(len(palette) - 1, max(0, int(np.floor(v * len(palette)))))] for v in wn]


def drawable(state, dataset, dots_above_n: int) -> bool:
    """Whether the poster draws this state as the live plot does."""
    return (getattr(state, "data", None) is None and dataset.n <= dots_above_n and not state.limits
            and not state.present)


def opening_numbers(state, dataset) -> dict:
    """The opening state's numbers, from the core: the readout at the query, the curves over ``X_RANGE``
    (``GRID_N`` points) and the plot's y range (``DataRange1d`` over the truth and the samples, padding 0.15)."""
    x, y = np.asarray(dataset.x, dtype=float), np.asarray(dataset.y, dtype=float)
    ks = attention.key_norm_tilt(x, state.key_norm) if state.kernel == "dot" and state.key_norm else None
    kw = dict(kernel=state.kernel, bandwidth=state.bandwidth, temperature=state.temperature, key_scale=ks)
    r = attention.readout(state.query, x, y, true_function=dataset.true_function, **kw)
    w = np.asarray(attention.weights(state.query, x, **kw), dtype=float).reshape(-1)
    grid = np.linspace(*X_RANGE, GRID_N)
    pred = attention.predict(grid, x, y, **kw)
    truth = dataset.true_function(grid) if dataset.true_function is not None else None
    y_range = P.padded_range(np.concatenate([y] + ([truth] if truth is not None else [])))
    return {"readout": r, "x": x, "y": y, "grid": grid, "pred": pred, "truth": truth, "y_range": y_range,
            "weights": w}


def strip_html(r) -> str:
    """The line under the plot (twin of querytexts.js queryTexts' strip)."""
    return (f'<p class="strip">max weight <b>{r.max_weight:.3f}</b> \u00b7 effective points '
            f'<b>{r.effective_points:.1f}</b> of {r.n} \u00b7 prediction <b>{signed(r.prediction, 2)}</b></p>')


# the shared-x plots' borders, as the page lays them out (theme.SHARED_X_BORDERS and SHARED_X_TOP_BOTTOM)
BORDERS = {"normal": (*theme.SHARED_X_BORDERS["normal"], *theme.SHARED_X_TOP_BOTTOM["normal"]),
           "narrow": (*theme.SHARED_X_BORDERS["normal_narrow"], *theme.SHARED_X_TOP_BOTTOM["narrow"])}


def kernel_shape(grid, state, x, weights) -> np.ndarray:
    """The Gaussian kernel's shape through the stems' tops (views.js kernelShape): the largest weight times
    exp(−((g − q)² − (x_top − q)²) / (2 h² T)) at each grid point g."""
    q, h, t = state.query, state.bandwidth, state.temperature
    top = int(np.argmax(weights))
    return weights[top] * np.exp((-((grid - q) ** 2) / (2 * h * h) + ((q - x[top]) ** 2) / (2 * h * h)) / t)


def weights_poster(state, numbers: dict, label: str, axis_pad: float, title: str) -> str:
    """The weights plot's poster: each sample's stem and its round top, the kernel's shape (Gaussian), the query."""
    w, x = numbers["weights"], numbers["x"]
    p = P.PlotPoster(title=title, x_range=X_RANGE, y_range=(0.0, axis_pad), borders=BORDERS, x_label="x",
                     y_label="weight", y_ticks=(0.0, 0.5, 1.0))
    p.stems(x, np.zeros_like(w), w, theme.BLUE, 3)
    p.circles(x, w, [7] * len(w), [theme.BLUE] * len(w), "", 0)
    if state.kernel_shape:
        p.line(numbers["grid"], kernel_shape(numbers["grid"], state, x, w), theme.VERMILLION, 1.5, "6")
    p.vline(state.query, theme.VERMILLION, 2)
    return p.html("weights_plot", label, f"Weight of each of the {len(w)} samples at the query x = "
                                          f"{signed(state.query, 2)}.")


def main_poster(state, numbers: dict, label: str, lines: dict) -> str:
    """The main plot's poster; ``lines``: the live plot's line styles (view.py LINES)."""
    r = numbers["readout"]
    p = P.PlotPoster(title="Drag the query line", x_range=X_RANGE, y_range=numbers["y_range"], borders=BORDERS,
                     x_label="x", y_label="y")
    w = numbers["weights"]
    p.circles(numbers["x"], numbers["y"], marker_sizes(w), marker_colours(w), "#222", 0.5, marker_alpha(w.size))
    if numbers["truth"] is not None:
        t = lines["truth"]
        p.line(numbers["grid"], numbers["truth"], t["line_color"], t["line_width"], "6")
    p.line(numbers["grid"], numbers["pred"], lines["pred"]["line_color"], lines["pred"]["line_width"])
    if r.true_value is not None:
        p.circles([state.query], [r.true_value], [11], ["white"], "black", 2.5)
    p.circles([state.query], [r.prediction], [13], [theme.VERMILLION], "white", 2)
    p.vline(state.query, theme.VERMILLION, 4)
    description = text.caption(r, kernel=state.kernel, bandwidth=state.bandwidth, temperature=state.temperature,
                               key_norm=state.key_norm)
    return p.html("main_plot", label, description, drag="query_slider")


def sliders_html(sliders: dict) -> str:
    """The stage's sliders as they look before they are live: the query's, then h's and T's in a row (their values
    as the sliders write them: two decimals; three significant digits of 10 to the log value)."""
    q, h, t = sliders["query"], sliders["logh"], sliders["logt"]
    row = "".join(P.slider_poster(s, P.to_precision(10 ** s.value)) for s in (h, t))
    return P.slider_poster(q, signed(q.value, 2), q.styles) + f'<div class="attn-pv-row">{row}</div>'


def opening_posters(state, dataset, *, intro: str, labels: dict, dots_above_n: int, lines: dict,
                    weight_axis: tuple, sliders: dict) -> dict:
    # weight_axis: the weights plot's (axis top, title, the most samples it keeps the fixed 0..1 axis for)
    """Block name -> the poster HTML its placeholder holds: the opening words always; the plots, the readout line,
    the sliders and the legend when ``drawable``, else "Loading this state…" in the plot's place.  ``sliders``:
    the stage's slider widgets by key (query, logh, logt)."""
    out = {"regression-head": P.words_poster("regression-head", intro, static=True)}
    if not drawable(state, dataset, dots_above_n):
        out["regression-plot"] = P.waiting_poster("regression-plot")
        return out
    numbers = opening_numbers(state, dataset)
    out["regression-plot"] = main_poster(state, numbers, labels["main_plot"], lines) + P.waiting_poster("regression-plot")
    # (a zoomed weight axis, or the dot product's shape on circle keys: that plot waits for the page)
    if state.kernel == "gaussian" and dataset.n <= weight_axis[2]:
        out["regression-weights"] = weights_poster(state, numbers, labels["weights_plot"], *weight_axis[:2])
    out["regression-controls"] = P.words_poster("regression-controls", strip_html(numbers["readout"]),
                                                after=sliders_html(sliders))
    out["regression-legend"] = P.words_poster("regression-legend", text.legend_html(state.limits))
    return out


__all__ = ["opening_posters", "opening_numbers", "strip_html", "marker_sizes", "marker_colours", "drawable"]
