"""The character classes of the typed-sentence tokenizer, read from ``data/unicode_classes.json``.

Which characters are letters, punctuation or cased changes with the Unicode version, and Python's unicodedata
follows the Python version (3.11: Unicode 14.0, 3.12: 15.0, 3.13: 15.1).  So the tokenizer asks the project's own
table, written from Unicode 14.0 by tools/unicode_classes.py, and the browser's tokenizer (attention/words.js)
reads the same table.  Four classes (the script's docstring says how each was made):

* ``blank``: code points that are not characters in Unicode 14.0; they become spaces before anything else;
* ``separator``: punctuation, symbols, controls, format and private-use characters and spaces (P*, S*, C*,
  Z*), which become spaces once the text is normalised and lower-cased;
* ``case_ignorable`` and ``cased``: what decides a capital sigma at the end of a word.

What is left to the runtime, NFKC and the lower-case mappings of the characters the table keeps, is the same
in Python 3.11 to 3.13 (the script checks) and in the browser (tests/browser/test_words_parity.py).

This module imports the standard library only.
"""

from __future__ import annotations

import json
import re
import unicodedata
from bisect import bisect_right
from functools import lru_cache

from .datasets import data_path

FORMAT = "attention-explorable unicode classes 1"
CLASSES = ("blank", "separator", "case_ignorable", "cased")
SIGMA, SMALL_SIGMA, FINAL_SIGMA = "\u03a3", "\u03c3", "\u03c2"


def decode_runs(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Runs as the file writes them (base-36 lengths, alternately outside and inside the class, from U+0000)
    -> the first and last code point of each run inside.

    >>> decode_runs("10 a 2 1")
    ((36, 48), (45, 48))
    """
    lengths = [int(s, 36) for s in text.split()]
    starts, ends, cp = [], [], 0
    for i in range(0, len(lengths), 2):
        cp += lengths[i]
        starts.append(cp)
        cp += lengths[i + 1]
        ends.append(cp - 1)
    return tuple(starts), tuple(ends)


@lru_cache(maxsize=None)
def table() -> dict:
    """The file's contents (format, Unicode version, classes as runs)."""
    t = json.loads(data_path("unicode_classes.json").read_text(encoding="utf-8"))
    if t.get("format") != FORMAT or set(t.get("classes", ())) != set(CLASSES):
        raise ValueError(f"data/unicode_classes.json: expected format {FORMAT!r} with classes {', '.join(CLASSES)}")
    return t


def unicode_version() -> str:
    """The Unicode version the table follows.

    >>> unicode_version()
    '14.0.0'
    """
    return table()["unicode"]


@lru_cache(maxsize=None)
def ranges(name: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """One class as (starts, ends) of its runs."""
    return decode_runs(table()["classes"][name])


@lru_cache(maxsize=None)
def _pattern(name: str) -> re.Pattern:
    starts, ends = ranges(name)
    return re.compile("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in zip(starts, ends)) + "]")


def member(name: str, ch: str) -> bool:
    """Whether the character ``ch`` is in the class.

    >>> member("separator", "."), member("separator", "a"), member("blank", "\\u0378"), member("cased", "A")
    (True, False, True, True)
    """
    starts, ends = ranges(name)
    i = bisect_right(starts, ord(ch)) - 1
    return i >= 0 and ord(ch) <= ends[i]


def blank_out(text: str) -> str:
    """Every code point that is not a character of the table's Unicode becomes a space.

    >>> blank_out("bank\\u0378river\\U0001e030")
    'bank river '
    """
    return _pattern("blank").sub(" ", text)


def separators_to_spaces(text: str) -> str:
    """Every separator (punctuation, symbol, control, format, private use, space) becomes a plain space.

    >>> separators_to_spaces("don't\\u00a0stop!")
    'don t stop '
    """
    return _pattern("separator").sub(" ", text)


@lru_cache(maxsize=None)
def _code_points(name: str) -> frozenset[str]:
    # a small class as a set of characters (Cased and Case_Ignorable hold a few thousand each)
    return frozenset(chr(cp) for a, b in zip(*ranges(name)) for cp in range(a, b + 1))


def _final_sigma(text: str, i: int) -> bool:
    # Unicode's Final_Sigma context, as str.lower decides it: a cased character before the sigma at i (skipping
    # case-ignorable ones) and none after it.
    ignorable, cased = _code_points("case_ignorable"), _code_points("cased")
    j = i - 1
    while j >= 0 and text[j] in ignorable:
        j -= 1
    if j < 0 or text[j] not in cased:
        return False
    k = i + 1
    while k < len(text) and text[k] in ignorable:
        k += 1
    return k == len(text) or text[k] not in cased


def lower(text: str) -> str:
    """str.lower, except that each capital sigma is decided from the table's Cased and Case_Ignorable (str.lower
    reads them from the running Python's Unicode).

    >>> lower("ΟΔΟΣ.ΑΣ ΟΔΟΣ")
    'οδοσ.ας οδος'
    """
    if SIGMA not in text:
        return text.lower()
    pieces, start = [], 0
    for i, ch in enumerate(text):
        if ch == SIGMA:
            pieces += [text[start:i].lower(), FINAL_SIGMA if _final_sigma(text, i) else SMALL_SIGMA]
            start = i + 1
    return "".join(pieces) + text[start:].lower()


def fold(text: str) -> str:
    """The tokenizer's first step: code points outside the table's Unicode become spaces, then NFKC, then lower
    case (the sigma decided by the table).

    >>> fold("ＢＡＮＫ ΟΔΟΣ \\U0001e030")
    'bank οδος  '
    """
    return lower(unicodedata.normalize("NFKC", blank_out(text)))


def browser_table() -> dict:
    """What attention/words.js reads (``AttnUnicode``): the Unicode version and the classes as runs."""
    t = table()
    return {"unicode": t["unicode"], "classes": dict(t["classes"])}
