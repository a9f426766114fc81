"""A guided tour as data: the file format and its checks.

A tour file is JSON, small enough to read and write by hand::

    {"title": "Attention as a weighted average",
     "steps": [{"id": "shrink-h", "section": "regression",
                "title": "Shrink h",
                "text": "One idea in one to three plain sentences.",
                "do": "One thing to do.",
                "state": {"bandwidth": 0.05, "limits": true},
                "when": [["max_weight", ">=", 0.95]],
                "found": "One sentence about what the student found."}]}

A tour is read against the page's sections: a catalogue (app/contract.py ``Catalogue``), which the composition
(app/sections.py) hands to every function here that needs one; what the tour takes from it is app/tour/terms.py.

Every step has an ``id`` (a slug such as ``shrink-h``, unique in the file, so
``?tour=shrink-h`` opens it) and a ``section`` (one of the catalogue's, in the page's
order; the steps follow that order).  ``optional: true`` marks a step only an
explorer needs; ``needs_shipped_data: true`` one whose picture and goal are
written for the shipped datasets.

``state`` is what "Show me" sets, in the deep links' names and values: the settings of the step's section, plus
the few that its picture reads from an earlier one (a contract's ``reads``).  A setting of the step's own
section left out goes back to its default, as in a link, so "Show me" always
reaches the same picture; a setting it reads from another section changes only
when the step names it.

``when`` is a list of comparisons that must all hold: ``[name, operator,
value]``, a name of the step's section (``Terms.conditions``, each with its
description and units), one of ``OPERATORS`` and a value of the name's kind (a
number; for a name, a word, several words or true/false only ``==`` and ``!=``).
Nothing in a tour file is ever run as code or inserted as HTML.

Files written before ids and sections existed (no step names either) still
load: every step is a step of the first section, and its id is made from its title
(``slug``).

``load_tour`` and ``parse_tour`` raise ``TourError`` whose message names the
step (counted from 1, with its id) and the field, e.g. ``step 3 (widen-h),
"when" [1]: unknown name "max_wieght" (known: ...)``; ``check_tour_data``
returns every error of a file instead of the first.  The file format's JSON Schema is app/tour/schema.py's.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import attention

from .terms import (EQUAL_TOLERANCE, NUMBER_OPERATORS, OPERATORS, SWITCHES, Name, compare, holds,  # noqa: F401
                    plain as _plain, shown as _shown, shown_json as _shown_json, terms)

MAX_STEPS = 40
MAX_CONDITIONS = 8      # comparisons in one step's "when"
MAX_TEXT = 400          # characters of a step's text; a title, "do" and "found" get less
MAX_FILE_BYTES = 200_000
MAX_READ_BYTES = 8_000_000   # a larger file is refused unread (a smaller one too large is told which field made it so)
MAX_ID = 40
# A slug with at least one letter, so that it never reads as a step number in ?tour=.
ID_PATTERN = r"^(?=[a-z0-9-]*[a-z])[a-z0-9]+(-[a-z0-9]+)*$"
ID_RE = re.compile(ID_PATTERN)

STEP_FIELDS = ("title", "text", "do", "state", "when", "found")     # required
EXTRA_FIELDS = ("id", "section", "optional", "needs_shipped_data", "look")  # optional (id and section: see _step)
MAX_LOOK = 3
FLAGS = ("optional", "needs_shipped_data")
TOUR_FIELDS = ("title", "steps", "closing", "$schema")
CLOSING_FIELDS = ("title", "text")   # the closing card after the last step (optional): what the tour adds up to
TEXT_LIMITS = {"title": (80, 1), "text": (MAX_TEXT, 3), "do": (240, 2), "found": (240, 1)}  # (characters, sentences)
SENTENCE_END = re.compile(r"[.!?][\"”’)]?(?=\s|$)")
EXPONENT = re.compile(r"\d[eE][+\-\u2212]?\d")
HYPHEN_MINUS = re.compile(r"(?<![\w)\]])-(?=\d)")
MARKUP = re.compile(r"<[A-Za-z/!?]|&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
WHITESPACE = " \t\n\r\f\v"   # app/state.py's, for ?tour= as for every other key


class TourError(ValueError):
    """A tour file that cannot be used; the message names the step and the field."""


# ---- the tour and its steps -------------------------------------------------------------------------

@dataclass(frozen=True)
class Step:
    """One step.  ``catalogue``: the page's sections it was checked against (app/contract.py ``Catalogue``),
    which say what it looks at by default and which of its looks is a figure."""

    title: str
    text: str
    do: str
    state: dict
    when: tuple
    found: str
    id: str = ""
    section: str = ""
    optional: bool = False
    needs_shipped_data: bool = False
    look: tuple = ()
    catalogue: object = field(default=None, compare=False, repr=False)

    @property
    def looks_at(self) -> tuple:
        """What the page keeps on screen for this step: its ``look``, or its section's first figure."""
        if self.look or self.catalogue is None:
            return self.look
        return (terms(self.catalogue).look[self.section][0],)

    @property
    def figure(self) -> str | None:
        """The first of ``looks_at`` that is a figure of the page, which the card saves as a PNG; None when the
        step looks at controls only (then the card offers no PNG: a control's would be an empty picture)."""
        figures = terms(self.catalogue).figures if self.catalogue is not None else {}
        return next((n for n in self.looks_at if n in figures), None)

    def as_dict(self) -> dict:
        out = {"id": self.id, "section": self.section, "title": self.title, "text": self.text, "do": self.do,
               "state": dict(self.state), "when": [list(c) for c in self.when], "found": self.found}
        for flag in FLAGS:
            if getattr(self, flag):
                out[flag] = True
        if self.look:
            out["look"] = list(self.look)
        return out


@dataclass(frozen=True)
class Tour:
    """A tour: its title, steps and closing card; ``catalogue``: the page's sections it was checked against."""

    title: str
    steps: tuple = field(default_factory=tuple)
    source: str = ""
    closing: tuple | None = None   # (title, text) of the card after the last step; None: the page's own words
    catalogue: object = field(default=None, compare=False, repr=False)

    def __len__(self) -> int:
        return len(self.steps)

    def as_dict(self) -> dict:
        out = {"title": self.title, "steps": [s.as_dict() for s in self.steps]}
        if self.closing is not None:
            out["closing"] = dict(zip(CLOSING_FIELDS, self.closing))
        return out

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.steps)

    def number_of(self, step_id: str) -> int:
        """The step's number (from 1) for its id; 0 when the tour has no such step."""
        return self.ids.index(step_id) + 1 if step_id in self.ids else 0

    def sections(self) -> tuple[str, ...]:
        """The sections the steps go through, in the page's order."""
        order = self.catalogue.names if self.catalogue is not None else ()
        return tuple(s for s in order if any(st.section == s for st in self.steps))

    def only(self, sections) -> "Tour":
        """The tour with the steps of ``sections`` only (a page built without the others); ``TourError`` if
        none is left or a name is not a section."""
        wanted, known = tuple(sections), self.catalogue.names
        bad = [s for s in wanted if s not in known]
        if bad:
            raise TourError(f"{_shown_json(bad[0])} is not a section (one of {', '.join(known)})")
        steps = tuple(s for s in self.steps if s.section in wanted)
        if not steps:
            raise TourError(f"no step goes through {', '.join(wanted)} (the tour's sections: "
                            f"{', '.join(self.sections())})")
        return Tour(title=self.title, steps=steps, source=self.source, closing=self.closing, catalogue=self.catalogue)


def _label(i: int | None, sid: str | None = None) -> str:
    if i is None:
        return ""
    return f"step {i} ({sid})" if sid else f"step {i}"


def _where(label: str, fld: str) -> str:
    return f'{label}, "{fld}"' if label else f'"{fld}"'


def _kind(v) -> str:
    if isinstance(v, bool):
        return "true/false"
    if isinstance(v, float) and math.isinf(v):   # JSON's 1e999: Python reads it as infinity
        return "one too large to hold (it reads as infinity)"
    if isinstance(v, float) and math.isnan(v):
        return "a value that is not a number"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "text"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "an object"
    return "null" if v is None else type(v).__name__


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _whole(v) -> bool:
    """A whole number, as JSON Schema's "integer" reads it (60 and 60.0 alike)."""
    return _number(v) and float(v).is_integer()


# ---- texts -------------------------------------------------------------------------------------------

def _text(label, fld, v) -> str:
    limit, sentences = TEXT_LIMITS[fld]
    where = _where(label, fld)
    if not isinstance(v, str):
        raise TourError(f"{where}: expected text, got {_kind(v)}")
    v = " ".join(v.split())
    if not v:
        raise TourError(f"{where}: is empty")
    if len(v) > limit:
        raise TourError(f"{where}: {len(v)} characters, at most {limit}")
    n = len(SENTENCE_END.findall(v)) or 1
    if fld != "title" and n > sentences:
        raise TourError(f"{where}: {n} sentences, at most {sentences}")
    if MARKUP.search(v):
        raise TourError(f"{where}: markup ({MARKUP.search(v)[0]!r}) is shown as it is written, never as HTML: "
                        f"write plain text (*word* sets a word in italics)")
    if EXPONENT.search(v):
        raise TourError(f"{where}: write numbers plainly, without exponent notation ({EXPONENT.search(v)[0]!r})")
    if HYPHEN_MINUS.search(v):
        raise TourError(f"{where}: write a negative number with the minus sign \u2212, not a hyphen")
    return v


def slug(title: str, taken=()) -> str:
    """An id made from a title, for files written before steps had ids.

    The title is decomposed (NFKD) and its accents dropped, lowercased; every run of characters other than
    a-z and 0-9 becomes one hyphen, and hyphens at either end go.  Longer than 40 characters, it is cut at
    the last hyphen within them.  With no letter left it is ``step``.  An id already ``taken`` gets ``-2``,
    ``-3``, ... (the first one free).

    >>> slug("Shrink h: one sample takes everything")
    'shrink-h-one-sample-takes-everything'
    >>> slug("Widen h", taken={"widen-h"})
    'widen-h-2'
    """
    plain = "".join(ch for ch in unicodedata.normalize("NFKD", str(title)) if not unicodedata.combining(ch))
    s = re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")
    if len(s) > MAX_ID:
        cut = s[:MAX_ID + 1]
        s = cut[:cut.rfind("-")] if "-" in cut else s[:MAX_ID]
    if not re.search("[a-z]", s):
        s = "step"
    base, k = s, 2
    while s in taken:
        tail = f"-{k}"
        s = base[:MAX_ID - len(tail)].rstrip("-") + tail
        k += 1
    return s


# ---- one step's fields -----------------------------------------------------------------------------

def _step_id(label, v) -> str:
    where = _where(label, "id")
    if not isinstance(v, str):
        raise TourError(f"{where}: expected text, got {_kind(v)}")
    if len(v) > MAX_ID:
        raise TourError(f"{where}: {len(v)} characters, at most {MAX_ID}")
    if not ID_RE.match(v):
        raise TourError(f"{where}: {_shown_json(v)} is not an id: lowercase letters, digits and single hyphens, "
                        f"with at least one letter, like \"shrink-h\"")
    return v


def _section(T, label, v) -> str:
    if v not in T.sections:
        raise TourError(f"{_where(label, 'section')}: {_shown_json(v)} is not a section "
                        f"(one of {', '.join(T.sections)})")
    return v


def _look(T, label, section, v) -> tuple:
    """A step's ``look``: 1 to MAX_LOOK names its section may look at (``Terms.look``), each once."""
    known = T.look[section]
    if not isinstance(v, list) or not 1 <= len(v) <= MAX_LOOK or not all(isinstance(n, str) for n in v):
        raise TourError(f"{_where(label, 'look')}: expected a list of 1 to {MAX_LOOK} names, got {_kind(v)}")
    for n in v:
        if n not in known:
            raise TourError(f"{_where(label, 'look')}: unknown name {_shown_json(n)} for a {section} step "
                            f"(known: {', '.join(known)})")
    if len(set(v)) != len(v):
        raise TourError(f"{_where(label, 'look')}: a name is given twice")
    return tuple(v)


def _flag(label, fld, v) -> bool:
    if not isinstance(v, bool):
        raise TourError(f"{_where(label, fld)}: expected true or false, got {_kind(v)}")
    return v


def _setting(T, where, key, v, s):
    """One value of a step's state, checked against the deep link's kind and bounds."""
    kind = s["kind"]
    if kind == "bool":
        if not isinstance(v, bool):
            raise TourError(f"{where}: expected true or false, got {_kind(v)}")
        return v
    if kind in ("float", "int"):
        if not (_number(v) if kind == "float" else _whole(v)):
            want = "a number" if kind == "float" else "a whole number"
            raise TourError(f"{where}: expected {want}, got {_kind(v) if not _number(v) else _plain(v)}")
        if not s["lo"] <= v <= s["hi"]:
            raise TourError(f"{where}: {_plain(v)} is outside {s['lo_text']} to {s['hi_text']}")
        return float(v) if kind == "float" else int(v)
    if kind == "choice":
        choices = T.step_choices(key)
        if v not in choices:
            hint = " (written as text, in quotes)" if _number(v) and _plain(v) in choices else ""
            raise TourError(f"{where}: {_shown_json(v)} is not one of {', '.join(choices)}{hint}")
        return v
    # text: the sentence, as a link carries it
    if not isinstance(v, str):
        raise TourError(f"{where}: expected text, got {_kind(v)}")
    if len(v) > s["max"]:
        raise TourError(f"{where}: {len(v)} characters, at most {s['max']}")
    try:
        attention.sentences.tokenize(v)
    except ValueError as e:
        raise TourError(f"{where}: {e}") from None
    return v


def _state(T, label, section, raw, errors) -> dict | None:
    """A step's state; every bad setting is one error in ``errors``."""
    if not isinstance(raw, dict):
        errors.append(f"{_where(label, 'state')}: expected an object of settings, got {_kind(raw)}")
        return None
    spec, keys, out, ok = T.spec, T.settable_keys(section), {}, True
    for key, v in raw.items():
        where = f'{_where(label, "state")} {_shown(key)}'
        try:
            if key not in keys:
                owner = next((s for s in T.sections if key in T.section_keys[s]), None)
                why = f" (it belongs to the {owner} section)" if owner else ""
                raise TourError(f"{where}: not a setting a {section} step can set{why}; it sets {', '.join(keys)}")
            out[key] = _setting(T, where, key, v, spec[key])
        except TourError as e:
            errors.append(str(e))
            ok = False
    check = T.contract(section).step_check
    if ok and check is not None:   # what a setting's bounds cannot say (a selected word past the sentence's end)
        problems = check(T.full_state(out, section))
        errors.extend(f'{_where(label, "state")} {p}' for p in problems)
        ok = not problems
    return out if ok else None


def _value(T, where, name, value):
    """A condition's value, checked against its name's kind."""
    kind = T.conditions[name].kind
    if kind == "number":
        if not _number(value):
            raise TourError(f"{where}: {name} is compared with a number, got {_kind(value)}")
    elif kind == "bool":
        if not isinstance(value, bool):
            raise TourError(f"{where}: {name} is compared with true or false, got {_kind(value)}")
    elif kind == "choice":
        choices = T.choices(name)
        if value not in choices:
            hint = " (written as text, in quotes)" if _number(value) and _plain(value) in choices else ""
            raise TourError(f"{where}: {_shown_json(value)} is not a {name} (one of {', '.join(choices)}){hint}")
    else:   # a word or a sentence, as the page splits the text into words
        if not isinstance(value, str):
            raise TourError(f"{where}: {name} is compared with text, got {_kind(value)}")
        try:
            words = attention.sentences.tokenize(value)
        except ValueError:
            words = []
        if kind == "word" and words != [value]:
            raise TourError(f"{where}: write a word as the page shows it: one lowercase word without punctuation, "
                            f"like \"bank\" (got {_shown_json(value)})")
        if kind == "words" and " ".join(words) != value:
            raise TourError(f"{where}: write the sentence as the page splits it: lowercase words one space apart, "
                            f"without punctuation (got {_shown_json(value)})")
    return value


def _condition(T, label, j, section, raw) -> tuple:
    where = f'{_where(label, "when")} [{j}]'
    if not (isinstance(raw, list) and len(raw) == 3):
        raise TourError(f'{where}: expected [name, operator, value], like ["max_weight", ">=", 0.95]')
    name, op, value = raw
    if not isinstance(name, str) or name not in T.conditions:
        raise TourError(f"{where}: unknown name {_shown_json(name)} (known: {', '.join(T.names_of(section))})")
    if T.conditions[name].section != section:
        raise TourError(f"{where}: {name} is a name of the {T.conditions[name].section} section; a {section} step "
                        f"compares its own section's names (`attention-explorable tour schema` lists them)")
    if op not in NUMBER_OPERATORS:
        raise TourError(f"{where}: unknown operator {_shown_json(op)} (one of {' '.join(NUMBER_OPERATORS)})")
    if op not in T.operators(name):
        raise TourError(f"{where}: {name} is compared with == or !=, not {op}")
    return (name, op, _value(T, where, name, value))


def _when(T, label, section, raw, errors) -> tuple | None:
    if not isinstance(raw, list) or not raw:
        errors.append(f'{_where(label, "when")}: expected a non-empty list of [name, operator, value]')
        return None
    if len(raw) > MAX_CONDITIONS:
        errors.append(f'{_where(label, "when")}: {len(raw)} comparisons, at most {MAX_CONDITIONS}')
        return None
    out, ok = [], True
    for j, c in enumerate(raw, 1):
        try:
            out.append(_condition(T, label, j, section, c))
        except TourError as e:
            errors.append(str(e))
            ok = False
    if ok and all(T.conditions[name].runtime for name, _, _ in out):
        errors.append(f'{_where(label, "when")}: whether Play runs ({", ".join(T.runtime_names)}) is not a state '
                      f"Show me can reach; add a comparison of the state it reaches")
        ok = False
    return tuple(out) if ok else None


def _named(i, raw, fld, check, errors, sid=None):
    """A step's own id or section (None, with an error, when it is missing or bad)."""
    label = _label(i, sid)
    if fld not in raw:
        why = "a tour whose steps have ids and sections gives every step both"
        errors.append(f'{label}, "{fld}": missing ({why})')
        return None
    try:
        return check(label, raw[fld])
    except TourError as e:
        errors.append(str(e))
        return None


def _step(T, i, raw, made_id, errors) -> Step | None:
    """One step; ``made_id`` is the id made from its title in a file without ids (None: the step needs one)."""
    if not isinstance(raw, dict):
        errors.append(f"step {i}: expected an object with {', '.join(STEP_FIELDS)}, got {_kind(raw)}")
        return None
    before = len(errors)
    if made_id is not None:   # a file from before ids and sections: every step one of the first section's
        sid, section = made_id, T.first
    else:
        sid = _named(i, raw, "id", _step_id, errors)
        section = _named(i, raw, "section", lambda label, v: _section(T, label, v), errors, sid)
    label = _label(i, sid)
    for key in raw:
        if key not in STEP_FIELDS + EXTRA_FIELDS:
            errors.append(f'{label}, "{_shown(key)}": unknown field (a step has {", ".join(STEP_FIELDS)}, and may '
                          f'have {", ".join(EXTRA_FIELDS)})')
    for key in STEP_FIELDS:
        if key not in raw:
            errors.append(f'{label}, "{key}": missing')
    texts = {}
    for key in TEXT_LIMITS:
        if key in raw:
            try:
                texts[key] = _text(label, key, raw[key])
            except TourError as e:
                errors.append(str(e))
    flags = {}
    for key in FLAGS:
        try:
            flags[key] = _flag(label, key, raw.get(key, False))
        except TourError as e:
            errors.append(str(e))
    state = when = None
    look = ()
    if section is not None:   # a step of no known section: its state and conditions cannot be read
        if "state" in raw:
            state = _state(T, label, section, raw["state"], errors)
        if "when" in raw:
            when = _when(T, label, section, raw["when"], errors)
        if "look" in raw:
            try:
                look = _look(T, label, section, raw["look"])
            except TourError as e:
                errors.append(str(e))
    if len(errors) > before:
        return None
    return Step(title=texts["title"], text=texts["text"], do=texts["do"], state=state, when=when,
                found=texts["found"], id=sid, section=section, look=look, catalogue=T.catalogue, **flags)


def _across(T, steps, errors) -> None:
    """What no step can check alone: ids unique, sections in the page's order."""
    seen, last = {}, None
    for k, s in enumerate(steps, 1):
        label = _label(k, s.id)
        if s.id in seen:
            errors.append(f'{label}, "id": {s.id!r} is already step {seen[s.id]}\'s id')
        seen.setdefault(s.id, k)
        if last is not None and T.sections.index(s.section) < T.sections.index(last):
            errors.append(f'{label}, "section": a {s.section} step after a {last} step; steps follow the page\'s '
                          f"order: {', '.join(T.sections)}")
        last = s.section if last is None else max(last, s.section, key=T.sections.index)


def check_tour_data(catalogue, data, source: str = "") -> tuple[Tour | None, list[str]]:
    """Every problem of decoded JSON as a tour of ``catalogue``'s sections (app/contract.py ``Catalogue``), one
    plain line each; the ``Tour`` when there is none."""
    T = terms(catalogue)
    errors: list[str] = []
    if not isinstance(data, dict):
        return None, [f'expected an object with "title" and "steps", got {_kind(data)}']
    for key in data:
        if key not in TOUR_FIELDS:
            errors.append(f'"{_shown(key)}": unknown field (a tour has "title" and "steps")')
    title = None
    if "title" not in data:
        errors.append('"title": missing')
    else:
        try:
            title = _text("", "title", data["title"])
        except TourError as e:
            errors.append(str(e))
    if "$schema" in data and not isinstance(data["$schema"], str):
        errors.append(f'"$schema": expected text (the schema\'s address), got {_kind(data["$schema"])}')
    closing = _closing(data["closing"], errors) if "closing" in data else None
    steps = data.get("steps")
    if not isinstance(steps, list) or not steps:
        errors.append('"steps": expected a non-empty list of steps')
        return None, errors
    if len(steps) > MAX_STEPS:
        errors.append(f'"steps": {len(steps)} steps, at most {MAX_STEPS}')
        return None, errors
    made = _made_ids(steps)
    parsed = [_step(T, i, s, made[i - 1], errors) for i, s in enumerate(steps, 1)]
    if errors:
        return None, errors
    _across(T, parsed, errors)
    if errors:
        return None, errors
    return Tour(title=title, steps=tuple(parsed), source=source, closing=closing, catalogue=catalogue), []


def _closing(raw, errors) -> tuple | None:
    """The closing card's (title, text), or None with the problems added to ``errors``."""
    if not isinstance(raw, dict):
        errors.append(f'"closing": expected an object with "title" and "text", got {_kind(raw)}')
        return None
    out = []
    for key in raw:
        if key not in CLOSING_FIELDS:
            errors.append(f'"closing", "{_shown(key)}": unknown field (the closing card has "title" and "text")')
    for fld in CLOSING_FIELDS:
        if fld not in raw:
            errors.append(f'"closing", "{fld}": missing')
            continue
        try:
            out.append(_text("", fld, raw[fld]))
        except TourError as e:
            errors.append(f'"closing", {e}')
    return tuple(out) if len(out) == len(CLOSING_FIELDS) else None


def _made_ids(steps) -> list:
    """Ids made from the titles when no step has an id or a section (a file from before they existed), else
    None for every step (each names its own)."""
    if any(isinstance(s, dict) and ("id" in s or "section" in s) for s in steps):
        return [None] * len(steps)
    taken: set = set()
    out = []
    for s in steps:
        t = s.get("title") if isinstance(s, dict) else None
        sid = slug(t if isinstance(t, str) else "step", taken)
        taken.add(sid)
        out.append(sid)
    return out


def parse_tour(catalogue, data, source: str = "") -> Tour:
    """A ``Tour`` of ``catalogue``'s sections from decoded JSON; raises ``TourError`` naming the step and field of
    the first problem."""
    tour, errors = check_tour_data(catalogue, data, source)
    if errors:
        raise TourError(errors[0])
    return tour


def _no_twice(pairs):
    keys = [k for k, _ in pairs]
    for k in keys:
        if keys.count(k) > 1:
            raise TourError(f'the field "{_shown(k)}" is given twice in one object')
    return dict(pairs)


def _no_constant(name):
    raise TourError(f"not valid JSON: {name} is not a number JSON knows")


def _size(n: int) -> str:
    """A file's size in kB or MB, as a person says it: 251 kB, 5.2 MB."""
    if n >= 1_000_000:
        return f"{n / 1e6:.1f}".removesuffix(".0") + " MB"
    return f"{math.ceil(n / 1000)} kB"


def _too_large(n: int) -> str:
    return f"the file is {_size(n)}: a tour file is at most {_size(MAX_FILE_BYTES)}"


def read_tour_json(path: str | Path):
    """The decoded JSON of a tour file; ``TourError`` with one line if it cannot be read as such.

    A file up to MAX_READ_BYTES is read, so that a file too large for a tour because of one of its fields (10 000
    steps, a text of 5 MB) is told which (``check_tour_file``); a larger one is refused unread, by its size.
    """
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_READ_BYTES:
            raise TourError(f"the file is {_size(size)}, too large to read as a tour: a tour file is at most "
                            f"{_size(MAX_FILE_BYTES)}")
        with p.open("rb") as f:
            raw = f.read(MAX_READ_BYTES + 1)
    except OSError as e:
        raise TourError(f"cannot read the file: {e.strerror or e}") from None
    if len(raw) > MAX_READ_BYTES:   # it grew since
        raise TourError(f"the file is over {_size(MAX_READ_BYTES)}, too large to read as a tour: a tour file is at "
                        f"most {_size(MAX_FILE_BYTES)}")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise TourError("not UTF-8 text") from None
    try:
        return json.loads(text, object_pairs_hook=_no_twice, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise TourError(f"not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    except RecursionError:
        raise TourError("not valid JSON for a tour: nested too deeply") from None


def check_tour_file(catalogue, path: str | Path) -> tuple[Tour | None, list[str]]:
    """``check_tour_data`` for a file: every problem, one line each (a file that cannot be read: one line; a file
    larger than MAX_FILE_BYTES whose fields are all fine: its size)."""
    try:
        data = read_tour_json(path)
    except TourError as e:
        return None, [str(e)]
    tour, errors = check_tour_data(catalogue, data, source=str(path))
    if not errors:
        size = Path(path).stat().st_size
        if size > MAX_FILE_BYTES:
            return None, [_too_large(size)]
    return tour, errors


def load_tour(catalogue, path: str | Path) -> Tour:
    """Read and validate a tour file against ``catalogue``'s sections; ``TourError`` says what is wrong, with the
    step and field."""
    tour, errors = check_tour_file(catalogue, path)
    if errors:
        raise TourError(errors[0])
    return tour


LESSON = "lesson"   # the shipped tour the page shows: data/tours/lesson.json


def tour_path(name: str = LESSON):
    """A shipped tour, data/tours/<name>.json: ``lesson`` (the whole page), ``regression`` (the first section's
    seven steps, an example of a one-section tour)."""
    from attention.datasets import data_path

    return data_path("tours", f"{name}.json")


def default_tour_path():
    return tour_path(LESSON)


ENV_TOUR = "ATTENTION_EXPLORABLE_TOUR"   # set by `attention-explorable serve --tour FILE` for the server it starts


def active_tour(catalogue) -> Tour:
    """The tour this process shows: the file ``serve --tour`` named (checked before the server started), or the
    shipped one.  A tour file is only ever named on the command line, never by a link."""
    import os

    path = os.environ.get(ENV_TOUR)
    if not path:
        return default_tour(catalogue)
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        stamp = None   # load_tour says what is wrong
    return _load_once(catalogue, path, stamp)


@lru_cache(maxsize=8)
def _load_once(catalogue, path: str, stamp) -> Tour:   # one read per file version, not one per page built
    return load_tour(catalogue, path)


@lru_cache(maxsize=8)
def shipped_tour(catalogue, name: str = LESSON) -> Tour:
    """A shipped tour (``tour_path``), read once for each catalogue."""
    p = tour_path(name)
    return parse_tour(catalogue, json.loads(p.read_text(encoding="utf-8")), source=f"{name}.json")


def default_tour(catalogue) -> Tour:
    """The tour the page shows unless told otherwise: the whole lesson (data/tours/lesson.json), whose steps 1 to 7
    are the first section's (data/tours/regression.json, kept as an example of a one-section tour)."""
    return shipped_tour(catalogue, LESSON)


def lesson_tour(catalogue) -> Tour:
    """The whole lesson, every section (data/tours/lesson.json)."""
    return shipped_tour(catalogue, LESSON)


# ---- ?tour= ----------------------------------------------------------------------------------------------

def resolve_step(raw: str | None, tour: Tour) -> tuple[int, str | None]:
    """The step a link's ``tour`` value opens, and a notice when the value had to be corrected.

    Returns ``(k, notice)``: ``k`` from 1 to ``len(tour)``, or 0 for a card hidden (``?tour=0``).  The browser
    mirrors these rules and notices character for character:

    1. no value (``None``): step 1, no notice;
    2. spaces, tabs and line breaks at either end are ignored; nothing left: step 1, "Ignored an empty
       value for “tour”.";
    3. ASCII digits only: that number; 0 hides the card; past the last step: step 1, "There is no step
       99 in this tour (it has 18 steps); showing step 1.";
    4. otherwise, with A-Z lowered to a-z: the step with that id; an id no step has: step 1, "There is no
       step “xyz” in this tour; showing step 1.";
    5. anything else: step 1, "Ignored tour=“…”: expected a step's number (0 to 18) or its id, such as
       “query-listens” (the first step's id); showing step 1."

    A value repeated back is cut to 40 characters and "…".  Nothing in a notice is HTML: the page escapes it.

    >>> t = Tour("t", (Step("A", "a.", "a.", {}, (), "a.", id="first"), Step("B", "b.", "b.", {}, (), "b.", id="second")))
    >>> resolve_step("2", t), resolve_step(" Second ", t), resolve_step("0", t)
    ((2, None), (2, None), (0, None))
    >>> resolve_step("9", t)
    (1, 'There is no step 9 in this tour (it has 2 steps); showing step 1.')
    """
    if raw is None:
        return 1, None
    n = len(tour)
    value = str(raw).strip(WHITESPACE)
    if value == "":
        return 1, "Ignored an empty value for \u201ctour\u201d."
    if re.fullmatch(r"[0-9]+", value):
        k = int(value)
        if k <= n:
            return k, None
        return 1, f"There is no step {_shown(value)} in this tour (it has {n} step{'s' if n != 1 else ''}); showing step 1."
    low = re.sub(r"[A-Z]", lambda m: m[0].lower(), value)
    if low in tour.ids:
        return tour.number_of(low), None
    if ID_RE.match(low) and len(low) <= MAX_ID:
        return 1, f"There is no step \u201c{_shown(value)}\u201d in this tour; showing step 1."
    example = tour.ids[0] if n else "shrink-h"
    return 1, (f"Ignored tour=\u201c{_shown(value)}\u201d: expected a step's number (0 to {n}) or its id, such as "
               f"\u201c{example}\u201d; showing step 1.")


# ---- what "Show me" sets ---------------------------------------------------------------------------------

def full_state(catalogue, values: dict, section: str | None = None) -> dict:
    """The settings ``section``'s step sets (the catalogue's first section by default), every left-out one at its
    default (as a deep link reads)."""
    return terms(catalogue).full_state(values, section)


def show_me_settings(step: Step) -> dict:
    """What "Show me" sets: every setting of the step's section (left out: its default), and the settings it
    reads from another section only when the step names them."""
    T = terms(step.catalogue)
    out = {k: step.state.get(k, T.spec[k]["default"]) for k in T.section_keys[step.section]}
    out.update({k: step.state[k] for k in T.reads.get(step.section, ()) if k in step.state})
    return out


def ready_settings(step: Step) -> dict:
    """What shows a control the step asks for while it is hidden (the key-norm tilt shows for the dot kernel
    alone), by the section that owns each setting: the switches (a menu, a check box) the step's state sets other
    than those of the controls it looks at (``look``), which stay the student's to move.  The page sets them when
    the step opens outside presentation mode with one of those controls hidden (app/tour/steps.js opening)."""
    T = terms(step.catalogue)
    asked = {T.control_keys[n] for n in step.looks_at if n in T.control_keys}
    out: dict = {}
    for key, value in step.state.items():
        if key not in asked and T.control_kinds.get(key) in SWITCHES:
            out.setdefault(T.settings_owner(key, step.section), {})[key] = value
    return out


# ---- conditions, computed by each section with the numpy core ----------------------------------------

def section_readouts(catalogue, section: str, values: dict, needs=None, dataset=None) -> dict:
    """Every name of ``section`` the core can compute, for a state in deep-link values (app/tour/terms.py
    ``Terms.section_readouts``)."""
    return terms(catalogue).section_readouts(section, values, needs=needs, dataset=dataset)


def readouts(catalogue, values: dict, dataset=None, needs=None) -> dict:
    """Every name of the catalogue's first section for a state (deep-link values, defaults filled in), with
    attention/'s functions.  The browser computes the same numbers with attention/mirror.js (app/tour/steps.js).
    ``needs``: the names wanted (None: all)."""
    return section_readouts(catalogue, catalogue.first, values, needs=needs, dataset=dataset)


def step_readouts(step: Step, values: dict | None = None) -> dict:
    """The numbers ``step``'s goal compares, in the state "Show me" reaches (everything it leaves out at its
    default), or in ``values`` (deep-link settings) when given."""
    return section_readouts(step.catalogue, step.section, step.state if values is None else values,
                            needs={name for name, _, _ in step.when})


def show_me_problems(tour: Tour) -> list[str]:
    """Each comparison that the state "Show me" reaches does not meet, by the numpy core; one line each."""
    out, conditions = [], terms(tour.catalogue).conditions
    for k, step in enumerate(tour.steps, 1):
        values = step_readouts(step)
        for j, (name, op, v) in enumerate(step.when, 1):
            if not compare(values[name], op, v):
                why = " (Show me stops Play and never presses it)" if conditions[name].runtime else ""
                out.append(f'{_label(k, step.id)}, "when" [{j}]: Show me does not reach it: {name} is '
                           f"{_plain(values[name])} there{why}, and the step asks {op} {_plain(v)}")
    return out


__all__ = ["Tour", "Step", "Name", "TourError", "parse_tour", "load_tour", "check_tour_data", "check_tour_file",
           "read_tour_json", "default_tour", "lesson_tour", "shipped_tour", "active_tour", "ENV_TOUR", "LESSON",
           "default_tour_path", "tour_path", "resolve_step", "slug", "readouts", "section_readouts", "step_readouts",
           "holds", "compare", "full_state", "show_me_settings", "ready_settings", "show_me_problems", "OPERATORS",
           "MAX_STEPS"]
