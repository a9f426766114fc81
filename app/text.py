"""Words on the page: the live caption (twin of ``caption`` in explorable.js) and the short explanations.

The explanations are fixed HTML written for students; nothing a user types is
ever placed in them.
"""

from __future__ import annotations

import html


def _signed(v: float, digits: int) -> str:
    s = f"{v:.{digits}f}"
    return "\u2212" + s[1:] if s.startswith("-") else s


def caption(r, *, kernel: str, bandwidth: float, temperature: float) -> str:
    """One sentence that reads a readout aloud (the page's caption)."""
    sim = "a Gaussian similarity" if kernel == "gaussian" else "a dot-product similarity on circle-embedded keys"
    t = "" if temperature == 1 else f", T = {temperature:.3g}"
    truth = "" if r.true_value is None else f" where the true function is {_signed(r.true_value, 2)}"
    return (f"A query at x = {r.query:.2f} averages the {r.n} samples with softmax weights of {sim} "
            f"(h = {bandwidth:.3g}{t}). The largest weight is {r.max_weight:.3f} and the weights spread over "
            f"about {r.effective_points:.1f} effective points, giving a prediction of "
            f"{_signed(r.prediction, 2)}{truth}.")


def limit_notices(r) -> list[str]:
    """The sentences that name a limit as it happens (twin of ``limitNotices`` in explorable.js)."""
    out = []
    if r.max_weight >= 0.95:
        out.append(f"Max weight {r.max_weight:.3f}: the query now copies its nearest sample "
                   f"(1-nearest-neighbour), and the prediction curve turns into steps.")
    if r.effective_points >= 0.9 * r.n:
        out.append(f"{r.effective_points:.1f} of {r.n} effective points: the weights are nearly uniform, "
                   f"so the prediction flattens toward the global mean ({_signed(r.global_mean, 2)}).")
    return out


def escape(text: str) -> str:
    """Text for an HTML context: every &, <, >, quote escaped."""
    return html.escape(str(text), quote=True)


INTRO = """
<h1>Attention is a weighted average</h1>
<p>Strip the name away and attention does one thing: it compares a <b>query</b> with every
<b>key</b>, turns the similarities into positive weights that add up to 1 (a softmax), and
returns the weighted average of the <b>values</b>. Statisticians have called this
<i>kernel regression</i> since the 1960s. Drag the red line and watch which samples the query
listens to.</p>
"""

EXPLAIN_REGRESSION = """
<h3>What you are looking at</h3>
<p><b>Queries, keys, values.</b> Here a key is a sample's position x, its value is the sample's y,
and the query is the red line. The weight of sample i is
softmax<sub>i</sub>(score(q, k<sub>i</sub>) / T); the prediction is the sum of weight &times; value.
In a transformer the same recipe runs on vectors, and the projections W<sub>Q</sub>, W<sub>K</sub>,
W<sub>V</sub> are learned, so the network learns what &ldquo;similar&rdquo; should mean.</p>
<p><b>Bandwidth and temperature.</b> The Gaussian score is &minus;(q&minus;k)&sup2;/(2h&sup2;).
Shrink h and only the nearest sample counts (1-nearest-neighbour: steps, high variance); grow it and
every sample counts equally (the global mean: flat, high bias). Dividing the scores by T is the
same knob: (h, T) gives exactly the weights of (h&middot;&radic;T, 1). Switch on <i>link h and T</i>
and move either slider: the other one compensates and nothing on the page moves.</p>
<p><b>Entropy and effective points.</b> The entropy of the weights, in bits, measures their spread;
2<sup>entropy</sup> is the number of samples the query effectively consults, from 1 (one sample)
to n (all of them). Where the samples are sparse, a query consults fewer of them.</p>
<p><b>Why divide by &radic;d?</b> A dot product of two d-dimensional vectors with unit-size
entries grows like &radic;d. Without the division, long vectors would push the softmax towards
one-hot weights just because of their length.</p>
<p><b>Dot product versus Gaussian.</b> &minus;&#8214;q&minus;k&#8214;&sup2; = 2 q&middot;k &minus;
&#8214;q&#8214;&sup2; &minus; &#8214;k&#8214;&sup2;. When every key has the same length, the last
term is the same for all keys and the softmax ignores it, as it ignores the &#8214;q&#8214;&sup2;
term: dot-product attention <i>is</i> a Gaussian kernel. The dot-product kernel here places the
positions on a circle (so all keys have equal length). Tilt the key norms and the equivalence breaks:
longer keys win weight from every query.</p>
<p><b>Not a Kalman filter.</b> A Kalman filter also returns a convex combination, but its weights
come from a model of how uncertain each source is, so they tell you how far to trust the answer.
Attention weights carry no such model: a confident-looking weight is not a confidence.</p>
<p><b>Weights are not explanations.</b> A large weight says where the average looked, not why a
model decided anything; different weights can give the same output, so reading a decision off
an attention map is unreliable.</p>
"""

EXPLAIN_BIAS_VARIANCE = """
<p><b>Bias and variance.</b> This plot scores every bandwidth (at T&nbsp;=&nbsp;1; the
marker sits at h&middot;&radic;T). Leave-one-out error predicts each sample from the others. Bias&sup2;
(how far the average fit is from the truth) grows with h; variance (how much the fit would move with
fresh noise) falls with it; their sum is smallest in between.</p>
"""

STATIC_NOTE = ("This file runs without Python: the seeded dataset generator and sentences with "
               "words outside the shipped vocabulary need the served app.")
