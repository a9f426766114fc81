"""The regression section's Bokeh models: one builder for the offline file, the served page and the notebook.

``build_regression(state)`` returns the regression section as blocks (app/ui/layout.py: the figure and its
controls kept in view, the readouts and the rest beside them) plus the handles a caller needs (the data
source, the engine callback to run when the section is first drawn).  All the interaction is one
``CustomJS`` engine: this section's JS modules (``ENGINE_JS``, text.js to engine.js) on the page's shared
library (``attention/mirror.js``, the formulas; ``ui/theme.js``, ``ui/common.js``, ``attention/generator.js``, the seeded
generator, and the rest): the browser does everything, with or without a server behind the page.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from bokeh.models import (Button, ColumnDataSource, CustomJS, CustomJSTickFormatter, CustomJSTicker,
                          DataRange1d, Div, FixedTicker, InlineStyleSheet, LinearAxis, LinearColorMapper,
                          NoOverlap, Range1d, Span)
from bokeh.layouts import column, row
from bokeh.plotting import figure

import attention
from attention.datasets import X_RANGE
from attention.regression import GRID_N, LOO_GRID

from app.state import url_spec
from app import userdata
from app.ui import theme
from app.ui.controls import build_controls, by_role, wire
from app.ui.engine import by_name, engine_args, engine_callback, engine_code, url_rules, worker_modules
from app.ui.layout import WIDE, Block
from app.ui.share import build_share
from app.ui.theme import (BLUE, GREEN, ORANGE, PAGE_CSS, PAGE_STYLES, PURPLE, SKY, VERMILLION,  # noqa: F401
                          WEIGHT_PALETTE)

from . import text
from .data import dataset_meta, dataset_payload, user_data_source, units_models
from .state import CONTROLS

HERE = Path(__file__).resolve().parent
H_GRID = (0.005, 50.0, 61)       # bandwidths (at T = 1) of the entropy and bias-variance plots
URL_DELAY_MS = 150               # the address (and a served page's query slider) follows a drag at this pace


# The section's JS, one module a file, in the order they use one another (each uses only the files before it).
ENGINE_JS = ("text.js", "address.js", "units.js", "querytexts.js", "views.js", "datasets.js", "owndata.js",
             "controls.js", "readouts.js", "engine.js")


@lru_cache(maxsize=None)
def engine_source() -> str:
    """The JS that runs the section, on the page's shared library (ui/): its modules (``ENGINE_JS``) in order."""
    return engine_code([HERE / name for name in ENGINE_JS], "Regression.handle", ENGINE_ARGS)


# Bokeh paints a plot on two canvases: "overlay" renderers on the top one, all others below.  A change to an
# overlay renderer repaints the top canvas only, so what follows the query lives there.
DRAG_LAYER = "overlay"

# What the engine hears of the main plot: a drag (panstart, pan), a tap, and a button held still before it moves,
# which BokehJS calls a press and follows with plain moves instead of a pan (engine.js onPress).
MAIN_PLOT_EVENTS = ("tap", "pan", "panstart", "press", "pressup", "mousemove")

# The section's declared controls reach the engine as w_<widget> (g_<widget> in the dataset generator's form).
MAIN_CONTROLS = tuple(c for c in CONTROLS if c.role != "generator")
GENERATOR_CONTROLS = by_role(CONTROLS, "generator")
ENGINE_ARGS = [
    "config", "ds", "samples", "marks", "dots", "stems", "stem_tops", "curve", "kshape", "hent", "hcurve", "qpred",
    "qtrue", "span_main", "qline", "hspan_ent", "hspan_bv", "mean_span", "nn_renderer", "figs", "shared_figs",
    "ent_range", *(f"w_{c.widget}" for c in MAIN_CONTROLS), "w_reset",
    *(f"g_{c.widget}" for c in GENERATOR_CONTROLS), "g_go", "readout_div", "caption_div", "limits_div", "notice_div",
    "dataset_div", "strip_div", "legend_div", "announce_div",
    "user_data", "own_form", "own_status", "bias_note", "bias_words", "bias_legend", "units",
]
# A Div that screen readers read and eyes do not see.
VISUALLY_HIDDEN = {"position": "absolute", "width": "1px", "height": "1px", "overflow": "hidden",
                   "clip": "rect(0 0 0 0)", "white-space": "nowrap"}
# A dataset with more samples than this has its error curves against h worked out in a Web Worker (at 2000
# samples they weigh 2000 x 2000 pairs at each of 61 bandwidths: seconds of work); smaller ones on the spot.
WORKER_ABOVE_N = 300
# Above this many samples the main plot draws them as dots grouped by weight, one canvas path per group, instead
# of one marker each (views.js drawSamples): at 2000 samples, markers are 4000 canvas arcs per query move.
DOTS_ABOVE_N = 150
# The weights plot's y axis.  Up to WEIGHT_AXIS_FIXED_UP_TO_N samples of the shipped or generated data (the shipped
# datasets of 24 to 40, the generator's 50) it runs from 0 to 1 whatever the state, so that peakedness compares by
# eye between states, as the lesson asks.  With more samples every weight is small (at 365 samples the largest is
# about 0.01) and a 0 to 1 axis shows a flat line; on your own data, which the lesson does not compare, even ten
# samples may spread their weight thinly.  So there the axis runs from 0 to the largest weight rounded up to a step of WEIGHT_AXIS_STEPS (times a
# power of ten): the largest weight fills two thirds of it or more.  A new top is chosen only when the largest
# weight leaves the top or falls under WEIGHT_AXIS_KEEP of it, so a drag does not flicker between two steps and
# the largest weight always fills half the axis or more.  The title says which axis is shown (WEIGHT_TITLES; no
# number on the zoomed axis' ticks: "0.0015" would widen its left border past the main plot's, and the x axes
# would no longer line up).  views.js weightAxis draws it; the engine's config carries these.
WEIGHT_AXIS_FIXED_UP_TO_N = 50
WEIGHT_AXIS_STEPS = (1, 1.5, 2, 3, 4, 5, 6, 8, 10)
WEIGHT_AXIS_KEEP = 0.52
WEIGHT_AXIS_PAD = 1.04           # the axis runs a little past its top, so the top stem's round cap shows whole
WEIGHT_TITLES = {"fixed": "Weights (axis 0 to 1)", "zoomed": "Weights (axis zoomed to {top})"}
# The seeded generator's deep-link keys (app/state.py); the page draws its samples with attention/generator.js.
GENERATOR_KEYS = ("fn", "n", "noise", "seed")
# The main plot's lines; the HTML legend under it draws the same (text.legend_html).
LINES = {"truth": dict(line_color="black", line_dash="dashed", line_width=1.5),
         "pred": dict(line_color=BLUE, line_width=3),
         "nn": dict(line_color=ORANGE, line_width=1.5)}


@dataclass
class RegressionView:
    blocks: list                                  # app/ui/layout.Block, in page order
    engine: CustomJS
    ds: ColumnDataSource
    widgets: dict
    notice_div: Div
    models: dict = field(default_factory=dict)
    figures: dict = field(default_factory=dict)   # by role: main, weights, entropy_x, entropy_h, bias_variance
    disclosure: CustomJS | None = None            # "More controls": started after the engine
    generator: dict = field(default_factory=dict)  # the generator's widgets (fn, n, noise, seed, go)
    named: dict = field(default_factory=dict)     # every named model of the section, by name
    css: str = ""                                 # the page CSS of its blocks (STAGE_CSS)
    bias_legend: Div | None = None                # the bias-variance plot's legend (theme.legend_html)
    bias_items: list = field(default_factory=list)

    def add_bias_legend(self, label: str, color: str, line: str = "solid") -> None:
        """One more entry in the bias-variance plot's legend (another section drawing on that plot)."""
        self.bias_items.append((label, color, line))
        set_bias_legend(self.bias_legend, self.bias_items)

    @property
    def engines(self) -> list:
        return [self.engine] + ([self.disclosure] if self.disclosure is not None else [])

    @property
    def lent(self) -> dict:
        """What the section lends another (its contract's ``lends``, app/regression/contract.py), by name."""
        return {**{k: self.models[k] for k in ("ds", "curve", "hcurve", "w_logh", "w_logt", "w_kernel", "w_link")},
                "main_plot": self.figures["main"], "bias_variance_plot": self.figures["bias_variance"],
                "add_bias_legend": self.add_bias_legend}


# The bias-variance plot's entries that need a true function (not drawn on your own data).
NEEDS_TRUTH = ("bias\u00b2", "variance", "bias\u00b2 + variance")


def set_bias_legend(div: Div, items: list, own: bool = False) -> None:
    """The bias-variance plot's legend: its text for the data shown (``own``: your own data, whose plot has the
    leave-one-out error alone), and both versions in its tags, [with a true function, your own data], which the
    engine picks from when the data change."""
    both = [theme.legend_html(items), theme.legend_html([i for i in items if i[0] not in NEEDS_TRUTH])]
    div.tags = both
    div.text = both[1 if own else 0]


def _style(fig, shared_x=False):
    return theme.style_figure(fig, shared_x=shared_x)


# The spread plots' ticks: entropy in bits on the left, effective points (2^bits) on the right, at the same places:
# every s bits, s the smallest whole number of bits that is at least EFFECTIVE_TICK_SHARE of the axis (0 to about
# log2 n, which follows the data).  So an axis has three ticks at most, a share of its height apart whatever n:
# 1, 4, 16 at 24 samples, 1, 16, 256 at 365, 1, 32, 1024 at 2000; their labels keep apart in a frame 55 px tall
# (a laptop's 1366 x 768).  In a shorter frame still, a label that would meet its neighbour is left out (NoOverlap).
EFFECTIVE_TICK_SHARE = 0.4
BITS_TICKS_JS = f"""
const s = Math.max(1, Math.ceil({EFFECTIVE_TICK_SHARE} * (cb_data.end - cb_data.start) - 1e-9)), out = [];
for (let k = Math.ceil(cb_data.start / s - 1e-9); k * s <= cb_data.end + 1e-9; k++) out.push(k * s);
return out;
"""
LABEL_GAP_PX = 3   # the least room between two tick labels of a spread plot's axes


def _effective_axis(fig):
    """A right axis that reads the entropy axis as effective points, 2^bits (1, 4, 16, ...), and the ticks both
    axes share (BITS_TICKS_JS)."""
    fig.extra_y_ranges = {"eff": fig.y_range}
    s = theme.SIZES["normal"]
    ticker = CustomJSTicker(major_code=BITS_TICKS_JS)
    axis = LinearAxis(y_range_name="eff", axis_label="effective points", ticker=ticker,
                      formatter=CustomJSTickFormatter(code="return String(2 ** tick);"),
                      major_label_text_font=theme.FONT, axis_label_text_font=theme.FONT,
                      major_label_text_font_size=s["tick"], axis_label_text_font_size=s["axis_label"],
                      axis_label_text_font_style="normal", major_label_policy=NoOverlap(min_distance=LABEL_GAP_PX))
    for left in fig.left:
        left.ticker, left.major_label_policy = ticker, NoOverlap(min_distance=LABEL_GAP_PX)
    fig.add_layout(axis, "right")


def build_regression(state, *, notices=(), dataset=None, figure_menu=()) -> RegressionView:
    """The regression section for ``state`` (the page's settings: app/sections.py ``ExplorableState``).

    ``dataset`` overrides the data shown (an ``attention.Dataset``); by default it is the shipped dataset
    named by ``state.dataset``, or the seeded generator's samples when ``state.dataset`` is "generated".
    ``state.data`` (a notebook's ``e.data``: app.userdata.UserData), when there is one, is handed to the page
    in the ``user_data`` source, and the page opens on it (owndata.js).  ``figure_menu``: every figure of the
    page, for the share menu's PNG list (app/ui/share.py).
    """
    return RegressionSection(state, notices=notices, dataset=dataset, figure_menu=figure_menu).view()


class RegressionSection:
    """Builds the regression section, one method per part: the data sources, each figure, the controls, the
    texts, the engine and the layout.  ``view()`` runs them in order and returns the ``RegressionView``."""

    def __init__(self, state, *, notices=(), dataset=None, figure_menu=()):
        self.state, self.notices, self.figure_menu = state, list(notices), list(figure_menu)
        self.names = attention.list_datasets()
        if dataset is None and state.dataset == "generated":
            try:
                dataset = attention.make_dataset(state.fn, state.n, state.noise, state.seed)
            except ValueError as e:   # the state's bounds are checked by param; a last guard
                self.notices.append(str(e))
        if dataset is None:
            self.name = state.dataset if state.dataset in self.names else "default"
            dataset = attention.load_dataset(self.name)
        else:
            self.name = "generated"
        self.dataset = dataset
        self.css = InlineStyleSheet(css=PAGE_CSS)
        self.x_range = Range1d(*X_RANGE, bounds=X_RANGE)
        self.h_range = Range1d(H_GRID[0], H_GRID[1])

    def view(self) -> RegressionView:
        self.sources()
        figures = dict(main=self.main_figure(), weights=self.weights_figure(), entropy_x=self.entropy_x_figure(),
                       entropy_h=self.entropy_h_figure(), bias_variance=self.bias_variance_figure())
        widgets = self.controls()
        divs = self.divs = self.texts()
        blocks = self.blocks(figures, widgets, divs)   # before the engine: it builds the generator's fields
        engine, models = self.engine(figures, widgets, divs)
        named = {}
        for b in blocks:
            named.update(by_name(b.model))
        return RegressionView(blocks=blocks, engine=engine, ds=self.ds, widgets=widgets,
                              notice_div=divs["notice"], models=models, figures=figures,
                              disclosure=self.disclosure(widgets), generator=self.generator, named=named,
                              css=STAGE_CSS, bias_legend=self.bias_legend, bias_items=list(self.bias_items))

    # -- data ------------------------------------------------------------------------------------------
    def sources(self):
        d = self.dataset
        self.ds = ColumnDataSource({"x": d.x.tolist(), "y": d.y.tolist()}, name="dataset",
                                   tags=[dataset_meta(self.name, d)])
        # Not empty: a synchronous relayout (any Div's text changing) can paint the legend before BokehJS has
        # rebuilt this glyph's visuals from new data, and a legend drawn from empty visuals throws.
        n0 = self.n0 = len(d.x)
        self.samples = ColumnDataSource({"x": d.x.tolist(), "y": d.y.tolist(), "w": [1.0 / n0] * n0,
                                         "wn": [1.0] * n0, "size": [10.0] * n0, "alpha": [0.9] * n0}, name="samples")
        # What the plots draw of the samples (the engine writes them from "samples" at every query move):
        # markers for up to DOTS_ABOVE_N samples, else dots grouped by weight (xs, ys per group, NaN between
        # dots); the weight stems and their tops as one NaN-separated line each, one canvas path per move.
        self.marks = ColumnDataSource(dict(self.samples.data), name="sample_marks")
        self.dots = ColumnDataSource({"xs": [], "ys": [], "width": [], "color": [], "alpha": []}, name="sample_dots")
        self.stems = ColumnDataSource({"x": [], "y": []}, name="weight_stems")
        self.stem_tops = ColumnDataSource({"x": [], "y": []}, name="weight_tops")
        self.curve = ColumnDataSource({"x": [], "pred": [], "ent": [], "eff": [], "nn": [], "truth": []}, name="curve")
        self.kshape = ColumnDataSource({"x": [], "k": []}, name="kshape")
        # Against h: the entropy at the query changes with every query move, the errors only with the data and
        # the kernel; two sources, so a drag repaints the spread plot and leaves the bias-variance plots alone.
        self.hent = ColumnDataSource({"h": [], "ent": []}, name="hent")
        self.hcurve = ColumnDataSource({"h": [], "loo": [], "bias2": [], "variance": [], "error": []},
                                       name="hcurve")
        self.qpred = ColumnDataSource({"x": [], "y": []}, name="qpred")
        # The query's vertical line in the three plots over x (a glyph: see main_figure)
        self.qline = ColumnDataSource({"x": [self.state.query]}, name="query_line")
        self.qtrue = ColumnDataSource({"x": [], "y": []}, name="qtrue")
        # Your own data, in their units, between Python and the page (a notebook's e.data both ways): the page
        # scales them for the sliders and shows them (owndata.js useData); Python reads what the page loaded.
        self.user_data = user_data_source(getattr(self.state, "data", None))

    # -- figures ---------------------------------------------------------------------------------------
    def main_figure(self):
        """Samples, truth, prediction curve and the query.

        The three plots over x (main, weights, spread along x) share one x mapping: the same column width
        and the same borders (theme.SHARED_X_BORDERS), so a sample's weight stem sits under the sample.
        """
        state = self.state
        # sizing_mode "stretch_both": the page's CSS sets the plot's height (app/ui/theme.py FIGURE_HEIGHTS),
        # so the figure and its controls fit the screen; a notebook gives it FIGURE_PX.
        main = _style(figure(sizing_mode="stretch_both", min_width=260, min_height=150, x_range=self.x_range, tools="",
                             title="Drag the query line",
                             name="main_plot", y_range=DataRange1d(range_padding=0.15)), shared_x=True)
        main.xaxis.axis_label = "x"
        main.yaxis.axis_label = "y"
        # No pan tool: Bokeh reports drags on the plot to the engine without one, and a pan tool repaints
        # the whole plot (grid, axes, legend) at every pointer move even when its range cannot move.  The
        # engine lets vertical finger swipes scroll the page and keeps sideways drags for the query.
        cmap = LinearColorMapper(palette=WEIGHT_PALETTE, low=0, high=1)
        # What a query move changes (and the curves that must draw above it) sits on the overlay layer: a
        # drag repaints that layer only, and the grid, axes and title stay painted (DRAG_LAYER).
        # Samples first, so the curves and the query's markers draw above them even when n is large.
        samples_r = main.scatter("x", "y", source=self.marks, size="size", line_color="#222", line_width=0.5,
                                 fill_color={"field": "wn", "transform": cmap}, fill_alpha="alpha",
                                 line_alpha="alpha", level=DRAG_LAYER)
        # many samples: a round-capped stroke a tenth of a pixel long is a dot as wide as the line
        dots_r = main.multi_line("xs", "ys", source=self.dots, line_width="width", line_color="color",
                                 line_alpha="alpha", line_cap="round", level=DRAG_LAYER)
        truth_r = main.line("x", "truth", source=self.curve, level=DRAG_LAYER, **LINES["truth"])
        main.line("x", "pred", source=self.curve, level=DRAG_LAYER, **LINES["pred"])
        self.nn_r = main.line("x", "nn", source=self.curve, visible=state.limits, level=DRAG_LAYER, **LINES["nn"])
        main.scatter("x", "y", source=self.qtrue, size=11, fill_color="white", line_color="black", line_width=2.5,
                     level=DRAG_LAYER)
        main.scatter("x", "y", source=self.qpred, size=13, fill_color=VERMILLION, line_color="white", line_width=2,
                     level=DRAG_LAYER)
        main.y_range.renderers = [truth_r, samples_r, dots_r]
        self.mean_span = Span(location=float(self.dataset.y.mean()), dimension="width", line_color=PURPLE,
                              line_dash="dotted", line_width=2, visible=state.limits, name="mean_span")
        # The query line is a glyph: a Bokeh Span re-styles its element at every paint and then reads the
        # page's computed style, about 10 ms a plot on this page.  The model named "query_span" stays the
        # query's position on this plot, which scripts and tests set (its location); it is not drawn.
        main.vspan(x="x", source=self.qline, line_color=VERMILLION, line_width=4, level=DRAG_LAYER)
        self.span_main = Span(location=state.query, dimension="height", visible=False, name="query_span",
                              level=DRAG_LAYER)
        main.add_layout(self.mean_span)
        main.add_layout(self.span_main)
        # The legend is HTML under the plot (the engine's legend_div): it wraps on a phone, takes no room
        # from the plot, and lists the 1-NN curve and the mean only while they are shown.
        return main

    def weights_figure(self):
        """Weights over x, with the kernel's shape: on a fixed 0..1 axis, so peakedness compares by eye, up to
        WEIGHT_AXIS_FIXED_UP_TO_N samples; zoomed to the largest weight beyond (the engine sets it, views.js)."""
        fw = _style(figure(sizing_mode="stretch_both", min_width=260, min_height=90, x_range=self.x_range, tools="",
                           title=WEIGHT_TITLES["fixed"], y_range=Range1d(0, WEIGHT_AXIS_PAD), name="weights_plot"),
                    shared_x=True)
        fw.line("x", "y", source=self.stems, line_color=BLUE, line_width=3, level=DRAG_LAYER)
        fw.line("x", "y", source=self.stem_tops, line_color=BLUE, line_width=7, line_cap="round", level=DRAG_LAYER)
        fw.line("x", "k", source=self.kshape, line_color=VERMILLION, line_dash="dashed", line_width=1.5,
                level=DRAG_LAYER)
        fw.vspan(x="x", source=self.qline, line_color=VERMILLION, line_width=2, level=DRAG_LAYER)
        fw.xaxis.axis_label = "x"
        fw.yaxis.axis_label = "weight"
        fw.yaxis.ticker = FixedTicker(ticks=[0, 0.5, 1])
        # the fixed axis writes its ticks; the zoomed one only its 0 (its title says its top)
        fw.yaxis.formatter = CustomJSTickFormatter(code=WEIGHT_TICKS_JS)
        return fw

    def entropy_x_figure(self):
        """Entropy along x, on 0 .. log2 n (the engine keeps it there)."""
        self.ent_range = Range1d(0, math.log2(max(self.n0, 2)) * 1.04, name="entropy_range")
        fe = _style(figure(sizing_mode="stretch_both", min_width=260, min_height=90, x_range=self.x_range, tools="",
                           title="Spread along x", y_range=self.ent_range, name="entropy_x_plot"), shared_x=True)
        fe.line("x", "ent", source=self.curve, line_color=GREEN, line_width=2.5)
        fe.vspan(x="x", source=self.qline, line_color=VERMILLION, line_width=2, level=DRAG_LAYER)
        fe.xaxis.axis_label = "query x"
        fe.yaxis.axis_label = "entropy (bits)"
        _effective_axis(fe)
        return fe

    def _h_span(self):
        return Span(location=self.state.bandwidth * math.sqrt(self.state.temperature), dimension="height",
                    line_color=VERMILLION, line_width=2)

    def entropy_h_figure(self):
        """Entropy at the query against the bandwidth (h·√T), on the same fixed 0 .. log2 n as along x."""
        fh = _style(figure(height=220, sizing_mode="stretch_width", min_width=260, x_axis_type="log",
                           x_range=self.h_range, tools="", title="Spread against h", y_range=self.ent_range,
                           name="entropy_h_plot"))
        fh.line("h", "ent", source=self.hent, line_color=GREEN, line_width=2.5, level=DRAG_LAYER)
        self.hspan_ent = self._h_span()
        fh.add_layout(self.hspan_ent)
        fh.xaxis.axis_label = "bandwidth h\u00b7\u221aT"
        fh.yaxis.axis_label = "entropy (bits)"
        _effective_axis(fh)
        _plain_log_ticks(fh)
        return fh

    def bias_variance_figure(self):
        """Leave-one-out error, bias² and variance against the bandwidth, with the current h·√T marked."""
        fb = _style(figure(height=240, sizing_mode="stretch_width", min_width=260, x_axis_type="log",
                           x_range=self.h_range, tools="", title=text.BIAS_TITLES["truth"],
                           y_range=DataRange1d(start=0), name="bias_variance_plot"))
        src = self.hcurve
        # its legend is HTML under it (bias_legend): it wraps on a phone and takes no room from the plot
        self.bias_items = [("leave-one-out error", "black", "solid"), ("bias\u00b2", ORANGE, "solid"),
                           ("variance", SKY, "solid"), ("bias\u00b2 + variance", PURPLE, "dashed")]
        fb.line("h", "loo", source=src, line_color="black", line_width=2.5)
        fb.line("h", "bias2", source=src, line_color=ORANGE, line_width=2)
        fb.line("h", "variance", source=src, line_color=SKY, line_width=2)
        fb.line("h", "error", source=src, line_color=PURPLE, line_width=2, line_dash="dashed")
        self.hspan_bv = self._h_span()
        fb.add_layout(self.hspan_bv)
        fb.xaxis.axis_label = "bandwidth h\u00b7\u221aT"
        fb.yaxis.axis_label = "squared error"
        fb.yaxis.formatter = theme.steady_ticks()   # its span follows the dataset
        _plain_log_ticks(fb)
        return fb

    # -- controls and texts ----------------------------------------------------------------------------
    def controls(self) -> dict:
        """The section's declared controls (state.py ``CONTROLS``) but the generator's, with what only this view
        knows: the dataset menu's and the kernel menu's labels, the sliders' steps and formats."""
        state = self.state
        options = [(n, n) for n in self.names] + [("generated", "generated (seeded)")]
        extra = {"query": dict(step=0.01, format=theme.signed_format(2)),
                 "kernel": dict(options=text.kernel_options(state.key_norm), sizing_mode="stretch_width"),
                 "key_norm": dict(step=0.005, format=theme.signed_format(3), visible=state.kernel == "dot"),
                 "dataset": dict(value=self.name if self.name in dict(options) else "default", options=options,
                                 sizing_mode="stretch_width")}
        return build_controls(MAIN_CONTROLS, state, extra)

    def texts(self) -> dict:
        css, notices = [self.css], self.notices
        return dict(
            # the compact line under the plot (max weight, effective points, prediction) and the plot's legend
            strip=Div(text="", name="readout_strip", stylesheets=css, sizing_mode="stretch_width"),
            legend=Div(text=text.legend_html(self.state.limits), name="legend", stylesheets=css,
                       sizing_mode="stretch_width"),
            readout=Div(text="", name="readouts", stylesheets=css, sizing_mode="stretch_width", min_width=260),
            # what a screen reader hears (querytexts.js announce: politely, when the numbers rest); not seen
            announce=Div(text="", name="readout_announcer", styles=VISUALLY_HIDDEN),
            caption=Div(text="", name="caption", stylesheets=css, sizing_mode="stretch_width"),
            limits=Div(text="", name="limits", stylesheets=css, sizing_mode="stretch_width"),
            notice=Div(text="".join(f'<p class="notice">{text.escape(n)}</p>' for n in notices), name="notices",
                       stylesheets=css, visible=bool(notices), sizing_mode="stretch_width"),
            dataset=Div(text="", name="dataset_description", stylesheets=css, sizing_mode="stretch_width"),
            own_form=Div(text=text.OWN_DATA_FORM, name="own_data_form", sizing_mode="stretch_width",
                         stylesheets=[self.css, InlineStyleSheet(css=text.OWN_DATA_CSS)]),
            own_status=Div(text="", name="own_data_status", stylesheets=css, sizing_mode="stretch_width",
                           ),
            # under the error plot: what it shows, for the data shown (the engine writes it when they change)
            # under the error plot: where its curves are lowest, and where its marker stands (the engine writes it)
            bias_words=Div(text="", name="bias_words", stylesheets=css, sizing_mode="stretch_width"),
            bias_note=Div(text=text.bias_note(self.dataset.noise if self.dataset.function else None),
                          name="bias_note", stylesheets=css, sizing_mode="stretch_width"),
        )

    # -- the engine ------------------------------------------------------------------------------------
    def config(self) -> dict:
        state, spec = self.state, url_spec(type(self.state))   # the page's link, every section's keys
        return {
            "spec": spec, "x_range": list(X_RANGE), "grid_n": GRID_N, "h_grid": list(H_GRID),
            "error_words": text.ERROR_WORDS,
            "generator_keys": list(GENERATOR_KEYS),
            # the error curves against h of a large dataset are worked out in a Web Worker (ui/worker.js)
            "worker_modules": worker_modules("AttnMirror"), "worker_above_n": WORKER_ABOVE_N,
            "dots_above_n": DOTS_ABOVE_N, "palette": list(WEIGHT_PALETTE),
            "datasets": {n: dataset_payload(n) for n in self.names},
            # the check boxes (state.py CONTROLS), which the engine reads, resets and writes into the link alike
            "toggles": [{"key": c.key, "widget": c.widget} for c in MAIN_CONTROLS if c.kind == "toggle"],
            # the settings a tour step's goal may compare (readouts.js, twin of readouts.py), and the bandwidths
            # over which its loo_excess looks for the lowest leave-one-out error
            "settings": [{"key": c.key, "widget": c.widget, "log": c.kind == "log_slider"} for c in MAIN_CONTROLS
                         if c.prop == "value"],
            "loo_grid": list(LOO_GRID),
            "initial": {"query": state.query, "bandwidth": state.bandwidth, "temperature": state.temperature,
                        "kernel": state.kernel, "key_norm": state.key_norm},
            "defaults": {k: v["default"] for k, v in spec.items()}, "theme": theme.js_config(state.present),
            "url_rules": url_rules(), "url_delay_ms": URL_DELAY_MS,
            "weight_axis": {"fixed_up_to_n": WEIGHT_AXIS_FIXED_UP_TO_N, "steps": list(WEIGHT_AXIS_STEPS),
                            "keep": WEIGHT_AXIS_KEEP, "pad": WEIGHT_AXIS_PAD, "titles": WEIGHT_TITLES},
            "limits": {"one_sample": text.ONE_SAMPLE_WEIGHT, "near_uniform": text.NEAR_UNIFORM_FRACTION,
                       "sharp_weight": text.SHARP_WEIGHT, "sharp_share": text.SHARP_SHARE,
                       "flat_tol": text.FLAT_TOL},
            "legend": {"on": text.legend_html(True), "off": text.legend_html(False),
                       "on_data": text.legend_html(True, truth=False), "off_data": text.legend_html(False, truth=False)},
            # your own data: the reader's limits and words (app/userdata/, one definition), the page's words
            "userdata": userdata.config(), "own": dict(text.OWN_WORDS),
            # the error plot's title and words, and the kernel menu's labels, follow the data and the tilt
            "bias": {"titles": text.BIAS_TITLES, "note": text.BIAS_NOTE}, "kernel_labels": text.KERNEL_LABELS,
        }

    def engine(self, figures: dict, w: dict, divs: dict):
        """The engine and its arguments; everything only the engine writes lives only in the browser (no
        websocket traffic per frame; the query slider is synced a few times a second)."""
        f, g = figures, self.generator
        models = engine_args(
            synced=dict(config=self.config(), ds=self.ds,
                        figs=[f["main"], f["weights"], f["entropy_x"], f["entropy_h"], f["bias_variance"]],
                        shared_figs=[f["main"], f["weights"], f["entropy_x"]], ent_range=self.ent_range,
                        **{f"w_{k}": v for k, v in w.items()}, w_reset=self.reset,
                        **{f"g_{k}": v for k, v in g.items()}, user_data=self.user_data,
                        # (a dict: engine_args marks lists of browser-only models, not dicts; the engine writes
                        # only the labels' texts, once per dataset)
                        units=units_models(self.ds)),
            browser_only=dict(samples=self.samples, marks=self.marks, dots=self.dots, stems=self.stems,
                              stem_tops=self.stem_tops, curve=self.curve, kshape=self.kshape, hent=self.hent,
                              hcurve=self.hcurve,
                              qpred=self.qpred, qtrue=self.qtrue, span_main=self.span_main, qline=self.qline,
                              hspan_ent=self.hspan_ent, hspan_bv=self.hspan_bv,
                              mean_span=self.mean_span, nn_renderer=self.nn_r, readout_div=divs["readout"],
                              caption_div=divs["caption"], limits_div=divs["limits"], notice_div=divs["notice"],
                              dataset_div=divs["dataset"], strip_div=divs["strip"], legend_div=divs["legend"],
                              announce_div=divs["announce"], own_form=divs["own_form"],
                              own_status=divs["own_status"], bias_note=divs["bias_note"], bias_words=divs["bias_words"],
                              bias_legend=self.bias_legend))
        if set(models) != set(ENGINE_ARGS):
            raise RuntimeError(f"the engine's arguments and ENGINE_ARGS differ: {set(models) ^ set(ENGINE_ARGS)}")
        engine = engine_callback(models, engine_source())
        self.span_main.js_on_change("location", engine)
        wire(MAIN_CONTROLS, w, engine)
        self.reset.js_on_event("button_click", engine)
        g["go"].js_on_event("button_click", engine)
        for event in MAIN_PLOT_EVENTS:
            f["main"].js_on_event(event, engine)
        self.ds.js_on_change("data", engine)
        self.user_data.js_on_change("data", engine)   # a notebook's e.data = ...
        return engine, models

    # -- the layout ------------------------------------------------------------------------------------
    def more_open(self) -> bool:
        """Whether a control behind "More controls" holds something other than its default (a deep link, a
        notebook's parameters): then the disclosure starts open, and the student sees why the page looks so."""
        state, defaults = self.state, {k: v["default"] for k, v in url_spec(type(self.state)).items()}
        return self.name != defaults["dataset"] or any(
            getattr(state, key) != defaults[key] for key in MORE_KEYS if key != "dataset")

    def generator_box(self):
        """The seeded dataset generator (under "More controls"), run in the browser (attention/generator.js).  n is not
        bounded by the field: the engine clamps a typed n and says so in a notice, as the deep link's parser does."""
        state = self.state
        p = type(state).param
        self.generator = build_controls(GENERATOR_CONTROLS, state, {
            "fn": dict(width=140), "n": dict(width=110),
            "noise": dict(low=p.noise.bounds[0], high=p.noise.bounds[1], width=100),
            "seed": dict(low=p.seed.bounds[0], high=p.seed.bounds[1], width=110)})
        self.generator["go"] = Button(label="Generate", button_type="primary", width=110, align="end",
                                      name="generator_go", stylesheets=[InlineStyleSheet(css=theme.PRIMARY_BUTTON_CSS)])
        note = Div(text=f'<p class="dataset">{text.escape(text.GENERATOR_NOTE)}</p>', stylesheets=[self.css],
                   sizing_mode="stretch_width", name="generator_note")
        return column(note, row(*self.generator.values(), sizing_mode="stretch_width", styles=WRAP),
                      sizing_mode="stretch_width", name="generator")

    def more_box(self, w: dict):
        """Everything behind "More controls": kernel, tilt, dataset and its generator, the check boxes, Reset and
        the link.  Its own block, drawn when the student opens it (or when the browser is idle)."""
        # the kernel menu shows its longest option whole ("dot product, equal-norm keys", which a step names)
        w["kernel"].min_width, w["dataset"].min_width = 260, 160
        self.reset = Button(label="Reset", button_type="default", min_width=90, name="reset_button")
        hidden = [row(w["kernel"], w["dataset"], sizing_mode="stretch_width", styles=WRAP),
                  w["keynorm"],
                  row(*(w[c.widget] for c in by_role(CONTROLS, "more") if c.kind == "toggle"),
                      sizing_mode="stretch_width", styles=WRAP),
                  row(self.reset, *build_share(self.figure_menu).models(),  # app/ui/share.py: copy a link to this state
                      sizing_mode="stretch_width", styles=WRAP),
                  self.generator_box(),
                  column(self.divs["own_form"], self.divs["own_status"], sizing_mode="stretch_width",
                         name="own_data")]
        self.more = column(*hidden, sizing_mode="stretch_width", name="more_controls", visible=self.more_open())
        return self.more

    def blocks(self, f: dict, w: dict, divs: dict) -> list:
        """The section as the page draws it (app/ui/layout.py): the figure and the controls that act on it
        (the stage, kept in view), the two plots that share its x axis, then beside them (below them on a
        phone) the readouts, "More controls", the words about the state and the plots against h."""
        css = [self.css]
        # The query slider spans the main plot's frame: its padding follows the shared borders (theme.py), less
        # the padding its block has where the plot's has none (--block-inset, STAGE_CSS).
        w["query"].styles = {"padding": "0 calc(var(--shared-x-right, 64px) - 5px - var(--block-inset, 0px)) 0 "
                                        "calc(var(--shared-x-left, 80px) - 5px - var(--block-inset, 0px))",
                             "box-sizing": "border-box"}
        for key in ("logh", "logt"):
            w[key].min_width = 140
        stage_controls = column(divs["strip"], w["query"], row(w["logh"], w["logt"], sizing_mode="stretch_width",
                                                                styles=WRAP),
                                divs["announce"], sizing_mode="stretch_width", name="stage_controls")
        self.more_button = Button(label=MORE_LABEL, name="more_controls_toggle", button_type="default",
                                  stylesheets=[InlineStyleSheet(css=MORE_CSS)])
        readouts = column(divs["readout"], Div(text=text.ENTROPY_WORDS, stylesheets=css, sizing_mode="stretch_width",
                                                name="entropy_words"),
                          self.more_button, sizing_mode="stretch_width", name="readout_box")
        more = self.more_box(w)
        texts = column(divs["caption"], divs["limits"], divs["dataset"], sizing_mode="stretch_width",
                       name="state_words")
        self.bias_legend = Div(stylesheets=css, sizing_mode="stretch_width", name="bias_legend")
        set_bias_legend(self.bias_legend, self.bias_items)
        explain = Div(text=text.EXPLAIN_REGRESSION, stylesheets=css, sizing_mode="stretch_width",
                      name="explain_regression")
        head = column(Div(text=text.INTRO, stylesheets=css, sizing_mode="stretch_width", name="intro"),
                      divs["notice"], sizing_mode="stretch_width", name="regression_head")
        H = theme.FIGURE_PX
        from .poster import opening_posters

        posters = opening_posters(self.state, self.dataset, intro=text.INTRO, labels=text.FIGURES,
                                  dots_above_n=DOTS_ABOVE_N, lines=LINES,
                                  weight_axis=(WEIGHT_AXIS_PAD, WEIGHT_TITLES["fixed"], WEIGHT_AXIS_FIXED_UP_TO_N),
                                  sliders={k: w[k] for k in ("query", "logh", "logt")})
        blocks = [
            Block("regression-head", head, "head", height=150, first=True),
            Block("regression-plot", f["main"], "stage", height=H["regression-plot"], first=True, css_height=True),
            Block("regression-controls", stage_controls, "stage", height=170, first=True),
            Block("regression-legend", divs["legend"], "xplots", height=30, first=True),
            Block("regression-weights", f["weights"], "xplots", height=H["regression-weights"], first=True,
                  css_height=True),
            Block("regression-spread", f["entropy_x"], "xplots", height=H["regression-spread"], first=True,
                  css_height=True),
            Block("regression-readouts", readouts, "side", height=260, first=True),
            Block("regression-more", more, "side", height=330 if more.visible else 0),
            Block("regression-words", texts, "side", height=150),
            Block("regression-spread-h", f["entropy_h"], "side", height=260),
            Block("regression-bias", column(f["bias_variance"], self.bias_legend, divs["bias_note"], divs["bias_words"],
                                            sizing_mode="stretch_width"), "side", height=460),
            Block("regression-explain", explain, "side", height=60),
        ]
        for b in blocks:
            b.poster = posters.get(b.name, "")
        return blocks

    def disclosure(self, w: dict) -> CustomJS:
        """The "More controls" button's own callback (app/regression/disclosure.js): it shows or hides the
        column, keeps aria-expanded true to it, and opens the column when a hidden control leaves its
        default.  It hears the widgets itself, so the section's engine needs no change for it."""
        spec, more = url_spec(type(self.state)), by_role(CONTROLS, "more")
        config = {"spec": spec, "url_rules": url_rules(), "keys": list(MORE_KEYS),
                  "defaults": {k: spec[k]["default"] for k in MORE_KEYS}, "block": "regression-more",
                  "controls": [{"key": c.key, "widget": c.widget, "prop": c.prop} for c in more]}
        cb = engine_callback(dict(config=config, button=self.more_button, more=self.more,
                                  w={c.widget: w[c.widget] for c in more}), disclosure_source())
        self.more_button.js_on_event("button_click", cb)
        self.more.js_on_change("visible", cb)
        wire(more, w, cb)
        return cb


WRAP = {"flex-wrap": "wrap", "gap": "4px 16px"}
# The heights of the three plots that share the x axis (their blocks' heights are set here; the figures fill
# them).  On a phone the main plot takes about a third of the screen and stays in view with its sliders
# (the stage); on a wide screen the whole figure column (the stage and the two plots under it) stays in
# view beside the side column, so the plots share the screen's height left after the stage's controls
# (--stage-rest: the controls block and the gaps, larger in presentation mode).
STAGE_CSS = f"""
.b-regression-plot {{ height: clamp(180px, 25vh, 300px); }}
.b-regression-weights {{ height: {theme.FIGURE_PX["regression-weights"]}px; }}
.b-regression-spread {{ height: {theme.FIGURE_PX["regression-spread"]}px; }}
/* projected, every plot keeps a frame of 240 px or more (its larger text takes about 105 px of its height) */
.attn-page[data-present="1"] .b-regression-plot {{ height: clamp(350px, 40vh, 460px); }}
.attn-page[data-present="1"] .b-regression-weights, .attn-page[data-present="1"] .b-regression-spread {{
  height: 350px; }}
/* on a phone the controls' block has 4 px of padding each side and the plot's none (app/ui/layout.py) */
@media (max-width: 599px) {{ .b-regression-controls {{ --block-inset: 4px; }} }}
@media (min-width: {WIDE}px) {{
  .attn-sec-regression {{ --stage-rest: 200px; }}
  .attn-page[data-present="1"] .attn-sec-regression {{ --stage-rest: 280px; }}
  .b-regression-plot {{ height: clamp(200px, calc((100vh - var(--stage-rest)) * 0.52), 640px); }}
  .b-regression-weights, .b-regression-spread {{
    height: clamp(96px, calc((100vh - var(--stage-rest)) * 0.24), 300px); }}
  /* projected: the two plots under the main plot keep their 350 px, and the figure column scrolls inside itself
     where the screen is too short for all three (app/ui/layout.py) */
  .attn-page[data-present="1"] .b-regression-plot {{
    height: clamp(350px, calc((100vh - var(--stage-rest)) * 0.5), 520px); }}
  .attn-page[data-present="1"] .b-regression-weights, .attn-page[data-present="1"] .b-regression-spread {{
    height: 350px; }}
}}
"""
# The deep link's keys of the controls behind "More controls" (a link that sets one opens it).
MORE_KEYS = tuple(c.key for c in by_role(CONTROLS, "more"))
MORE_LABEL = "More controls"
# The arrow says open or closed; "/ ''" keeps it out of the button's accessible name ("More controls").
MORE_CSS = """
button[aria-expanded="false"]::after { content: " \\25BE" / ""; }
button[aria-expanded="true"]::after { content: " \\25B4" / ""; }
"""


@lru_cache(maxsize=None)
def disclosure_source() -> str:
    """The disclosure's JS: ui/common.js (for parseQuery), then disclosure.js and its call."""
    return engine_code(HERE / "disclosure.js", "AttnMore.handle", ["config", "button", "more", "w"])


WEIGHT_TICKS_JS = """
if (tick === 0) return "0";
return ticks[ticks.length - 1] < 1 ? "" : String(Number(tick.toPrecision(2)));
"""


def _plain_log_ticks(fig):
    """Plain numbers on a log axis (0.01, 0.1, 1, 10), never exponent notation."""
    fig.xaxis.formatter = CustomJSTickFormatter(code="return String(Number(tick.toPrecision(2)));")
