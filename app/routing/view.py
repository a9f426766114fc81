"""The routing section: the meaning head's W_Q and W_K learned from a task, played back in the browser.

``build_routing(state)`` returns the section as blocks (app/ui/layout.py) and its engine, one ``CustomJS``
made of ``attention/mirror.js`` (the formulas), ``ui/common.js`` (URL parser, number formats, the page's bus),
``attention/words.js`` (AttnWords: a typed sentence's tokens and vectors) and this section's ``engine.js``.

Python trains once per process (``attention.train_qk()``, cached) and hands the browser the path as plain
data (``QKTrajectory.to_plain()``): W_Q and W_K at every recorded step, the loss and the accuracy at every
step, and the shown sentences' word vectors.  The browser computes everything it draws from those:

    A = softmax((X W_Q)(X W_K)^T / sqrt(d_k)),   bank's output point = A[bank] (X W_V P),

for the chosen sentence at the chosen step, and the same for a sentence the student types.  The path's own
rows of weights and points (``to_plain()["sentences"][i]["weights"]``, ``["point"]``) are not sent to the
page at all: the tests hold the browser's rows to them.

Layout: the controls, the matrix and the sense plot are the stage, the weight on the deciding word and the
accuracy under them; beside them (under them on a phone) the readouts, what was learned, W_Q and W_K (behind
"more") and the box for your own sentence.

Playback is paced to be watched (app/routing/pace.py, ``pace()``): slowly while the accuracy climbs,
fast once the answers are settled, with a hold at the moment the shown sentence's deciding word first gets
HOLD_SHARE of the ambiguous word's weight; 10 to 15 s from step 0 to the end, for a shown or a typed sentence.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
from bokeh.layouts import column, row
from bokeh.models import (Button, ColumnDataSource, CustomJS, CustomJSTickFormatter, Div, FixedTicker,
                          HoverTool, InlineStyleSheet, LinearColorMapper, Range1d, Slider, Slope, Span, TextInput)
from bokeh.plotting import figure

import attention
from attention.learn_qk import FROM_SHARE, DEFAULT_FRAMES, QKTrajectory, learned_words, shared_summary, train_qk
from attention.sentences import MAX_TOKENS, load_sentence_model

from app.state import TEXT_MAX, url_spec
from app.ui import theme
from app.ui.controls import build_control
from app.ui.engine import engine_args, engine_callback, engine_code, url_rules
from app.ui.layout import WIDE, Block
from app.ui.theme import BLUE, GREY, ORANGE, PAGE_CSS, VERMILLION, WEIGHT_PALETTE
from app.ui.weights import CELL_TEXT, weight_colour_bar

from . import pace as pace_rules
from . import text
from .state import CONTROLS, QK_SHOWN, RoutingState

HERE = Path(__file__).resolve().parent
FRAMES = DEFAULT_FRAMES           # recorded states of the path the page plays (steps 0, 3, ..., 150)
HOLD_SHARE = 0.5
URL_KEYS = ("qk_step", "qk_sentence")
OWN = "own"                       # the sentence picker's entry for a typed sentence
SENSE_RANGE = (-0.12, 1.12)
# Bokeh paints a plot on two canvases: "overlay" renderers on the top one, all others below.  What changes at
# every step lives there, so a step repaints that canvas only and the axes and grid stay painted.
STEP_LAYER = "overlay"       # the sense plot's axes; a typed sentence's made-up vectors may widen them

ENGINE_ARGS = [
    "config", "w_sentence", "w_play", "w_pause", "w_step", "w_reset", "w_frame", "w_input", "tokens_src", "ticker",
    "cells", "cell_labels", "rowmark", "heat", "sense_values", "sense_trail", "sense_point", "sense_even",
    "undecided_line", "sense_fig", "clue_src", "clue_now", "acc_src", "status_div", "readout_div", "weights_div",
    "own_div", "notice_div",
]

ROUTING_CSS = PAGE_CSS + """
h2 { font-size: 1.4em; margin: 1.2em 0 0.2em; border-top: 1px solid #ddd; padding-top: 0.8em; }
p.step { font-variant-numeric: tabular-nums; margin: 4px 0; }
p.learned { background: #F3F3F3; border-left: 4px solid #009E73; padding: 4px 8px; }
span.tok { display: inline-block; background: #EEF4FA; border: 1px solid #C9DCEC; border-radius: 4px;
           padding: 0 5px; margin: 1px 2px; }
span.tok.unknown { background: #FFF3D6; border-color: #E6C27A; }
div.mats { display: flex; flex-wrap: wrap; gap: 4px 14px; align-items: flex-start; }
table.w { border-collapse: collapse; font-variant-numeric: tabular-nums; }
table.w caption { font-weight: bold; text-align: left; padding: 2px 0; }
table.w th { font-weight: normal; color: #333; text-align: left; padding: 1px 6px 1px 0; white-space: nowrap; }
table.w td { text-align: right; padding: 1px 3px; min-width: 2.6em; border: 1px solid #fff; }
table.w tr.fixed th, table.w tr.fixed td { color: #757575; }
table.w th.col { text-align: right; vertical-align: top; padding: 1px 3px; }
table.w th.col .lab { color: #444; }
/* a Div's text box (BokehJS's .bk-clearfix, inline-block) keeps within the Div: the W table scrolls sideways in its
   own box on a phone instead of widening the page */
.bk-clearfix { max-width: 100%; }
p.legend .k-train { border-top: 3px solid BLUE; }
p.legend .k-held { border-top: 3px dashed ORANGE; }
p.legend .tie { display: inline-block; }   /* on a line of its own when it would break, and wrapping on a phone */
p.step b.moment { background: #FFF3D6; font-weight: normal; padding: 0 3px; }
details.more > summary { margin: 6px 0; }
/* on a phone the whole table fits the screen (the text under it talks about its last column): the names wrap
   and the numbers sit closer, in text no smaller than 14 px */
@media (max-width: NARROWpx) {
  table.w { font-size: max(14px, 0.875em); }
  table.w th { white-space: normal; padding-right: 4px; }
  table.w td { min-width: 0; padding: 1px 2px; }
}
""".replace("BLUE", BLUE).replace("ORANGE", ORANGE).replace("NARROW", str(theme.NARROW_WIDTH - 1))

def _one_plot_a_row(media: str, page: str) -> str:
    """The figure column's blocks in one column, in the order a step shows them together (CSS order)."""
    sec = f"{page}.attn-sec-routing"
    order = ("controls", "matrix", "clue", "key", "sense", "accuracy")
    orders = " ".join(f"{sec} .b-routing-{b} {{ order: {k}; }}" for k, b in enumerate(order))
    return (f"{media} {{ {sec} .attn-fig {{ display: flex; flex-direction: column; }}\n"
            f"  {sec} .attn-stage, {sec} .attn-xplots {{ display: contents; }}\n"
            f"  {sec} .attn-fig .attn-block {{ flex: 0 0 auto; }}\n  {orders} }}")


# The stage holds the controls over the matrix and the sense plot side by side, the curves under them.  On a
# wide screen the whole figure column stays in view (app/ui/layout.py), so its plots share the screen's height
# left after the controls (--stage-rest); on a phone it is too tall to keep in view and scrolls with the page.
STAGE_CSS = f"""
.attn-sec-routing .attn-stage {{ display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr);
  gap: 0 12px; align-items: start; }}
.attn-sec-routing .attn-stage > .b-routing-controls {{ grid-column: 1 / -1; }}
.attn-sec-routing .attn-xplots {{ display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 0 12px; }}
.attn-sec-routing .attn-xplots > .b-routing-key {{ grid-column: 1 / -1; margin: 0; }}
.b-routing-matrix, .b-routing-sense {{ height: clamp(240px, 40vh, 420px); }}
.b-routing-clue, .b-routing-accuracy {{ height: clamp(170px, 26vh, 280px); }}
/* projected, every plot keeps a frame of 240 px or more */
.attn-page[data-present="1"] .b-routing-matrix, .attn-page[data-present="1"] .b-routing-sense {{
  height: clamp(350px, 46vh, 560px); }}
.attn-page[data-present="1"] .b-routing-clue, .attn-page[data-present="1"] .b-routing-accuracy {{ height: 350px; }}
@media (max-width: 599px) {{
  .attn-sec-routing .attn-stage, .attn-sec-routing .attn-xplots {{ grid-template-columns: minmax(0, 1fr); }}
}}
/* projected on a screen under 1600 px wide, one plot a row: side by side, their words and ticks would touch */
@media (max-width: 1599px) {{
  .attn-page[data-present="1"] .attn-sec-routing .attn-stage,
  .attn-page[data-present="1"] .attn-sec-routing .attn-xplots {{ grid-template-columns: minmax(0, 1fr); }}
}}
@media (max-width: {WIDE - 1}px) {{ .attn-sec-routing .attn-stage {{ position: static; box-shadow: none; }} }}
/* one plot a row (a phone; projected under 1600 px): the plot of the deciding word comes right under the matrix,
   before the sense plot, so a step that talks of both has them on screen together above the docked card */
{_one_plot_a_row("@media (max-width: 599px)", "")}
{_one_plot_a_row("@media (max-width: 1599px)", '.attn-page[data-present="1"] ')}
@media (min-width: {WIDE}px) {{
  .attn-sec-routing {{ --stage-rest: 250px; }}
  .attn-page[data-present="1"] .attn-sec-routing {{ --stage-rest: 380px; }}
  .b-routing-matrix, .b-routing-sense {{ height: clamp(220px, calc((100vh - var(--stage-rest)) * 0.6), 560px); }}
  .b-routing-clue, .b-routing-accuracy {{ height: clamp(140px, calc((100vh - var(--stage-rest)) * 0.37), 340px); }}
  /* projected: the curves under the matrix keep their 350 px, one scroll of the figure column away */
  .attn-page[data-present="1"] .b-routing-matrix, .attn-page[data-present="1"] .b-routing-sense {{
    height: clamp(350px, calc((100vh - var(--stage-rest)) * 0.6), 560px); }}
}}
"""
# What a notebook gives the plots whose height the page's CSS sets (layout.Block.css_height).
FIGURE_PX = {"routing-matrix": 340, "routing-sense": 340, "routing-clue": 220, "routing-accuracy": 220}


# --------------------------------------------------------------------------- the path (once per process)

@lru_cache(maxsize=1)
def trajectory() -> QKTrajectory:
    """``attention.train_qk()`` at the page's defaults (about 50 ms; cached)."""
    return train_qk()


@lru_cache(maxsize=1)
def _playback_json() -> str:
    plain = trajectory().to_plain(frames=FRAMES)
    for s in plain["sentences"]:   # the core's own rows, points and clue weights: the tests hold the browser's to them
        del s["weights"], s["point"], s["clue_weight"]
    return json.dumps(plain, separators=(",", ":"))


def playback() -> dict:
    """The path the page plays: ``trajectory().to_plain(frames=FRAMES)`` without the shown sentences' rows of
    weights, output points and weights on the deciding word, which the browser computes itself (a fresh copy
    each call)."""
    return json.loads(_playback_json())


def hold_frames() -> list[int]:
    """Per shown sentence, the first recorded frame where its deciding word gets HOLD_SHARE of the ambiguous
    word's weight (-1: never), from the core's ``clue_weights`` (the page's holdFrame finds the same)."""
    tr = trajectory()
    w = tr.clue_weights(tr.corpus.shown, tr.frames(FRAMES))
    return [int(np.argmax(w[:, j] >= HOLD_SHARE)) if np.any(w[:, j] >= HOLD_SHARE) else -1 for j in range(w.shape[1])]


@lru_cache(maxsize=1)
def _pace_json() -> str:
    tr = trajectory()
    steps = tr.frames(FRAMES).tolist()
    ms = lambda hold: pace_rules.frame_ms(steps, tr.train_accuracy, tr.held_out_accuracy, hold)  # noqa: E731
    return json.dumps({"shown": [ms(h) for h in hold_frames()], "typed": ms(-1)})


def pace() -> dict:
    """Play's schedule (app/routing/pace.py): for each shown sentence, and for a typed one, the ms each
    recorded frame stays on screen before the next (a fresh copy each call)."""
    return json.loads(_pace_json())


@lru_cache(maxsize=1)
def summary() -> str:
    """What was learned, in the core's words: ``learned_words(trajectory()).summary()``."""
    return learned_words(trajectory()).summary()


@lru_cache(maxsize=1)
def shared() -> tuple[str, str]:
    """(the word, the sentence): what the ambiguous word's query and its deciding word's key came to share,
    in the core's words (``shared_summary`` with the trained W_Q and W_K), for the word the ambiguous word
    looks at most after training in the page's opening sentence, itself left out (river, in "the bank by the
    river"); the engine writes the same sentence, step by step, under the table of W_Q and W_K."""
    tr, spec = trajectory(), url_spec(RoutingState)
    opening = tr.corpus.shown[spec["qk_sentence"]["default"]]
    r = tr.readout(opening)
    w = np.array(r.weights)
    w[r.index] = -1.0                       # (the word itself left out)
    other = r.tokens[int(np.argmax(w))]
    return other, shared_summary(tr.w_q[-1], tr.w_k[-1], tr.corpus.word, other, model=tr.model)


@lru_cache(maxsize=1)
def _words_model_json() -> str:
    m = load_sentence_model()
    return json.dumps({"dims": list(m.dims), "position_features": list(m.position_features),
                       "vocab": {w: [float(v) for v in vec] for w, vec in m.vocab.items()},
                       "unknown_scale": float(m.unknown_scale)}, separators=(",", ":"))


def words_model() -> dict:
    """What ``AttnWords.encode(tokens, model)`` needs of the toy model: the meaning dimensions' names, the
    position features' names, the vocabulary's vectors and the made-up vectors' scale."""
    return json.loads(_words_model_json())


# The engine's modules, each using the ones before it (engine.js says what each holds).
ENGINE_FILES = tuple(HERE / f for f in ("head.js", "onpage.js", "plots.js", "lines.js", "texts.js", "playback.js",
                                        "engine.js"))


@lru_cache(maxsize=None)
def engine_source() -> str:
    """The page's library (attention/mirror.js, ui/common.js, attention/words.js, ...), then ENGINE_FILES and the call."""
    return engine_code(ENGINE_FILES, "Routing.handle", ENGINE_ARGS)


def precompute() -> float:
    """Train and serialise the path now; the seconds it took (0 when it was cached)."""
    import time

    t0 = time.perf_counter()
    _playback_json()
    summary()
    shared()
    return time.perf_counter() - t0


# --------------------------------------------------------------------------- the section

@dataclass
class RoutingView:
    blocks: list                                  # app/ui/layout.Block, in page order
    engine: CustomJS
    widgets: dict
    models: dict = field(default_factory=dict)    # the engine's arguments, by their engine.js names
    figures: dict = field(default_factory=dict)   # matrix, sense, clue, accuracy
    css: str = ""                                 # the page CSS of its blocks (STAGE_CSS)


def build_routing(state=None) -> RoutingView:
    """The routing section for ``state`` (any object with RoutingState's parameters; default: its defaults)."""
    return RoutingSection(state).view()


def _div(name: str, css, html: str = "", **props) -> Div:
    """A Div of this section (no TeX is ever rendered here: a typed "$$" stays text)."""
    return Div(text=html, name=name, stylesheets=css, sizing_mode="stretch_width", disable_math=True, **props)


def _sentence_label(s: dict) -> str:
    where = "training" if s["split"] == "train" else "held out"
    return f"{s['text']} ({where})"


class RoutingSection:
    """Builds the routing section, one method per part: sources, figures, controls, texts, engine, blocks."""

    def __init__(self, state=None):
        self.state = state
        self.plain = playback()
        self.css = [InlineStyleSheet(css=ROUTING_CSS)]
        self.spec = url_spec(RoutingState)
        if [s["text"] for s in self.plain["sentences"]] != list(QK_SHOWN):
            raise RuntimeError("the shown sentences of data/senses.json and app/state.py's QK_SHOWN differ")

    def view(self) -> RoutingView:
        self.sources()
        figs = dict(matrix=self.matrix_figure(), sense=self.sense_figure(), clue=self.clue_figure(),
                    accuracy=self.accuracy_figure())
        w = self.controls()
        divs = self.texts()
        engine, models = self.engine(figs, w, divs)
        return RoutingView(blocks=self.blocks(figs, w, divs), engine=engine, widgets=w, models=models,
                           figures=figs, css=STAGE_CSS)

    # -- data ----------------------------------------------------------------------------------------
    def sources(self):
        cds = lambda name, cols: ColumnDataSource({k: [] for k in cols}, name=name)  # noqa: E731
        self.src = dict(
            tokens_src=ColumnDataSource({"tok": []}, name="routing_tokens"),
            cells=cds("routing_cells", ("x", "y", "w", "q_tok", "k_tok")),
            cell_labels=cds("routing_cell_labels", ("x", "y", "label", "tc")),
            rowmark=cds("routing_rowmark", ("x", "y", "width")),
            sense_values=cds("routing_sense_values", ("x", "y", "label", "tok", "align", "dx")),
            sense_trail=cds("routing_sense_trail", ("x", "y")),
            sense_point=cds("routing_sense_point", ("x", "y", "label")),
            sense_even=cds("routing_sense_even", ("x", "y", "label")),
            clue_src=cds("routing_clue", ("xs", "ys", "color", "dash", "width", "alpha", "text")),
            clue_now=cds("routing_clue_now", ("x", "y", "label")),
            acc_src=cds("routing_accuracy", ("step", "train", "held")),
        )
        self.ticker = FixedTicker(ticks=[])
        self.cmap = LinearColorMapper(palette=WEIGHT_PALETTE, low=0, high=1)

    # -- figures -------------------------------------------------------------------------------------
    def matrix_figure(self):
        """The sentence's attention matrix under the step's W_Q and W_K, the ambiguous word's row framed."""
        s, tick = self.src, theme.SIZES["normal"]["tick"]
        fig = theme.style_figure(figure(sizing_mode="stretch_both", min_width=240, min_height=200, tools="",
                                        x_range=Range1d(-0.5, 4.5), y_range=Range1d(4.5, -0.5),
                                        x_axis_location="above", title="Who looks at whom",
                                        name="routing_matrix_plot"))
        fig.grid.visible = False
        cells = fig.rect("x", "y", 1, 1, source=s["cells"], fill_color={"field": "w", "transform": self.cmap},
                         line_color="white", line_width=1, level=STEP_LAYER)
        fig.text("x", "y", text="label", source=s["cell_labels"], text_align="center", text_baseline="middle",
                 text_color="tc", text_font_size=tick, level=STEP_LAYER)
        fig.rect("x", "y", "width", 1, source=s["rowmark"], fill_alpha=0, line_color=VERMILLION, line_width=3,
                 level=STEP_LAYER)
        fig.add_tools(HoverTool(renderers=[cells], tooltips=[("query (row)", "@q_tok"), ("key (column)", "@k_tok"),
                                                             ("weight", "@w{0.000}")]))
        fig.add_layout(weight_colour_bar(self.cmap, tick), "right")   # the page's one scale: the weight, 0 to 1
        fmt = CustomJSTickFormatter(args={"src": s["tokens_src"]}, code="""
const t = src.data.tok, i = Math.round(tick);
return (i >= 0 && i < t.length && Math.abs(tick - i) < 1e-6) ? String(t[i]) : "";""")
        for ax in fig.axis:
            ax.ticker, ax.formatter = self.ticker, fmt
            ax.major_tick_line_color = ax.axis_line_color = None
        return fig

    def sense_figure(self):
        """The sense plane: each word's value, and where the ambiguous word's output lands, step by step."""
        sp, s, tick = load_sentence_model().sense_plane, self.src, theme.SIZES["normal"]["tick"]
        lo, hi = SENSE_RANGE
        fig = theme.style_figure(figure(sizing_mode="stretch_both", min_width=200, min_height=200, tools="",
                                        x_range=Range1d(lo, hi), y_range=Range1d(lo, hi),
                                        title="Where its output lands", name="routing_sense_plot"))
        fig.xaxis.axis_label = f"{sp.x_label} \u2192"
        fig.yaxis.axis_label = f"{sp.y_label} \u2192"
        for ax in (fig.xaxis, fig.yaxis):
            ax.ticker = FixedTicker(ticks=[0, 0.5, 1])
        # the undecided points: as far towards water, and from money, as an even spread lands (a line through
        # that point, parallel to the diagonal; the engine moves it with the sentence)
        self.undecided_line = Slope(gradient=1, y_intercept=0, line_color="#9A9A9A", line_dash="dashed",
                                    name="routing_undecided_line")
        fig.add_layout(self.undecided_line)
        # the two sides' names, where no word of the toy vocabulary sits
        fig.text(x=[hi - 0.03], y=[0.4], text=["water side"], text_align="right", text_baseline="middle",
                 text_color=BLUE, text_font_size=tick)
        fig.text(x=[0.4], y=[hi - 0.03], text=["money side"], text_align="left", text_baseline="top",
                 text_color=ORANGE, text_font_size=tick)
        dots = fig.scatter("x", "y", source=s["sense_values"], size=10, fill_color="#9A9A9A", line_color="white")
        # a word's label sits right of its dot, or left of it near the right edge (align, dx: set by the engine)
        fig.text("x", "y", text="label", source=s["sense_values"], x_offset="dx", text_align="align",
                 text_baseline="middle", text_font_size=tick, text_color="#333")
        # where an even spread lands: the trail starts there, and the sense is read from there
        fig.scatter("x", "y", source=s["sense_even"], size=15, fill_color=None, line_color="#333", line_width=2)
        fig.text("x", "y", text="label", source=s["sense_even"], x_offset=-11, text_align="right",
                 text_baseline="middle", text_font_size=tick, text_color="#333")
        fig.line("x", "y", source=s["sense_trail"], line_color=VERMILLION, line_width=2, line_alpha=0.6,
                 level=STEP_LAYER)
        fig.scatter("x", "y", source=s["sense_point"], size=16, fill_color=VERMILLION, line_color="white",
                    line_width=2, level=STEP_LAYER)
        fig.text("x", "y", text="label", source=s["sense_point"], y_offset=-12, text_align="center",
                 text_baseline="bottom", text_font_size=tick, text_color=VERMILLION, text_font_style="bold",
                 level=STEP_LAYER)
        fig.add_tools(HoverTool(renderers=[dots], tooltips=[("value of", "@tok")]))
        return fig

    def _curve_figure(self, name, title, y_range, ylabel, source):
        """A curve of the training sentences (solid) and the held-out ones (dashed); the legend is HTML, over
        both plots (text.curves_legend)."""
        p = self.plain
        fig = theme.style_figure(figure(sizing_mode="stretch_both", min_width=220, min_height=140, tools="",
                                        x_range=Range1d(-0.03 * p["steps"], p["steps"]), y_range=y_range, title=title,
                                        name=name))   # (the start a little off the axis, its dots seen whole)
        fig.line("step", "train", source=source, line_color=BLUE, line_width=2.5, level=STEP_LAYER)
        fig.line("step", "held", source=source, line_color=ORANGE, line_width=2.5, line_dash="dashed",
                 level=STEP_LAYER)
        # a dot per recorded step, so the untrained start (one point, no line yet) is on the plot too
        for key, colour in (("train", BLUE), ("held", ORANGE)):
            fig.scatter("step", key, source=source, size=5, color=colour, level=STEP_LAYER)
        fig.xaxis.axis_label = "step"
        fig.yaxis.axis_label = ylabel
        return fig

    def clue_figure(self):
        """What is learned: the ambiguous word's weight on each shown sentence's deciding word, step by step
        (training sentences solid, held-out ones dashed, the chosen one bold and named at its end)."""
        p, s, tick = self.plain, self.src, theme.SIZES["normal"]["tick"]
        fig = theme.style_figure(figure(sizing_mode="stretch_both", min_width=220, min_height=140, tools="",
                                        x_range=Range1d(-0.03 * p["steps"], p["steps"] * 1.45), y_range=Range1d(0, 1.05),
                                        title="Weight on the deciding word", name="routing_clue_plot"))
        # half of the weight: where playback holds for a moment
        fig.add_layout(Span(location=HOLD_SHARE, dimension="width", line_color="#9A9A9A", line_dash="dotted"))
        fig.multi_line("xs", "ys", source=s["clue_src"], line_color="color", line_dash="dash", line_width="width",
                       line_alpha="alpha", level=STEP_LAYER)
        # the chosen sentence's deciding word, at the end of its line (the room right of the last step is for it)
        fig.text("x", "y", text="label", source=s["clue_now"], x_offset=4, text_align="left", text_baseline="middle",
                 text_font_size=tick, text_color=VERMILLION, text_font_style="bold", level=STEP_LAYER)
        fig.xaxis.axis_label = "step"
        fig.xaxis.ticker = FixedTicker(ticks=[0, 50, 100, 150] if p["steps"] == 150 else [0, p["steps"]])
        fig.yaxis.axis_label = "weight"
        fig.yaxis.ticker = FixedTicker(ticks=[0, 0.5, 1])
        return fig

    def accuracy_figure(self):
        # (the legend over both plots says how an undecided sentence counts: text.curves_legend)
        fig = self._curve_figure("routing_accuracy_plot", "Right answers", Range1d(0, 104), "% right",
                                 self.src["acc_src"])
        fig.yaxis.ticker = FixedTicker(ticks=[0, 25, 50, 75, 100])
        return fig

    # -- controls and texts ----------------------------------------------------------------------------
    def controls(self) -> dict:
        form = [theme.widget_css()]
        p = self.plain
        options = [(str(i), _sentence_label(s)) for i, s in enumerate(p["sentences"])]
        options.append((OWN, "your own sentence (type it in the box below)"))
        opening = int(getattr(self.state, "qk_sentence", self.spec["qk_sentence"]["default"]))
        steps = json.dumps(p["frame_steps"])
        primary = [InlineStyleSheet(css=theme.PRIMARY_BUTTON_CSS)]
        return dict(
            sentence=build_control(CONTROLS[0], RoutingState(), value=str(opening), options=options,
                                   sizing_mode="stretch_width", min_width=240),
            play=Button(label="\u25b6 Play", button_type="primary", min_width=90, name="routing_play",
                        stylesheets=primary),
            pause=Button(label="\u275a\u275a Pause", min_width=90, name="routing_pause", disabled=True),
            step=Button(label="Step \u203a", min_width=90, name="routing_step"),
            reset=Button(label="\u21ba Reset", min_width=90, name="routing_reset"),
            frame=Slider(start=0, end=len(p["frame_steps"]) - 1, step=1, value=0, title="training step",
                         format=CustomJSTickFormatter(code=f"const s = {steps}; const i = Math.round(tick);\n"
                                                           "return String(i >= 0 && i < s.length ? s[i] : tick);"),
                         name="routing_step_slider", sizing_mode="stretch_width", min_width=200,
                         stylesheets=[theme.slider_css()]),
            input=TextInput(title="your own sentence (press Enter)", value="", placeholder=text.OWN_PLACEHOLDER,
                            max_length=TEXT_MAX, name="routing_input",
                            sizing_mode="stretch_width", min_width=220, stylesheets=form),
        )

    def texts(self) -> dict:
        css, p = self.css, self.plain
        live = lambda name: _div(name, css)  # noqa: E731
        return dict(
            intro=_div("routing_intro", css, text.intro(word=p["word"], train=p["train_size"],
                                                         held_out=p["held_out_size"], steps=p["steps"])),
            notice=_div("routing_notices", css, visible=False),
            status=live("routing_status"), readout=live("routing_readout"),
            # the table scrolls sideways inside its box on a phone instead of widening the page
            weights=_div("routing_weights", css, styles={"max-width": "100%", "overflow-x": "auto"}),
            own=live("routing_own"),
            learned=_div("routing_learned", css, text.learned_html(
                shared()[1], learned_words(trajectory()).paragraphs(), steps=p["steps"])),
            key=_div("routing_key", css, text.curves_legend(train=p["train_size"], held_out=p["held_out_size"])),
        )

    # -- the engine ------------------------------------------------------------------------------------
    def config(self) -> dict:
        p, spec = self.plain, self.spec
        w_max = float(np.max(np.abs(np.concatenate([np.ravel(p["w_q"]), np.ravel(p["w_k"])]))))
        initial = {k: int(getattr(self.state, k, spec[k]["default"])) for k in URL_KEYS}
        return {
            "plain": p, "initial": initial, "spec": {k: spec[k] for k in URL_KEYS},
            "defaults": {k: spec[k]["default"] for k in URL_KEYS}, "url_rules": url_rules(), "pace": pace(),
            "hold_share": HOLD_SHARE, "cell_text": CELL_TEXT, "from_share": FROM_SHARE,
            "weights_texts": {"summary": text.WEIGHTS_SUMMARY, "intro": text.WEIGHTS_INTRO,
                              "columns": text.COLUMNS_NOTE, "preference": text.PREFERENCE_NOTE},
            # the meanings' short names, for the columns' labels: "water / nature" -> "water"
            "short_dims": [d.split(" / ")[0] for d in p["trained_rows"]],
            "own": OWN, "words_model": words_model(), "max_tokens": MAX_TOKENS, "w_max": w_max,
            "sense_range": list(SENSE_RANGE), "theme": theme.js_config(),
            "colors": {"positive": ORANGE, "negative": BLUE, "point": VERMILLION, "grey": GREY, "train": BLUE,
                       "held": ORANGE},
            # the sentences training saw (their words, one space apart): the tour asks whether the one shown is new
            "train_keys": [" ".join(x.tokens) for x in attention.load_sense_corpus().train],
        }

    def engine(self, figs: dict, w: dict, divs: dict):
        """The engine and its arguments: what only the engine writes (the sources, the live texts, the axes it
        relabels) never travels to a server."""
        s = self.src
        models = engine_args(
            synced=dict(config=self.config(), w_sentence=w["sentence"], w_play=w["play"], w_pause=w["pause"],
                        w_step=w["step"], w_reset=w["reset"], w_frame=w["frame"], w_input=w["input"]),
            browser_only=dict(**s, ticker=self.ticker, heat=figs["matrix"], sense_fig=figs["sense"],
                              undecided_line=self.undecided_line,
                              status_div=divs["status"], readout_div=divs["readout"],
                              weights_div=divs["weights"], own_div=divs["own"], notice_div=divs["notice"]))
        if set(models) != set(ENGINE_ARGS):
            raise RuntimeError(f"the engine's arguments and ENGINE_ARGS differ: {set(models) ^ set(ENGINE_ARGS)}")
        engine = engine_callback(models, engine_source())
        for key in ("sentence", "frame", "input"):
            w[key].js_on_change("value", engine)
        for key in ("play", "pause", "step", "reset"):
            w[key].js_on_event("button_click", engine)
        return engine, models

    # -- the blocks -------------------------------------------------------------------------------------
    def blocks(self, f: dict, w: dict, divs: dict) -> list:
        css = self.css
        wrap = {"flex-wrap": "wrap", "gap": "4px 10px", "align-items": "flex-end"}
        w["frame"].styles = {"flex": "1 1 200px"}
        controls = column(w["sentence"], row(w["play"], w["pause"], w["step"], w["reset"], w["frame"],
                                             sizing_mode="stretch_width", styles=wrap),
                          divs["status"], sizing_mode="stretch_width", name="routing_controls")
        head = column(divs["intro"], divs["notice"], sizing_mode="stretch_width", name="routing_head")
        readout = column(divs["readout"], _div("routing_matrix_note", css, f'<p class="small">{text.MATRIX_NOTE}</p>'),
                         sizing_mode="stretch_width", name="routing_readout_box")
        # the table and its notes sit behind "more" (the engine writes them, keeping the disclosure as it is)
        weights = column(divs["weights"], sizing_mode="stretch_width", name="routing_weights_box")
        own = column(_div("routing_own_intro", css, text.OWN_INTRO.format(word=self.plain["word"])), w["input"],
                     divs["own"], sizing_mode="stretch_width", name="routing_own_box")
        H = FIGURE_PX
        return [
            Block("routing-head", head, "head", height=330),
            Block("routing-controls", controls, "stage", height=150),
            Block("routing-matrix", f["matrix"], "stage", height=H["routing-matrix"], css_height=True),
            Block("routing-sense", f["sense"], "stage", height=H["routing-sense"], css_height=True),
            Block("routing-key", divs["key"], "xplots", height=30),
            Block("routing-clue", f["clue"], "xplots", height=H["routing-clue"], css_height=True),
            Block("routing-accuracy", f["accuracy"], "xplots", height=H["routing-accuracy"], css_height=True),
            Block("routing-readout", readout, "side", height=170),
            Block("routing-learned", divs["learned"], "side", height=150),
            Block("routing-weights", weights, "side", height=40),
            Block("routing-own", own, "side", height=200),
        ]


__all__ = ["build_routing", "RoutingView", "RoutingSection", "trajectory", "playback", "summary", "shared",
           "words_model", "engine_source", "precompute", "FRAMES", "pace", "hold_frames", "HOLD_SHARE", "URL_KEYS", "OWN",
           "ENGINE_ARGS", "STAGE_CSS"]
