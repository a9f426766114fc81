"""The regression section's words: the live caption and limit notices (twins of ``caption`` and
``limitNotices`` in app/regression/text.js) and the short explanations.

The explanations are fixed HTML written for students; nothing a user types is
ever placed in them.
"""

from __future__ import annotations

from attention.datasets import MAX_GENERATED_N
from app.ui.text import MINUS, _signed, escape, plain, signed  # noqa: F401  (the section's words use them)
from app.ui.theme import legend_item, legend_label

# The section's plots by the names a person calls them, in the page's order (the figure menu, a step's PNG).
FIGURES = {
    "main_plot": "The samples, the query and the prediction",
    "weights_plot": "Weight of each sample",
    "entropy_x_plot": "Spread of the weights along x",
    "entropy_h_plot": "Spread of the weights against h",
    "bias_variance_plot": "Bias and variance against h",
}

# When the page names a limit: one sample takes this much of the weight (1-nearest-neighbour), or the
# weights spread over this fraction of the samples (nearly uniform).  The engine gets them from its config.
ONE_SAMPLE_WEIGHT = 0.95
NEAR_UNIFORM_FRACTION = 0.9


def similarity_words(kernel: str, key_norm: float = 0.0) -> str:
    """The caption's name for the similarity, with the key-norm tilt when there is one."""
    if kernel == "gaussian":
        return "a Gaussian similarity"
    if key_norm == 0:
        return "a dot-product similarity on circle keys of equal length"
    side = "right" if key_norm > 0 else "left"
    return (f"a dot-product similarity on circle keys with key-norm tilt {_signed(key_norm, 2)}, so keys further "
            f"{side} are longer")


# The kernel menu's label for the dot product follows the tilt (twin: kernelOptions in text.js reads these).
KERNEL_LABELS = {"gaussian": "Gaussian", "dot": "dot product, equal-norm keys", "dot_tilted": "dot product, tilted keys"}


def kernel_options(key_norm: float = 0.0) -> list:
    """The kernel menu's options: the dot product is "equal-norm keys" only while the tilt is 0."""
    return [("gaussian", KERNEL_LABELS["gaussian"]), ("dot", KERNEL_LABELS["dot" if key_norm == 0 else "dot_tilted"])]


def caption(r, *, kernel: str, bandwidth: float, temperature: float, key_norm: float = 0.0,
            units: dict | None = None) -> str:
    """One sentence that reads a readout aloud (the page's caption).

    ``units``: on your own data, the query and h as the data's units write them (``units_words``); the
    readout ``r`` is then the page's, on the sliders' scale.
    """
    sim = similarity_words(kernel, key_norm)
    t = "" if temperature == 1 else f", T = {plain(temperature, 3)}"
    truth = "" if r.true_value is None else f" (true value {_signed(r.true_value, 2)})"
    where = f"x = {_signed(r.query, 2)}" if units is None else f"{units['x_name']} = {units['query']}"
    h = plain(bandwidth, 3) if units is None else f"{units['h']} on the {units['x_name']} axis"
    return (f"A query at {where} averages the {r.n} samples with softmax weights of {sim} "
            f"(h = {h}{t}). The largest weight is {r.max_weight:.3f}, the weights spread over about "
            f"{r.effective_points:.1f} effective points, and the prediction is {_signed(r.prediction, 2)}{truth}.")


# ---- your own data: numbers in the data's units (twins of unitText and lengthText in text.js) ------------

def unit_decimals(span: float) -> int:
    """Decimals that tell apart two positions a six-hundredth of the data's span apart (0 to 12)."""
    import math

    return min(max(math.ceil(-math.log10(span / 600)), 0), 12)


def unit_text(v: float, span: float) -> str:
    """A position in the data's units: fixed decimals for the span, the typographic minus, no exponent."""
    return _signed(v, unit_decimals(span))


def length_text(v: float) -> str:
    """A length in the data's units (a bandwidth): three significant digits, never exponent notation."""
    import math

    if v >= 1e-4 or v <= 0:
        return plain(v, 3)
    return f"{v:.{min(2 - math.floor(math.log10(v)), 20)}f}"


def units_words(x_name: str, scale, span: float, query: float, bandwidth: float) -> dict:
    """The caption's words for a state on your own data (twin of unitsWords in units.js): ``scale`` is the
    app.userdata.Scale the page used, ``span`` the data's x span in their units, query and bandwidth on the
    sliders' scale."""
    return {"x_name": x_name, "query": unit_text(scale.to_units(query), span),
            "h": length_text(scale.h_to_units(bandwidth))}


def heaviest_sample(query: float, keys, values, weights) -> dict:
    """The sample with the largest weight: its x, its y, and whether it is (one of) the nearest to the query.

    Twin of ``heaviestSample`` in app/regression/text.js; feeds ``limit_notices``.
    """
    keys, values, weights = list(map(float, keys)), list(map(float, values)), list(map(float, weights))
    i = max(range(len(weights)), key=lambda j: (weights[j], -j))
    nearest = min(abs(k - query) for k in keys)
    return {"x": keys[i], "y": values[i], "nearest": abs(keys[i] - query) <= nearest + 1e-9}


# Along the prediction curve, a query "has one winner" where its largest weight is at least SHARP_WEIGHT (the
# tour's conditions read the same share).
SHARP_WEIGHT = 0.9
# The curve "turns into steps" when this share of it has one winner; it "is flat at its value" when this share of it
# lies within FLAT_TOL of its winner's value (half a hundredth: the value as the notice writes it, to 2 decimals),
# and the prediction at the query too.
SHARP_SHARE = 0.8
FLAT_TOL = 0.005


def curve_facts(grid, keys, weights, values) -> dict:
    """What the prediction curve does across the plot, from the weights of every query on ``grid`` (m x n).

    ``winners``: how many different samples take the largest weight somewhere along the curve (1: the same
    sample wins wherever the query is, so the curve is flat at its value); ``nearest_share``: the share of
    the grid where the winner is (one of) the query's nearest samples (1: nearest-neighbour everywhere);
    ``sharp_share``: the share where one sample has at least SHARP_WEIGHT of the weight (near 1: the curve
    is made of flat steps); ``flat_share``: the share where the prediction, sum_j w_j values_j, lies within
    FLAT_TOL of the winner's value.  Twin of the facts of ``gridCurves`` in attention/mirror.js.
    """
    import numpy as np

    g, k, W = np.asarray(grid, float), np.asarray(keys, float), np.asarray(weights, float)
    v = np.asarray(values, float)
    top = np.argmax(W, axis=1)
    dist = np.abs(g[:, None] - k[None, :])
    nearest = np.abs(g - k[top]) <= dist.min(axis=1) + 1e-9
    return {"winners": int(len(set(top.tolist()))), "nearest_share": float(nearest.mean()),
            "sharp_share": float((W.max(axis=1) >= SHARP_WEIGHT).mean()),
            "flat_share": float((np.abs(W @ v - v[top]) <= FLAT_TOL).mean())}


def limit_notices(r, heaviest: dict, curve: dict, key_norm: float = 0.0, at=None) -> list[str]:
    """The sentences that name a limit as it happens (twin of ``limitNotices`` in app/regression/text.js).

    Every claim is checked against the numbers: ``heaviest`` is ``heaviest_sample(...)`` at the query and
    ``curve`` is ``curve_facts(...)`` along the prediction curve for the same state (a claim about the
    curve is made only when the curve does it); ``key_norm`` is the tilt (its sign says which keys are longer).
    ``at``: how a sample's position is written, "x = 2.10" by default (your own data: in its units).
    """
    at = at or (lambda v: f"x = {_signed(v, 2)}")
    out = []
    mw = f"Max weight {r.max_weight:.3f}"
    why = "a dot product rewards a key's length as well as its direction"
    if r.max_weight >= ONE_SAMPLE_WEIGHT:
        hx, hy = at(heaviest["x"]), _signed(heaviest["y"], 2)
        flat = curve["sharp_share"] >= SHARP_SHARE
        if curve["winners"] == 1:
            flat = curve["flat_share"] >= SHARP_SHARE and abs(r.prediction - heaviest["y"]) <= FLAT_TOL
            where = " (here it is also the nearest sample)" if heaviest["nearest"] else ", which is not the nearest one"
            curve_words = (f"The prediction curve is flat at its value, {hy}." if flat else
                           f"The prediction curve leans towards its value, {hy}.")
            out.append(f"{mw}, on the sample at {hx}{where}: its key is longer than the keys nearer the query, "
                       f"and {why}, so this sample wins wherever the query is. {curve_words}")
        elif heaviest["nearest"] and curve["nearest_share"] >= 1.0:
            out.append(f"{mw}: the query copies its nearest sample (1-nearest-neighbour), and the prediction curve "
                       f"turns into steps." if flat else
                       f"{mw}: the query copies its nearest sample (1-nearest-neighbour) here; elsewhere along x "
                       f"the weights still spread over more than one sample.")
        elif heaviest["nearest"]:
            side = "right" if key_norm > 0 else "left"
            out.append(f"{mw}: the query copies its nearest sample here, but elsewhere along x a longer key further "
                       f"{side} wins over nearer ones, because {why}.")
        else:
            out.append(f"{mw}, on the sample at {hx}, which is not the nearest one: its key is longer than the "
                       f"keys nearer the query, and {why}. The prediction is close to that sample's value, {hy}.")
    if r.effective_points >= NEAR_UNIFORM_FRACTION * r.n:
        out.append(f"{r.effective_points:.1f} of {r.n} effective points: the weights are nearly uniform, "
                   f"so the prediction flattens toward the global mean ({_signed(r.global_mean, 2)}).")
    return out


INTRO = """
<h1>Attention is a weighted average</h1>
<p>Attention compares a <b>query</b> with every <b>key</b>, turns the similarities into positive weights
that add up to 1 (a softmax), and returns the weighted average of the <b>values</b>. Statisticians call
this <i>kernel regression</i>.<span class="wide-only"> Drag the orange-red line and watch which samples the
query listens to.</span></p>
"""

# A reference block, folded: the tour and the plots teach first; a student opens this to read the formulas.
EXPLAIN_REGRESSION = """
<details><summary><h3>What you are looking at: the formulas behind the plots</h3></summary>
<p><b>Queries, keys, values.</b> Here a key is a sample's position x, its value is the sample's y, and
the query is the orange-red line. Sample i gets the weight softmax<sub>i</sub>(score(q, k<sub>i</sub>) / T);
the prediction is the sum of weight &times; value. A transformer runs the same recipe on vectors and
learns W<sub>Q</sub>, W<sub>K</sub>, W<sub>V</sub>: it learns what &ldquo;similar&rdquo; means.</p>
<p><b>Bandwidth and temperature.</b> The Gaussian score is &minus;(q&minus;k)&sup2;/(2h&sup2;). Shrink h
and only the nearest sample counts (1-nearest-neighbour: steps, high variance); grow it and every sample
counts the same (the global mean: flat, high bias).</p>
<p>Dividing the scores by T is the same knob: (h, T) gives exactly the weights of (h&middot;&radic;T, 1).
Switch on <i>link h and T</i> and move either slider: the other one makes up for it and nothing else
moves.</p>
<p><b>Entropy and effective points.</b> The entropy of the weights, in bits, measures their spread;
2<sup>entropy</sup> is the number of samples the query effectively consults, from 1 (one sample)
to n (all of them). Where the samples are sparse, a query consults fewer of them.</p>
<p><b>Dot product versus Gaussian.</b> &minus;&#8214;q&minus;k&#8214;&sup2; = 2 q&middot;k &minus;
&#8214;q&#8214;&sup2; &minus; &#8214;k&#8214;&sup2;. When all keys have the same length, the last term
is the same for every key and the softmax ignores it, as it ignores &#8214;q&#8214;&sup2;: dot-product
attention <i>is</i> a Gaussian kernel. The dot product here puts the positions on a circle, so all keys
have equal length.</p>
<p>Tilt the key norms and the equivalence breaks: longer keys win weight from every query.</p>
<p><b>Not a Kalman filter.</b> A Kalman filter also returns a convex combination, but its weights
come from a model of how uncertain each source is, so they tell you how far to trust the answer.
Attention weights carry no such model: a confident-looking weight is not a confidence.</p>
</details>
"""

# The words under the error plot, which follow the data (twin: biasNote in text.js fills the same templates).
# With a true function and a known noise: bias² and variance, and why the leave-one-out error sits above their sum;
# on your own data: the leave-one-out error alone, and why.
BIAS_TITLES = {"truth": "Bias and variance", "own": "Leave-one-out error"}
BIAS_NOTE = {
    "truth": ("<p><b>Bias and variance.</b> Each bandwidth is scored at T&nbsp;=&nbsp;1 (the marker sits at "
              "h&middot;&radic;T). Bias&sup2; (how far the average fit misses the truth) grows with h; variance (how "
              "much the fit moves with fresh noise) falls; their sum is lowest in between.</p>"
              "<details><summary>Why the leave-one-out error sits higher</summary>"
              "<p>Leave-one-out error predicts each sample from the others, and no bandwidth can predict a sample's "
              "own noise. So it sits above bias&sup2; + variance by about the noise variance: bias&sup2; + variance "
              "+ &sigma;&sup2;.{sigma}</p>"
              "<p>The rest of the gap comes from leaving one sample out and from measuring on one noisy draw of the "
              "data. The lowest leave-one-out error still sits near the lowest bias&sup2; + variance.</p></details>"),
    "sigma": " Here the noise has &sigma;&nbsp;=&nbsp;{sigma}, so &sigma;&sup2;&nbsp;=&nbsp;{sigma2}.",
    "own": ("<p><b>Leave-one-out error.</b> Each bandwidth is scored at T&nbsp;=&nbsp;1 (the marker sits at "
            "h&middot;&radic;T) by predicting every sample from all the others.</p>"
            '<p class="dataset">Your data have no known true function and no known noise, so bias&sup2; and '
            "variance cannot be computed: the plot shows the leave-one-out error alone, which needs neither.</p>"),
}


# Under the error plot: where each of its curves is lowest, and where its marker stands (the twin of errorWords in
# app/regression/text.js).  {v}: an error, three significant digits; {h}: a bandwidth as the h axis writes it.
ERROR_WORDS = {"loo": "The leave-one-out error is lowest, {v}, at h\u00b7\u221aT = {h}.",
               "error": "Bias\u00b2 + variance is lowest, {v}, at h\u00b7\u221aT = {h}.",
               "marker": "The marker stands at h\u00b7\u221aT = {h}."}


def error_words(hs, loo, error, marker: float, h_text=length_text) -> str:
    """Where the leave-one-out error (and, with a true function, bias² + variance: ``error``, else None) is lowest
    over the bandwidths ``hs``, and where the marker h·√T stands; "" while a curve is not worked out (NaN).
    ``h_text`` writes a bandwidth (in the data's units on your own data)."""
    out = []
    for key, ys in (("loo", loo), ("error", error)):
        if ys is None:
            continue
        ys = [float(v) for v in ys]
        if not ys or any(v != v for v in ys):
            return ""
        i = min(range(len(ys)), key=lambda j: ys[j])    # the first lowest, as text.js's loop finds it
        out.append(ERROR_WORDS[key].format(v=plain(ys[i], 3), h=h_text(float(hs[i]))))
    return " ".join(out + [ERROR_WORDS["marker"].format(h=h_text(float(marker)))]) if out else ""


def bias_note(noise: float | None, own: bool = False) -> str:
    """The words under the error plot for a dataset with this noise (None: unknown), or your own data."""
    if own:
        return BIAS_NOTE["own"]
    sigma = "" if noise is None else BIAS_NOTE["sigma"].format(sigma=plain(noise, 3), sigma2=plain(noise * noise, 3))
    return BIAS_NOTE["truth"].replace("{sigma}", sigma)


# Behind "More controls", above the generator's fields.
GENERATOR_NOTE = (f"Draw fresh noisy samples of a true function (at most {MAX_GENERATED_N}); the same seed always gives "
                  "the same samples.")



# Under the readouts, where a student first meets entropy and effective points.
ENTROPY_WORDS = """
<p class="small"><b>Entropy</b>: how spread out the weights are, from 0 bits (one sample takes them all) to
log<sub>2</sub>&nbsp;n bits (all equal). <b>Effective points</b>, 2<sup>entropy</sup>: about how many samples
the query really listens to.</p>
"""

# The main plot's legend, as HTML under it (it wraps on a phone); the keys are drawn by CSS (PAGE_CSS).  The samples'
# colour is the one place where the page's scale for attention weights (the weight itself, 0 to 1) must differ: 24
# weights share 1, the largest is 0.16, and every sample would be dark; so the legend says the scale.
_LEGEND = [("k-samples", "samples (size and colour: weight ÷ the largest)"), ("k-truth", "true f(x)"),
           ("k-pred", "prediction")]
_LEGEND_LIMITS = [("k-nn", "1-NN limit"), ("k-mean", "global mean")]


def legend_html(limits: bool, truth: bool = True) -> str:
    """The main plot's legend; the 1-NN curve and the mean only while they are shown, the true f(x) only where
    one is known (not on your own data)."""
    items = legend_items(limits, truth)
    # (a phone's words about the readouts come first: right under the stage, above the docked step card)
    return (READOUT_WORDS + '<p class="legend" aria-label="legend">' +
            " ".join(legend_item(f'<span class="key {k}" aria-hidden="true"></span>', escape(legend_label(t)))
                     for k, t in items) +
            "</p>")


# Under the legend, on a phone's first screen with the compact readouts just above it: what their words mean (the
# readouts table says more, ENTROPY_WORDS; a wide screen shows only those, PAGE_CSS).
READOUT_WORDS = ('<p class="readout-words"><b>Effective points</b>: about how many samples the query listens to; '
                 '<b>entropy</b>: how spread out its weights are.</p>')


# ---- your own data ---------------------------------------------------------------------------------------

# Behind "More controls": where an instructor pastes, drops or chooses x, y pairs.  Fixed HTML; the engine
# fills the column pickers through the DOM (textContent), never through markup.
OWN_DATA_FORM = """
<div class="own" role="group" aria-label="your own data">
<h3>Your own data</h3>
<p class="small">Paste two columns of numbers, x then y (comma, tab or semicolon separated, with or without a
header row), or drop a .csv file on this box. It stays in this browser: nothing is sent anywhere.</p>
<textarea class="own-text" rows="4" spellcheck="false" aria-label="your data: x, y pairs, one per line"
 placeholder="day,temp_c&#10;1,6.9&#10;2,7.7"></textarea>
<div class="own-row">
<label>x column <select class="own-x"><option value="">the first with numbers</option></select></label>
<label>y column <select class="own-y"><option value="">the next with numbers</option></select></label>
</div>
<div class="own-row">
<button type="button" class="own-use">Use this data</button>
<label class="own-file">Choose a file&hellip;<input type="file" class="own-input"
 accept=".csv,.tsv,.txt,text/csv,text/tab-separated-values,text/plain"></label>
<button type="button" class="own-back" hidden>Back to the shipped data</button>
<button type="button" class="own-download" hidden>Download this page with your data</button>
</div>
</div>
"""
OWN_DATA_CSS = """
.own { border: 1px dashed #8aa4b8; border-radius: 4px; padding: 2px 10px 8px; }
.own.own-over { border: 2px solid #0072B2; background: #F4F8FB; }
.own textarea { width: 100%; box-sizing: border-box; font: 0.9em/1.4 monospace; margin: 4px 0; }
.own-row { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: center; margin: 4px 0; }
.own select, .own button, .own-file, .own input { font: inherit; }
.own button, .own-file { padding: 3px 10px; border: 1px solid #8aa4b8; border-radius: 4px; background: #fff;
                         cursor: pointer; color: #1F5F99; }
.own button.own-use { background: #1F5F99; color: #fff; border-color: #1F5F99; }
.own-file input { position: absolute; width: 1px; height: 1px; opacity: 0; }
.own-file:focus-within { outline: 2px solid #0072B2; }
"""

# Everything the engine says about your data ({n}, {x}, {y}, {file} are filled in by the engine; every name
# from a file is escaped where it is shown).
OWN_WORDS = {
    "described": "{n} points of {y} against {x}: your data.",
    "loaded": "Showing your {n} points: {y} against {x}.",
    "from_file": "Read {file}.",
    "reading": "Reading {file}\u2026",
    "kept": "The page keeps showing what it showed before.",
    "option": "your data",
    "loo": "leave-one-out error",
    "no_download": "This page cannot save itself with your data here; in a terminal, "
                   "attention-explorable export --data FILE writes that page.",
    "truth_missing": "No true function is known for your data.",
}


def legend_items(limits: bool, truth: bool = True) -> list:
    return [i for i in _LEGEND if truth or i[0] != "k-truth"] + (_LEGEND_LIMITS if limits else [])
