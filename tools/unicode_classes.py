"""Write data/unicode_classes.json: the character classes of the typed-sentence tokenizer, from Unicode 14.0.

The tokenizer (``attention.tokenize`` and its browser twin ``AttnWords.tokenize`` in attention/words.js) asks no
runtime which characters are letters, punctuation or cased: Python 3.11's unicodedata is Unicode 14.0, 3.12's
15.0, 3.13's 15.1 and the browser's ICU newer still, and each would split some texts differently.  Both read
this table instead (attention/charclasses.py).  It follows Unicode 14.0.0, the version of the oldest Python the
project supports, so that every supported Python has the NFKC and lower-case mappings of every character the
table keeps (a newer table would hold letters that Python 3.11 cannot normalise).

Regenerate it with Python 3.11 (any 3.11.x: all carry Unicode 14.0.0), from the repository's root:

    python3.11 tools/unicode_classes.py --compare python3.12 python3.13

``--compare`` runs the named interpreters and adds to the blank class every Unicode 14 character whose NFKC or
lower case differs there (none for Python 3.12 and 3.13, checked 2026-12-04).  tests/core/test_sentences.py
checks the shipped file against this script on Python 3.11, and tests/browser/test_words_parity.py checks the
browser against the core on every code point.

The classes, each a set of code points:

* ``blank``: not a character in Unicode 14.0 (general category Cn, and the surrogates Cs), and any character
  whose NFKC or lower case changed in a compared version.  The tokenizer turns them into spaces first, before
  NFKC and lower case.
* ``separator``: the characters of general category P*, S*, C* (Cc, Cf, Co) or Z*, which become spaces after
  NFKC and lower case (so they are dropped and split words).  Blank code points are not listed again.
* ``case_ignorable``: Case_Ignorable, and ``cased``: Cased but not Case_Ignorable, as Python 3.11's str.lower
  reads them to decide a capital sigma at the end of a word ("ς") or inside one ("σ").  They are probed from
  str.lower itself (a character before, or between a capital alpha and, a capital sigma), so they are exactly
  what that rule uses; a character both cased and case-ignorable is skipped by the rule, so it is listed as
  case-ignorable only.

Each class is written as runs: base-36 lengths, alternately of code points outside the class and inside it,
from U+0000 (``"10 a"``: U+0000 to U+0023 outside, U+0024 to U+002D inside).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "data" / "unicode_classes.json"
UNICODE = "14.0.0"
FORMAT = "attention-explorable unicode classes 1"
DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
SIGMA, FINAL_SIGMA, ALPHA = "\u03a3", "\u03c2", "\u0391"

# Printed by another interpreter (--compare): every code point's NFKC and lower case, one JSON list.
MAPPINGS = ("import json, platform, sys, unicodedata\n"
            "out = [[unicodedata.normalize('NFKC', chr(cp)), chr(cp).lower()] for cp in range(0x110000)]\n"
            "json.dump([platform.python_version(), unicodedata.unidata_version, out], sys.stdout)\n")


def runs(member) -> list[tuple[int, int]]:
    """The code points for which ``member(cp)`` holds, as (first, last) runs."""
    out, start = [], None
    for cp in range(0x110001):
        inside = cp < 0x110000 and member(cp)
        if inside and start is None:
            start = cp
        elif not inside and start is not None:
            out.append((start, cp - 1))
            start = None
    return out


def b36(n: int) -> str:
    s = ""
    while True:
        n, r = divmod(n, 36)
        s = DIGITS[r] + s
        if n == 0:
            return s


def encode(ranges) -> str:
    """(first, last) runs as the file writes them: base-36 lengths outside, inside, outside, ... from U+0000."""
    parts, prev = [], 0
    for a, b in ranges:
        parts += [a - prev, b - a + 1]
        prev = b + 1
    return " ".join(map(b36, parts))


def changed_in(python: str) -> tuple[str, set[int]]:
    """Another interpreter's name and Unicode version, and the Unicode 14 characters whose NFKC or lower case
    differ under it."""
    r = subprocess.run([python, "-c", MAPPINGS], capture_output=True, text=True, check=True)
    python_version, version, theirs = json.loads(r.stdout)
    changed = set()
    for cp, (nfkc, low) in enumerate(theirs):
        c = chr(cp)
        if unicodedata.category(c) in ("Cn", "Cs"):
            continue
        if (unicodedata.normalize("NFKC", c), c.lower()) != (nfkc, low):
            changed.add(cp)
    return f"Python {python_version}: Unicode {version}", changed


def build(compare=(), also_blank=()) -> dict:
    """The file's contents, from this Python's unicodedata (which must be Unicode 14.0.0); ``also_blank``: code
    points to list as changed without running another interpreter (the test rebuilds the file so)."""
    if unicodedata.unidata_version != UNICODE:
        raise SystemExit(f"this Python's unicodedata is Unicode {unicodedata.unidata_version}; "
                         f"run the script with Python 3.11 (Unicode {UNICODE})")
    changed, compared = set(also_blank), []
    for python in compare:
        name, cps = changed_in(python)
        compared.append(name)
        changed |= cps
    category = [unicodedata.category(chr(cp)) for cp in range(0x110000)]
    blank = [c in ("Cn", "Cs") for c in category]
    for cp in changed:
        blank[cp] = True

    def final_sigma(text):
        return text.lower()[-1] == FINAL_SIGMA

    # c + Σ ends a word only if c is cased and not case-ignorable; Α + c + Σ does when c is either
    cased = [final_sigma(chr(cp) + SIGMA) for cp in range(0x110000)]
    ignorable = [not cased[cp] and final_sigma(ALPHA + chr(cp) + SIGMA) for cp in range(0x110000)]
    classes = {
        "blank": runs(lambda cp: blank[cp]),
        "separator": runs(lambda cp: not blank[cp] and category[cp][0] in "PSCZ"),
        "case_ignorable": runs(lambda cp: ignorable[cp]),
        "cased": runs(lambda cp: cased[cp]),
    }
    return {
        "format": FORMAT,
        "unicode": UNICODE,
        "made_by": "tools/unicode_classes.py (see its docstring for what each class holds)",
        "compared_with": compared,
        "changed_after_unicode_14": [f"U+{cp:04X}" for cp in sorted(changed)],
        "runs": "base-36 lengths, alternately of code points outside the class and inside it, from U+0000",
        "classes": {name: encode(r) for name, r in classes.items()},
    }


def dumps(table: dict) -> str:
    return json.dumps(table, indent=1, ensure_ascii=True) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--compare", nargs="*", default=[], metavar="PYTHON",
                   help="other interpreters whose changed NFKC or lower case join the blank class")
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args(argv)
    text = dumps(build(args.compare))
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
