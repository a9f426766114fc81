"""A guided tour as data: the file format, its validation, and the conditions that recognise a step.

A tour file is JSON, small enough to read and write by hand::

    {"title": "Attention as a weighted average",
     "steps": [{"id": "shrink-h", "section": "regression",
                "title": "Shrink h",
                "text": "One idea in one to three plain sentences.",
                "do": "One thing to do.",
                "state": {"bandwidth": 0.05, "limits": true},
                "when": [["max_weight", ">=", 0.95]],
                "found": "One sentence about what the student found."}]}

Every step has an ``id`` (a slug such as ``shrink-h``, unique in the file, so
``?tour=shrink-h`` opens it) and a ``section`` (``SECTIONS``, in the page's
order; the steps follow that order).  ``optional: true`` marks a step only an
explorer needs; ``needs_shipped_data: true`` one whose picture and goal are
written for the shipped datasets.

``state`` is what "Show me" sets, in the deep links' names and values
(app/state.py): the settings of the step's section, plus the few that its
picture reads from an earlier one (``READS``).  A setting of the step's own
section left out goes back to its default, as in a link, so "Show me" always
reaches the same picture; a setting it reads from another section changes only
when the step names it.

``when`` is a list of comparisons that must all hold: ``[name, operator,
value]``, a name of the step's section from ``CONDITIONS`` (each with its
description and units), one of ``OPERATORS`` and a value of the name's kind (a
number; for a name, a word, a sentence or true/false only ``==`` and ``!=``).
Nothing in a tour file is ever run as code or inserted as HTML.

Files written before ids and sections existed (no step names either) still
load: every step is a regression step, and its id is made from its title
(``slug``).

``load_tour`` and ``parse_tour`` raise ``TourError`` whose message names the
step (counted from 1, with its id) and the field, e.g. ``step 3 (widen-h),
"when" [1]: unknown name "max_wieght" (known: ...)``; ``check_tour_data``
returns every error of a file instead of the first.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

import attention

# The page's sections, in the order a student meets them (app/sections.py PAGE_ORDER; a test holds them equal).
SECTIONS = ("regression", "learning", "sentence", "routing", "ideas")
MAX_STEPS = 40
MAX_CONDITIONS = 8      # comparisons in one step's "when"
MAX_TEXT = 400          # characters of a step's text; a title, "do" and "found" get less
MAX_FILE_BYTES = 200_000
MAX_READ_BYTES = 8_000_000   # a larger file is refused unread (a smaller one too large is told which field made it so)
MAX_ID = 40
# A slug with at least one letter, so that it never reads as a step number in ?tour=.
ID_PATTERN = r"^(?=[a-z0-9-]*[a-z])[a-z0-9]+(-[a-z0-9]+)*$"
ID_RE = re.compile(ID_PATTERN)

# What the tour knows of the sections comes from their contracts (app/contract.py), which the composition
# (app/sections.py) hands over once, as it is imported (``use_sections``): the tour imports no section.  Until
# then these tables are empty.
# The settings a step may set: its section's, in the deep links' terms (app/state.py) ...
SECTION_KEYS: dict = {}
STATE_KEYS: list = []   # the regression's (the first tour's names)
# ... and the settings of another section that its picture reads: the bandwidth's path is trained on the
# regression's dataset, and the ideas' graphs follow the self-attention section's sentence.
READS: dict = {}

NUMBER_OPERATORS = ("<", "<=", ">", ">=", "==", "!=")
EQUALITY_OPERATORS = ("==", "!=")
OPERATORS = NUMBER_OPERATORS
STEP_FIELDS = ("title", "text", "do", "state", "when", "found")     # required
EXTRA_FIELDS = ("id", "section", "optional", "needs_shipped_data", "look")  # optional (id and section: see _step)
# What a step's card talks about and asks the student to move, by the page's names: after Show me, Next and
# Previous the page keeps them on screen together.  A step that says nothing looks at its section's first.
LOOK: dict = {}
MAX_LOOK = 3
# The page's figures (its plots, each of them a name of LOOK), by the names a person calls them, in the page's
# order: the card saves a step's first one as a PNG, and "Save a figure as PNG" beside "Copy a link" any of them
# (app/ui/share.py).
FIGURES: dict = {}
# What the page calls each section (the card's "skip to" button and count line, the figures' menu).
SECTION_WORDS: dict = {}
# A step's "look" names the page's models by name; a few of them the page keeps in view through another model
# (the sections' contracts say which).
LOOK_MODELS: dict = {}
# Every section's controls by their model names (what a step's "look" names), each with the setting it shows; and
# each setting's control's kind (app/contract.py KINDS).
CONTROL_KEYS: dict = {}
CONTROL_KINDS: dict = {}
# The kinds of control that switch a mode (a menu, a check box, a group of buttons): what may show another control.
SWITCHES = ("select", "toggle", "radio")


def figure_section(name: str) -> str:
    """The section a figure of FIGURES is in (the one whose LOOK names it)."""
    return next(sec for sec in SECTIONS if name in LOOK.get(sec, ()))


FLAGS = ("optional", "needs_shipped_data")
TOUR_FIELDS = ("title", "steps", "closing", "$schema")
CLOSING_FIELDS = ("title", "text")   # the closing card after the last step (optional): what the tour adds up to
TEXT_LIMITS = {"title": (80, 1), "text": (MAX_TEXT, 3), "do": (240, 2), "found": (240, 1)}  # (characters, sentences)
SENTENCE_END = re.compile(r"[.!?][\"”’)]?(?=\s|$)")
EXPONENT = re.compile(r"\d[eE][+\-\u2212]?\d")
HYPHEN_MINUS = re.compile(r"(?<![\w)\]])-(?=\d)")
MARKUP = re.compile(r"<[A-Za-z/!?]|&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
WHITESPACE = " \t\n\r\f\v"   # app/state.py's, for ?tour= as for every other key
MAX_SHOWN = 40               # characters of a bad value repeated back


class TourError(ValueError):
    """A tour file that cannot be used; the message names the step and the field."""


# ---- the names a condition may compare ------------------------------------------------------------

@dataclass(frozen=True)
class Name:
    """One name of ``when``: a section's ``Readout`` (app/contract.py: kind, meaning, units, runtime) with the
    section that publishes it."""

    section: str
    kind: str
    description: str
    units: str
    runtime: bool = False


CONDITIONS: dict = {}   # name -> Name, every section's (their contracts' readouts), in the page's order
# The units of the settings a step's state sets that no condition of the same name gives (or gives otherwise:
# a condition reads the routing's shown sentence as text, a state sets it by its place in the menu).
SETTING_UNITS: dict = {}
# Every name and what it means (the README lists them from here).
NAMES: dict = {}
RUNTIME_NAMES: list = []
# The runtime names in a state Show me or a link reaches: Play stopped (the engines' apply stops it).
STOPPED: dict = {}


def names_of(section: str) -> tuple[str, ...]:
    """The condition names of one section, in ``CONDITIONS``' order."""
    return tuple(name for name, c in CONDITIONS.items() if c.section == section)


def need_sections() -> None:
    """A clear error where the tour is used before the composition has handed it the sections (``use_sections``)."""
    if not SECTION_KEYS:
        raise RuntimeError("the tour knows no section yet: the composition (app.sections) hands them over as it is "
                           "imported; import it first")


def settable_keys(section: str) -> tuple[str, ...]:
    """The settings a step of ``section`` may set: its own, then the ones it reads from another section."""
    need_sections()
    return SECTION_KEYS[section] + READS.get(section, ())


def _operators(name: str) -> tuple[str, ...]:
    return NUMBER_OPERATORS if CONDITIONS[name].kind == "number" else EQUALITY_OPERATORS


# ---- the tour and its steps -------------------------------------------------------------------------

@dataclass(frozen=True)
class Step:
    title: str
    text: str
    do: str
    state: dict
    when: tuple
    found: str
    id: str = ""
    section: str = "regression"
    optional: bool = False
    needs_shipped_data: bool = False
    look: tuple = ()

    @property
    def looks_at(self) -> tuple:
        """What the page keeps on screen for this step: its ``look``, or its section's first figure."""
        return self.look or (LOOK[self.section][0],)

    @property
    def figure(self) -> str | None:
        """The first of ``looks_at`` that is a figure (``FIGURES``), which the card saves as a PNG; None when the
        step looks at controls only (then the card offers no PNG: a control's would be an empty picture)."""
        return next((n for n in self.looks_at if n in FIGURES), None)

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
    title: str
    steps: tuple = field(default_factory=tuple)
    source: str = ""
    closing: tuple | None = None   # (title, text) of the card after the last step; None: the page's own words

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
        return tuple(s for s in SECTIONS if any(st.section == s for st in self.steps))

    def only(self, sections) -> "Tour":
        """The tour with the steps of ``sections`` only (a page built without the others); ``TourError`` if
        none is left or a name is not a section."""
        wanted = tuple(sections)
        bad = [s for s in wanted if s not in SECTIONS]
        if bad:
            raise TourError(f"{_shown_json(bad[0])} is not a section (one of {', '.join(SECTIONS)})")
        steps = tuple(s for s in self.steps if s.section in wanted)
        if not steps:
            raise TourError(f"no step goes through {', '.join(wanted)} (the tour's sections: "
                            f"{', '.join(self.sections())})")
        return Tour(title=self.title, steps=steps, source=self.source, closing=self.closing)


def _spec() -> dict:
    """app/state.py's url_spec: the settings a step may set and test, as a deep link gives them."""
    from app.state import url_spec

    return dict(url_spec())


def _label(i: int | None, sid: str | None = None) -> str:
    if i is None:
        return ""
    return f"step {i} ({sid})" if sid else f"step {i}"


def _where(label: str, fld: str) -> str:
    return f'{label}, "{fld}"' if label else f'"{fld}"'


def _shown(text: str) -> str:
    """A text of the file repeated back: on one line (a line break or another unprintable character written as
    its escape, \\n or \\u202e), cut to MAX_SHOWN characters."""
    text = "".join(ch if ch.isprintable() else json.dumps(ch)[1:-1] if ch in "\n\r\t" else f"\\u{ord(ch):04x}"
                   for ch in text[:MAX_SHOWN + 1])
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "\u2026"


def _shown_json(v) -> str:
    return _shown(json.dumps(v, ensure_ascii=False))


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


def _section(label, v) -> str:
    if v not in SECTIONS:
        raise TourError(f"{_where(label, 'section')}: {_shown_json(v)} is not a section "
                        f"(one of {', '.join(SECTIONS)})")
    return v


def _look(label, section, v) -> tuple:
    """A step's ``look``: 1 to MAX_LOOK names from its section's LOOK, each once."""
    known = LOOK[section]
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


def _setting(where, key, v, s):
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
        choices = [c for c in s["choices"] if not (key == "dataset" and c == "generated")]
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


def _state(label, section, raw, errors) -> dict | None:
    """A step's state; every bad setting is one error in ``errors``."""
    if not isinstance(raw, dict):
        errors.append(f"{_where(label, 'state')}: expected an object of settings, got {_kind(raw)}")
        return None
    spec, keys, out, ok = _spec(), settable_keys(section), {}, True
    for key, v in raw.items():
        where = f'{_where(label, "state")} {_shown(key)}'
        try:
            if key not in keys:
                owner = next((s for s in SECTIONS if key in SECTION_KEYS[s]), None)
                why = f" (it belongs to the {owner} section)" if owner else ""
                raise TourError(f"{where}: not a setting a {section} step can set{why}; it sets {', '.join(keys)}")
            out[key] = _setting(where, key, v, spec[key])
        except TourError as e:
            errors.append(str(e))
            ok = False
    if ok and section == "sentence":
        ok = _sentence_fits(label, out, spec, errors)
    return out if ok else None


def _sentence_fits(label, state, spec, errors) -> bool:
    """The selected word and head exist in the step's sentence and the toy model."""
    n = len(attention.sentences.tokenize(state.get("sentence", spec["sentence"]["default"])))
    heads = attention.sentences.load_sentence_model().head_names
    ok = True
    if state.get("token", spec["token"]["default"]) > n - 1:
        errors.append(f'{_where(label, "state")} token: {state.get("token", spec["token"]["default"])} is past the '
                      f"end of the {n}-word sentence (its words are 0 to {n - 1})")
        ok = False
    if state.get("head", spec["head"]["default"]) > len(heads) - 1:
        errors.append(f'{_where(label, "state")} head: there is no head {state["head"]} (the heads are 0 to '
                      f"{len(heads) - 1}: {', '.join(heads)})")
        ok = False
    return ok


def _choices(name: str) -> list:
    if name == "head_name":
        return list(attention.sentences.load_sentence_model().head_names)
    return list(_spec()[name]["choices"])


def _value(where, name, value):
    """A condition's value, checked against its name's kind."""
    kind = CONDITIONS[name].kind
    if kind == "number":
        if not _number(value):
            raise TourError(f"{where}: {name} is compared with a number, got {_kind(value)}")
    elif kind == "bool":
        if not isinstance(value, bool):
            raise TourError(f"{where}: {name} is compared with true or false, got {_kind(value)}")
    elif kind == "choice":
        choices = _choices(name)
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
        if kind == "sentence" and " ".join(words) != value:
            raise TourError(f"{where}: write the sentence as the page splits it: lowercase words one space apart, "
                            f"without punctuation (got {_shown_json(value)})")
    return value


def _condition(label, j, section, raw) -> tuple:
    where = f'{_where(label, "when")} [{j}]'
    if not (isinstance(raw, list) and len(raw) == 3):
        raise TourError(f'{where}: expected [name, operator, value], like ["max_weight", ">=", 0.95]')
    name, op, value = raw
    if not isinstance(name, str) or name not in CONDITIONS:
        raise TourError(f"{where}: unknown name {_shown_json(name)} (known: {', '.join(names_of(section))})")
    if CONDITIONS[name].section != section:
        raise TourError(f"{where}: {name} is a name of the {CONDITIONS[name].section} section; a {section} step "
                        f"compares its own section's names (`attention-explorable tour schema` lists them)")
    if op not in NUMBER_OPERATORS:
        raise TourError(f"{where}: unknown operator {_shown_json(op)} (one of {' '.join(NUMBER_OPERATORS)})")
    if op not in _operators(name):
        raise TourError(f"{where}: {name} is compared with == or !=, not {op}")
    return (name, op, _value(where, name, value))


def _when(label, section, raw, errors) -> tuple | None:
    if not isinstance(raw, list) or not raw:
        errors.append(f'{_where(label, "when")}: expected a non-empty list of [name, operator, value]')
        return None
    if len(raw) > MAX_CONDITIONS:
        errors.append(f'{_where(label, "when")}: {len(raw)} comparisons, at most {MAX_CONDITIONS}')
        return None
    out, ok = [], True
    for j, c in enumerate(raw, 1):
        try:
            out.append(_condition(label, j, section, c))
        except TourError as e:
            errors.append(str(e))
            ok = False
    if ok and all(CONDITIONS[name].runtime for name, _, _ in out):
        errors.append(f'{_where(label, "when")}: whether Play runs ({", ".join(RUNTIME_NAMES)}) is not a state '
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


def _step(i, raw, made_id, errors) -> Step | None:
    """One step; ``made_id`` is the id made from its title in a file without ids (None: the step needs one)."""
    if not isinstance(raw, dict):
        errors.append(f"step {i}: expected an object with {', '.join(STEP_FIELDS)}, got {_kind(raw)}")
        return None
    before = len(errors)
    if made_id is not None:   # a file from before ids and sections: every step a regression step
        sid, section = made_id, "regression"
    else:
        sid = _named(i, raw, "id", _step_id, errors)
        section = _named(i, raw, "section", _section, errors, sid)
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
            state = _state(label, section, raw["state"], errors)
        if "when" in raw:
            when = _when(label, section, raw["when"], errors)
        if "look" in raw:
            try:
                look = _look(label, section, raw["look"])
            except TourError as e:
                errors.append(str(e))
    if len(errors) > before:
        return None
    return Step(title=texts["title"], text=texts["text"], do=texts["do"], state=state, when=when,
                found=texts["found"], id=sid, section=section, look=look, **flags)


def _across(steps, errors) -> None:
    """What no step can check alone: ids unique, sections in the page's order."""
    seen, last = {}, None
    for k, s in enumerate(steps, 1):
        label = _label(k, s.id)
        if s.id in seen:
            errors.append(f'{label}, "id": {s.id!r} is already step {seen[s.id]}\'s id')
        seen.setdefault(s.id, k)
        if last is not None and SECTIONS.index(s.section) < SECTIONS.index(last):
            errors.append(f'{label}, "section": a {s.section} step after a {last} step; steps follow the page\'s '
                          f"order: {', '.join(SECTIONS)}")
        last = s.section if last is None else max(last, s.section, key=SECTIONS.index)


def check_tour_data(data, source: str = "") -> tuple[Tour | None, list[str]]:
    """Every problem of decoded JSON as a tour, one plain line each; the ``Tour`` when there is none."""
    need_sections()
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
    parsed = [_step(i, s, made[i - 1], errors) for i, s in enumerate(steps, 1)]
    if errors:
        return None, errors
    _across(parsed, errors)
    if errors:
        return None, errors
    return Tour(title=title, steps=tuple(parsed), source=source, closing=closing), []


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


def parse_tour(data, source: str = "") -> Tour:
    """A ``Tour`` from decoded JSON; raises ``TourError`` naming the step and field of the first problem."""
    tour, errors = check_tour_data(data, source)
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


def check_tour_file(path: str | Path) -> tuple[Tour | None, list[str]]:
    """``check_tour_data`` for a file: every problem, one line each (a file that cannot be read: one line; a file
    larger than MAX_FILE_BYTES whose fields are all fine: its size)."""
    try:
        data = read_tour_json(path)
    except TourError as e:
        return None, [str(e)]
    tour, errors = check_tour_data(data, source=str(path))
    if not errors:
        size = Path(path).stat().st_size
        if size > MAX_FILE_BYTES:
            return None, [_too_large(size)]
    return tour, errors


def load_tour(path: str | Path) -> Tour:
    """Read and validate a tour file; ``TourError`` says what is wrong, with the step and field."""
    tour, errors = check_tour_file(path)
    if errors:
        raise TourError(errors[0])
    return tour


def tour_path(name: str = "regression"):
    """A shipped tour: ``regression`` (the first section's seven steps) or ``lesson`` (the whole page)."""
    from attention.datasets import data_path

    return data_path("tours", f"{name}.json")


def default_tour_path():
    return tour_path("lesson")


ENV_TOUR = "ATTENTION_EXPLORABLE_TOUR"   # set by `attention-explorable serve --tour FILE` for the server it starts


def active_tour() -> Tour:
    """The tour this process shows: the file ``serve --tour`` named (checked before the server started), or the
    shipped one.  A tour file is only ever named on the command line, never by a link."""
    import os

    path = os.environ.get(ENV_TOUR)
    if not path:
        return default_tour()
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        stamp = None   # load_tour says what is wrong
    return _load_once(path, stamp)


@lru_cache(maxsize=8)
def _load_once(path: str, stamp) -> Tour:   # one read per file version, not one per page built
    return load_tour(path)


@lru_cache(maxsize=4)
def shipped_tour(name: str = "regression") -> Tour:
    """A shipped tour (``tour_path``), read once."""
    p = tour_path(name)
    return parse_tour(json.loads(p.read_text(encoding="utf-8")), source=f"{name}.json")


def default_tour() -> Tour:
    """The tour the page shows unless told otherwise: the whole lesson (data/tours/lesson.json), whose steps 1 to 7
    are the regression section's (data/tours/regression.json, kept as an example of a one-section tour)."""
    return shipped_tour("lesson")


def lesson_tour() -> Tour:
    """The whole lesson, every section (data/tours/lesson.json); its steps 1 to 7 are the regression tour's."""
    return shipped_tour("lesson")


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

def full_state(values: dict, section: str = "regression") -> dict:
    """The settings ``section``'s step sets, every left-out one at its default (as a deep link reads)."""
    spec = _spec()
    return {k: values.get(k, spec[k]["default"]) for k in settable_keys(section)}


def show_me_settings(step: Step) -> dict:
    """What "Show me" sets: every setting of the step's section (left out: its default), and the settings it
    reads from another section only when the step names them."""
    spec = _spec()
    out = {k: step.state.get(k, spec[k]["default"]) for k in SECTION_KEYS[step.section]}
    out.update({k: step.state[k] for k in READS.get(step.section, ()) if k in step.state})
    return out


def settings_owner(key: str, section: str) -> str:
    """The section that owns a setting a step of ``section`` sets (a learning step may set the regression's
    dataset, an ideas step the self-attention section's sentence)."""
    return next((sec for sec, keys in SECTION_KEYS.items() if key in keys), section)


def ready_settings(step: Step) -> dict:
    """What shows a control the step asks for while it is hidden (the key-norm tilt shows for the dot kernel
    alone), by the section that owns each setting: the switches (a menu, a check box) the step's state sets other
    than those of the controls it looks at (``look``), which stay the student's to move.  The page sets them when
    the step opens outside presentation mode with one of those controls hidden (app/tour/steps.js opening)."""
    asked = {CONTROL_KEYS[n] for n in step.looks_at if n in CONTROL_KEYS}
    out: dict = {}
    for key, value in step.state.items():
        if key not in asked and CONTROL_KINDS.get(key) in SWITCHES:
            out.setdefault(settings_owner(key, step.section), {})[key] = value
    return out


def tour_sentences(tour: Tour) -> list[str]:
    """The sentences the steps' "Show me" sets: an offline page must carry their analyses (it cannot compute
    a sentence it has not got)."""
    return list(dict.fromkeys(s.state["sentence"] for s in tour.steps if "sentence" in s.state))


# ---- conditions, computed by each section with the numpy core ----------------------------------------

# Each section's readouts: a function (full state, needs, dataset) -> {name: value}, computed with attention/.
# The tour imports no section: the composition (app/sections.py) hands them over (``use_section_readouts``)
# from each section's contract (app/contract.py).
_SECTION_READOUTS: dict = {}


def use_sections(contracts) -> None:
    """Take the page's sections from their contracts (app/contract.py ``SectionContract``): the settings a step
    may set, the names it may compare and look at, the figures, what the page calls each section and its readouts.
    The composition calls this once, as it is imported (app/sections.py); a name that is not a section is
    refused."""
    contracts = list(contracts)
    unknown = sorted({c.name for c in contracts} - set(SECTIONS))
    if unknown:
        raise ValueError(f"not sections of the tour: {', '.join(unknown)}")
    for table in (SECTION_KEYS, READS, LOOK, FIGURES, SECTION_WORDS, CONDITIONS, SETTING_UNITS, NAMES, STOPPED,
                  LOOK_MODELS, CONTROL_KEYS, CONTROL_KINDS, _SECTION_READOUTS):
        table.clear()
    for c in sorted(contracts, key=lambda c: SECTIONS.index(c.name)):   # the page's order
        SECTION_KEYS[c.name] = c.step_keys
        if c.reads:
            READS[c.name] = tuple(c.reads)
        LOOK[c.name], SECTION_WORDS[c.name] = c.lookable, c.words
        FIGURES.update(c.figures)
        LOOK_MODELS.update(c.look_models)
        CONTROL_KEYS.update({ctl.name: ctl.key for ctl in c.controls})
        CONTROL_KINDS.update({ctl.key: ctl.kind for ctl in c.controls})
        CONDITIONS.update({n: Name(c.name, r.kind, r.description, r.units, r.runtime) for n, r in c.conditions.items()})
        SETTING_UNITS.update({k: "true or false" for k in c.step_keys
                              if k not in c.conditions and isinstance(c.state.param[k].default, bool)})
        SETTING_UNITS.update(c.setting_units)
        _SECTION_READOUTS[c.name] = c.readouts
    STATE_KEYS[:] = SECTION_KEYS.get("regression", ())
    NAMES.update({name: n.description for name, n in CONDITIONS.items()})
    RUNTIME_NAMES[:] = [name for name, n in CONDITIONS.items() if n.runtime]
    STOPPED.update({sec: {name: False for name in RUNTIME_NAMES if CONDITIONS[name].section == sec}
                    for sec in SECTION_KEYS})
    for cached in (shipped_tour, _load_once):   # a tour read before is read again against these tables
        cached.cache_clear()


def section_readouts(section: str, values: dict, needs=None, dataset=None) -> dict:
    """Every name of ``section`` the core can compute, for a state in deep-link values (defaults filled in);
    ``needs`` (the names a step compares) lets the regression and learning sections skip their costlier numbers;
    ``dataset`` (the regression's samples, your own data) replaces the one the state names.  Play is stopped in
    such a state (``STOPPED``: Show me stops it, a link opens without it)."""
    if section not in SECTIONS:
        raise ValueError(f"section must be one of {', '.join(SECTIONS)}, got {section!r}")
    if section not in _SECTION_READOUTS:
        raise LookupError(f"no readouts for the {section} section: the composition (app/sections.py) hands them "
                          "to the tour; import it first")
    return {**_SECTION_READOUTS[section](full_state(values, section), needs=needs, dataset=dataset),
            **STOPPED[section]}


def readouts(values: dict, dataset=None, needs=None) -> dict:
    """Every regression name of ``CONDITIONS`` for a state (deep-link values, defaults filled in), with
    attention/'s functions (app/regression/readouts.py).  The browser computes the same numbers with
    attention/mirror.js (app/tour/steps.js).  ``needs``: the names wanted (None: all)."""
    return section_readouts("regression", values, needs=needs, dataset=dataset)


def step_readouts(step: Step, values: dict | None = None) -> dict:
    """The numbers ``step``'s goal compares, in the state "Show me" reaches (everything it leaves out at its
    default), or in ``values`` (deep-link settings) when given."""
    return section_readouts(step.section, step.state if values is None else values,
                            needs={name for name, _, _ in step.when})


EQUAL_TOLERANCE = 1e-9


def compare(a, op: str, b) -> bool:
    """``a op b`` for one comparison of a condition (numbers within 1e-9 count as equal; text and true/false
    are equal or not)."""
    if isinstance(a, (str, bool)) or isinstance(b, (str, bool)):
        same = type(a) is type(b) and a == b
        return same if op == "==" else (not same) if op == "!=" else False
    close = abs(a - b) <= EQUAL_TOLERANCE
    return {"<": a < b and not close, "<=": a <= b or close, ">": a > b and not close, ">=": a >= b or close,
            "==": close, "!=": not close}[op]


def holds(when, values: dict) -> bool:
    """Whether every comparison of a step's ``when`` holds for the readouts ``values`` (the core's readouts
    say whether Play runs too: it does not, in a state Show me reaches)."""
    return all(compare(values[name], op, v) for name, op, v in when)


PLAIN_LARGE = 1e12    # a number this large or larger is said in words, not in its digits (1e308 has 309)
PLAIN_SMALL = 1e-6    # ... and one this near 0 (but not 0), not with its hundreds of zeros


def _plain(v) -> str:
    """A value in a message: true/false, text in quotes, a number in at most 4 significant digits without
    exponent notation (in words when it is very large or very near 0)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return _shown_json(v)
    x = float(v)
    if not math.isfinite(x):
        return "not a number" if math.isnan(x) else "infinity" if x > 0 else "minus infinity"
    if abs(x) >= PLAIN_LARGE:
        return "a number over a trillion" if x > 0 else "a number below minus a trillion"
    if 0 < abs(x) < PLAIN_SMALL:
        return "a number between 0 and 0.000001" if x > 0 else "a number between -0.000001 and 0"
    return np.format_float_positional(x, precision=4, unique=True, fractional=False, trim="-")


def show_me_problems(tour: Tour) -> list[str]:
    """Each comparison that the state "Show me" reaches does not meet, by the numpy core; one line each."""
    out = []
    for k, step in enumerate(tour.steps, 1):
        values = step_readouts(step)
        for j, (name, op, v) in enumerate(step.when, 1):
            if not compare(values[name], op, v):
                why = " (Show me stops Play and never presses it)" if CONDITIONS[name].runtime else ""
                out.append(f'{_label(k, step.id)}, "when" [{j}]: Show me does not reach it: {name} is '
                           f"{_plain(values[name])} there{why}, and the step asks {op} {_plain(v)}")
    return out


# ---- the JSON Schema (data/tours/tour.schema.json is this, written out) ----------------------------------

SCHEMA_ID = "urn:attention-explorable:tour"
# What the schema cannot say; `attention-explorable tour check` checks these too.
PYTHON_ONLY = (
    "ids are unique, and a file gives every step an id and a section or none (then every step is a "
    "regression step, with an id made from its title)",
    "steps follow the page's order of sections",
    "a text's sentences are counted, its whitespace collapsed before its length is measured, and a negative "
    "number is written with the minus sign",
    "a word or a sentence in a condition is written as the page splits text into words",
    "a sentence in a state splits into 1 to 32 words, and its selected word and head exist",
    "a step compares more than whether Play runs ({runtime})",
    "the state Show me reaches meets the step's own condition, by the numpy core",
)


def python_only() -> tuple[str, ...]:
    """``PYTHON_ONLY`` with the sections' runtime names (``RUNTIME_NAMES``) written in."""
    runtime = (f"{', '.join(RUNTIME_NAMES[:-1])} or {RUNTIME_NAMES[-1]}" if len(RUNTIME_NAMES) > 1
               else "".join(RUNTIME_NAMES))
    return tuple(rule.format(runtime=runtime) for rule in PYTHON_ONLY)


def _text_schema(fld: str) -> dict:
    limit, sentences = TEXT_LIMITS[fld]
    what = "one sentence" if sentences == 1 else f"one to {sentences} sentences"
    return {"type": "string", "maxLength": limit, "pattern": r"\S",
            "not": {"anyOf": [{"pattern": EXPONENT.pattern}, {"pattern": MARKUP.pattern}]},
            "description": f"Plain text, {what}, at most {limit} characters; *word* sets a word in italics. "
                           f"Numbers without exponent notation, negative ones with the minus sign."}


def _setting_doc(key: str) -> str:
    """What a setting is, in app/state.py's own words (its parameter's doc)."""
    from app.state import ExplorableState

    return " ".join(ExplorableState.param[key].doc.split()).rstrip(".")


def setting_units(key: str) -> str:
    """A setting's units: ``SETTING_UNITS``, else those of the condition of the same name."""
    return SETTING_UNITS.get(key) or CONDITIONS[key].units


def _setting_description(key: str, s: dict, schema: dict) -> str:
    """A setting's description: what it is and its units, then its range (or choices) and default as the deep
    link reads them (app/state.py url_spec: the bounds are written there once)."""
    kind = s["kind"]
    if kind in ("float", "int"):
        values = f"From {_plain(s['lo'])} to {_plain(s['hi'])}; default {_plain(s['default'])}."
    elif kind == "choice":
        values = f"One of {', '.join(schema['enum'])}; default {s['default']}."
    elif kind == "bool":
        values = f"Default {_plain(s['default'])}."
    else:
        values = f"At most {s['max']} characters; default {_plain(s['default'])}."
    return f"{_setting_doc(key)}. Units: {setting_units(key)}. {values}"


def _setting_schema(key: str, s: dict) -> dict:
    kind = s["kind"]
    if kind == "bool":
        out = {"type": "boolean"}
    elif kind in ("float", "int"):
        out = {"type": "number" if kind == "float" else "integer", "minimum": s["lo"], "maximum": s["hi"]}
    elif kind == "choice":
        out = {"enum": [c for c in s["choices"] if not (key == "dataset" and c == "generated")]}
    else:
        out = {"type": "string", "minLength": 1, "maxLength": s["max"]}
    return {**out, "description": _setting_description(key, s, out)}


def _value_schema(name: str) -> dict:
    kind = CONDITIONS[name].kind
    if kind == "number":
        return {"type": "number"}
    if kind == "bool":
        return {"type": "boolean"}
    if kind == "choice":
        return {"enum": _choices(name)}
    return {"type": "string", "minLength": 1, "pattern": r"^\S+$" if kind == "word" else r"^\S+( \S+)*$"}


def _condition_schema(section: str) -> dict:
    alternatives = []
    for name in names_of(section):
        c = CONDITIONS[name]
        note = (" Show me stops Play and never presses it, so in the state it reaches this is false: a goal "
                "that needs it true is reported by tour check." if c.runtime else "")
        alternatives.append({"prefixItems": [
            {"const": name, "description": f"{c.description[0].upper()}{c.description[1:]}. Units: {c.units}.{note}"},
            {"enum": list(_operators(name))}, _value_schema(name)]})
    return {"type": "array", "minItems": 3, "maxItems": 3, "anyOf": alternatives,
            "description": f"[name, operator, value]: a name of the {section} section."}


def tour_schema() -> dict:
    """The tour file's JSON Schema (draft 2020-12), made from the definitions above."""
    spec = _spec()
    defs = {}
    for section in SECTIONS:
        keys = settable_keys(section)
        defs[f"state-{section}"] = {"type": "object", "additionalProperties": False,
                                    "properties": {k: _setting_schema(k, spec[k]) for k in keys},
                                    "description": f"What Show me sets for a {section} step (deep-link names)."}
        defs[f"condition-{section}"] = _condition_schema(section)
    step = {
        "type": "object", "required": list(STEP_FIELDS), "additionalProperties": False,
        "properties": {
            "id": {"type": "string", "maxLength": MAX_ID, "pattern": ID_PATTERN,
                   "description": "A stable name, unique in the file: ?tour=<id> opens the step."},
            "section": {"enum": list(SECTIONS), "description": "The section the step is about."},
            **{fld: _text_schema(fld) for fld in ("title", "text", "do")},
            "state": {"type": "object", "description": "What Show me sets."},
            "when": {"type": "array", "minItems": 1, "maxItems": MAX_CONDITIONS,
                     "description": "Comparisons that must all hold: the step's goal."},
            "found": _text_schema("found"),
            "optional": {"type": "boolean", "description": "A step only an explorer needs."},
            "needs_shipped_data": {"type": "boolean",
                                   "description": "Its Show me and goal are written for the shipped datasets."},
            "look": {"type": "array", "minItems": 1, "maxItems": MAX_LOOK, "uniqueItems": True,
                     "items": {"type": "string"},
                     "description": "What the card talks about and asks the student to move, by the page's names "
                                    "(the plot first): after Show me, Next and Previous the page keeps them on "
                                    "screen together. Default: the section's first figure."},
        },
        # a step without a section is a regression step (a file from before sections existed)
        "allOf": [{"if": {"properties": {"section": {"const": section}},
                          **({} if section == "regression" else {"required": ["section"]})},
                   "then": {"properties": {"state": {"$ref": f"#/$defs/state-{section}"},
                                           "when": {"items": {"$ref": f"#/$defs/condition-{section}"}},
                                           "look": {"items": {"enum": list(LOOK[section])}}}}}
                  for section in SECTIONS],
    }
    defs["step"] = step
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
        "title": "A guided tour of the attention explorable",
        "description": "Checked by `attention-explorable tour check FILE`, which also checks what a schema "
                       "cannot say: " + "; ".join(python_only()) + ".",
        "type": "object", "required": ["title", "steps"], "additionalProperties": False,
        "properties": {"$schema": {"type": "string"}, "title": _text_schema("title"),
                       "steps": {"type": "array", "minItems": 1, "maxItems": MAX_STEPS,
                                 "items": {"$ref": "#/$defs/step"}},
                       "closing": {"type": "object", "required": list(CLOSING_FIELDS), "additionalProperties": False,
                                   "properties": {fld: _text_schema(fld) for fld in CLOSING_FIELDS},
                                   "description": "The card after the last step: what the tour adds up to. "
                                                  "Without it the card says the tour is over in the page's "
                                                  "own words."}},
        "$defs": defs,
    }


def schema_path():
    from attention.datasets import data_path

    return data_path("tours", "tour.schema.json")


def schema_json() -> str:
    """``tour_schema()`` as the shipped file holds it."""
    return json.dumps(tour_schema(), indent=1, ensure_ascii=False) + "\n"


__all__ = ["Tour", "Step", "Name", "TourError", "parse_tour", "load_tour", "check_tour_data", "check_tour_file",
           "read_tour_json", "default_tour", "lesson_tour", "shipped_tour", "active_tour", "ENV_TOUR",
           "default_tour_path", "tour_path", "resolve_step", "slug", "readouts", "use_sections", "python_only",
           "section_readouts", "step_readouts", "holds", "compare",
           "full_state", "show_me_settings", "show_me_problems", "tour_sentences", "tour_schema", "schema_json",
           "schema_path", "names_of", "settable_keys", "CONDITIONS", "NAMES", "OPERATORS", "SECTIONS",
           "SECTION_KEYS", "READS", "STATE_KEYS", "RUNTIME_NAMES", "MAX_STEPS"]
