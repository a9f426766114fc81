"""The self-attention section: one sentence's attention matrix, a row as a regression query, the sense plane,
several heads and the O(n^2) cost.

``build_sentence(state)`` returns the section as blocks of the page plus
the engine (a ``CustomJS`` made of ``attention/mirror.js``, ``ui/common.js`` for the
shared helpers, ``attention/words.js`` and this section's modules, ``ENGINE_FILES``).  The engine's
config carries the toy sentence model (``browser_model()``, from
``data/sentences.json``); the browser analyses every sentence itself, whatever
the delivery: the opening one, an example, the link's and a typed one, with
``AttnWords.analyze`` (the twin of ``attention.analyze_sentence(...).to_plain()``,
held to it by tests/browser/test_words_parity.py), then recomputes the weights,
outputs and sense-plane points for any temperature, mask, head or selected word
with ``AttnMirror``.  A sentence the core would refuse keeps the previous one,
with the core's reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from bokeh.layouts import column, row
from bokeh.models import (Arrow, ColumnDataSource, CustomJS, CustomJSTickFormatter, CustomLabelingPolicy, Div,
                          FixedTicker, HoverTool, InlineStyleSheet, LinearColorMapper, LogAxis, LogScale, Range1d,
                          Select, Slope, TextInput, VeeHead)
from bokeh.plotting import figure

import attention
from attention.sentences import load_sentence_model

from app.state import url_spec
from app.ui import text, theme
from app.ui.controls import build_control
from app.ui.engine import engine_args, engine_callback, engine_code, url_rules
from app.ui.weights import CELL_TEXT, weight_colour_bar
from app.ui.theme import (BLUE, GREY, MONO_FONT, ORANGE, PAGE_CSS, PAGE_STYLES, PURPLE, VERMILLION,
                          WEIGHT_PALETTE)

from .data import TIMING_N, browser_model, measured_timings, presets_payload, sentence_plain
from .sizes import GEOMETRY, MINI_SIZE, SENSE_LABEL, geometry
from .state import CONTROLS, SentenceState
from .text import (COST, INPUT_NOTE, INTRO, MATRIX_NOTE, MULTIHEAD, PERSPECTIVE, REFUSED_LINK, REFUSED_TYPED, ROUTING,
                   TOKENIZE_NOTE, TOO_LONG)

HERE = Path(__file__).resolve().parent
SENTENCE_KEYS = ("sentence", "token", "head", "att_temperature", "causal")
COST_N = [2 ** k for k in range(3, 18)]          # 8 ... 131072
DEFAULT_SENTENCE = SentenceState.param.sentence.default

SENTENCE_CSS = PAGE_CSS + """
h2 { font-size: 1.4em; margin: 1.2em 0 0.2em; border-top: 1px solid #ddd; padding-top: 0.8em; }
p.small { color: #444; margin: 2px 0; }
p.tokens { margin: 2px 0; }
span.tok { display: inline-block; background: #EEF4FA; border: 1px solid #C9DCEC; border-radius: 4px;
           padding: 0 5px; margin: 1px 2px; font-family: MONO_FONT; }
span.tok.unknown { background: #FFF3D6; border-color: #E6C27A; }
p.rowline { background: #F3F3F3; border-left: 4px solid #0072B2; padding: 4px 8px; margin: 6px 0; }
p.head { margin: 2px 0; }
b.shown { background: #A84800; color: white; border-radius: 3px; padding: 0 4px; font-weight: normal; }
""".replace("MONO_FONT", MONO_FONT)


# --------------------------------------------------------------------------- the view

@dataclass
class SentenceView:
    """The built section: its blocks (``blocks``), its engine, and its widgets for the notebook's parameters.
    The engine analyses every sentence itself, in the browser."""

    layout: object
    engine: CustomJS
    widgets: dict
    notice_div: Div
    text_input: TextInput
    models: dict = field(default_factory=dict)
    parts: dict = field(default_factory=dict)

    @property
    def lent(self) -> dict:
        """What the section lends another (its contract's ``lends``): the source of the sentence's words."""
        return {"tokens_src": self.models["tokens_src"]}

    @property
    def blocks(self) -> list:
        """The section's parts as blocks of the page (app/ui/layout.py): the matrix kept in view (the stage) beside
        the controls, the selected row and the sense plot; the heads and the cost under them."""
        from app.ui.layout import Block

        return [Block(f"sentence-{k}", m, BLOCK_PLACE.get(k, "body"),
                      height=0 if not getattr(m, "visible", True) else BLOCK_PX.get(k, 200))
                for k, m in self.parts.items()]

    css = """
/* the matrix can be tall (32 words): on a phone it scrolls with the page; on a wide screen its column stays in
   view and scrolls inside itself when it is taller than the screen */
@media (max-width: 899px) { .attn-sec-sentence .attn-stage { position: static; box-shadow: none; } }
@media (min-width: 900px) { .attn-sec-sentence .attn-fig { max-height: 100vh; overflow-y: auto; } }
"""


def _tick_formatter(tokens_src):
    return CustomJSTickFormatter(args={"src": tokens_src}, code="""
const t = src.data.tok, i = Math.round(tick);
return (i >= 0 && i < t.length && Math.abs(tick - i) < 1e-6) ? String(t[i]) : "";""")


def _bytes_formatter():
    return CustomJSTickFormatter(code="""
const u = ["B", "kB", "MB", "GB", "TB", "PB"]; let v = tick, i = 0;
while (v >= 1000 && i < u.length - 1) { v /= 1000; i++; }
return (v >= 10 ? v.toFixed(0) : v.toPrecision(2).replace(/\\.0$/, "")) + " " + u[i];""")


# An axis whose tick labels would come closer than ``gap`` px leaves out every second one (or every third, ...),
# counted from the first, so a log axis keeps its labels at even steps on a narrow plot (the cost plot's
# "10 k" and "100 k" touch at 360 px); BokehJS asks at every paint, with the labels' boxes at the plot's width.
EVEN_LABELS_JS = """
const all = [...indices];
for (let step = 1; step < all.length; step++) {
  const keep = all.filter((_, k) => k % step === 0);
  if (keep.every((i, k) => k === 0 || distance(keep[k - 1], i) >= gap)) return keep;
}
return all.slice(0, 1);
"""
LABEL_GAP_PX = 6


def _even_labels(section) -> CustomLabelingPolicy:
    """The section's one labelling policy (EVEN_LABELS_JS), shared by every axis that uses it."""
    if getattr(section, "_labels_policy", None) is None:
        section._labels_policy = CustomLabelingPolicy(code=EVEN_LABELS_JS, args={"gap": LABEL_GAP_PX})
    return section._labels_policy


def _count_formatter():
    return CustomJSTickFormatter(code="""
const short = (v) => String(Number(v.toPrecision(3)));
if (tick >= 1e9) return short(tick / 1e9) + " G";
if (tick >= 1e6) return short(tick / 1e6) + " M";
if (tick >= 1e3) return short(tick / 1e3) + " k";
return short(tick);""")


# The engine's modules, each using the ones before it (engine.js says what each holds).
ENGINE_FILES = tuple(HERE / f for f in ("onpage.js", "sizes.js", "analysis.js", "rowtext.js", "drawing.js", "engine.js"))


@lru_cache(maxsize=None)
def engine_source() -> str:
    """The page's library (attention/mirror.js: formulas; ui/common.js: shared text and URL helpers; attention/words.js: a
    sentence's tokens, vectors and heads; ...), then ENGINE_FILES and the call."""
    return engine_code(ENGINE_FILES, "Sentence.handle", ENGINE_ARGS)


ENGINE_ARGS = [
    "config", "tokens_src", "cells", "cell_image", "cell_edges", "cell_labels", "rowsums", "rowmark", "bars",
    "sense_values", "sense_arrows", "sense_output", "sense_combined", "cost_now", "minis", "mini_figs", "heat",
    "bars_fig", "sense_fig",
    "figs", "cmap", "ticker", "fmt", "matrix_box", "w_preset", "w_input", "w_token", "w_head", "w_logt", "w_causal",
    "readout_div", "caption_div", "info_div", "notice_div", "preset_div", "head_divs",
]


def _initial(state, notices: list[str]) -> tuple[str, dict]:
    """The sentence to open on (from the state), refusing a bad one with a notice."""
    raw = getattr(state, "sentence", DEFAULT_SENTENCE) or DEFAULT_SENTENCE
    try:
        plain = sentence_plain(raw)
    except ValueError as e:
        notices.append(REFUSED_LINK.format(reason=e, shown=DEFAULT_SENTENCE))
        return DEFAULT_SENTENCE, sentence_plain(DEFAULT_SENTENCE)
    return raw, plain


def _div(**props) -> Div:
    """A Div of this section: a typed "$$...$$" stays text, no TeX is ever rendered here."""
    return Div(disable_math=True, **props)


def build_sentence(state=None, *, notices=()) -> SentenceView:
    """The self-attention section for ``state`` (any object with SentenceState's parameters)."""
    return SentenceSection(state, notices=notices).view()


class SentenceSection:
    """Builds the self-attention section, one method per part: the opening state, the data sources, each
    figure (matrix, row bars, sense plane, the heads, the cost, the timings), the controls, the texts, the
    engine and the layout.  ``view()`` runs them in order and returns the ``SentenceView``."""

    def __init__(self, state=None, *, notices=()):
        self.state, self.notices = state or SentenceState(), list(notices)
        self.model = load_sentence_model()
        self.presets = presets_payload()
        self.css = InlineStyleSheet(css=SENTENCE_CSS)
        self.opening()

    def opening(self):
        """The opening sentence, word, head, temperature and mask; a word or head past the end is clamped."""
        state, notices = self.state, self.notices
        self.raw, plain = _initial(state, notices)
        self.plain = plain
        n = self.n = len(plain["tokens"])
        n_heads = len(plain["heads"])
        self.temperature = float(getattr(state, "att_temperature", 1.0))
        self.causal = bool(getattr(state, "causal", False))
        self.token = int(getattr(state, "token", 1))
        if self.token > n - 1:
            notices.append(f"token={self.token} is past the end of this {n}-word sentence; showing the last word "
                           f"({n - 1}).")
            self.token = n - 1
        self.head = int(getattr(state, "head", 0))
        if self.head > n_heads - 1:
            notices.append(f"head={self.head} does not exist (there are {n_heads} heads, 0 to {n_heads - 1}); "
                           f"showing head {n_heads - 1}.")
            self.head = n_heads - 1
        self.geo = geometry(plain["tokens"], present=bool(getattr(state, "present", False)))

    def view(self) -> SentenceView:
        self.sources()
        f = dict(heat=self.heat_figure(), bars=self.bars_figure(), sense=self.sense_figure(),
                 cost=self.cost_figure())
        f["timing"], timing_note = self.timing_figure()
        self.head_figures()
        w = self.controls()
        divs = self.texts()
        engine, models = self.engine(f, w, divs)
        layout, parts = self.layout(f, w, divs, timing_note)
        widgets = {k: w[k] for k in ("input", "preset", "token", "head", "temperature", "causal")}
        return SentenceView(layout=layout, engine=engine, widgets=widgets, notice_div=divs["notice"],
                            text_input=w["input"], models=models, parts=parts)

    # -- data ------------------------------------------------------------------------------------------
    def sources(self):
        cds = lambda name, cols: ColumnDataSource({k: [] for k in cols}, name=name)  # noqa: E731
        s = self.src = dict(
            tokens_src=ColumnDataSource({"tok": list(self.plain["tokens"])}, name="sentence_tokens"),
            cells=cds("attention_cells", ("x", "y", "w", "q_tok", "k_tok")),
            cell_image=cds("attention_image", ("image", "x", "y", "dw", "dh")),
            cell_edges=cds("attention_edges", ("x0", "y0", "x1", "y1")),
            cell_labels=cds("cell_labels", ("x", "y", "label", "tc")),
            rowsums=cds("row_sums", ("x", "y", "sum", "text")),
            rowmark=cds("row_mark", ("x", "y", "width")),
            bars=cds("row_weights", ("x", "w", "tok", "color")),
            sense_values=cds("sense_values", ("x", "y", "label", "tok")),
            sense_arrows=cds("sense_arrows", ("x0", "y0", "x1", "y1", "w", "lw", "head", "alpha", "tok")),
            cost_now=cds("cost_now", ("n", "scores", "label")),
        )
        # the legend needs one point to draw from: the opening state, by numpy (the engine redraws it at once)
        first = attention.analyze_sentence(self.raw, temperature=self.temperature, causal=self.causal)
        ox, oy = (float(v) for v in first.output_xy[self.head][self.token])
        cx, cy = (float(v) for v in first.combined_xy[self.token])
        s["sense_output"] = ColumnDataSource({"x": [ox], "y": [oy], "label": [""], "align": ["center"],
                                              "baseline": ["top"], "dx": [0], "dy": [SENSE_LABEL["gap"]]},
                                             name="sense_output")
        s["sense_combined"] = ColumnDataSource({"x": [cx], "y": [cy], "label": [""]}, name="sense_combined")
        self.ticker = FixedTicker(ticks=list(range(self.n)))
        self.fmt = _tick_formatter(s["tokens_src"])
        self.cmap = LinearColorMapper(palette=WEIGHT_PALETTE, low=0, high=1, nan_color="#E4E4E4")

    # -- figures ---------------------------------------------------------------------------------------
    def heat_figure(self):
        """The attention matrix: one row per query word, the row sums beside it, the selected row framed."""
        n, geo, s = self.n, self.geo, self.src
        heat = theme.style_figure(figure(frame_width=geo["frame_width"], frame_height=geo["frame_height"],
                                         x_range=Range1d(-0.5, n - 0.5 + geo["extra"]),
                                         y_range=Range1d(n - 0.5, -0.5), tools="", x_axis_location="above",
                                         title="Attention matrix", name="attention_heatmap",
                                         styles={"flex-shrink": "0", "min-width": "max-content"}))  # its box scrolls
        heat.grid.visible = False
        # The cells are one image (colour = the weight itself, grey where masked): one bitmap to paint, where
        # n² rectangles cost a 32-word sentence about 8 ms a frame; white lines between them; and the same cells
        # as invisible squares, for the hover.
        heat.image(image="image", x="x", y="y", dw="dw", dh="dh", source=s["cell_image"], color_mapper=self.cmap)
        heat.segment("x0", "y0", "x1", "y1", source=s["cell_edges"], line_color="white", line_width=1)
        cell_r = heat.rect("x", "y", 1, 1, source=s["cells"], fill_color=None, line_color=None)
        glyph = theme.SIZES["normal"]["glyph"]
        heat.text("x", "y", text="label", source=s["cell_labels"], text_align="center", text_baseline="middle",
                  text_color="tc", text_font_size=glyph)
        heat.text("x", "y", text="text", source=s["rowsums"], text_align="left", text_baseline="middle",
                  text_color=GREY, text_font_size=glyph)
        heat.rect("x", "y", "width", 1, source=s["rowmark"], fill_alpha=0, line_color=VERMILLION, line_width=3)
        heat.add_tools(HoverTool(renderers=[cell_r], tooltips=[("query (row)", "@q_tok"),
                                                                ("key (column)", "@k_tok"), ("weight", "@w{0.0000}")]))
        for ax in (heat.xaxis[0], heat.yaxis[0]):
            ax.ticker, ax.formatter = self.ticker, self.fmt
            ax.major_tick_line_color = ax.axis_line_color = None
        heat.yaxis.axis_label = "query (row)"
        if geo["heat_vertical"]:
            heat.xaxis.major_label_orientation = math.pi / 2
        heat.xaxis.axis_label = "key (column)"
        # colour = the weight itself, 0 to 1, as everywhere on the page (an even row of five words is 0.2 each,
        # dark); the small matrices of the heads share the scale
        heat.add_layout(weight_colour_bar(self.cmap, theme.SIZES["normal"]["tick"]), "right")
        return heat

    def bars_figure(self):
        """The selected row's weights as bars."""
        bars_fig = theme.style_figure(figure(height=230, sizing_mode="stretch_width", min_width=280, tools="",
                                             x_range=Range1d(-0.5, self.n - 0.5), y_range=Range1d(0, 1.05),
                                             title="Weights of the selected row", name="row_bars"))
        bars_fig.vbar(x="x", top="w", width=0.8, source=self.src["bars"], fill_color="color", line_color=None)
        bars_fig.xaxis[0].ticker = self.ticker
        bars_fig.xaxis[0].formatter = self.fmt
        bars_fig.xgrid.visible = False
        if self.geo["bars_vertical"]:
            bars_fig.xaxis.major_label_orientation = math.pi / 2
        bars_fig.yaxis.axis_label = "weight"
        # labels of one width whatever the range, so a new row never changes the axis' size
        bars_fig.yaxis.formatter = CustomJSTickFormatter(code="return tick.toFixed(2);")
        return bars_fig

    def sense_figure(self):
        """The sense plane: the values, the weighted arrows, the selected word's output and all heads'."""
        sp, s, glyph = self.model.sense_plane, self.src, theme.SIZES["normal"]["glyph"]
        fig = theme.style_figure(figure(height=380, sizing_mode="stretch_width", min_width=280, tools="",
                                        x_range=Range1d(-0.2, 1.2), y_range=Range1d(-0.2, 1.2),
                                        title="Where it lands", name="sense_plot"))
        fig.xaxis.axis_label = f"{sp.x_label} \u2192"
        fig.yaxis.axis_label = f"{sp.y_label} \u2192"
        fig.xaxis.ticker = FixedTicker(ticks=[0, 0.5, 1])   # the same labels for every range: a stable axis
        fig.yaxis.ticker = FixedTicker(ticks=[0, 0.5, 1])
        fig.add_layout(Slope(gradient=1, y_intercept=0, line_color="#BBBBBB", line_dash="dashed"))
        fig.add_layout(Arrow(source=s["sense_arrows"], x_start="x0", y_start="y0", x_end="x1", y_end="y1",
                             line_color=BLUE, line_width="lw", line_alpha="alpha",
                             end=VeeHead(size="head", fill_color=BLUE, line_color=BLUE, fill_alpha="alpha",
                                         line_alpha="alpha")))
        vals_r = fig.scatter("x", "y", source=s["sense_values"], size=11, fill_color="#9A9A9A", line_color="white")
        fig.text("x", "y", text="label", source=s["sense_values"], x_offset=7, y_offset=-4, text_font_size=glyph,
                 text_color="#333")
        fig.scatter("x", "y", source=s["sense_output"], size=16, fill_color=VERMILLION, line_color="white",
                    line_width=2, legend_label="output of the selected word")
        # above or below the dot, away from the diamond (drawing.js outputLabel), and drawn over every marker and
        # arrow, on a light box
        fig.text("x", "y", text="label", source=s["sense_output"], x_offset="dx", y_offset="dy", text_align="align",
                 text_baseline="baseline", text_font_size=glyph, text_color=VERMILLION, text_font_style="bold",
                 background_fill_color="white", background_fill_alpha=0.8, padding=2, level="overlay")
        fig.scatter("x", "y", source=s["sense_combined"], marker="diamond", size=17, fill_color=PURPLE,
                    line_color="white", line_width=1.5, legend_label="all heads combined (W\u2092)")
        legend = theme.style_legend(fig.legend[0])
        legend.border_line_color = None
        fig.add_layout(legend, "below")
        fig.add_tools(HoverTool(renderers=[vals_r], tooltips=[("value of", "@tok")]))
        return fig

    def head_figures(self):
        """One small matrix per head, with its name and what it attends to."""
        n = self.n
        self.minis, self.mini_figs, self.head_divs = [], [], []
        for h, hd in enumerate(self.model.heads):
            src = ColumnDataSource({k: [] for k in ("image", "x", "y", "dw", "dh")}, name=f"head_cells_{h}")
            f = figure(frame_width=MINI_SIZE, frame_height=MINI_SIZE, x_range=Range1d(-0.5, n - 0.5),
                       y_range=Range1d(n - 0.5, -0.5), tools="", toolbar_location=None, name=f"head_heatmap_{h}")
            f.html_attributes = {"aria-label": f"head {h}'s attention matrix, {hd.name}",
                                 "aria-description": hd.description}
            f.image(image="image", x="x", y="y", dw="dw", dh="dh", source=src, color_mapper=self.cmap)
            f.axis.visible = False
            f.grid.visible = False
            f.outline_line_color = "#BBBBBB"
            f.min_border = 4
            self.minis.append(src)
            self.mini_figs.append(f)
            self.head_divs.append(_div(text=f'<h4>{text.escape(f"{h}: {hd.name}")}</h4>'
                                            f'<p class="head">{text.escape(hd.description)}</p>',
                                       stylesheets=[self.css], width=240, name=f"head_description_{h}"))

    def cost_figure(self):
        """The O(n²) cost: scores (and their memory) against the length, with the current sentence marked."""
        cost_src = ColumnDataSource({"n": COST_N, "scores": [float(s) for s in attention.attention_cost(COST_N)[0]]},
                                    name="cost_curve")
        s0, s1 = attention.attention_cost([COST_N[0], COST_N[-1]])[0]
        fig = theme.style_figure(figure(height=300, sizing_mode="stretch_width", min_width=280, x_axis_type="log",
                                        y_axis_type="log", tools="", x_range=Range1d(1.5, COST_N[-1] * 1.5),
                                        y_range=Range1d(1.5, s1 * 3), title="Scores grow as n\u00b2",
                                        name="cost_plot"))
        fig.line("n", "scores", source=cost_src, line_color=BLUE, line_width=3)
        fig.scatter("n", "scores", source=cost_src, size=5, color=BLUE)
        fig.scatter("n", "scores", source=self.src["cost_now"], size=13, fill_color=VERMILLION, line_color="white")
        fig.text("n", "scores", text="label", source=self.src["cost_now"], x_offset=10, y_offset=4,
                 text_font_size=theme.SIZES["normal"]["glyph"], text_color=VERMILLION,
                 background_fill_color="white", background_fill_alpha=0.8)   # over the curve, legible
        fig.xaxis.axis_label = "length n (words)"
        fig.yaxis.axis_label = "scores n\u00b2"
        fig.yaxis.formatter = _count_formatter()
        fig.xaxis.formatter = _count_formatter()
        _, b0 = attention.attention_cost(COST_N[0])
        bpn = float(b0) / float(s0)
        fig.extra_y_ranges = {"mem": Range1d(1.5 * bpn, s1 * 3 * bpn)}
        fig.extra_y_scales = {"mem": LogScale()}
        fig.add_layout(LogAxis(y_range_name="mem", axis_label="memory", formatter=_bytes_formatter()), "right")
        theme.style_figure(fig)   # again, for the axis just added
        for ax in fig.axis:
            ax.major_label_policy = _even_labels(self)
        fig.add_tools(HoverTool(renderers=[fig.renderers[1]], tooltips=[("n", "@n"), ("scores", "@scores{0,0}")]))
        return fig

    def timing_figure(self):
        """The measured times of ``dot_product_attention`` (once per process) beside a slope-2 guide."""
        rows_t, t_source = measured_timings()
        fig = theme.style_figure(figure(height=300, sizing_mode="stretch_width", min_width=280, x_axis_type="log",
                                        y_axis_type="log", tools="",
                                        x_range=Range1d(TIMING_N[0] / 1.4, TIMING_N[-1] * 1.4),
                                        title="Measured time (d = 64)", name="timing_plot"))
        if rows_t:
            tn = [r[0] for r in rows_t]
            tms = [r[1] / 1000 for r in rows_t]
            timing_src = ColumnDataSource({"n": tn, "ms": tms}, name="timings")
            # slope-2 guide through the largest measured n: t = t_last (n / n_last)^2
            guide = ColumnDataSource({"n": list(TIMING_N), "ms": [tms[-1] * (g / tn[-1]) ** 2 for g in TIMING_N]},
                                     name="timing_guide")
            fig.line("n", "ms", source=guide, line_color=GREY, line_dash="dashed", line_width=1.5,
                     legend_label="slope 2 (n\u00b2)")
            tr = fig.line("n", "ms", source=timing_src, line_color=ORANGE, line_width=2.5, legend_label="measured")
            fig.scatter("n", "ms", source=timing_src, size=8, color=ORANGE)
            fig.y_range = Range1d(min(tms + guide.data["ms"]) / 2, max(tms + guide.data["ms"]) * 2)
            fig.legend.location = "top_left"
            theme.style_legend(fig.legend[0])
            fig.add_tools(HoverTool(renderers=[tr], tooltips=[("n", "@n"), ("time", "@ms{0.000} ms")]))
            note = f"Median time per call, {t_source}."
        else:
            fig.visible = False
            note = "No timings are available here; the n\u00b2 curve above shows the scaling alone."
        fig.xaxis.axis_label = "n"
        fig.xaxis.ticker = FixedTicker(ticks=list(TIMING_N))
        fig.xaxis.formatter = CustomJSTickFormatter(code="return String(tick);")
        fig.yaxis.axis_label = "milliseconds"
        fig.yaxis.formatter = CustomJSTickFormatter(code="return String(Number(tick.toPrecision(3)));")
        for ax in fig.axis:
            ax.major_label_policy = _even_labels(self)
        return fig, note

    # -- controls and texts ----------------------------------------------------------------------------
    def controls(self) -> dict:
        spec = url_spec(SentenceState)
        preset_options = [("", "\u2014 your own sentence \u2014")] + [(str(i), p["text"])
                                                                       for i, p in enumerate(self.presets)]
        form = [theme.widget_css()]   # the inputs' and selects' text at the theme's size
        # typed text reaches the engine only as the widget's value, which it hands to the tokenizer as data
        # (its title stays short: on a projector a longer one ran into the menu beside it; the note under it says
        # to press Enter)
        c = {k.key: k for k in CONTROLS}
        w_input = build_control(c["sentence"], self.state, value=self.raw, max_length=spec["sentence"]["max"],
                                placeholder="the bank by the river", sizing_mode="stretch_width", min_width=240)
        return dict(
            preset=Select(title="example sentence", options=preset_options, value="", name="preset_select",
                          sizing_mode="stretch_width", min_width=240, stylesheets=form),
            input=w_input,
            token=build_control(c["token"], self.state, value=str(self.token), width=170,
                                options=[(str(i), f"{i}: {t}") for i, t in enumerate(self.plain["tokens"])]),
            head=build_control(c["head"], self.state, active=self.head, sizing_mode="stretch_width",
                               labels=[f"{h}: {hd.name}" for h, hd in enumerate(self.model.heads)],
                               stylesheets=[InlineStyleSheet(css=".bk-btn-group { flex-wrap: wrap; }")]),
            temperature=build_control(c["att_temperature"], self.state, value=math.log10(self.temperature),
                                      min_width=200, stylesheets=[theme.slider_css()]),
            causal=build_control(c["causal"], self.state, active=self.causal),
        )

    def texts(self) -> dict:
        css, notices = [self.css], self.notices
        live = lambda name: _div(text="", name=name, stylesheets=css, sizing_mode="stretch_width")  # noqa: E731
        return dict(readout=live("sentence_readouts"), caption=live("sentence_caption"), info=live("sentence_info"),
                    preset=live("preset_note"),
                    notice=_div(text="".join(f'<p class="notice">{text.escape(s)}</p>' for s in notices),
                                name="sentence_notices", stylesheets=css, visible=bool(notices),
                                sizing_mode="stretch_width"))

    # -- the engine ------------------------------------------------------------------------------------
    def config(self) -> dict:
        spec = url_spec(SentenceState)
        return {
            "spec": {k: spec[k] for k in SENTENCE_KEYS}, "presets": self.presets,
            "model": browser_model(), "default_sentence": DEFAULT_SENTENCE,
            "initial": {"text": self.raw, "token": self.token, "head": self.head,
                        "att_temperature": self.temperature, "causal": self.causal},
            "refused": {"typed": REFUSED_TYPED, "link": REFUSED_LINK,
                        "too_long": TOO_LONG.format(max=spec["sentence"]["max"])},
            "notices": self.notices, "tokenize_note": TOKENIZE_NOTE, "theme": theme.js_config(),
            "url_rules": url_rules(), "colors": {"row": BLUE, "selected": VERMILLION}, "cell_text": CELL_TEXT,
            "geometry": GEOMETRY,
            "sense_label": SENSE_LABEL,
        }

    def engine(self, f: dict, w: dict, divs: dict):
        """The engine and its arguments; everything it draws lives only in the browser (no websocket traffic
        per gesture): the sources, the figures it resizes, their axes and ranges."""
        s, heat, minis, mini_figs = self.src, f["heat"], self.minis, self.mini_figs
        # The engine sets this box's width to the matrix's, but never wider than the screen: a long sentence
        # keeps 20 px rows and scrolls sideways inside the box on a phone.
        self.matrix_box = column(heat, width=self.geo["box"], name="matrix_box",
                                 styles={"overflow-x": "auto", "overflow-y": "hidden", "flex": "0 0 auto"})
        drawn = [f["heat"], f["bars"], f["sense"]]
        models = engine_args(
            synced=dict(config=self.config(), figs=[*drawn, f["cost"], f["timing"], *mini_figs],
                        w_preset=w["preset"], w_input=w["input"], w_token=w["token"], w_head=w["head"],
                        w_logt=w["temperature"], w_causal=w["causal"], head_divs=self.head_divs, fmt=self.fmt),
            browser_only=dict(
                **{k: s[k] for k in ("tokens_src", "cells", "cell_image", "cell_edges", "cell_labels", "rowsums",
                                     "rowmark", "bars", "sense_values", "sense_arrows", "sense_output",
                                     "sense_combined", "cost_now")},
                minis=minis, mini_figs=mini_figs, heat=heat, bars_fig=f["bars"], sense_fig=f["sense"],
                cmap=self.cmap, ticker=self.ticker, matrix_box=self.matrix_box,
                readout_div=divs["readout"], caption_div=divs["caption"], info_div=divs["info"],
                preset_div=divs["preset"], notice_div=divs["notice"]))
        if set(models) != set(ENGINE_ARGS):
            raise RuntimeError(f"the engine's arguments and ENGINE_ARGS differ: {set(models) ^ set(ENGINE_ARGS)}")
        for m in [f["cost"], *heat.axis, *f["bars"].axis, *f["cost"].axis, *f["sense"].axis,
                  *[a for g in mini_figs for a in g.axis], *[r for g in drawn + mini_figs for r in (g.x_range, g.y_range)]]:
            m.syncable = False   # resized and relabelled by the engine, not engine arguments themselves
        engine = engine_callback(models, engine_source())
        for key in ("input", "preset", "token", "temperature"):
            w[key].js_on_change("value", engine)
        w["head"].js_on_change("active", engine)
        w["causal"].js_on_change("active", engine)
        heat.js_on_event("tap", engine)
        for g in mini_figs:
            g.js_on_event("tap", engine)
        return engine, models

    # -- the layout ------------------------------------------------------------------------------------
    def controls_box(self, w: dict, divs: dict):
        css = [self.css]
        input_row = row(w["input"], w["preset"], sizing_mode="stretch_width",
                        styles={"flex-wrap": "wrap", "gap": "0 12px"})
        input_note = _div(text=f'<p class="small">{text.escape(INPUT_NOTE)}</p>', stylesheets=css,
                          sizing_mode="stretch_width", name="sentence_input_note")
        return column(input_row, input_note, divs["preset"], divs["info"], sizing_mode="stretch_width",
                      name="sentence_controls")

    def knobs_box(self, w: dict):
        """What acts on the matrix, right above it (kept in view with it): the head, T, the mask and the row."""
        return column(row(w["head"], sizing_mode="stretch_width", styles={"flex-wrap": "wrap"}),
                      row(w["temperature"], w["causal"], w["token"], sizing_mode="stretch_width",
                          styles={"flex-wrap": "wrap", "gap": "4px 16px", "align-items": "center"}),
                      sizing_mode="stretch_width", name="sentence_knobs")

    def layout(self, f: dict, w: dict, divs: dict, timing_note: str):
        css, wrap = [self.css], {"flex-wrap": "wrap", "gap": "12px"}
        prose = lambda html, **kw: _div(text=html, stylesheets=css, sizing_mode="stretch_width", **kw)  # noqa: E731
        # a long sentence keeps 20 px rows and scrolls sideways inside the matrix's box on a narrow screen
        row_box = column(f["bars"], row(divs["readout"], sizing_mode="stretch_width"), divs["caption"],
                         sizing_mode="stretch_width", min_width=280, styles={"flex": "1 1 300px"})
        routing = row(column(f["sense"], sizing_mode="stretch_width", styles={"flex": "3 1 320px"}),
                      prose(ROUTING, styles={"flex": "2 1 260px"}), sizing_mode="stretch_width", styles=wrap)
        heads = column(prose(MULTIHEAD),
                       row(*[column(g, d) for g, d in zip(self.mini_figs, self.head_divs)],
                           sizing_mode="stretch_width", styles={"flex-wrap": "wrap", "gap": "8px 20px"}),
                       sizing_mode="stretch_width", name="heads_box")
        # the cost plot takes a row of its own below 670 px: beside the timings it would leave its frame 130 px
        f["cost"].styles = {"flex": "1 1 360px"}
        timing_box = column(f["timing"], prose(f'<p class="small">{text.escape(timing_note)}</p>', name="timing_note"),
                            sizing_mode="stretch_width", styles={"flex": "1 1 280px"})
        cost = column(prose(COST), row(f["cost"], timing_box, sizing_mode="stretch_width", styles=wrap),
                      sizing_mode="stretch_width", name="cost_box")
        parts = {"intro": prose(INTRO, name="sentence_intro"), "notices": divs["notice"],
                 "knobs": self.knobs_box(w),
                 "matrix": column(self.matrix_box, prose(MATRIX_NOTE, name="matrix_note"), sizing_mode="stretch_width"),
                 "controls": self.controls_box(w, divs),
                 "row": row_box,
                 "routing": routing, "heads": heads, "cost": cost,
                 "perspective": prose(PERSPECTIVE, name="sentence_perspective")}
        layout = column(*parts.values(), sizing_mode="stretch_width", name="sentence_section", styles=PAGE_STYLES)
        return layout, parts


# The room kept for each part before it is drawn (px, a laptop's width): the page does not jump.
BLOCK_PX = {"intro": 260, "knobs": 110, "matrix": 420, "controls": 230, "row": 400, "routing": 420, "heads": 360,
            "cost": 420, "perspective": 320}
# (the selected row's bars open the body under them: with them in the side column it ended 1000 px below the
# figure's at 1366 x 768, tests/browser/test_length.py; the sense plot stays beside the matrix, a step shows both)
BLOCK_PLACE = {"intro": "head", "notices": "head", "knobs": "stage", "matrix": "stage", "controls": "side", "row": "body",
               "routing": "side"}

__all__ = ["SentenceView", "SentenceSection", "build_sentence", "measured_timings", "sentence_plain",
           "presets_payload"]
