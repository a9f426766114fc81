"""Two ideas around attention, shown: sequential against parallel, and a known lag as a feature.

``build_ideas(state, sentence=...)`` returns the section as a Bokeh
layout plus its engine (a ``CustomJS`` running ``engine.js``).  Everything is
computed here, in Python, by the core:

* the dependency graphs of the current sentence (``graph_data``, from
  ``attention.dependency_edges``); the engine redraws them from the token
  count when the self-attention section's sentence changes (``graphData`` in
  engine.js is this function's twin, held to it by a browser test);
* the timings of ``attention.time_rnn_and_attention`` (measured once per
  process, within its time budget);
* ``attention.compare_lag_models`` for every period 3 ... 14, shipped in the
  engine's config; the period select only switches between these results.

The same builder serves ``panel serve`` and the offline file.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from bokeh.models import (Arrow, ColumnDataSource, CustomJS, CustomJSTickFormatter, Div, FixedTicker,
                          HoverTool, InlineStyleSheet, LinearAxis, NormalHead, Range1d)
from bokeh.layouts import column, row
from bokeh.plotting import figure

import attention
from attention import lags

from app.ui import text, theme
from app.state import url_spec
from app.ui.controls import build_control
from app.ui.engine import engine_callback, engine_code, url_rules
from app.ui.layout import Block
from app.ui.theme import BLUE, GREY, ORANGE, PAGE_CSS, PAGE_STYLES, SKY, VERMILLION

from .state import CONTROLS, IdeasState

HERE = Path(__file__).resolve().parent
PERIODS = tuple(range(3, lags.MAX_LAG + 1))
DEFAULT_PERIOD = lags.DEFAULT_PERIOD
CONTEXT_DAYS = 14                 # days before the held-out weeks drawn for context
WORD_LABELS_UP_TO = 6             # the graph names the words for sentences this short
# The dependency graphs' look, one definition for graph_data and graphData (engine.js, through the config):
# nodes of node_px up to node_px_up_to words, then node_area / n px (at least node_min); attention's edges
# bulge up by bulge * (j - i) / (n - 1).
GRAPH = {"labels_up_to": WORD_LABELS_UP_TO, "node_px": 12, "node_px_up_to": 12, "node_area": 150, "node_min": 5,
         "bulge": 0.9,
         # A longer sentence's words stand upright above the chain, one per node (graph_words_axis): the graph
         # grows by word_room px for them (a word is cut to word_chars characters, ending in "…", so it fits) and
         # keeps word_px px per word (more than an upright 14 px label needs), scrolling sideways in its box on a
         # phone when the sentence is long; height and min_width are its size otherwise.
         "height": 250, "min_width": 280, "word_room": 110, "word_px": 18, "word_margin": 40, "word_chars": 14}
DEFAULT_TOKENS = ("the", "bank", "by", "the", "river")
FONT = "14px"                     # every text on a canvas
N_TICKS = (64, 512, 2048)         # the n axes: labels that do not collide at 300 px

IDEAS_CSS = PAGE_CSS + """
h2 { font-size: 1.4em; margin: 1.2em 0 0.2em; border-top: 1px solid #ddd; padding-top: 0.8em; }
table.errors { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 4px 0; }
table.errors th { text-align: left; font-weight: normal; padding: 3px 12px 3px 0; }
table.errors td { font-weight: bold; text-align: right; padding: 3px 0; }
"""


# --------------------------------------------------------------------------- words on the page

INTRO = """
<h2>Why attention won: fewer steps in a row, not less work</h2>
"""

SEQUENCE = """
<h3>One step after another, or all at once</h3>
<p>A recurrent network (RNN) reads word by word, updating one state,
h<sub>t</sub> = tanh(W h<sub>t&minus;1</sub> + U x<sub>t</sub>). Each update waits for the one before, so the
first word reaches the last only after n steps in a row. Attention links all words at once, in one matrix
product.</p>
"""

SEQUENCE_AFTER = """
<p><b>What the plots show.</b> Attention does more arithmetic, n&sup2; scores, but in one step instead of n
in a row, and a graphics card runs the scores side by side: that is why attention won. The n&sup2; scores
are also why long contexts cost memory.</p>
"""

LAG_HEAD = "<h3>A known lag is a feature</h3>"

LAG_AFTER = """
<p>Attention finds the lag by itself. The linear model is told the lag and needs two numbers, not 14 weights
and a training loop: when you know which past matters, a lagged column does the job. Attention earns its cost
when the useful position moves from input to input, as the word that explains &ldquo;bank&rdquo; does.</p>
<details><summary>Where the rest of the weight goes</summary>
<p>Attention puts the rest of its weight on days that also help a little, such as two periods back when that is
within the 14 days: averaging two periods cancels some of the noise.</p>
</details>
"""


def pattern_words(period: int) -> str:
    """The pattern's name for its period: weekly at 7 days, two-week at 14, else "repeats every k days"."""
    return {7: "a weekly pattern", 14: "a two-week pattern"}.get(int(period),
                                                                 f"a pattern that repeats every {int(period)} days")


def lag_intro(period: int) -> str:
    """The lag panel's words for a period (twin of ``lagIntro`` in engine.js): what the series does and what the two
    models use."""
    k = int(period)
    return (f"<p>A shop's daily sales follow {pattern_words(k)}, plus noise and a drifting level. Two models "
            f"predict tomorrow from the last 14 days (trained on 20 weeks, tested on the next 4):</p>"
            f"<ul><li><b>attention over the past</b>: a weighted average of the 14 days, one learned weight per "
            f"lag;</li><li><b>a linear model with one lagged column</b>: a + b &times; (the value "
            f"{k} {'day' if k == 1 else 'days'} ago), fitted by least squares.</li></ul>")


# --------------------------------------------------------------------------- numbers as students read them

def fmt_num(v: float, digits: int = 2) -> str:
    """Fixed decimals, a typographic minus, and never exponent notation (0 for -0)."""
    s = f"{float(v):.{digits}f}"
    if float(s) == 0:
        s = s.lstrip("-")
    return s.replace("-", "\u2212")


def fmt_ms(seconds: float) -> str:
    """Milliseconds with about three significant digits, no exponent: 0.0412, 8.15, 41.2."""
    ms = float(seconds) * 1000.0
    if ms >= 100:
        return f"{ms:.0f}"
    if ms >= 1:
        return f"{ms:.3g}"
    return f"{ms:.3f}" if ms >= 0.001 else "\u2248 0"


def fmt_count(n: int) -> str:
    """1024, 65 536, 4.2 million: digits grouped by a thin space from 10 000, words from a million."""
    n = int(n)
    if n >= 1_000_000:
        return f"{n / 1e6:.1f} million"
    return f"{n:,}".replace(",", "\u2009") if n >= 10_000 else str(n)


# --------------------------------------------------------------------------- data

def graph_data(tokens) -> dict:
    """The two dependency graphs of a sentence, as the glyphs draw them (twin of ``graphData`` in engine.js).

    Nodes: the RNN's row at y = 2 and attention's at y = 0, one node per word at x = 0 ... n - 1,
    12 px across up to 12 words, then 150 / n px (at least 5).
    Chain: the RNN's edges (i, i + 1) as arrows.  Pairs: attention's edges (i, j), i < j, as
    quadratic curves bulging up by 0.9 (j - i) / (n - 1) (their peak is half of that).
    """
    toks = [str(t) for t in tokens]
    n = len(toks)
    edges = attention.dependency_edges(n)
    G = GRAPH
    labels = toks if n <= G["labels_up_to"] else [""] * n
    # a long sentence's nodes shrink (round() halves to even, JS's Math.round up: the twin uses math.floor(x + 0.5))
    size = float(G["node_px"]) if n <= G["node_px_up_to"] else max(float(G["node_min"]),
                                                                   float(math.floor(G["node_area"] / n + 0.5)))
    nodes = {"x": [float(i) for i in range(n)] * 2, "y": [2.0] * n + [0.0] * n, "tok": toks * 2,
             "label": labels * 2, "size": [size] * (2 * n)}
    chain = {"x0": [float(i) for i, _ in edges["rnn"]], "x1": [float(j) for _, j in edges["rnn"]],
             "y0": [2.0] * (n - 1), "y1": [2.0] * (n - 1)}
    span = max(n - 1, 1)
    pairs = {"x0": [float(i) for i, _ in edges["attention"]], "x1": [float(j) for _, j in edges["attention"]],
             "cx": [(i + j) / 2 for i, j in edges["attention"]],
             "cy": [G["bulge"] * (j - i) / span for i, j in edges["attention"]]}
    pairs["y0"] = [0.0] * len(pairs["x0"])
    pairs["y1"] = [0.0] * len(pairs["x0"])
    return {"nodes": nodes, "chain": chain, "pairs": pairs, "n": n}


@lru_cache(maxsize=1)
def sequence_timings() -> dict:
    """``attention.time_rnn_and_attention()`` as plain numbers, measured once per process."""
    return attention.time_rnn_and_attention().as_dict()


def _rounded(values, digits=4):
    return [round(float(v), digits) for v in values]


def _lag_result(period: int) -> dict:
    r = attention.compare_lag_models(period)
    test = r["test_days"]
    first = test[0] - CONTEXT_DAYS
    day = list(range(first - test[0] + 1, len(test) + 1))          # -13 ... 28, day 1 = the first held out
    return {"period": period, "top_lag": r["top_lag"], "lag": r["lag"],
            "weights": _rounded(r["weights"]), "intercept": round(r["intercept"], 4), "slope": round(r["slope"], 4),
            "rmse_attention": round(r["rmse_attention"], 4), "rmse_linear": round(r["rmse_linear"], 4),
            "rmse_equal_weights": round(r["rmse_equal_weights"], 4),
            "actual": {"day": day, "y": _rounded(r["y"][first:])},
            "pred": {"day": list(range(1, len(test) + 1)), "attention": _rounded(r["pred_attention"]),
                     "linear": _rounded(r["pred_linear"])}}


@lru_cache(maxsize=1)
def _lag_json() -> str:
    return json.dumps({str(p): _lag_result(p) for p in PERIODS}, separators=(",", ":"))


def lag_results() -> dict:
    """Both lag models for every period 3 ... 14, keyed by the period as a string (computed once per process)."""
    return json.loads(_lag_json())


def lag_sources(res: dict) -> dict:
    """The data of the lag panel's sources for one period's result (twin of ``lagData`` in engine.js)."""
    k = res["period"]
    lags_ = list(range(1, len(res["weights"]) + 1))
    return {"weights": {"lag": lags_, "w": res["weights"], "color": [VERMILLION if i == k else BLUE for i in lags_],
                        "label": [fmt_num(w) if i == res["top_lag"] else "" for i, w in zip(lags_, res["weights"])]},
            "actual": dict(res["actual"]), "pred": dict(res["pred"])}


def lag_ticks(period: int) -> list[int]:
    """Ticks of the weights' lag axis: 1, the period and 14, minus 14 when the period is 12 or more (crowded)."""
    return sorted({1, int(period)} | ({lags.MAX_LAG} if period < lags.MAX_LAG - 2 else set()))


def errors_html(res: dict) -> str:
    """The two models' errors side by side (twin of ``errorsHtml`` in engine.js)."""
    k = res["lag"]
    rows = [(f"attention over 14 days (14 learned weights; largest on lag {res['top_lag']})", res["rmse_attention"]),
            (f"linear model on the value {k} days back (a = {fmt_num(res['intercept'])}, "
             f"b = {fmt_num(res['slope'])})", res["rmse_linear"]),
            ("equal weights over 14 days (attention before learning)", res["rmse_equal_weights"])]
    body = "".join(f"<tr><th>{text.escape(name)}</th><td>{fmt_num(v)}</td></tr>" for name, v in rows)
    return ('<table class="errors"><tr><th><i>error on the 4 held-out weeks (root mean square)</i></th>'
            f'<td></td></tr>{body}</table>')


# --------------------------------------------------------------------------- figures

def _style(fig):
    fig.toolbar_location = None
    fig.outline_line_color = None
    fig.min_border_left = 10
    for ax in fig.axis:
        ax.major_label_text_font_size = FONT
        ax.axis_label_text_font_size = FONT
        ax.axis_label_text_font_style = "normal"
        if type(ax.formatter).__name__ in ("BasicTickFormatter", "LogTickFormatter"):  # never exponent notation
            ax.formatter = theme.plain_ticks()
    return fig


def _legend(fig, where="below"):
    leg = fig.legend[0]
    leg.label_text_font_size = FONT
    leg.background_fill_alpha = 0.85
    leg.spacing = 0
    leg.padding = 4
    leg.margin = 4
    if where == "below":
        fig.add_layout(leg, "below")
        leg.location = "top_left"
    else:
        leg.location = where


def _count_formatter():
    """Plain numbers on a log axis: 0.01, 1, 1000, 100 000, 1 million (never exponent notation)."""
    return CustomJSTickFormatter(code="""
if (tick >= 1e6) return String(Number((tick / 1e6).toPrecision(3))) + " million";
if (tick >= 10000) return Math.round(tick).toLocaleString("en-US").replace(/,/g, "\u2009");
if (tick >= 1) return String(Math.round(tick));
return String(Number(tick.toPrecision(3)));""")


# An upright word above the chain: the sentence's word at that node, cut to GRAPH["word_chars"] characters.
WORD_LABEL_JS = """
const t = src.data.tok, n = t.length / 2, i = Math.round(tick);
if (i < 0 || i >= n || Math.abs(tick - i) > 1e-6) return "";
const w = String(t[i]);
return w.length > chars ? w.slice(0, chars - 1) + "\u2026" : w;"""


def graph_size(n: int) -> dict:
    """The graph's height and least width for n words (twin of graphSize in engine.js): taller and, for long
    sentences, wider once the words stand above the chain."""
    G = GRAPH
    if n <= G["labels_up_to"]:
        return {"height": G["height"], "min_width": G["min_width"]}
    return {"height": G["height"] + G["word_room"], "min_width": max(G["min_width"], n * G["word_px"] + G["word_margin"])}


def graph_figure(sources: dict):
    """The RNN's chain (top row) and attention's all pairs (bottom row) for the current sentence.  Up to
    GRAPH["labels_up_to"] words each node is named under it; a longer sentence's words stand upright above the
    chain, on an axis whose ticks are the nodes (the engine sets them)."""
    n = len(sources["nodes"].data["x"]) // 2
    size = graph_size(n)
    fig = _style(figure(height=size["height"], sizing_mode="stretch_width", min_width=size["min_width"],
                        max_width=760, tools="", x_range=Range1d(-0.6, n - 0.4), y_range=Range1d(-0.75, 2.9),
                        name="dependency_graph"))
    fig.axis.visible = False
    fig.grid.visible = False
    words = LinearAxis(ticker=FixedTicker(ticks=list(range(n)) if n > GRAPH["labels_up_to"] else []),
                       formatter=CustomJSTickFormatter(args={"src": sources["nodes"], "chars": GRAPH["word_chars"]},
                                                       code=WORD_LABEL_JS),
                       major_label_orientation=math.pi / 2, major_label_text_font_size=FONT, major_label_standoff=2,
                       major_label_text_color="#222", axis_line_color=None, major_tick_line_color=None,
                       minor_tick_line_color=None, visible=n > GRAPH["labels_up_to"], name="graph_words_axis")
    fig.add_layout(words, "above")
    fig.quadratic("x0", "y0", "x1", "y1", "cx", "cy", source=sources["pairs"], line_color=BLUE, line_width=1.5,
                  line_alpha=0.7)
    fig.add_layout(Arrow(source=sources["chain"], x_start="x0", y_start="y0", x_end="x1", y_end="y1",
                         line_color=VERMILLION, line_width=2.5,
                         end=NormalHead(size=9, fill_color=VERMILLION, line_color=VERMILLION)))
    nodes = fig.scatter("x", "y", source=sources["nodes"], size="size", fill_color="white", line_color=GREY,
                        line_width=2)
    fig.text("x", "y", text="label", source=sources["nodes"], y_offset=12, text_align="center",
             text_baseline="top", text_font_size=FONT, text_color="#222")
    fig.text(x=[-0.55, -0.55], y=[2.85, 0.95], text=["RNN: a chain", "attention: all pairs"],
             text_font_size=FONT, text_baseline="top", text_color="#222")
    fig.add_tools(HoverTool(renderers=[nodes], tooltips=[("word", "@tok")]))
    return fig


def timing_figure(t: dict):
    """Measured milliseconds against n, both axes logarithmic."""
    ms_r = [s * 1000 for s in t["rnn_s"]]
    ms_a = [s * 1000 for s in t["attention_s"]]
    lo, hi = min(ms_r + ms_a), max(ms_r + ms_a)
    src = ColumnDataSource({"n": t["n"], "rnn": ms_r, "att": ms_a, "steps": t["rnn_steps"], "scores": t["scores"]},
                           name="sequence_timings")
    ns = attention.sequence.TIMING_N     # the whole range, even when the budget stopped the measurement early
    fig = _style(figure(height=300, sizing_mode="stretch_width", min_width=280, tools="", x_axis_type="log",
                        y_axis_type="log", x_range=Range1d(ns[0] / 1.5, ns[-1] * 1.5),
                        y_range=Range1d(lo / 3, hi * 3), name="sequence_timing_plot"))
    r1 = fig.line("n", "rnn", source=src, line_color=VERMILLION, line_width=3, legend_label="RNN (numpy loop)")
    fig.scatter("n", "rnn", source=src, size=9, color=VERMILLION)
    r2 = fig.line("n", "att", source=src, line_color=BLUE, line_width=3, line_dash="dashed",
                  legend_label="attention (one product)")
    fig.scatter("n", "att", source=src, size=9, marker="square", color=BLUE)
    fig.xaxis.ticker = FixedTicker(ticks=list(N_TICKS))
    fig.xaxis.formatter = _count_formatter()
    fig.yaxis.formatter = _count_formatter()
    fig.xaxis.axis_label = "sequence length n"
    fig.yaxis.axis_label = "milliseconds"
    fig.add_tools(HoverTool(renderers=[r1, r2], tooltips=[("n", "@n"), ("RNN", "@rnn{0.000} ms"),
                                                           ("attention", "@att{0.000} ms")]))
    _legend(fig)
    return fig


def counts_figure(t: dict):
    """Sequential steps (n against 1) beside the n² scores, against n, both axes logarithmic."""
    ns = list(attention.sequence.TIMING_N)
    src = ColumnDataSource({"n": ns, "rnn": ns, "att": [1] * len(ns), "scores": [n * n for n in ns]},
                           name="sequence_counts")
    fig = _style(figure(height=300, sizing_mode="stretch_width", min_width=280, tools="", x_axis_type="log",
                        y_axis_type="log", x_range=Range1d(ns[0] / 1.5, ns[-1] * 1.5),
                        y_range=Range1d(0.5, ns[-1] ** 2 * 4), name="sequence_counts_plot"))
    r1 = fig.line("n", "rnn", source=src, line_color=VERMILLION, line_width=3, legend_label="RNN: n steps in a row")
    r2 = fig.line("n", "att", source=src, line_color=BLUE, line_width=3, line_dash="dashed",
                  legend_label="attention: 1 step")
    r3 = fig.line("n", "scores", source=src, line_color=SKY, line_width=3, legend_label="attention: n\u00b2 scores")
    fig.yaxis.ticker = FixedTicker(ticks=[1, 100, 10_000, 1_000_000])
    fig.xaxis.ticker = FixedTicker(ticks=list(N_TICKS))
    fig.xaxis.formatter = _count_formatter()
    fig.yaxis.formatter = _count_formatter()
    fig.xaxis.axis_label = "sequence length n"
    fig.yaxis.axis_label = "count"
    fig.add_tools(HoverTool(renderers=[r1, r2, r3], tooltips=[("n", "@n"), ("RNN steps", "@rnn"),
                                                               ("attention steps", "@att"),
                                                               ("scores", "@scores{0,0}")]))
    _legend(fig)
    return fig


def lag_weights_figure(src, ticker):
    """Attention's learned weight on each of the 14 lags; the pattern's period in vermillion."""
    fig = _style(figure(height=260, sizing_mode="stretch_width", min_width=280, tools="",
                        x_range=Range1d(0.4, lags.MAX_LAG + 0.6), y_range=Range1d(0, 1.08), name="lag_weights"))
    bars = fig.vbar(x="lag", top="w", width=0.75, source=src, fill_color="color", line_color=None)
    fig.text("lag", "w", text="label", source=src, y_offset=-4, text_align="center", text_baseline="bottom",
             text_font_size=FONT, text_color="#222")
    fig.xaxis.ticker = ticker
    fig.xgrid.visible = False
    fig.xaxis.axis_label = "lag: days back"
    fig.yaxis.axis_label = "weight"
    fig.yaxis.ticker = FixedTicker(ticks=[0, 0.5, 1])
    fig.add_tools(HoverTool(renderers=[bars], tooltips=[("lag", "@lag days"), ("weight", "@w{0.000}")]))
    return fig


def lag_predictions_figure(actual, pred):
    """The held-out weeks: the series, and both models' predictions."""
    fig = _style(figure(height=320, sizing_mode="stretch_width", min_width=280, tools="",
                        x_range=Range1d(-CONTEXT_DAYS + 0.5, lags.DEFAULT_HOLDOUT + 0.5), name="lag_predictions"))
    fig.line("day", "y", source=actual, line_color="#999999", line_width=1.5, legend_label="actual")
    fig.scatter("day", "y", source=actual, size=6, color=GREY, legend_label="actual")
    fig.line("day", "attention", source=pred, line_color=BLUE, line_width=2.5, legend_label="attention")
    fig.line("day", "linear", source=pred, line_color=ORANGE, line_width=2.5, line_dash="dashed",
             legend_label="linear, one lag")
    fig.xaxis.ticker = FixedTicker(ticks=[-13, 1, 8, 15, 22, 28])
    fig.xaxis.formatter = CustomJSTickFormatter(code="return tick < 0 ? '\u2212' + String(-tick) : String(tick);")
    fig.xaxis.axis_label = "day (held out from day 1)"
    fig.yaxis.axis_label = "sales"
    fig.yaxis.formatter = CustomJSTickFormatter(code="return tick < 0 ? '\u2212' + String(-tick) : String(tick);")
    fig.add_layout(_held_out_box())
    _legend(fig)
    return fig


def _held_out_box():
    from bokeh.models import BoxAnnotation
    return BoxAnnotation(left=0.5, fill_color=SKY, fill_alpha=0.08, line_color=None)


# --------------------------------------------------------------------------- texts built from numbers

def graph_caption(n: int) -> str:
    """What the graphs count for a sentence of n words (twin of ``graphCaption`` in engine.js)."""
    pairs = n * (n - 1) // 2
    steps = "step" if n == 1 else "steps"
    return (f'<p>For these {n} words the RNN takes <b>{n} {steps} in a row</b>, one per link of the chain. '
            f'Attention scores all {fmt_count(n * n)} pairs (the {fmt_count(pairs)} links between different words '
            f'are drawn) in <b>one step</b>.</p>')


def timing_note(t: dict) -> str:
    """The measured figures in words, true whichever of the two came out faster on the machine that built the page:
    the largest n measured, which was faster there, and from which n on when that changed."""
    ns, rnn, att = t["n"], t["rnn_s"], t["attention_s"]
    n, r, a = ns[-1], rnn[-1], att[-1]
    cut = "" if t["complete"] else (f" The time budget of {t['budget_s']:.1f} s stopped the measurement at "
                                    f"n = {n}.")
    head = (f"Measured when this page was built (best of up to 5 runs, vectors of {t['d']} numbers). At "
            f"n = {fmt_count(n)} the RNN loop took {fmt_ms(r)} ms for {fmt_count(n)} steps in a row; attention took "
            f"{fmt_ms(a)} ms for {fmt_count(n * n)} scores in one step.")
    slower_from = None   # the smallest n from which on attention took longer at every n measured
    for k, x, y in reversed(list(zip(ns, rnn, att))):
        if y <= x:
            break
        slower_from = k
    if a > r:
        since = "" if slower_from in (None, ns[0]) else f" from n = {fmt_count(slower_from)} on"
        verdict = (f"Here attention took longer{since}: this processor works through the n\u00b2 scores a few at "
                   f"a time. Hardware with thousands of parallel units turns the single step into speed.")
    else:
        verdict = ("Here attention was faster: its n\u00b2 scores are one matrix product in fast compiled code, "
                   "while the RNN's n updates wait for each other. On few cores the n\u00b2 work catches up as n "
                   "grows.")
    return f"<p>{head}</p><p>{verdict}{cut}</p>"


# --------------------------------------------------------------------------- the view

ENGINE_ARGS = ["config", "tokens_src", "nodes", "chain", "pairs", "graph_fig", "graph_div", "w_period",
               "lag_w", "lag_actual", "lag_pred", "lag_ticker", "errors_div", "lag_intro"]


@lru_cache(maxsize=None)
def engine_source() -> str:
    """ui/common.js (the link's parser, the page's bus), then engine.js and its call."""
    return engine_code(HERE / "engine.js", "Ideas.handle", ENGINE_ARGS)


@dataclass
class IdeasView:
    layout: object
    engine: CustomJS
    widgets: dict
    models: dict = field(default_factory=dict)
    blocks: list = field(default_factory=list)   # app/ui/layout.Block, in page order


def _div(html: str, css, **props) -> Div:
    return Div(text=html, stylesheets=[css], disable_math=True, sizing_mode="stretch_width", **props)


def _wrap(*children, **styles):
    return row(*children, sizing_mode="stretch_width", styles={"flex-wrap": "wrap", "gap": "8px 16px", **styles})


def _sequence_part(tokens_src, css) -> tuple[object, dict]:
    g = graph_data(tokens_src.data["tok"])
    srcs = {k: ColumnDataSource(g[k], name=f"graph_{k}") for k in ("nodes", "chain", "pairs")}
    graph_fig = graph_figure(srcs)
    graph_div = _div(graph_caption(g["n"]), css, name="graph_caption")
    t = sequence_timings()
    timing_fig, counts_fig = timing_figure(t), counts_figure(t)
    box = lambda f: column(f, sizing_mode="stretch_width", min_width=280, styles={"flex": "1 1 300px"})  # noqa: E731
    # a long sentence's graph keeps its words apart and scrolls sideways inside this box on a phone
    graph_box = column(graph_fig, sizing_mode="stretch_width", name="graph_box",
                       styles={"overflow-x": "auto", "overflow-y": "hidden"})
    part = column(_div(SEQUENCE, css), graph_box, graph_div,
                  _wrap(box(timing_fig), box(counts_fig)),
                  _div(timing_note(t), css, name="timing_caption"), _div(SEQUENCE_AFTER, css),
                  sizing_mode="stretch_width", name="sequence_box")
    return part, {"nodes": srcs["nodes"], "chain": srcs["chain"], "pairs": srcs["pairs"], "graph_fig": graph_fig,
                  "graph_div": graph_div, "quiet": [graph_fig, timing_fig, counts_fig, *srcs.values()]}


def _lag_part(css, period: int = DEFAULT_PERIOD) -> tuple[tuple, dict]:
    res = lag_results()[str(period)]
    data = lag_sources(res)
    lag_w = ColumnDataSource(data["weights"], name="lag_weight_bars")
    lag_actual = ColumnDataSource(data["actual"], name="lag_actual")
    lag_pred = ColumnDataSource(data["pred"], name="lag_pred")
    ticker = FixedTicker(ticks=lag_ticks(period), name="lag_ticker")
    w_period = build_control(CONTROLS[0], IdeasState(period=period), options=[str(p) for p in PERIODS], width=240)
    weights_fig = lag_weights_figure(lag_w, ticker)
    pred_fig = lag_predictions_figure(lag_actual, lag_pred)
    errors_div = _div(errors_html(res), css, name="lag_errors")
    intro = _div(lag_intro(period), css, name="lag_intro")
    # the menu right above the bars it changes: a tour step keeps both in view
    # three blocks: the words before, the menu with its plots and their errors (what a short frame shows), after
    head = column(_div(LAG_HEAD, css), intro, sizing_mode="stretch_width", name="lag_head")
    part = column(_wrap(column(_div("<p><b>Attention's weights, last 14 days</b></p>", css), w_period, weights_fig,
                               sizing_mode="stretch_width", min_width=280, styles={"flex": "1 1 300px"}),
                        column(_div("<p><b>The 4 held-out weeks</b> (shaded)</p>", css), pred_fig,
                               sizing_mode="stretch_width", min_width=280, styles={"flex": "2 1 300px"})),
                  errors_div, sizing_mode="stretch_width", name="lag_box")
    after = _div(LAG_AFTER, css)
    return (head, part, after), {"w_period": w_period, "lag_w": lag_w, "lag_actual": lag_actual, "lag_pred": lag_pred,
                  "lag_ticker": ticker, "errors_div": errors_div, "lag_intro": intro,
                  "quiet": [weights_fig, pred_fig, lag_w, lag_actual, lag_pred, ticker, errors_div, intro]}


def build_ideas(state=None, *, sentence: dict | None = None) -> IdeasView:
    """The section: the dependency graphs and timings, then the lag panel.

    ``sentence``: what it borrows of the self-attention section (its contract's ``borrows``): ``tokens_src``, the
    source of the current words (column "tok"), which the graphs follow.  Without it (a page without that
    section), they show the default sentence.
    """
    css = InlineStyleSheet(css=IDEAS_CSS)
    tokens_src = sentence["tokens_src"] if sentence else None
    if tokens_src is None:
        tokens_src = ColumnDataSource({"tok": list(DEFAULT_TOKENS)}, name="ideas_tokens")
    seq, s = _sequence_part(tokens_src, css)
    period = int(getattr(state, "period", DEFAULT_PERIOD))
    lag, g = _lag_part(css, period if str(period) in lag_results() else DEFAULT_PERIOD)
    spec = url_spec(IdeasState)
    config = {"lags": lag_results(), "graph": GRAPH, "colors": {"top": VERMILLION, "other": BLUE},
              "spec": {"period": spec["period"]}, "url_rules": url_rules()}
    models = {"config": config, "tokens_src": tokens_src, **{k: v for k, v in {**s, **g}.items() if k != "quiet"}}
    assert set(models) == set(ENGINE_ARGS)
    for m in s["quiet"] + g["quiet"]:
        m.syncable = False      # drawn by the engine in the browser: no websocket traffic
    engine = engine_callback(models, engine_source())
    tokens_src.js_on_change("data", engine)
    g["w_period"].js_on_change("value", engine)
    intro = _div(INTRO, css)
    layout = column(intro, seq, *lag, sizing_mode="stretch_width", name="ideas_section", styles=PAGE_STYLES)
    blocks = [Block("ideas-intro", intro, "body", height=200), Block("ideas-sequence", seq, "body", height=1100),
              Block("ideas-lag-head", lag[0], "body", height=300), Block("ideas-lag", lag[1], "body", height=520),
              Block("ideas-lag-after", lag[2], "body", height=180)]
    return IdeasView(layout=layout, engine=engine, widgets={"period": g["w_period"]}, models=models, blocks=blocks)


__all__ = ["IdeasView", "build_ideas", "graph_data", "graph_caption", "graph_size", "lag_results", "lag_sources", "errors_html",
           "lag_intro", "pattern_words",
           "sequence_timings", "lag_ticks", "fmt_num", "fmt_ms", "fmt_count"]
