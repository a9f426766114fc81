"""The learning section's words: a refused step of gradient descent, as the page shows it."""

from __future__ import annotations

import re

from app.ui.text import plain


_EXPONENT_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?[eE][-+]?\d+")
_TRY = re.compile(r"try [^)]*\)")
_RANGE = re.compile(r"outside \[([^,\]]+), ([^\]]+)\]")


def smaller_preset(lr: float, presets) -> str | None:
    """The largest learning rate the page offers below ``lr`` (None if there is none)."""
    below = [p for p in presets if float(p) < lr]
    return max(below, key=float) if below else None


def refusal_text(message: str, lr: float, presets) -> str:
    """The core's message for a refused step, as the page shows it.

    Numbers in exponent notation become plain words (``plain``), and the hint suggests the next
    smaller learning rate the page's drop-down offers instead of one it does not (the core says
    "try lr/10", which may be no choice at all).
    """
    if not message:
        return message
    def number(m):
        v = float(m.group())
        return "almost 0 (below 0.0001)" if abs(v) < 1e-4 else "about " + plain(v, 3)

    out = _EXPONENT_NUMBER.sub(number, message)
    out = _RANGE.sub(r"outside the range \1 to \2", out)
    pick = smaller_preset(lr, presets)
    hint = f"pick {pick} or less from the list)" if pick else "the list offers no smaller rate)"
    return _TRY.sub(hint, out)
