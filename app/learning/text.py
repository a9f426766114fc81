"""The learning section's words: where training starts, and a refused step of gradient descent, as the page
shows them.  ``h_text`` and ``start_sentence`` have twins, ``hText`` and ``startSentence`` in
app/learning/starttext.js."""

from __future__ import annotations

import re

from app.ui.text import plain, signed


_EXPONENT_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?[eE][-+]?\d+")
_TRY = re.compile(r"try [^)]*\)")
_RANGE = re.compile(r"outside \[([^,\]]+), ([^\]]+)\]")
_INFINITE = re.compile(r"would become inf\b")
TOO_LARGE = "would become too large to compute"   # the core's "inf": a step whose log h the core does not exp


def smaller_preset(lr: float, presets) -> str | None:
    """The largest learning rate the page offers below ``lr`` (None if there is none)."""
    below = [p for p in presets if float(p) < lr]
    return max(below, key=float) if below else None


def refusal_text(message: str, lr: float, presets) -> str:
    """The core's message for a refused step, as the page shows it.

    Numbers in exponent notation become plain words (``plain``), the core's "inf" too (TOO_LARGE), and the
    hint suggests the next smaller learning rate the page's drop-down offers instead of one it does not (the
    core says "try lr/10", which may be no choice at all).
    """
    if not message:
        return message
    def number(m):
        v = float(m.group())
        return "almost 0 (below 0.0001)" if abs(v) < 1e-4 else "about " + plain(v, 3)

    out = _EXPONENT_NUMBER.sub(number, message)
    out = _RANGE.sub(r"outside the range \1 to \2", out)
    out = _INFINITE.sub(TOO_LARGE, out)
    pick = smaller_preset(lr, presets)
    hint = f"pick {pick} or less from the list)" if pick else "the list offers no smaller rate)"
    return _TRY.sub(hint, out)


# Where the bandwidth's training starts, in words: a typical query's largest weight there (the median over the
# regression's x grid, ``attention.typical_focus``), written with two decimals, picks the words.
NEARLY_COPIES = 0.9   # this or more: the query nearly copies its nearest sample
LEANS_MOSTLY = 0.55   # this or more: it leans mostly on its nearest sample
A_FEW = 0.2           # this or more: it mixes its nearest few samples; below, it averages many
FOCUS_LIMITS = {"nearly_copies": NEARLY_COPIES, "leans_mostly": LEANS_MOSTLY, "a_few": A_FEW}


def h_text(h: float, p: int, scale=None, x_name: str | None = None) -> str:
    """h as the readouts write it, to ``p`` significant digits; on your own data (``scale``: its ``span`` and
    ``uspan``, app/userdata/carry.py Scale) in the data's units, named (twin: hText in starttext.js).

    >>> from types import SimpleNamespace
    >>> h_text(0.15, 4), h_text(0.15, 4, SimpleNamespace(span=364.0, uspan=6.0), "day")
    ('0.15', '9.1 (day)')
    """
    return f"{plain(h * scale.span / scale.uspan, p)} ({x_name or 'x'})" if scale is not None else plain(h, p)


def points_text(points: float) -> str:
    """Effective points as the sentence says them: one decimal below 10 ("2.4"), whole from 10 on ("38")."""
    return signed(points, 1) if float(signed(points, 1)) < 10 else signed(points, 0)


def start_sentence(start: str, max_weight: float, points: float) -> str:
    """Where training starts and what a query does there: ``start`` as the readout writes it ("h = 0.15"),
    ``max_weight`` and ``points`` the typical largest weight and effective points there
    (``attention.typical_focus``).  The words follow the largest weight as shown, with two decimals.

    >>> print(start_sentence("h = 0.15", 0.5973, 2.42))
    Training starts at h = 0.15, where the largest weight a query gives is typically 0.60: it leans mostly on its nearest sample, and effectively consults about 2.4 samples.
    >>> print(start_sentence("h = 9.1 (day)", 0.044, 37.6))
    Training starts at h = 9.1 (day), where the largest weight a query gives is typically 0.04: it averages about 38 samples.
    """
    w = signed(max_weight, 2)
    shown, p = float(w), points_text(points)
    if shown >= NEARLY_COPIES:
        does = "it nearly copies its nearest sample"
    elif shown >= LEANS_MOSTLY:
        does = f"it leans mostly on its nearest sample, and effectively consults about {p} samples"
    elif shown >= A_FEW:
        does = f"it mixes its nearest few samples, effectively about {p} of them"
    else:
        does = f"it averages about {p} samples"
    return f"Training starts at {start}, where the largest weight a query gives is typically {w}: {does}."
