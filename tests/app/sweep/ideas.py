"""The ideas section's words in the sentence sweep: the line under the dependency graphs (graph_caption) and the
table of the lag panel's errors (errors_html), Python's and the page's engine's (app/ideas/engine.js,
graphCaption and errorsHtml, run in V8), held to each other character for character and checked against the core:
attention.attention_cost for the graphs' counts, attention.compare_lag_models for every period's errors.
"""

from __future__ import annotations

import re
from functools import cache

import attention
from app.ideas import view as IV
from tests.app.sweep.states import same_at_digits

# Sentence lengths: every length a short sentence has, and long ones whose counts are written with a thin space
# between groups of digits, or in millions.
LENGTHS = [*range(1, 41), 64, 100, 317, 1000, 1001, 2048]
NUM = r"\u2212?\d+(?:\.\d+)?"
COUNT = r"\d{1,3}(?:\u2009\d{3})*(?:\.\d million)?|\d+(?:\.\d million)?"


def count_of(shown: str) -> float:
    """A count as fmt_count writes it ("65 536", "4.2 million") back to a number (at the digits shown)."""
    if shown.endswith(" million"):
        return float(shown.split()[0]) * 1e6
    return float(shown.replace("\u2009", ""))


def same_count(shown: str, n: int) -> bool:
    if shown.endswith(" million"):
        return abs(count_of(shown) - n) <= 0.05e6 + 1e-6
    return count_of(shown) == n


GRAPH = re.compile(r"<p>For these (?P<n>\d+) words the RNN takes <b>(?P<steps>\d+) (?P<unit>steps?) in a row</b>, one "
                   r"per link of the chain\. Attention scores all (?P<scores>" + COUNT + r") pairs \(the (?P<links>"
                   + COUNT + r") links between different words are drawn\) in <b>one step</b>\.</p>")


def graph_true(html: str, n: int) -> bool:
    """n words, n steps in a row (one per word), n² scores (the core's attention_cost), n(n − 1)/2 links."""
    m = GRAPH.fullmatch(html)
    scores = int(attention.attention_cost(n)[0])
    return bool(m) and (int(m["n"]) == n and int(m["steps"]) == n and (m["unit"] == "step") == (n == 1)
                        and same_count(m["scores"], scores) and same_count(m["links"], n * (n - 1) // 2))


@cache
def compared(period: int) -> dict:
    return attention.compare_lag_models(period)


ERRORS = re.compile(r'<table class="errors"><tr><th><i>error on the 4 held-out weeks \(root mean square\)</i></th>'
                    r"<td></td></tr>"
                    r"<tr><th>attention over 14 days \(14 learned weights; largest on lag (?P<top>\d+)\)</th>"
                    rf"<td>(?P<att>{NUM})</td></tr>"
                    rf"<tr><th>linear model on the value (?P<lag>\d+) days back \(a = (?P<a>{NUM}), b = (?P<b>{NUM})\)</th>"
                    rf"<td>(?P<lin>{NUM})</td></tr>"
                    rf"<tr><th>equal weights over 14 days \(attention before learning\)</th><td>(?P<eq>{NUM})</td></tr>"
                    r"</table>")


def errors_true(html: str, period: int) -> bool:
    """The lag panel's table against the core's comparison for the period: the attention's heaviest lag, the linear
    model's lag, intercept and slope, and the three held-out errors, at the digits shown."""
    m, r = ERRORS.fullmatch(html), compared(period)
    held_out = len(r["test_days"])
    return bool(m) and (held_out == 28 and r["max_lag"] == 14 and int(m["top"]) == r["top_lag"]
                        and int(m["lag"]) == r["lag"] == period
                        and all(same_at_digits(m[k], r[v]) for k, v in (
                            ("a", "intercept"), ("b", "slope"), ("att", "rmse_attention"),
                            ("lin", "rmse_linear"), ("eq", "rmse_equal_weights"))))


def python_texts() -> tuple[list[str], list[str]]:
    res = IV.lag_results()
    return [IV.graph_caption(n) for n in LENGTHS], [IV.errors_html(res[str(p)]) for p in IV.PERIODS]


def bump(html: str, pattern: str, by: int = 1) -> str:
    """The number of the group ``pattern`` names moved by ``by`` units in its last digit."""
    m = re.search(pattern, html)
    if not m:
        return html
    shown = m[1]
    d = len(shown.split(".")[1]) if "." in shown else 0
    v = float(shown.replace("\u2212", "-").replace("\u2009", "")) + by * 10 ** -d
    new = f"{abs(v):.{d}f}"
    return html[:m.start(1)] + ("\u2212" + new if v < 0 else new) + html[m.end(1):]


GRAPH_MUTATIONS = {"the words' count moves by one": r"For these (\d+)",
                   "the RNN's steps move by one": r"takes <b>(\d+)",
                   "the links move by one": r"\(the ([\d\u2009.]+)(?: million)? links"}
ERRORS_MUTATIONS = {"the attention's error moves by one unit": r"largest on lag \d+\)</th><td>([^<]+)",
                    "the slope moves by one unit": r"b = ([^)]+)\)",
                    "the heaviest lag moves by one": r"largest on lag (\d+)",
                    "the equal weights' error moves by one unit": r"before learning\)</th><td>([^<]+)"}
