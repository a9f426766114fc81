"""The "learning what similar means" section: the kernel trained by gradient descent, played back on the page.

``build_learning(state, regression=...)`` returns the section as
Bokeh layout plus its engine (a ``CustomJS`` made of ``mirror.js``,
``ui/common.js`` for the shared URL parser, text helpers and the page's bus, and
``engine.js``, the glue).  Two demos:

* **the bandwidth** (1-D, part of the regression view): the paths of
  ``attention.train_bandwidth`` from h0 = 0.15 for every shipped dataset and
  every learning-rate preset are computed here (once per process) and played
  back in the browser; each step sets the regression's bandwidth slider, so
  the main plot redraws.  The path is drawn on the regression's bias-variance
  plot.  In the served page a generated dataset's path is computed on demand
  and pushed to the ``learn_generated`` data source.
* **a metric** (2-D keys): the paths of ``attention.train_metric`` from W0 = I
  on ``data/metric2d.json``; the browser computes the dragged query's weights
  and its similarity ellipse from W with the mirror's twins of the core.

The same builder serves ``panel serve`` and the offline file.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
from bokeh.models import (Button, ColorBar, ColumnDataSource, CustomJS, DataRange1d, Div, InlineStyleSheet,
                          LinearColorMapper, Range1d, Row)
from bokeh.layouts import column, row
from bokeh.palettes import PuOr11
from bokeh.plotting import figure

import attention
from attention import learn
from attention.datasets import X_RANGE
from attention.regression import GRID_N, LOO_GRID

from app.ui import theme
from app.ui.controls import build_control
from app.ui.text import escape
from app.ui.engine import engine_args, engine_callback, engine_code, url_rules, worker_modules
from app.ui.layout import Block
from app.ui.theme import BLUE, GREEN, GREY, PAGE_CSS, PAGE_STYLES, VERMILLION
from app.state import url_spec

from .state import (BANDWIDTH_LR_PRESETS, BANDWIDTH_TRAIN_STEPS, CONTROLS, METRIC_LR_PRESETS,
                    METRIC_TRAIN_STEPS, LearningState)
from . import text

HERE = Path(__file__).resolve().parent
log = logging.getLogger(__name__)

H0 = 0.15                      # the bandwidth's fixed start: close to the 1-nearest-neighbour end
STEPS = BANDWIDTH_TRAIN_STEPS  # 60, attention.learn.DEFAULT_BANDWIDTH_STEPS
METRIC_STEPS = METRIC_TRAIN_STEPS  # 150, attention.learn.DEFAULT_METRIC_STEPS
METRIC_RANGE = (-3.5, 3.5)     # both axes of the metric plot (the samples live in [-3, 3]^2)
METRIC_QUERY = (1.0, 0.0)      # where the metric demo's query starts
ELLIPSE_LEVEL = 1.0            # keys inside the curve score above -1: weight >= e^-1 of a key at the query
ELLIPSE_POINTS = 96
ELLIPSE_MAX_RADIUS = 50.0      # a nearly ignored direction is drawn this long (far off the plot)
WORKER_ABOVE_N = 300           # a path on more samples than this is trained in a Web Worker (n = 2000: ~1 s)
FOCUS_GRID = (*X_RANGE, GRID_N)  # the queries typical_focus looks at: the regression curve's x grid
TICK_MS = 40                   # playback: one step every 40 ms (25 steps a second)
URL_KEYS = ("lr", "step", "metric_lr", "metric_step")
Y_PALETTE = PuOr11   # Bokeh's, purple (low y) to orange (high y); readable with colour-vision deficiencies

LEARN_CSS = PAGE_CSS + """
h2 { font-size: 1.4em; margin: 1em 0 0.2em; border-top: 1px solid #ddd; padding-top: 0.6em; }
table.matrix { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 2px 0 6px; }
table.matrix th { font-weight: normal; color: #444; padding: 2px 10px; text-align: center; }
table.matrix td { font-weight: bold; padding: 3px 12px; text-align: right; border: 1px solid #ccc; }
p.step { font-variant-numeric: tabular-nums; margin: 4px 0; }
"""

INTRO = """
<h2>Learning what &ldquo;similar&rdquo; means</h2>
<p>Above, you picked the bandwidth yourself; a transformer learns what &ldquo;similar&rdquo; means from data.
Here the computer scores a setting by the <b>leave-one-out (LOO) error</b> (predict each sample from all the
others) and walks downhill, a step at a time, as far as the <b>learning rate</b> says.</p>
"""

BANDWIDTH_HEAD = "<h3>Learn the bandwidth</h3>"
# {start} is where training starts and what a query does there (text.start_sentence: "Training starts at h = 0.15,
# where the largest weight a query gives is typically 0.60: ..."), which the engine fills for the data shown
# (bandwidth_text; twin: bwText in bandwidth.js, startSentence in starttext.js).
BANDWIDTH_TEXT = """
<p>Press <i>Step</i> or <i>Play</i>. {start}</p>
<p>Each step moves log&nbsp;h downhill, and the slider above follows. Then try other learning rates: a small one
crawls, a large one bounces, the largest is refused.</p>
<details><summary>What the green path shows</summary>
<p>&ldquo;The fit, as h is learned&rdquo; is a live copy of the fit above. The green path climbs down the leave-one-out curve (the
black line), and the green diamond marks the current step, here and on the error plot above.</p>
<p>Each step changes log&nbsp;h by &minus;(learning rate &times; slope). A
rate that is too large leaps onto a flat stretch and stalls there.</p>
</details>
"""


def bandwidth_text(start: str, focus) -> str:
    """The bandwidth demo's words: where training starts (``start``: "h = 0.15", "h = 0.725 (day)") and how
    sharply a query attends there (``focus``: ``attention.typical_focus`` at the path's first h)."""
    return BANDWIDTH_TEXT.replace("{start}", escape(text.start_sentence(start, focus.max_weight,
                                                                        focus.effective_points)))


def start_focus(x, h: float = H0) -> attention.regression.Focus:
    """``attention.typical_focus`` of the keys ``x`` at bandwidth ``h`` (T = 1), over FOCUS_GRID: how sharply a
    typical query attends where training starts (twin: the engine's, in bandwidth.js)."""
    return attention.typical_focus(np.linspace(*FOCUS_GRID), np.asarray(x, dtype=float), bandwidth=h)


METRIC_HEAD = "<h3>Learn a metric: which directions matter</h3>"
METRIC_TEXT = """
<p>Now each key is a point (x<sub>1</sub>, x<sub>2</sub>), scored against the query q by
&minus;&#8214;W(q&minus;k)&#8214;&sup2;/2 with a 2&times;2 matrix W, and y&nbsp;=&nbsp;sin(x<sub>1</sub>) plus
noise: x<sub>2</sub> does not matter. W starts as the identity. Drag the query, then press <i>Play</i>: the
orange-red curve narrows along x<sub>1</sub> and stretches along x<sub>2</sub>.</p>
<details><summary>What the curve means</summary>
<p>Keys inside the orange-red curve get at least e<sup>&minus;1</sup> (37&nbsp;%) of the weight a key sitting
on the query would get. At the start the curve is a circle: the query listens to neighbours in every
direction.</p>
</details>
"""

METRIC_EXPLAIN = """
<p><b>What this says about W<sub>Q</sub> and W<sub>K</sub>.</b> Nobody tells a network which features should
make two inputs similar: training adjusts the projections until the weights fall where they help predict.</p>
<details><summary>More</summary>
<p>In a transformer the score is q&middot;k with q&nbsp;=&nbsp;W<sub>Q</sub>x and k&nbsp;=&nbsp;W<sub>K</sub>x;
here both projections are the same W. In this plane W learns to ignore x<sub>2</sub> (its x<sub>2</sub> column
shrinks towards 0) and to look closely along x<sub>1</sub>. A real model does this in hundreds of directions,
and each head learns its own idea of similar.</p>
</details>
"""


# ---------------------------------------------------------------------------
# the trajectories (computed by the core, once per process)
# ---------------------------------------------------------------------------

def _bandwidth_columns(tr) -> dict:
    msgs = [text.refusal_text(m, tr.learning_rate, BANDWIDTH_LR_PRESETS) for m in tr.message]
    return {"h": tr.h.tolist(), "loss": tr.loss.tolist(), "grad": tr.grad.tolist(), "status": list(tr.status),
            "message": msgs}


def bandwidth_trajectory_for(x, y, lr: str) -> dict:
    """The path of ``attention.train_bandwidth`` from h0 = 0.15 at learning rate ``lr``, as JSON-ready columns."""
    tr = attention.train_bandwidth(x, y, h0=H0, learning_rate=float(lr), steps=STEPS)
    return _bandwidth_columns(tr)


@lru_cache(maxsize=None)
def bandwidth_trajectory(dataset: str, lr: str) -> dict:
    """The path for a shipped dataset (cached: a server computes it once per process)."""
    d = attention.load_dataset(dataset)
    return bandwidth_trajectory_for(d.x, d.y, lr)


@lru_cache(maxsize=1)
def bandwidth_trajectories() -> dict:
    """{dataset: {lr: columns}} for every shipped dataset and every preset."""
    return {name: {lr: bandwidth_trajectory(name, lr) for lr in BANDWIDTH_LR_PRESETS}
            for name in attention.list_datasets()}


@lru_cache(maxsize=None)
def metric_trajectory(lr: str) -> dict:
    """The path of ``attention.train_metric`` from W0 = I on metric2d.json at learning rate ``lr``."""
    m = learn.load_metric_dataset()
    tr = attention.train_metric(m.X, m.y, W0=np.eye(2), learning_rate=float(lr), steps=METRIC_STEPS)
    msgs = [text.refusal_text(m, tr.learning_rate, METRIC_LR_PRESETS) for m in tr.message]
    return {"W": tr.W.tolist(), "loss": tr.loss.tolist(), "status": list(tr.status), "message": msgs}


@lru_cache(maxsize=1)
def metric_config() -> dict:
    m = learn.load_metric_dataset()
    return {"X": m.X.tolist(), "y": m.y.tolist(), "presets": list(METRIC_LR_PRESETS), "steps": METRIC_STEPS,
            "trajectories": {lr: metric_trajectory(lr) for lr in METRIC_LR_PRESETS},
            "level": ELLIPSE_LEVEL, "points": ELLIPSE_POINTS, "max_radius": ELLIPSE_MAX_RADIUS,
            "query": list(METRIC_QUERY), "range": list(METRIC_RANGE), "formula": m.formula}


def precompute() -> float:
    """Compute every shipped trajectory now; returns the seconds it took (0 if they were cached)."""
    t0 = time.perf_counter()
    bandwidth_trajectories()
    metric_config()
    return time.perf_counter() - t0


# ---------------------------------------------------------------------------
# the section
# ---------------------------------------------------------------------------

# The engine's modules, each using the ones before it (engine.js says what each holds).
ENGINE_FILES = tuple(HERE / f for f in ("onpage.js", "starttext.js", "bandwidth.js", "metric.js", "playback.js",
                                        "engine.js"))


@lru_cache(maxsize=None)
def engine_source() -> str:
    """The page's library (attention/mirror.js: formulas; ui/common.js: URL parser, number formats, the page's bus; ...),
    then ENGINE_FILES and the call."""
    return engine_code(ENGINE_FILES, "Learning.handle", ENGINE_ARGS)


ENGINE_ARGS = [
    "config", "ds", "gen", "w_logh", "w_logt", "w_kernel", "w_link",
    "bw_lr", "bw_play", "bw_pause", "bw_step", "bw_reset", "bw_readout", "bw_status", "bw_path", "bw_now",
    "bw_loss", "bw_text", "m_lr", "m_play", "m_pause", "m_step", "m_reset", "m_readout", "m_status", "m_matrix",
    "m_samples", "m_ellipse", "m_query", "m_loss", "m_fig", "bw_loss_range", "m_loss_range",
    "fit_x_axis", "fit_y_axis", "path_h_axis",
]


@dataclass
class LearningView:
    layout: object
    engine: CustomJS
    widgets: dict
    models: dict = field(default_factory=dict)
    parts: dict = field(default_factory=dict)
    blocks: list = field(default_factory=list)   # app/ui/layout.Block, in page order


def _buttons(prefix: str):
    play = Button(label="\u25b6 Play", button_type="primary", min_width=90, name=f"{prefix}_play",
                  stylesheets=[InlineStyleSheet(css=theme.PRIMARY_BUTTON_CSS)])
    pause = Button(label="\u275a\u275a Pause", min_width=90, name=f"{prefix}_pause", disabled=True)
    step = Button(label="Step \u203a", min_width=90, name=f"{prefix}_step_button")
    reset = Button(label="\u21ba Reset", min_width=90, name=f"{prefix}_reset")
    return play, pause, step, reset


def _lr_options(presets, default):
    return [(p, f"{p} (default)" if p == default else p) for p in presets]


def build_learning(state, *, regression: dict) -> LearningView:
    """The learning section for ``state``; ``regression``: what it borrows of the regression section it drives
    (its contract's ``borrows``: the data, the curves, the sliders, the plots it draws on)."""
    return LearningSection(state, regression=regression).view()


class LearningSection:
    """Builds the learning section, one method per part: the bandwidth demo's sources, figures and controls,
    the metric demo's, the engine, the served page's Python callbacks and the layout."""

    def __init__(self, state, *, regression: dict):
        self.state, self.rm = state, regression
        self.ds = self.rm["ds"]
        self.css = InlineStyleSheet(css=LEARN_CSS)
        self.spec = url_spec(LearningState)

    def view(self) -> LearningView:
        self.bandwidth_sources()
        fb = self.draw_on_bias_variance()
        figs = dict(fit=self.fit_figure(), path=self.path_figure(fb), loss=self.loss_figure(),
                    metric=self.metric_figure(), metric_loss=self.metric_loss_figure())
        self.controls()
        engine, models = self.engine(figs)
        layout, parts = self.layout(figs)
        widgets = dict(lr=self.bw_lr, play=self.bw_buttons[0], pause=self.bw_buttons[1], step=self.bw_buttons[2],
                       reset=self.bw_buttons[3], metric_lr=self.m_lr, metric_play=self.m_buttons[0],
                       metric_pause=self.m_buttons[1], metric_step=self.m_buttons[2], metric_reset=self.m_buttons[3])
        models.update(path_plot=figs["path"], loss_plot=figs["loss"], metric_loss_plot=figs["metric_loss"],
                      bias_variance_plot=fb)
        blocks = [Block("learning-intro", parts["intro"], "body", height=200),
                  Block("learning-bandwidth-head", parts["bandwidth_head"], "body", height=110),
                  Block("learning-bandwidth", parts["bandwidth"], "body", height=280),
                  Block("learning-bandwidth-words", parts["bandwidth_words"], "body", height=310),
                  Block("learning-metric", parts["metric"], "body", height=900)]
        return LearningView(layout=layout, engine=engine, widgets=widgets, models=models, parts=parts, blocks=blocks)

    # -- the bandwidth ------------------------------------------------------------------------------------
    def bandwidth_sources(self):
        self.bw_path = ColumnDataSource({"h": [], "loss": []}, name="learn_bw_path")
        self.bw_now = ColumnDataSource({"h": [], "loss": []}, name="learn_bw_now")
        self.bw_loss = ColumnDataSource({"step": [], "loss": []}, name="learn_bw_loss")
        self.gen = ColumnDataSource({"h": [], "loss": [], "grad": [], "status": [], "message": []},
                                    name="learn_generated", tags=["{}"])

    def draw_on_bias_variance(self):
        """h's path, drawn on the regression's bias-variance plot."""
        fb = self.rm["bias_variance_plot"]
        fb.line("h", "loss", source=self.bw_path, line_color=GREEN, line_width=2)
        self.rm["add_bias_legend"]("gradient descent on h", GREEN)
        fb.scatter("h", "loss", source=self.bw_path, size=5, color=GREEN)
        fb.scatter("h", "loss", source=self.bw_now, size=12, marker="diamond", fill_color=GREEN, line_color="white",
                   line_width=1.5)
        return fb

    def fit_figure(self):
        """A small live copy of the regression's fit, beside Play: each step of gradient descent moves the
        bandwidth slider, the regression engine redraws its curve, and this plot (which draws the same
        data sources) follows, so the student watches the fit change while h is learned."""
        main = self.rm["main_plot"]
        fit = theme.style_figure(figure(height=240, sizing_mode="stretch_width", min_width=280, tools="",
                                        x_range=main.x_range, y_range=DataRange1d(range_padding=0.15),
                                        title="The fit, as h is learned", name="learn_fit_plot"))
        dots = fit.scatter("x", "y", source=self.ds, size=5, color=GREY, alpha=0.8)  # not `samples`: no repaint per drag
        truth = fit.line("x", "truth", source=self.rm["curve"], line_color="black", line_dash="dashed",
                         line_width=1.5)
        fit.line("x", "pred", source=self.rm["curve"], line_color=BLUE, line_width=3)
        fit.y_range.renderers = [truth, dots]
        fit.xaxis.axis_label = "x"
        fit.yaxis.axis_label = "y"
        return fit

    def path_figure(self, fb):
        fpath = theme.style_figure(figure(height=240, sizing_mode="stretch_width", min_width=280, x_axis_type="log",
                                          x_range=fb.x_range, tools="", y_range=DataRange1d(start=0, range_padding=0.1),
                                          title="Gradient descent on h", name="learn_path_plot"))
        loo_r = fpath.line("h", "loo", source=self.rm["hcurve"], line_color="black", line_width=2)
        fpath.line("h", "loss", source=self.bw_path, line_color=GREEN, line_width=2)
        fpath.scatter("h", "loss", source=self.bw_path, size=6, color=GREEN)
        fpath.scatter("h", "loss", source=self.bw_now, size=14, marker="diamond", fill_color=GREEN,
                      line_color="white", line_width=1.5)
        fpath.y_range.renderers = [loo_r]
        fpath.xaxis.axis_label = "bandwidth h\u00b7\u221aT"
        fpath.yaxis.axis_label = "LOO error"
        fpath.yaxis.formatter = theme.steady_ticks()   # its span follows the dataset
        return fpath

    def loss_figure(self):
        floss = theme.style_figure(figure(height=240, sizing_mode="stretch_width", min_width=280, tools="",
                                          x_range=Range1d(0, STEPS), y_range=Range1d(0, 1),  # y: the whole path's span
                                          title="Loss at each step", name="learn_loss_plot"))
        floss.line("step", "loss", source=self.bw_loss, line_color=GREEN, line_width=2)
        floss.scatter("step", "loss", source=self.bw_loss, size=5, color=GREEN)
        floss.xaxis.axis_label = "step"
        floss.yaxis.axis_label = "LOO error"
        floss.yaxis.formatter = theme.steady_ticks()   # each dataset's path has its own span
        return floss

    # -- the metric ---------------------------------------------------------------------------------------
    def metric_figure(self):
        """The 2-D samples, the dragged query and its similarity ellipse, on a square frame."""
        self.m_samples = ColumnDataSource({"x1": [], "x2": [], "y": [], "w": [], "size": []},
                                          name="learn_metric_samples")
        self.m_ellipse = ColumnDataSource({"x": [], "y": []}, name="learn_metric_ellipse")
        self.m_query = ColumnDataSource({"x": [], "y": []}, name="learn_metric_query")
        lo, hi = METRIC_RANGE
        # a square frame, so distances look like distances ("min" policies: the frame size wins over the row's);
        # 224 px, so the frame and its axes fit 320 px (1280 px at 400 % zoom: WCAG 1.4.10's reflow) less a
        # desktop browser's scrollbar (Firefox's and WebKit's take 12 to 15 px of it)
        m_fig = theme.style_figure(figure(frame_width=224, frame_height=224, width=None, height=None,
                                          x_range=Range1d(lo, hi, bounds=(lo, hi)),
                                          y_range=Range1d(lo, hi, bounds=(lo, hi)), tools="", width_policy="min",
                                          height_policy="min", name="metric_plot", title="Drag the query"))
        cmap = LinearColorMapper(palette=list(Y_PALETTE), low=-1.2, high=1.2)
        m_fig.scatter("x1", "x2", source=self.m_samples, size="size", fill_color={"field": "y", "transform": cmap},
                      line_color="#222", line_width=0.6, fill_alpha=0.95)
        m_fig.line("x", "y", source=self.m_ellipse, line_color=VERMILLION, line_width=2.5)
        m_fig.scatter("x", "y", source=self.m_query, size=14, marker="circle_x", fill_color="white",
                      line_color=VERMILLION, line_width=2.5)
        # below the frame, so the square frame and its axes fit a 360 px phone
        m_fig.add_layout(ColorBar(color_mapper=cmap, title="y", orientation="horizontal", height=10,
                                  major_label_text_font_size=theme.SIZES["normal"]["tick"],
                                  title_text_font_size=theme.SIZES["normal"]["tick"]), "below")
        m_fig.xaxis.axis_label = "x\u2081 (y depends on it)"
        m_fig.yaxis.axis_label = "x\u2082 (irrelevant)"
        return m_fig

    def metric_loss_figure(self):
        self.m_loss = ColumnDataSource({"step": [], "loss": []}, name="learn_metric_loss")
        fmloss = theme.style_figure(figure(height=220, sizing_mode="stretch_width", min_width=260, tools="",
                                           x_range=Range1d(0, METRIC_STEPS), y_range=Range1d(0, 1),
                                           title="Loss at each step", name="metric_loss_plot"))
        fmloss.line("step", "loss", source=self.m_loss, line_color=BLUE, line_width=2)
        fmloss.xaxis.axis_label = "step"
        fmloss.yaxis.axis_label = "LOO error"
        fmloss.yaxis.formatter = theme.steady_ticks()
        return fmloss

    # -- controls and texts -------------------------------------------------------------------------------
    def controls(self):
        state, spec, css = self.state, self.spec, [self.css]
        div = lambda name: Div(text="", name=name, stylesheets=css, sizing_mode="stretch_width")  # noqa: E731
        c = {k.key: k for k in CONTROLS}
        self.bw_lr = build_control(c["lr"], state, width=170,
                                   options=_lr_options(BANDWIDTH_LR_PRESETS, spec["lr"]["default"]))
        self.bw_buttons = _buttons("learn")
        self.bw_readout, self.bw_status = div("learn_bw_readout"), div("learn_bw_status")
        hname = "h" if state.temperature == 1 else "h\u00b7\u221aT"
        self.bw_text = Div(text=bandwidth_text(f"{hname} = {text.h_text(H0, 4)}", start_focus(self.ds.data["x"])),
                           name="learn_bw_text", stylesheets=css, sizing_mode="stretch_width")
        self.m_lr = build_control(c["metric_lr"], state, width=170,
                                  options=_lr_options(METRIC_LR_PRESETS, spec["metric_lr"]["default"]))
        self.m_buttons = _buttons("metric")
        self.m_readout, self.m_status = div("learn_metric_readout"), div("learn_metric_status")
        self.m_matrix = div("learn_metric_W")

    # -- the engine ---------------------------------------------------------------------------------------
    def config(self) -> dict:
        state, spec = self.state, self.spec
        return {
            "tick_ms": TICK_MS, "loo_grid": list(LOO_GRID), "keys": list(URL_KEYS), "spec": {k: spec[k] for k in URL_KEYS},
            "initial": {"lr": state.lr, "step": state.step, "metric_lr": state.metric_lr,
                        "metric_step": state.metric_step},
            "defaults": {k: spec[k]["default"] for k in URL_KEYS},
            "bandwidth": {"h0": H0, "steps": STEPS, "presets": list(BANDWIDTH_LR_PRESETS), "text": BANDWIDTH_TEXT,
                          "focus_grid": list(FOCUS_GRID), "focus_limits": text.FOCUS_LIMITS,
                          "trajectories": bandwidth_trajectories()},
            # a path on a dataset the page made (the generator, your own data) is trained in the browser: in a
            # Web Worker (ui/worker.js running ui/common.js + attention/train.js) above this many samples
            "worker_modules": worker_modules("AttnCommon", "AttnTrain"), "worker_above_n": WORKER_ABOVE_N,
            "metric": metric_config(), "url_rules": url_rules(),
        }

    def engine(self, figs: dict):
        """The engine and its arguments; everything only it writes lives only in the browser (no websocket
        traffic per step)."""
        rm, (bw_play, bw_pause, bw_step, bw_reset), (m_play, m_pause, m_step, m_reset) = (
            self.rm, self.bw_buttons, self.m_buttons)
        models = engine_args(
            synced=dict(config=self.config(), ds=self.ds, gen=self.gen, w_logh=rm["w_logh"], w_logt=rm["w_logt"],
                        w_kernel=rm["w_kernel"], w_link=rm["w_link"], bw_lr=self.bw_lr, bw_play=bw_play,
                        bw_pause=bw_pause, bw_step=bw_step, bw_reset=bw_reset, m_lr=self.m_lr, m_play=m_play,
                        m_pause=m_pause, m_step=m_step, m_reset=m_reset, m_fig=figs["metric"]),
            browser_only=dict(bw_path=self.bw_path, bw_now=self.bw_now, bw_loss=self.bw_loss,
                              bw_readout=self.bw_readout, bw_status=self.bw_status, bw_text=self.bw_text,
                              m_samples=self.m_samples,
                              m_ellipse=self.m_ellipse, m_query=self.m_query, m_loss=self.m_loss,
                              m_readout=self.m_readout, m_status=self.m_status, m_matrix=self.m_matrix,
                              bw_loss_range=figs["loss"].y_range, m_loss_range=figs["metric_loss"].y_range,
                              # the axes that write your data's units (an engine meets them through its
                              # arguments, not by name: it may run before their block's part of the page
                              # is decoded, app/ui/loader.js)
                              fit_x_axis=figs["fit"].below[0], fit_y_axis=figs["fit"].left[0],
                              path_h_axis=figs["path"].below[0]))
        if set(models) != set(ENGINE_ARGS):
            raise RuntimeError(f"the engine's arguments and ENGINE_ARGS differ: {set(models) ^ set(ENGINE_ARGS)}")
        engine = engine_callback(models, engine_source())
        for w in (self.bw_lr, self.m_lr, rm["w_logh"]):
            w.js_on_change("value", engine)
        for b in (*self.bw_buttons, *self.m_buttons):
            b.js_on_event("button_click", engine)
        # a drag, a tap, and a button held still before it moves (BokehJS's press, then plain moves: engine.js)
        for ev in ("tap", "pan", "panstart", "press", "pressup", "mousemove"):
            figs["metric"].js_on_event(ev, engine)
        self.ds.js_on_change("data", engine)
        self.gen.js_on_change("data", engine)
        return engine, models

    # -- the layout ---------------------------------------------------------------------------------------
    def layout(self, figs: dict):
        css = [self.css]
        controls_style = {"flex-wrap": "wrap", "gap": "4px 10px", "align-items": "flex-end"}
        bw_controls = row(self.bw_lr, *self.bw_buttons, sizing_mode="stretch_width", styles=controls_style,
                          name="learn_bw_controls")
        # the descent first: the three steps about it look at it and at the controls above it (on a phone, where
        # the plots stand one under the other, the fit would push it a screen away from them)
        bw_plots = row(figs["path"], figs["fit"], figs["loss"], sizing_mode="stretch_width",
                       styles={"flex-wrap": "wrap", "gap": "12px"})
        # the controls right above the plots they drive (a tour step keeps both on screen, above its docked card),
        # the readout and the words after them: three blocks, the first two what a short frame shows (?embed=)
        bandwidth_head = column(Div(text=BANDWIDTH_HEAD, stylesheets=css, sizing_mode="stretch_width"), bw_controls,
                                sizing_mode="stretch_width", name="learn_bandwidth_head")
        bandwidth = column(bw_plots, self.bw_readout, sizing_mode="stretch_width", name="learn_bandwidth")
        bandwidth_words = column(self.bw_status, self.bw_text, sizing_mode="stretch_width", name="learn_bandwidth_words")
        m_controls = row(self.m_lr, *self.m_buttons, sizing_mode="stretch_width", styles=controls_style,
                         name="learn_metric_controls")
        # max-width: the readouts' long lines (which change at every step) must not change the page's width
        # the controls head the column beside the plot they drive (under it on a phone): both in view together
        m_side = column(m_controls, self.m_readout, self.m_matrix, self.m_status, figs["metric_loss"],
                        sizing_mode="stretch_width", min_width=260, styles={"flex": "1 1 260px", "max-width": "560px"})
        m_body = Row(children=[figs["metric"], m_side], sizing_mode="stretch_width",
                     styles={"flex-wrap": "wrap", "gap": "12px"})
        metric = column(Div(text=METRIC_HEAD, stylesheets=css, sizing_mode="stretch_width"), m_body,
                        Div(text=METRIC_TEXT, stylesheets=css, sizing_mode="stretch_width"),
                        Div(text=METRIC_EXPLAIN, stylesheets=css, sizing_mode="stretch_width"),
                        sizing_mode="stretch_width", name="learn_metric")
        parts = {"intro": Div(text=INTRO, stylesheets=css, sizing_mode="stretch_width", name="learn_intro"),
                 "bandwidth_head": bandwidth_head, "bandwidth": bandwidth, "bandwidth_words": bandwidth_words,
                 "metric": metric}
        layout = column(*parts.values(), sizing_mode="stretch_width", name="learning_section", styles=PAGE_STYLES)
        return layout, parts


__all__ = ["build_learning", "LearningView", "bandwidth_trajectory", "bandwidth_trajectories", "metric_trajectory",
           "metric_config", "precompute", "start_focus", "H0", "STEPS", "METRIC_STEPS", "FOCUS_GRID"]
