"""What each sentence the page says claims, as patterns that capture its numbers and words, each checked against
the numpy core in the state the sentence was said in (tests/app/test_true_sentences.py runs them).

A ``Claim`` is one sentence's pattern (the whole sentence, ``re.fullmatch``), a check of everything it captures, and
a named mutation: a change of the sentence's text that the check must refuse (a number moved by one unit in its last
shown digit, or a word for its opposite).  Numbers are compared at the digits shown.  The claims live here, in the
test, not in the builders: a builder that says something new fails the sweep until a claim here checks it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

from app.regression import text
from tests.app.sweep import states as S
from tests.app.sweep.states import MINUS, digits_of, parse_number, same_at_digits, same_sig

# A number as the page writes it: the minus sign U+2212 (a hyphen does not match), no exponent, and "million" and
# its kin for large ones.
NUM = r"[\u2212+]?\d+(?:\.\d+)?(?: (?:million|billion|trillion))?"


def bump(shown: str) -> str:
    """``shown`` moved by one unit in its last shown digit, written the same way."""
    words = ""
    if " " in shown:
        shown, words = shown.split(" ", 1)
        words = " " + words
    d = digits_of(shown)
    v = parse_number(shown) + 10 ** -d
    s = f"{abs(v):.{d}f}"
    sign = MINUS if v < 0 else ("+" if shown.startswith("+") else "")
    return sign + s + words


@dataclass(frozen=True)
class Claim:
    name: str
    pattern: re.Pattern
    check: Callable[[re.Match, object], bool]
    mutation: str                       # what the mutation does, in words
    mutate: Callable[[str], str]        # the sentence with the mutation


def claim(name, pattern, check, mutation, mutate) -> Claim:
    return Claim(name, re.compile(pattern), check, mutation, mutate)


def bump_group(group: str):
    """A mutation: the number captured as ``group`` moves by one unit in its last shown digit."""
    def mutate(sentence: str, pattern=None) -> str:
        m = mutate.pattern.fullmatch(sentence)
        a, b = m.span(group)
        return sentence[:a] + bump(m.group(group)) + sentence[b:]
    mutate.group = group
    return mutate


def swap(old: str, new: str):
    return lambda sentence: sentence.replace(old, new, 1)


# ---- the regression section: caption, limit notices, the screen reader's readouts -----------------------------

def _query_and_h(m, s) -> bool:
    """The caption's query, sample count, similarity, h and T are the state's."""
    d = s.data
    if d.units:
        q_ok = m["xname"] == d.own.x_name and m["qu"] == text.unit_text(d.scale.to_units(s.q), d.span)
        h_ok = m["axis"] == d.own.x_name and same_sig(m["h"], d.scale.h_to_units(s.h))
    else:
        q_ok = m["q"] is not None and same_at_digits(m["q"], s.q)
        h_ok = m["axis"] is None and same_sig(m["h"], s.h)
    t_ok = (m["t"] is None) == (s.t == 1) and (m["t"] is None or same_sig(m["t"], s.t))
    return q_ok and h_ok and t_ok and int(m["n"]) == s.n and _similarity(m["sim"], s)


def _similarity(words: str, s) -> bool:
    if s.kernel == "gaussian":
        return words == "a Gaussian similarity"
    if not s.shown_tilt:
        return words == "a dot-product similarity on circle keys of equal length"
    m = re.fullmatch(rf"a dot-product similarity on circle keys with key-norm tilt ({NUM}), so keys further "
                     r"(right|left) are longer", words)
    return bool(m) and same_at_digits(m[1], s.tilt) and m[2] == s.keys_longer_to()


def _readouts(m, s, truth=True) -> bool:
    """The largest weight, the effective points and the prediction; with ``truth``, the true value when one is
    known and only then."""
    r, tv = s.r, m.groupdict().get("tv")
    shown = (same_at_digits(m["mw"], r.max_weight) and same_at_digits(m["eff"], r.effective_points)
             and same_at_digits(m["pred"], r.prediction))
    return shown and (not truth or ((tv is None) == (r.true_value is None)
                                    and (tv is None or same_at_digits(tv, r.true_value))))


def _max_weight(m, s) -> bool:
    return same_at_digits(m["mw"], s.r.max_weight) and s.r.max_weight >= text.ONE_SAMPLE_WEIGHT


def _at(m, s) -> bool:
    """The heaviest sample's position, as the notice writes it."""
    x = s.x[s.top]
    at = s.at()
    return m["hx"] == (at(x) if at else f"x = {text.signed(x, 2)}")


def _value_of_top(m, s) -> bool:
    return same_at_digits(m["hy"], s.y[s.top])


CAPTION_WHERE = rf"(?:x = (?P<q>{NUM})|(?P<xname>.+?) = (?P<qu>{NUM}))"
HX = rf"(?P<hx>.+? = {NUM})"
WHY = "a dot product rewards a key's length as well as its direction"
MW = rf"Max weight (?P<mw>\d\.\d{{3}})"

REGRESSION = [
    claim("caption: the query, the samples, the similarity, h and T",
          rf"A query at {CAPTION_WHERE} averages the (?P<n>\d+) samples with softmax weights of (?P<sim>.+) "
          rf"\(h = (?P<h>{NUM})(?: on the (?P<axis>.+) axis)?(?:, T = (?P<t>{NUM}))?\)\.",
          _query_and_h, "the sample count moves by one", bump_group("n")),
    claim("caption: the largest weight, the effective points, the prediction and the truth",
          rf"The largest weight is (?P<mw>\d\.\d{{3}}), the weights spread over about (?P<eff>{NUM}) effective "
          rf"points, and the prediction is (?P<pred>{NUM})(?: \(true value (?P<tv>{NUM})\))?\.",
          _readouts, "the prediction moves by one unit in its last digit", bump_group("pred")),
    claim("screen reader: the readouts after a move",
          rf"max weight (?P<mw>\d\.\d{{3}}), effective points (?P<eff>{NUM}) of (?P<n>\d+), "
          rf"prediction (?P<pred>{NUM})",
          lambda m, s: _readouts(m, s, truth=False) and int(m["n"]) == s.n,
          "the effective points move by one unit in their last digit", bump_group("eff")),
    claim("notice: one sample wins wherever the query is",
          rf"{MW}, on the sample at {HX}(?P<where> \(here it is also the nearest sample\)|, which is not the nearest "
          rf"one): its key is longer than the keys nearer the query, and {WHY}, so this sample wins wherever the "
          r"query is\.",
          lambda m, s: (_max_weight(m, s) and _at(m, s) and s.one_winner_everywhere()
                        and (s.top_is_nearest() if m["where"].startswith(" (") else
                             not s.top_is_nearest() and s.top_key_longer_than_nearer())),
          "\"here it is also the nearest sample\" for \"which is not the nearest one\", and back",
          lambda t: (t.replace(" (here it is also the nearest sample)", ", which is not the nearest one")
                     if "(here" in t else t.replace(", which is not the nearest one",
                                                    " (here it is also the nearest sample)"))),
    claim("notice: the curve is flat at the winner's value",
          rf"The prediction curve is flat at its value, (?P<hy>{NUM})\.",
          lambda m, s: _value_of_top(m, s) and s.one_winner_everywhere() and s.flat_at(m["hy"], digits_of(m["hy"])),
          "the value moves by one unit in its last digit", bump_group("hy")),
    claim("notice: the curve leans towards the winner's value",
          rf"The prediction curve leans towards its value, (?P<hy>{NUM})\.",
          lambda m, s: _value_of_top(m, s) and s.one_winner_everywhere() and s.leans_towards(s.y[s.top]),
          "the value moves by one unit in its last digit", bump_group("hy")),
    claim("notice: 1-nearest-neighbour, and the curve turns into steps",
          rf"{MW}: the query copies its nearest sample \(1-nearest-neighbour\), and the prediction curve turns into "
          r"steps\.",
          lambda m, s: _max_weight(m, s) and s.top_is_nearest() and s.nearest_everywhere() and s.steps(),
          "the max weight moves by one unit in its last digit", bump_group("mw")),
    claim("notice: 1-nearest-neighbour here, spread elsewhere",
          rf"{MW}: the query copies its nearest sample \(1-nearest-neighbour\) here; elsewhere along x the weights "
          r"still spread over more than one sample\.",
          lambda m, s: _max_weight(m, s) and s.top_is_nearest() and s.spreads_somewhere(),
          "the max weight moves by one unit in its last digit", bump_group("mw")),
    claim("notice: the nearest sample here, a longer key elsewhere",
          rf"{MW}: the query copies its nearest sample here, but elsewhere along x a longer key further "
          rf"(?P<side>right|left) wins over nearer ones, because {WHY}\.",
          lambda m, s: (_max_weight(m, s) and s.top_is_nearest() and m["side"] == s.keys_longer_to()
                        and s.a_longer_key_wins_elsewhere(m["side"])),
          "right for left, and back",
          lambda t: t.replace("further right", "further left") if "further right" in t
          else t.replace("further left", "further right")),
    claim("notice: a longer key wins at the query",
          rf"{MW}, on the sample at {HX}, which is not the nearest one: its key is longer than the keys nearer the "
          rf"query, and {WHY}\.",
          lambda m, s: (_max_weight(m, s) and _at(m, s) and not s.top_is_nearest()
                        and s.top_key_longer_than_nearer()),
          "the max weight moves by one unit in its last digit", bump_group("mw")),
    claim("notice: the prediction is close to the winner's value",
          rf"The prediction is close to that sample's value, (?P<hy>{NUM})\.",
          lambda m, s: _value_of_top(m, s) and abs(s.r.prediction - s.y[s.top]) <= 0.05 * s.span + 1e-12,
          "the value moves by one unit in its last digit", bump_group("hy")),
    claim("notice: nearly uniform weights, the global mean",
          rf"(?P<eff>{NUM}) of (?P<n>\d+) effective points: the weights are nearly uniform, so the prediction "
          rf"flattens toward the global mean \((?P<gm>{NUM})\)\.",
          lambda m, s: (same_at_digits(m["eff"], s.r.effective_points) and int(m["n"]) == s.n
                        and s.r.effective_points >= text.NEAR_UNIFORM_FRACTION * s.n
                        and same_at_digits(m["gm"], s.r.global_mean)
                        and abs(s.r.prediction - s.r.global_mean) <= 0.25 * s.span),
          "the global mean moves by one unit in its last digit", bump_group("gm")),
]



def _lowest(which: int):
    """The error plot's words: the curve (0: the leave-one-out error, 1: bias² + variance) is lowest at the value
    and the bandwidth said, on the core's curve over the plot's bandwidths (in the data's units on your data)."""
    def check(m, s) -> bool:
        ys = s.errors()[which]
        if ys is None:
            return False
        i = int(np.argmin(ys))
        return (same_sig(m["v"], float(ys[i])) and same_sig(m["h"], s.h_shown(float(S.H_GRID[i])))
                and (m["axis"] is None) == (not s.data.units) and (m["axis"] is None or m["axis"] == s.data.own.x_name))
    return check


ON_AXIS = r"(?: on the (?P<axis>.+) axis)?"
REGRESSION += [
    claim("error plot: where the leave-one-out error is lowest",
          rf"The leave-one-out error is lowest, (?P<v>{NUM}), at h\u00b7\u221aT = (?P<h>{NUM}){ON_AXIS}\.",
          _lowest(0), "the lowest error moves by one unit in its last digit", bump_group("v")),
    claim("error plot: where bias\u00b2 + variance is lowest",
          rf"Bias\u00b2 \+ variance is lowest, (?P<v>{NUM}), at h\u00b7\u221aT = (?P<h>{NUM}){ON_AXIS}\.",
          _lowest(1), "the bandwidth moves by one unit in its last digit", bump_group("h")),
    claim("error plot: where the marker stands",
          rf"The marker stands at h\u00b7\u221aT = (?P<h>{NUM}){ON_AXIS}\.",
          lambda m, s: (same_sig(m["h"], s.h_shown(s.marker)) and (m["axis"] is None) == (not s.data.units)),
          "the bandwidth moves by one unit in its last digit", bump_group("h")),
]

for c in REGRESSION:          # a number's mutation finds its number through the claim's own pattern
    if hasattr(c.mutate, "group"):
        c.mutate.pattern = c.pattern

# Clauses the page says that claim nothing about the state, each with its reason (at most 15 across the sweep).
NO_CLAIM: dict[str, str] = {
    # the routing readout's line for a sentence without the ambiguous word (app/routing/lines.js)
    "The matrix still shows where every word looks with this step's W_Q and W_K.":
        "points at the matrix drawn beside it: it states nothing about the state's numbers",
}


def split(said: str) -> list[str]:
    """A text the page shows, cut into sentences: at a full stop, question or exclamation mark followed by a
    space and a capital, a digit, a quote or a minus sign."""
    return [p for p in re.split(r"(?<=[.!?])\s+(?=[A-Z0-9\u201c\"\u2018(\u2212])", said.strip()) if p]


def matching(sentence: str, claims) -> list[Claim]:
    return [c for c in claims if c.pattern.fullmatch(sentence)]
