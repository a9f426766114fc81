"""The self-attention section's words in the sentence sweep: the selected row's readout table and the line under the
matrix (app/sentence/rowtext.js), which also begin the matrix's, the row's and the sense plot's descriptions.

States: the page's example sentences and one with a word the toy vocabulary lacks, each at three temperatures, with
and without the causal mask, every head and every word.  The page's own files compute each row in V8 (AttnWords,
AttnMirror, SentenceRowText); every row of the table and the line are checked against attention.analyze_sentence.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cache

import numpy as np

import attention
from app.sentence import view as SV
from tests.app.sweep.states import same_at_digits

SENTENCES = [p["text"] for p in SV.presets_payload()] + ["the zorblat sat by the river bank"]
TEMPERATURES = [0.4, 1.0, 3.0]


@dataclass(frozen=True)
class Row:
    """One selected row: a sentence at a temperature, with or without the mask, a head and a word."""

    text: str
    t: float
    causal: bool
    head: int
    token: int

    @property
    def a(self):
        return analysis(self.text, self.t, self.causal)

    def case(self) -> dict:
        return {"text": self.text, "t": self.t, "causal": self.causal, "head": self.head, "token": self.token}


@cache
def analysis(text: str, t: float, causal: bool):
    return attention.analyze_sentence(text, temperature=t, causal=causal)


def rows() -> list[Row]:
    out = []
    for text in SENTENCES:
        for t in TEMPERATURES:
            for causal in (False, True):
                a = analysis(text, t, causal)
                out += [Row(text, t, causal, h, i) for h in range(len(a.head_names)) for i in range(a.n)]
    return out


NUM = r"[\u2212]?\d+(?:\.\d+)?"
TABLE_ROW = re.compile(r'<tr><th scope="row">(.*?)</th><td>(.*?)</td><td class="extra">(.*?)</td></tr>')
TABLE = re.compile(r'<table class="readouts" aria-label="readouts for the selected word">'
                   r'((?:<tr>.*?</tr>)+)</table>')


def _pair(shown: str, xy) -> bool:
    m = re.fullmatch(rf"({NUM}), ({NUM})", shown)
    return bool(m) and same_at_digits(m[1], float(xy[0])) and same_at_digits(m[2], float(xy[1]))


def _html(word: str) -> str:
    return word.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;").replace("'", "&#39;")


def readout_rows(r: Row) -> dict:
    """{row's head: check(value, extra)} for every row the table may show, each against the core."""
    a = r.a
    w = np.asarray(a.weights[r.head][r.token], float)
    top = int(np.argmax(w))                       # the first largest, as the page's loop finds it
    p = w[w > 0]
    bits = float(-(p * np.log2(p)).sum())
    k = r.token + 1 if r.causal else a.n
    seen = f" ({k} visible)" if r.causal else ""
    return {
        "query word": lambda v, x: v == _html(a.tokens[r.token]) and x == f"row {r.token}",
        "max weight": lambda v, x: (same_at_digits(v, float(w[top])) and len(v.split(".")[1]) == 3
                                    and x == f"on \u201c{_html(a.tokens[top])}\u201d"),
        "entropy": lambda v, x: (bool(re.fullmatch(rf"{NUM} bits", v)) and same_at_digits(v.split()[0], bits)
                                 and bool(re.fullmatch(rf"of ({NUM}){re.escape(seen)}", x))
                                 and same_at_digits(x.split()[1], math.log2(k))),
        "effective tokens": lambda v, x: (same_at_digits(v, 2 ** bits)
                                          and x == f"of {k}" + (" visible" if r.causal else "")),
        "output (water, money)": lambda v, x: _pair(v, a.output_xy[r.head][r.token]) and x == "this head",
        "all heads (water, money)": lambda v, x: _pair(v, a.combined_xy[r.token]) and x == "after W\u2092",
    }


def table_true(html: str, r: Row) -> list[str]:
    """What is false in the readout table of row ``r`` (empty: every row true, every expected row there)."""
    m = TABLE.fullmatch(html)
    if not m:
        return [f"not the readout table: {html[:80]!r}"]
    checks, found = readout_rows(r), TABLE_ROW.findall(m[1])
    wrong = [f"{head}: {value!r} {extra!r}" for head, value, extra in found
             if head not in checks or not checks[head](value, extra)]
    missing = sorted(set(checks) - {head for head, _, _ in found})
    return wrong + [f"missing row {h!r}" for h in missing]


LINE = re.compile(r'<p class="rowline">Row (?P<i>\d+) is one regression query, like the orange-red line above: '
                  r'\u201c(?P<word>.*?)\u201d compares its query with every word\'s key, a softmax turns the scores '
                  r'into weights, and its output is the weighted average of the values\. Only the similarity is new: '
                  rf'a dot product of vectors, divided by \u221ad\u2096 = (?P<sq>{NUM})(?: and by T = (?P<t>{NUM}))?'
                  r'\.</p>')


def line_true(html: str, r: Row) -> bool:
    """The line under the matrix names the row, its word, √d_k and T (said only when it is not 1)."""
    m, a = LINE.fullmatch(html), r.a
    return bool(m) and (int(m["i"]) == r.token and m["word"] == _html(a.tokens[r.token])
                        and abs(float(m["sq"]) - math.sqrt(a.model.d_k)) <= 5e-3 * math.sqrt(a.model.d_k)
                        and (m["t"] is None) == (r.t == 1) and (m["t"] is None or float(m["t"]) == r.t))


# Named mutations each check must refuse: (what it does, the text changed).
def bump_first(pattern: str):
    """A number after ``pattern`` moved by one unit in its last digit (``by=-1``: down; a value that sits exactly
    on a rounding tie, as the toy model's round numbers can, is true one unit up or down, not both)."""
    def mutate(html: str, by: int = 1) -> str:
        m = re.search(pattern + rf"({NUM})", html)
        shown = m[1]
        d = len(shown.split(".")[1]) if "." in shown else 0
        v = float(shown.replace("\u2212", "-")) + by * 10 ** -d
        new = f"{abs(v):.{d}f}"
        new = ("\u2212" + new) if v < 0 else new
        return html[:m.start(1)] + new + html[m.end(1):]
    return mutate


TABLE_MUTATIONS = {
    "the max weight moves by one unit": bump_first(r"max weight</th><td>"),
    "the entropy moves by one unit": bump_first(r"entropy</th><td>"),
    "the effective tokens move by one unit": bump_first(r"effective tokens</th><td>"),
    "the output's water moves by one unit": bump_first(r"output \(water, money\)</th><td>"),
    "all heads' money moves by one unit": bump_first(r"all heads \(water, money\)</th><td>[^,]+, "),
    "the row's number moves by one": lambda h, by=1: re.sub(r"row (\d+)</td>", lambda m: f"row {int(m[1]) + by}</td>",
                                                            h, count=1),
    "a row is dropped": lambda h, by=1: re.sub(r'<tr><th scope="row">entropy</th>.*?</tr>', "", h, count=1),
}
LINE_MUTATIONS = {
    "√d_k moves by one unit": bump_first(r"= "),
    "the row's number moves by one": lambda h, by=1: re.sub(r"Row (\d+)", lambda m: f"Row {int(m[1]) + by}", h, count=1),
}
