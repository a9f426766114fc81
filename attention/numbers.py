"""Numbers as students read them: the typographic minus, fixed decimals, about three significant digits and never
exponent notation.  The page's twin is attention/numbers.js (tests/js holds them to each other)."""

from __future__ import annotations

MINUS = "\u2212"


def signed(v: float, digits: int) -> str:
    """``v`` with ``digits`` decimals and the typographic minus.

    >>> signed(-0.304, 2)
    '\u22120.30'
    """
    s = f"{v:.{digits}f}"
    return MINUS + s[1:] if s.startswith("-") else s


_BIG_WORDS = ((1e12, "trillion"), (1e9, "billion"), (1e6, "million"))


def plain(v: float, digits: int = 3) -> str:
    """A number as students read it: about ``digits`` significant digits, never exponent notation.

    Twin of ``plain`` in attention/numbers.js.  Python's ``:g`` turns 1000 into "1e+03" and 4e-12 into
    "4e-12"; here 1000 stays "1000", 58 700 000 becomes "58.7 million", a number too small to show
    in ``digits`` decimals after its first four zeros becomes "≈ 0", and a negative number
    takes the typographic minus.
    """
    if v != v:
        return "not a number"
    if v in (float("inf"), float("-inf")):
        return ("" if v > 0 else MINUS) + "infinity"
    if v == 0:
        return "0"
    a = abs(v)
    sign = MINUS if v < 0 else ""
    for size, word in _BIG_WORDS:
        if a >= size:
            return f"{sign}{plain(a / size, digits)} {word}"
    if a < 1e-4:
        return "\u2248 0"
    e = int(f"{a:.{digits - 1}e}".split("e")[1])
    if e >= digits:
        return sign + f"{a:.0f}"
    s = f"{a:.{max(digits - 1 - e, 0)}f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return sign + s


__all__ = ["MINUS", "signed", "plain"]
