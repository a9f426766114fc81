"""The regression section's Bokeh models: one builder for the served page, the notebook and the offline file.

``build_regression(state, mode=...)`` returns the regression section as a
Bokeh layout plus the handles a caller needs (the data source for generated
datasets, the engine callback to run when the document is ready).  All the
interaction is one ``CustomJS`` engine made of ``ui/mirror.js`` (the formulas),
``ui/theme.js``, ``ui/common.js`` and ``engine.js`` (this section's glue), so the
page behaves the same with or without a Python server behind it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from bokeh.models import (Button, Checkbox, ColumnDataSource, CustomJS, CustomJSTickFormatter, DataRange1d,
                          Div, FixedTicker, GlyphRenderer, InlineStyleSheet, LinearAxis, LinearColorMapper, PanTool, Range1d,
                          Select, SingleIntervalTicker, Slider, Span)
from bokeh.layouts import column, row
from bokeh.plotting import figure

import attention

from app.state import X_RANGE, ExplorableState, url_spec
from app.ui import theme
from app.ui.engine import engine_args, engine_code, url_rules
from app.ui.share import build_share
from app.ui.theme import (BLUE, GREEN, ORANGE, PAGE_CSS, PAGE_STYLES, PURPLE, SKY, VERMILLION,  # noqa: F401
                          WEIGHT_PALETTE)

from . import text

HERE = Path(__file__).resolve().parent
GRID_N = 400                     # points of the prediction curve
H_GRID = (0.005, 50.0, 61)       # bandwidths (at T = 1) of the entropy and bias-variance plots
URL_DELAY_MS = 150               # the address (and a served page's query slider) follows a drag at this pace


@lru_cache(maxsize=None)
def engine_source() -> str:
    """The JS that runs the section: the shared files (ui/), then this section's engine.js."""
    return engine_code(HERE / "engine.js", "Explorable.handle", ENGINE_ARGS, theme=True)


ENGINE_ARGS = [
    "config", "ds", "samples", "curve", "kshape", "hcurve", "qpred", "qtrue", "span_main", "span_w", "span_ent",
    "hspan_ent", "hspan_bv", "mean_span", "nn_renderer", "nn_item", "figs", "shared_figs", "ent_range", "w_query",
    "w_logh", "w_logt", "w_kernel", "w_keynorm", "w_dataset", "w_link", "w_limits", "w_present", "w_reset", "readout_div", "caption_div",
    "limits_div", "notice_div", "dataset_div",
]


def dataset_payload(name: str) -> dict:
    d = attention.load_dataset(name)
    return {"x": d.x.tolist(), "y": d.y.tolist(), "function": d.function, "noise": d.noise,
            "description": d.description}


def dataset_meta(name: str, d) -> str:
    return json.dumps({"name": name, "function": d.function, "noise": d.noise, "description": d.description})


@dataclass
class RegressionView:
    layout: object
    engine: CustomJS
    ds: ColumnDataSource
    widgets: dict
    notice_div: Div
    models: dict = field(default_factory=dict)
    parts: dict = field(default_factory=dict)
    figures: dict = field(default_factory=dict)   # by role: main, weights, entropy_x, entropy_h, bias_variance


def _style(fig, shared_x=False):
    return theme.style_figure(fig, shared_x=shared_x)


def _effective_axis(fig):
    """A right axis that reads the entropy axis as effective points, 2^bits: 1, 2, 4, 8, ..."""
    fig.extra_y_ranges = {"eff": fig.y_range}
    s = theme.SIZES["normal"]
    axis = LinearAxis(y_range_name="eff", axis_label="effective points", ticker=SingleIntervalTicker(interval=1),
                      formatter=CustomJSTickFormatter(code="return String(2 ** tick);"),
                      major_label_text_font=theme.FONT, axis_label_text_font=theme.FONT,
                      major_label_text_font_size=s["tick"], axis_label_text_font_size=s["axis_label"],
                      axis_label_text_font_style="normal")
    fig.add_layout(axis, "right")


def _legend_below(fig):
    """The legend under the plot, one entry a line: as wide as its longest entry, so it fits a phone."""
    legend = fig.legend[0]
    legend.orientation = "vertical"
    theme.style_legend(legend)
    legend.spacing = 8
    legend.padding = 2
    legend.margin = 2
    legend.border_line_color = None
    fig.add_layout(legend, "below")


# The top of the section: the plots over x on the left, the readouts and controls beside them (kept in
# view while the page scrolls); on a narrow screen one column: main plot, readouts, controls, then the rest.
GRID_CSS = """
:host { display: grid !important; gap: 8px 20px; grid-template-columns: minmax(0, 1fr);
        grid-template-areas: "fig" "side" "more"; align-items: start; }
@media (min-width: 900px) {
  :host { grid-template-columns: minmax(0, 2fr) minmax(300px, 1fr); grid-template-areas: "fig side" "more side"; }
  .side { position: sticky; top: 0; }
}
"""


def _figure_grid(main, slider, weights, spread, *, side):
    fig = column(main, slider, sizing_mode="stretch_width", styles={"grid-area": "fig"}, name="figure_box")
    more = column(weights, spread, sizing_mode="stretch_width", styles={"grid-area": "more"})
    side_box = column(*side, sizing_mode="stretch_width", styles={"grid-area": "side"}, css_classes=["side"],
                      name="side_box")
    return row(fig, side_box, more, sizing_mode="stretch_width", stylesheets=[InlineStyleSheet(css=GRID_CSS)],
               name="figure_grid")


def build_regression(state: ExplorableState, *, mode: str = "served", notices=(), dataset=None) -> RegressionView:
    """The regression section for ``state``; ``mode`` is "served" (a Python server is behind it) or "static".

    ``dataset`` overrides the data shown (a generated ``attention.Dataset``); by
    default it is the shipped dataset named by ``state.dataset``.
    """
    if mode not in ("served", "static"):
        raise ValueError(f"mode must be 'served' or 'static', got {mode!r}")
    names = attention.list_datasets()
    if dataset is None:
        name = state.dataset if state.dataset in names else "default"
        dataset = attention.load_dataset(name)
    else:
        name = "generated"
    ds = ColumnDataSource({"x": dataset.x.tolist(), "y": dataset.y.tolist()}, name="dataset",
                          tags=[dataset_meta(name, dataset)])
    # Not empty: a synchronous relayout (any Div's text changing) can paint the legend before BokehJS has
    # rebuilt this glyph's visuals from new data, and a legend drawn from empty visuals throws.
    n0 = len(dataset.x)
    samples = ColumnDataSource({"x": dataset.x.tolist(), "y": dataset.y.tolist(), "w": [1.0 / n0] * n0,
                                "wn": [1.0] * n0, "size": [10.0] * n0, "alpha": [0.9] * n0}, name="samples")
    curve = ColumnDataSource({"x": [], "pred": [], "ent": [], "eff": [], "nn": [], "truth": []}, name="curve")
    kshape = ColumnDataSource({"x": [], "k": []}, name="kshape")
    hcurve = ColumnDataSource({"h": [], "ent": [], "loo": [], "bias2": [], "variance": [], "error": []},
                              name="hcurve")
    qpred = ColumnDataSource({"x": [], "y": []}, name="qpred")
    qtrue = ColumnDataSource({"x": [], "y": []}, name="qtrue")
    x_range = Range1d(*X_RANGE, bounds=X_RANGE)

    # -- main plot: samples, truth, prediction curve, the query ------------------------------------
    # The three plots over x (main, weights, spread along x) share one x mapping: the same column width
    # and the same borders (theme.SHARED_X_BORDERS), so a sample's weight stem sits under the sample.
    main = _style(figure(height=400, sizing_mode="stretch_width", min_width=260, x_range=x_range, tools="",
                         title="Drag the query line",
                         name="main_plot", y_range=DataRange1d(range_padding=0.15)), shared_x=True)
    main.xaxis.axis_label = "x"
    main.yaxis.axis_label = "y"
    # A pan tool on an x range already at its bounds moves nothing, but it makes the plot own
    # horizontal finger drags, so they reach the engine; the engine lets vertical swipes scroll the page.
    grab = PanTool(dimensions="width", description="drag the query")
    main.add_tools(grab)
    main.toolbar.active_drag = grab
    cmap = LinearColorMapper(palette=WEIGHT_PALETTE, low=0, high=1)
    # samples first, so the curves and the query's markers draw above them even when n is large
    samples_r = main.scatter("x", "y", source=samples, size="size", line_color="#222", line_width=0.5,
                             fill_color={"field": "wn", "transform": cmap}, fill_alpha="alpha", line_alpha="alpha",
                             legend_label="samples (size, colour = weight)")
    truth_r = main.line("x", "truth", source=curve, line_color="black", line_dash="dashed", line_width=1.5,
                        legend_label="true f(x)")
    pred_r = main.line("x", "pred", source=curve, line_color=BLUE, line_width=3, legend_label="prediction")
    nn_r = main.line("x", "nn", source=curve, line_color=ORANGE, line_width=1.5, legend_label="1-NN limit",
                     visible=state.limits)
    main.scatter("x", "y", source=qtrue, size=11, fill_color="white", line_color="black", line_width=2.5)
    main.scatter("x", "y", source=qpred, size=13, fill_color=VERMILLION, line_color="white", line_width=2)
    main.y_range.renderers = [truth_r, samples_r]
    mean_span = Span(location=float(dataset.y.mean()), dimension="width", line_color=PURPLE, line_dash="dotted",
                     line_width=2, visible=state.limits, name="mean_span")
    span_main = Span(location=state.query, dimension="height", line_color=VERMILLION, line_width=4,
                     editable=True, name="query_span")
    main.add_layout(mean_span)
    main.add_layout(span_main)
    _legend_below(main)
    # the 1-NN entry shows only while its curve does
    nn_item = next(item for item in main.legend[0].items if nn_r in item.renderers)
    nn_item.visible = state.limits
    del pred_r

    # -- weights over x, with the kernel's shape: on a fixed 0..1 axis, so peakedness compares by eye --
    fw = _style(figure(height=200, sizing_mode="stretch_width", min_width=260, x_range=x_range, tools="",
                       title="Weight of each sample", y_range=Range1d(0, 1.04), name="weights_plot"),
                shared_x=True)
    fw.segment("x", 0, "x", "w", source=samples, line_color=BLUE, line_width=3)
    fw.scatter("x", "w", source=samples, size=6, color=BLUE)
    fw.line("x", "k", source=kshape, line_color=VERMILLION, line_dash="dashed", line_width=1.5)
    span_w = Span(location=state.query, dimension="height", line_color=VERMILLION, line_width=2)
    fw.add_layout(span_w)
    fw.xaxis.axis_label = "x"
    fw.yaxis.axis_label = "weight"
    fw.yaxis.ticker = FixedTicker(ticks=[0, 0.5, 1])

    # -- entropy along x (0 .. log2 n, the engine keeps it there), and against bandwidth -------------
    ent_range = Range1d(0, math.log2(max(n0, 2)) * 1.04, name="entropy_range")
    fe = _style(figure(height=220, sizing_mode="stretch_width", min_width=260, x_range=x_range, tools="",
                       title="Spread along x", y_range=ent_range, name="entropy_x_plot"), shared_x=True)
    fe.line("x", "ent", source=curve, line_color=GREEN, line_width=2.5)
    span_ent = Span(location=state.query, dimension="height", line_color=VERMILLION, line_width=2)
    fe.add_layout(span_ent)
    fe.xaxis.axis_label = "query x"
    fe.yaxis.axis_label = "entropy (bits)"
    _effective_axis(fe)

    h_range = Range1d(H_GRID[0], H_GRID[1])
    fh = _style(figure(height=220, sizing_mode="stretch_width", min_width=260, x_axis_type="log", x_range=h_range,
                       tools="", title="Spread against h", y_range=DataRange1d(start=0),
                       name="entropy_h_plot"))
    fh.line("h", "ent", source=hcurve, line_color=GREEN, line_width=2.5)
    hspan_ent = Span(location=state.bandwidth * math.sqrt(state.temperature), dimension="height",
                     line_color=VERMILLION, line_width=2)
    fh.add_layout(hspan_ent)
    fh.xaxis.axis_label = "bandwidth h\u00b7\u221aT"
    fh.yaxis.axis_label = "entropy (bits)"
    _effective_axis(fh)

    fb = _style(figure(height=380, sizing_mode="stretch_width", min_width=260, x_axis_type="log",
                       x_range=h_range, tools="", title="Bias and variance",
                       y_range=DataRange1d(start=0), name="bias_variance_plot"))
    fb.line("h", "loo", source=hcurve, line_color="black", line_width=2.5, legend_label="leave-one-out error")
    fb.line("h", "bias2", source=hcurve, line_color=ORANGE, line_width=2, legend_label="bias\u00b2")
    fb.line("h", "variance", source=hcurve, line_color=SKY, line_width=2, legend_label="variance")
    fb.line("h", "error", source=hcurve, line_color=PURPLE, line_width=2, line_dash="dashed",
            legend_label="bias\u00b2 + variance")
    hspan_bv = Span(location=state.bandwidth * math.sqrt(state.temperature), dimension="height",
                    line_color=VERMILLION, line_width=2)
    fb.add_layout(hspan_bv)
    _legend_below(fb)
    fb.xaxis.axis_label = "bandwidth h\u00b7\u221aT"
    fb.yaxis.axis_label = "squared error"
    for f in (fh, fb):  # plain numbers on the log axes (0.01, 0.1, 1, 10), never exponent notation
        f.xaxis.formatter = CustomJSTickFormatter(code="return String(Number(tick.toPrecision(2)));")

    # -- controls ----------------------------------------------------------------------------------
    spec = url_spec()
    w_query = Slider(start=X_RANGE[0], end=X_RANGE[1], step=0.01, value=state.query, title="query x",
                     sizing_mode="stretch_width", name="query_slider")
    w_logh = Slider(start=math.log10(spec["bandwidth"]["lo"]), end=math.log10(spec["bandwidth"]["hi"]),
                    step=0.01, value=math.log10(state.bandwidth), title="bandwidth h", format=theme.log_format(),
                    sizing_mode="stretch_width", name="bandwidth_slider")
    w_logt = Slider(start=math.log10(spec["temperature"]["lo"]), end=math.log10(spec["temperature"]["hi"]),
                    step=0.01, value=math.log10(state.temperature), title="temperature T", format=theme.log_format(),
                    sizing_mode="stretch_width", name="temperature_slider")
    w_kernel = Select(title="similarity (kernel)", value=state.kernel, name="kernel_select",
                      options=[("gaussian", "Gaussian"), ("dot", "dot product, equal-norm keys")],
                      sizing_mode="stretch_width")
    w_keynorm = Slider(start=-2, end=2, step=0.05, value=state.key_norm, title="key-norm tilt (0 = equal norms)",
                       visible=state.kernel == "dot", sizing_mode="stretch_width", name="keynorm_slider")
    options = [(n, n) for n in names] + ([("generated", "generated (seeded)")] if mode == "served" else [])
    w_dataset = Select(title="dataset", value=name if name in dict(options) else "default", options=options,
                       sizing_mode="stretch_width", name="dataset_select")
    w_link = Checkbox(label="link h and T (one knob)", active=state.link, name="link_toggle")
    w_limits = Checkbox(label="show 1-NN curve and global mean", active=state.limits, name="limits_toggle")
    w_present = Checkbox(label="presentation mode", active=state.present, name="present_toggle")
    w_reset = Button(label="Reset", button_type="default", width=90, name="reset_button")

    css = InlineStyleSheet(css=PAGE_CSS)
    readout_div = Div(text="", name="readouts", stylesheets=[css], min_width=260)
    caption_div = Div(text="", name="caption", stylesheets=[css], sizing_mode="stretch_width")
    limits_div = Div(text="", name="limits", stylesheets=[css], sizing_mode="stretch_width")
    notice_div = Div(text="".join(f'<p class="notice">{text.escape(n)}</p>' for n in notices), name="notices",
                     stylesheets=[css], visible=bool(notices), sizing_mode="stretch_width")
    dataset_div = Div(text="", name="dataset_description", stylesheets=[css], sizing_mode="stretch_width")

    defaults = {k: v["default"] for k, v in spec.items()}
    config = {
        "mode": mode, "spec": spec, "x_range": list(X_RANGE), "grid_n": GRID_N, "h_grid": list(H_GRID),
        "datasets": {n: dataset_payload(n) for n in names},
        "initial": {"query": state.query, "bandwidth": state.bandwidth, "temperature": state.temperature,
                    "kernel": state.kernel, "key_norm": state.key_norm},
        "defaults": defaults, "theme": theme.js_config(state.present), "url_rules": url_rules(),
        "url_delay_ms": URL_DELAY_MS,
        "limits": {"one_sample": text.ONE_SAMPLE_WEIGHT, "near_uniform": text.NEAR_UNIFORM_FRACTION},
    }
    # Everything the engine alone writes lives only in the browser: no websocket traffic per frame.
    # (The query slider is synced a few times a second.)
    models = engine_args(
        synced=dict(config=config, ds=ds, nn_item=nn_item, figs=[main, fw, fe, fh, fb], shared_figs=[main, fw, fe],
                    ent_range=ent_range, w_query=w_query, w_logh=w_logh, w_logt=w_logt, w_kernel=w_kernel,
                    w_keynorm=w_keynorm, w_dataset=w_dataset, w_link=w_link, w_limits=w_limits, w_present=w_present,
                    w_reset=w_reset),
        browser_only=dict(samples=samples, curve=curve, kshape=kshape, hcurve=hcurve, qpred=qpred, qtrue=qtrue,
                          span_main=span_main, span_w=span_w, span_ent=span_ent, hspan_ent=hspan_ent,
                          hspan_bv=hspan_bv, mean_span=mean_span, nn_renderer=nn_r, readout_div=readout_div,
                          caption_div=caption_div, limits_div=limits_div, notice_div=notice_div,
                          dataset_div=dataset_div))
    if set(models) != set(ENGINE_ARGS):
        raise RuntimeError(f"the engine's arguments and ENGINE_ARGS differ: {set(models) ^ set(ENGINE_ARGS)}")
    engine = CustomJS(args=models, code=engine_source())
    span_main.js_on_change("location", engine)
    for w in (w_query, w_logh, w_logt, w_kernel, w_keynorm, w_dataset):
        w.js_on_change("value", engine)
    for w in (w_link, w_limits, w_present):
        w.js_on_change("active", engine)
    w_reset.js_on_event("button_click", engine)
    main.js_on_event("tap", engine)
    main.js_on_event("pan", engine)
    main.js_on_event("panstart", engine)
    ds.js_on_change("data", engine)

    # The query slider spans the main plot's frame: its padding follows the shared borders (theme.py).
    w_query.styles = {"padding": "0 calc(var(--shared-x-right, 64px) - 5px) 0 calc(var(--shared-x-left, 80px) - 5px)",
                      "box-sizing": "border-box"}
    wrap = {"flex-wrap": "wrap", "gap": "4px 16px"}
    controls = column(
        row(w_logh, w_logt, sizing_mode="stretch_width", styles=wrap),
        row(w_kernel, w_dataset, sizing_mode="stretch_width", styles=wrap),
        w_keynorm,
        row(w_link, w_limits, w_present, w_reset, *build_share().models(), sizing_mode="stretch_width",
            styles=wrap),  # app/share.py: copy a link to this state
        sizing_mode="stretch_width", name="controls")
    for w in (w_logh, w_logt, w_kernel, w_dataset):
        w.min_width = 200
    intro = Div(text=text.INTRO, stylesheets=[css], sizing_mode="stretch_width", name="intro")
    explain = Div(text=text.EXPLAIN_REGRESSION, stylesheets=[css], sizing_mode="stretch_width",
                  name="explain_regression")
    explain_bv = Div(text=text.EXPLAIN_BIAS_VARIANCE, stylesheets=[css], sizing_mode="stretch_width",
                     min_width=260, styles={"flex": "1 1 300px"})
    fb.styles = {"flex": "2 1 400px"}
    parts = {"intro": intro, "notices": notice_div,
             "top": _figure_grid(main, w_query, fw, fe,
                                 side=[readout_div, caption_div, limits_div, dataset_div, controls])}
    if mode == "static":
        parts["static_note"] = Div(text=f'<p class="dataset">{text.escape(text.STATIC_NOTE)}</p>',
                                   stylesheets=[css], sizing_mode="stretch_width")
    bias = row(fb, explain_bv, sizing_mode="stretch_width", styles=wrap)
    parts.update({"spread": fh, "bias": bias, "explain": explain})
    layout = column(*parts.values(), sizing_mode="stretch_width", name="regression_section",
                    styles=PAGE_STYLES)
    widgets = dict(query=w_query, logh=w_logh, logt=w_logt, kernel=w_kernel, keynorm=w_keynorm,
                   dataset=w_dataset, link=w_link, limits=w_limits, present=w_present)
    figures = dict(main=main, weights=fw, entropy_x=fe, entropy_h=fh, bias_variance=fb)
    return RegressionView(layout=layout, engine=engine, ds=ds, widgets=widgets, notice_div=notice_div,
                          models=models, parts=parts, figures=figures)
