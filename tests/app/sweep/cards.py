"""The fixed numbers in the tour cards (the shipped lesson and the example tours), each checked at its step's state.

A card is a tour step's title, text, do and found, and a tour's closing card.  Every number a card writes, in
digits or in words ("0.95", "all 24 samples", "h = 0.15", "ten words make 100", "a third"), must be claimed by one
``CardNumber`` below: a phrase that finds it in a card of a step (by the step's id) and a check of its value against
the numpy core, the step's goal ("when") or the page's settings, at that step's state.  The sweep also moves each
number by one unit in its last shown digit (0.95 to 0.96, 24 to 25, ten to eleven) and expects the check to fail.
A few phrases hold a number that states no fact about a state (leave-one-out, 1-nearest-neighbour): ``NO_CLAIM``
lists them, each with its reason.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import attention
from app.regression import text as regression_text
from app.tour.model import section_readouts
from app.sections import CATALOGUE
from tests.app.sweep.states import parse_number

ROOT = Path(__file__).resolve().parents[3]
TOURS = [ROOT / "data" / "tours" / "lesson.json", ROOT / "data" / "tours" / "regression.json",
         *sorted((ROOT / "data" / "tours" / "examples").glob("*.json"))]

WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
         "eleven": 11, "twelve": 12, "thirteen": 13, "twice": 2, "half": 0.5, "third": 1 / 3, "quarter": 0.25,
         "fifth": 0.2}
# A number in a card: digits (a decimal point, a percent sign) or a counting word ("one" is left out: it is nearly
# always "one word", "one step", "leave-one-out", never a count a state could change).
NUMBER = re.compile(r"(?<![\w.\u2212-])\u2212?\d+(?:\.\d+)?|\b(?:" + "|".join(WORDS) + r")\b", re.I)


def value_of(shown: str) -> float:
    w = WORDS.get(shown.lower())
    return float(w) if w is not None else parse_number(shown)


def bumped(shown: str) -> str:
    """The number one unit further in its last shown digit (a counting word: the next count)."""
    if shown.lower() in WORDS:
        v = WORDS[shown.lower()]
        later = {2: "three", 3: "four", 4: "five", 5: "six", 6: "seven", 7: "eight", 8: "nine", 9: "ten", 10: "eleven",
                 11: "twelve", 12: "thirteen", 0.5: "third", 1 / 3: "quarter", 0.25: "fifth"}
        return later[v]
    d = len(shown.split(".")[1]) if "." in shown else 0
    return f"{parse_number(shown) + 10 ** -d:.{d}f}"


def when_value(step, name, op=None):
    for n, o, v in step["when"]:
        if n == name and (op is None or o == op):
            return v
    return None


def at_state(step, *names) -> dict:
    """The step's section's numbers for these names, in the state its Show me reaches (the core's)."""
    return section_readouts(CATALOGUE, step["section"], step.get("state", {}), needs=set(names))


def shipped_n() -> int:
    return len(attention.load_dataset("default").x)


def sentence_positions(sentence: str, a: str, b: str) -> int:
    words = sentence.split()
    return words.index(b) - words.index(a)


@dataclass(frozen=True)
class CardNumber:
    step: str                               # the step's id ("closing" for a tour's closing card)
    phrase: str                             # a regex around the number, which it captures as the group "n"
    check: Callable[[float, dict], bool]    # the number's value, the step (its JSON) -> true at its state
    why: str                                # what the number claims, in words


C = CardNumber
CARDS = [
    # ---- regression
    C("query-listens", r"(?P<n>2) to the power of the entropy", lambda v, s: v == 2, "effective points are 2 ** entropy"),
    C("few-samples-count", r"(?P<n>2) to the power of the weights", lambda v, s: v == 2,
      "effective points are 2 ** entropy"),
    C("query-listens", r"the left (?P<n>quarter) of the plot",
      lambda v, s: when_value(s, "query", "<=") == v * 6.0, "the goal's query bound is a quarter of the plot's 0 to 6"),
    C("query-right", r"past x = (?P<n>4\.5)", lambda v, s: when_value(s, "query", ">=") == v, "the goal's bound"),
    C("few-samples-count", r"read (?P<n>3) or fewer", lambda v, s: when_value(s, "effective_points") == v,
      "the goal's bound"),
    C("shrink-h", r"reads (?P<n>0\.95) or more",
      lambda v, s: when_value(s, "max_weight") == v == regression_text.ONE_SAMPLE_WEIGHT
      and at_state(s, "max_weight")["max_weight"] >= v, "the goal's bound, the 1-NN notice's, reached by Show me"),
    C("shrink-h", r"This is (?P<n>1)-nearest-neighbour regression", lambda v, s: v == 1, "the method's name"),
    C("widen-h", r"close to all (?P<n>24) samples", lambda v, s: v == shipped_n() == at_state(s, "n")["n"],
      "the shipped data's sample count"),
    C("temperature-knob", r"at temperature (?P<n>1)\.", lambda v, s: v == 1, "the identity (h, T) = (h·√T, 1)"),
    C("temperature-knob", r"about a (?P<n>third) of where it opens",
      lambda v, s: abs(s["state"]["bandwidth"] / 0.62 - v) <= 0.05, "Show me's h against the opening 0.62"),
    C("long-keys-win", r"away from (?P<n>0)", lambda v, s: v == 0, "no tilt is 0"),
    # ---- learning
    C("learn-overshoot", r"At (?P<n>50) the steps", lambda v, s: str(int(v)) == s["state"]["lr"], "the step's rate"),
    C("learn-overshoot", r"at rate (?P<n>2)\.", lambda v, s: v == attention.learn.DEFAULT_BANDWIDTH_LEARNING_RATE,
      "the default rate"),
    C("learn-overshoot", r"Choose learning rate (?P<n>50)", lambda v, s: str(int(v)) == s["state"]["lr"],
      "the step's rate"),
    C("learn-refused", r"rate (?P<n>300)", lambda v, s: str(int(v)) == s["state"]["lr"]
      and at_state(s, "refused")["refused"], "the step's rate, refused at its first step"),
    C("fast-rate", r"rate (?P<n>10)\b", lambda v, s: str(int(v)) == s["state"]["lr"], "the step's rate"),
    C("fast-rate", r"log h (?P<n>five) times as far",
      lambda v, s: v == float(s["state"]["lr"]) / attention.learn.DEFAULT_BANDWIDTH_LEARNING_RATE,
      "the rate's ratio to the default"),
    C("fast-rate", r"default rate of (?P<n>2)\.", lambda v, s: v == attention.learn.DEFAULT_BANDWIDTH_LEARNING_RATE,
      "the default rate"),
    C("fast-rate", r"(?i)press Step (?P<n>five) times|(?P<n2>Five) steps were enough",
      lambda v, s: v == s["state"]["step"] and at_state(s, "learned_excess")["learned_excess"] <= 0.001,
      "Show me's step, where the goal is reached"),
    C("metric-stuck", r"(?P<n>3000)", lambda v, s: str(int(v)) == s["state"]["metric_lr"], "the step's rate"),
    C("metric-stretch", r"a (?P<n>2) × 2 matrix",
      lambda v, s: v == attention.learn.make_metric_dataset().X.shape[1], "W is d x d with d = 2"),
    C("metric-stretch", r"a 2 × (?P<n>2) matrix",
      lambda v, s: v == attention.learn.make_metric_dataset().X.shape[1], "W is d x d with d = 2"),
    C("metric-stretch", r"counts (?P<n>5) % or less",
      lambda v, s: when_value(s, "column_ratio") == v / 100
      and at_state(s, "column_ratio")["column_ratio"] <= v / 100, "the goal's bound, reached by Show me"),
    # ---- self-attention
    C("rows-sum-to-one", r"adds? up to (?P<n>1)", lambda v, s: abs(at_state(s, "row_sum")["row_sum"] - v) < 1e-9,
      "a softmax row sums to 1"),
    C("closing", r"sum to (?P<n>1)", lambda v, s: v == 1, "a softmax's weights sum to 1"),
    C("rows-sum-to-one", r"to (?P<n>5) or more", lambda v, s: when_value(s, "att_temperature") == v,
      "the goal's bound"),
    C("causal-mask", r"later word to (?P<n>0)", lambda v, s: at_state(s, "future_weight")["future_weight"] == v,
      "the mask's weight on later words"),
    C("bank-row", r"(?P<n>three) words away",
      lambda v, s: sentence_positions(s["state"]["sentence"], "bank", "river") == v, "river's place after bank"),
    C("heads", r"head (?P<n>1)", lambda v, s: at_state(s, "head_name")["head_name"] == "previous word"
      and s["state"]["head"] == v, "head 1 is the previous-word head"),
    C("n-squared", r"(?P<n>Five) words make 25", lambda v, s: v ** 2 == 25, "n words make n² scores"),
    C("n-squared", r"Five words make (?P<n>25)", lambda v, s: v == 5 ** 2, "n words make n² scores"),
    C("n-squared", r"(?P<n>ten) words make 100", lambda v, s: v ** 2 == 100, "n words make n² scores"),
    C("n-squared", r"ten words make (?P<n>100)", lambda v, s: v == 10 ** 2, "n words make n² scores"),
    C("n-squared", r"(?P<n>Twice) the words", lambda v, s: v ** 2 == 4, "twice n words make four times n²"),
    C("n-squared", r"(?P<n>four) times the (?:scores|memory)", lambda v, s: v == 2 ** 2,
      "twice n words make four times n² scores, held in memory"),
    C("n-squared", r"of (?P<n>10) words or more", lambda v, s: when_value(s, "n_tokens") == v
      and at_state(s, "n_tokens")["n_tokens"] >= v, "the goal's bound, reached by Show me"),
    # ---- W_Q and W_K
    C("qk-play", r"it scores (?P<n>half)|first gets (?P<n2>half)", lambda v, s: v == 0.5,
      "a coin's score; the hold's share (playback)"),
    C("qk-play", r"from (?P<n>40) labelled sentences", lambda v, s: v == len(attention.learn_qk.load_sense_corpus().train),
      "the training set's size"),
    C("robbed-decides", r"the (?P<n>two) senses", lambda v, s: v == len(attention.learn_qk.SENSES), "water, money"),
    # ---- ideas
    C("rnn-chain", r"(?P<n>16) words long or more", lambda v, s: when_value(s, "rnn_steps") == v
      and at_state(s, "rnn_steps")["rnn_steps"] >= v, "the goal's bound, reached by Show me"),
    C("lag-feature", r"last (?P<n>14) days", lambda v, s: v == attention.lags.MAX_LAG,
      "the lags attention chooses from"),
    C("long-period", r"has (?P<n>14) past days", lambda v, s: v == attention.lags.MAX_LAG, "the lags"),
    C("lag-feature", r"needs only (?P<n>two) numbers", lambda v, s: v == 2, "a slope and an intercept"),
    C("lag-feature", r"every (?P<n>5) days|lag (?P<n2>5) by itself",
      lambda v, s: s["state"]["period"] == v == at_state(s, "top_lag")["top_lag"], "Show me's period, found"),
    C("long-period", r"every (?P<n>12) days|lag (?P<n2>12):",
      lambda v, s: s["state"]["period"] == v == at_state(s, "top_lag")["top_lag"], "Show me's period, found"),
    C("short-chain", r"sentence of (?P<n>two) or three", lambda v, s: v < when_value(s, "rnn_steps", "<="),
      "under the goal's bound"),
    C("short-chain", r"two or (?P<n>three) words", lambda v, s: v == when_value(s, "rnn_steps", "<="),
      "the goal's bound"),
]

def cards(path: Path):
    """(step id, field, step JSON, text) for every card of a tour file."""
    data = json.loads(path.read_text(encoding="utf-8"))
    for step in data["steps"]:
        for field in ("title", "text", "do", "found"):
            if step.get(field):
                yield step.get("id"), field, step, step[field]
    closing = data.get("closing")
    if closing:
        for field in ("title", "text"):
            yield "closing", field, {"when": [], "state": {}, "section": "regression"}, closing.get(field, "")


def numbers_in(text: str):
    return [(m.start(), m.group(0)) for m in NUMBER.finditer(text)]
