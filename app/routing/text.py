"""The routing section's words: what the student reads around the playback of W_Q and W_K learning.

Everything that changes with the step (the readouts, the tables of W_Q and W_K) is written in the browser
by engine.js; here are the fixed texts, filled in with the task's own sizes, and the core's summary of
what was learned (``attention.learned_words(...).summary()``) as the page shows it.
"""

from __future__ import annotations

import re

from app.ui.text import escape

TITLE = "Watch W<sub>Q</sub> and W<sub>K</sub> learn"


def intro(*, word: str, train: int, held_out: int, steps: int) -> str:
    """The section's opening words (HTML), with the task's sizes."""
    w = escape(word)
    return f"""
<h2>{TITLE}</h2>
<p>The heads above were made by hand; a transformer learns W<sub>Q</sub> and W<sub>K</sub> from a task. Here
the meaning head learns from {train} labelled sentences whether <i>{w}</i> means a river bank or a money bank.
If <i>{w}</i> looks at <i>river</i>, its output moves to the water side; at <i>loan</i>, to the money side.</p>
<p>Press <i>Play</i>: {steps} steps of gradient descent, from an even spread that decides nothing. The
{held_out} held-out sentences are never trained on.</p>
"""


MATRIX_NOTE = "Rows are queries, columns are keys; each row adds up to 1. The ambiguous word's row is framed."

WEIGHTS_SUMMARY = "More: the two matrices being learned"

WEIGHTS_INTRO = """
<p>Each word's vector x has ten numbers: seven say what it means, three say where it is (i, i&sup2;, 1).
The query is q&nbsp;=&nbsp;x&nbsp;W<sub>Q</sub> and the key is k&nbsp;=&nbsp;x&nbsp;W<sub>K</sub>, two numbers
each. Only the seven meaning rows learn; the position rows stay 0, so the head looks at meaning only.</p>
"""

COLUMNS_NOTE = """
<p class="small">Column 1 of the query meets column 1 of the key, column 2 meets column 2. Under each column:
the meanings a key needs to score high there with the ambiguous word's query.</p>
"""

PREFERENCE_NOTE = """
<p class="small">The last column adds the two up for the ambiguous word: how much one unit of each meaning
in a key adds to its score, x&nbsp;W<sub>Q</sub>&nbsp;W<sub>K</sub><sup>T</sup>&nbsp;/&nbsp;&radic;d<sub>k</sub>.
This is the similarity the head learns.</p>
"""

LEARNED_HEAD = "<h3>What the {steps} steps taught the head</h3>"
LEARNED_MORE = "More: which words it looks at"

OWN_INTRO = """
<h3>Your own sentence</h3>
<p>Type a sentence with <i>{word}</i> and press Enter: it meets the trained W<sub>Q</sub> and W<sub>K</sub>.
Does <i>{word}</i> find the word that decides its sense?</p>
"""

OWN_PLACEHOLDER = "the bank by the lake"

TIE_NOTE = "An undecided sentence counts as half right."


def curves_legend(*, train: int, held_out: int) -> str:
    """The curves' legend, as HTML over them (it wraps on a phone); the keys are drawn by CSS (ROUTING_CSS).
    It says how the accuracy counts an undecided sentence."""
    items = [("k-train", f"training sentences ({train})"), ("k-held", f"held-out sentences ({held_out}), never trained on")]
    return ('<p class="legend" aria-label="legend of the curves">' +
            "".join(f'<span class="key {k}" aria-hidden="true"></span>{escape(t)} ' for k, t in items).strip() +
            f' <span class="tie">{escape(TIE_NOTE)}</span></p>')


def learned_html(shared: str, paragraphs, *, steps: int) -> str:
    """What was learned: the core's sentence on what the ambiguous word's query and its deciding word's key
    share (``attention.learn_qk.shared_summary``), then, behind "more", the core's summary in its paragraphs
    (escaped: the words are data)."""
    more = "".join(f"<p>{escape(p)}</p>" for p in paragraphs)
    return (LEARNED_HEAD.format(steps=steps) + f'<p class="learned">{escape(shared)}</p>'
            f'<details class="more"><summary>{escape(LEARNED_MORE)}</summary>{more}</details>')


_EXPONENT = re.compile(r"\d[eE][-+]?\d")


def plain_words(text: str) -> bool:
    """Whether ``text`` is as students read numbers: no exponent notation, no ASCII minus before a digit.

    >>> plain_words("rises with water (+4.7) and falls with people (\u22125.6)")
    True
    >>> plain_words("a loss of 1e-3") or plain_words("falls by -5.6")
    False
    """
    return not _EXPONENT.search(text) and not re.search(r"(?<![\w])-\d", text)


__all__ = ["TITLE", "intro", "curves_legend", "MATRIX_NOTE", "WEIGHTS_SUMMARY", "WEIGHTS_INTRO", "COLUMNS_NOTE",
           "PREFERENCE_NOTE", "LEARNED_MORE", "OWN_INTRO", "OWN_PLACEHOLDER", "TIE_NOTE", "learned_html", "plain_words"]
