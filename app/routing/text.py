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
<p>The heads of the self-attention section were written by hand. A transformer learns its W<sub>Q</sub> and
W<sub>K</sub> instead: attention is kernel regression whose similarity is <b>learned</b> from a task. Here the
meaning head learns one small task from {train} labelled sentences: does <i>{w}</i> mean the river's bank or the
money's bank? The head answers with its output. If <i>{w}</i> puts its weight on a word such as <i>river</i>,
its output lands on the water side of the sense plot; on <i>loan</i>, on the money side.</p>
<p>Press <i>Play</i>. At step 0, W<sub>Q</sub> and W<sub>K</sub> are small random numbers, so <i>{w}</i>
spreads its weight almost evenly over the sentence. Over {steps} steps of gradient descent, watch its row of
the matrix (framed) gather on the word that decides the sense, its output walk to its side, and the loss
fall. The {held_out} held-out sentences are never trained on: their deciding words are new, or sit in new
places.</p>
"""


MATRIX_NOTE = ("Rows are queries, columns are keys; each row adds up to 1. The framed row is the ambiguous "
               "word's, with its weights written in. Colour: the weight itself, from 0 (dark) to 1 (bright).")

WEIGHTS_INTRO = """
<h3>The two matrices being learned</h3>
<p>Each word's vector x has ten numbers: seven say what it means, three say where it is (i, i&sup2;, 1).
The query is q&nbsp;=&nbsp;x&nbsp;W<sub>Q</sub> and the key is k&nbsp;=&nbsp;x&nbsp;W<sub>K</sub>, two numbers
each. Only the seven meaning rows learn; the position rows stay 0, so the head can look at meaning only,
never at where a word sits.</p>
"""

PREFERENCE_NOTE = """
<p class="small">The last column multiplies the two for the ambiguous word: how much one unit of each meaning
in a key adds to its score, x&nbsp;W<sub>Q</sub>&nbsp;W<sub>K</sub><sup>T</sup>&nbsp;/&nbsp;&radic;d<sub>k</sub>.
This is the similarity the head learns.</p>
"""

LEARNED_HEAD = "<h3>What the {steps} steps taught the head</h3>"

OWN_INTRO = """
<h3>Your own sentence</h3>
<p>Type a sentence and press Enter: the matrix and the sense plot above show it with W<sub>Q</sub> and
W<sub>K</sub> as trained (the last step). Does the head find the word that decides what <i>{word}</i> means?
Press <i>Reset</i> and <i>Play</i> to watch it learn on your sentence.</p>
"""

OWN_PLACEHOLDER = "the bank by the lake"


def curves_legend(*, train: int, held_out: int) -> str:
    """The two curves' legend, as HTML over them (it wraps on a phone); the keys are drawn by CSS (ROUTING_CSS)."""
    items = [("k-train", f"training sentences ({train})"), ("k-held", f"held-out sentences ({held_out}), never trained on")]
    return ('<p class="legend" aria-label="legend of the curves">' +
            "".join(f'<span class="key {k}" aria-hidden="true"></span>{escape(t)} ' for k, t in items).strip() +
            "</p>")


def learned_html(summary: str, *, steps: int) -> str:
    """The core's summary of what was learned, as a paragraph under its heading (escaped: the words are data)."""
    return LEARNED_HEAD.format(steps=steps) + f'<p class="learned">{escape(summary)}</p>'


_EXPONENT = re.compile(r"\d[eE][-+]?\d")


def plain_words(text: str) -> bool:
    """Whether ``text`` is as students read numbers: no exponent notation, no ASCII minus before a digit.

    >>> plain_words("rises with water (+4.7) and falls with people (\u22125.6)")
    True
    >>> plain_words("a loss of 1e-3") or plain_words("falls by -5.6")
    False
    """
    return not _EXPONENT.search(text) and not re.search(r"(?<![\w])-\d", text)


__all__ = ["TITLE", "intro", "curves_legend", "MATRIX_NOTE", "WEIGHTS_INTRO", "PREFERENCE_NOTE", "OWN_INTRO", "OWN_PLACEHOLDER",
           "learned_html", "plain_words"]
