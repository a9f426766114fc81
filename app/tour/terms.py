"""What the tour knows of the page's sections, taken from a catalogue (app/contract.py ``Catalogue``), and the
names its steps compare.

The tour imports no section: the composition (app/sections.py) hands it the page's catalogue, and every function
of the tour that needs a section's settings, names, looks or readouts takes that catalogue.  ``terms(catalogue)``
reads the contracts once into the tables below (one ``Terms`` per catalogue); a test hands its own catalogue, with a
section of its own, in the same way (tests/app/toy/).

A step's ``when`` compares names (``Terms.conditions``, each a ``Name``) with ``compare``: numbers within 1e-9
count as equal, text and true/false are equal or not.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from app.state import url_spec

NUMBER_OPERATORS = ("<", "<=", ">", ">=", "==", "!=")
EQUALITY_OPERATORS = ("==", "!=")
OPERATORS = NUMBER_OPERATORS
# The kinds of control that switch a mode (a menu, a check box, a group of buttons): what may show another control.
SWITCHES = ("select", "toggle", "radio")
EQUAL_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Name:
    """One name of ``when``: a section's ``Readout`` (app/contract.py: kind, meaning, units, runtime) with the
    section that publishes it."""

    section: str
    kind: str
    description: str
    units: str
    runtime: bool = False


class Terms:
    """A catalogue's sections as the tour reads them, in the page's order.

    ``sections``: their names; ``section_keys``: the settings a step of each may set (its own); ``reads``: those
    of another section that its picture reads; ``look``: the names a step may keep in view (the first is what a
    step that names none looks at); ``figures``: every plot, by the words a person calls it; ``section_words``:
    what the page calls each section; ``look_models``: a look name the page keeps in view through another model;
    ``control_keys`` and ``control_kinds``: each control's setting, each setting's control's kind;
    ``conditions``: every name a step may compare; ``setting_units``; ``runtime_names``: the names that change only
    while Play runs, false in a state Show me reaches (``stopped``).
    """

    def __init__(self, catalogue):
        self.catalogue = catalogue
        self.sections = tuple(catalogue.names)
        self.first = catalogue.first
        self.glider = catalogue.glider
        self.spec = url_spec(catalogue.state)
        self.section_keys, self.reads, self.look, self.section_words = {}, {}, {}, {}
        self.figures, self.look_models, self.control_keys, self.control_kinds = {}, {}, {}, {}
        self.conditions, self.setting_units = {}, {}
        for c in catalogue:
            self.section_keys[c.name] = c.step_keys
            if c.reads:
                self.reads[c.name] = tuple(c.reads)
            self.look[c.name], self.section_words[c.name] = c.lookable, c.words
            self.figures.update(c.figures)
            self.look_models.update(c.look_models)
            self.control_keys.update({ctl.name: ctl.key for ctl in c.controls})
            self.control_kinds.update({ctl.key: ctl.kind for ctl in c.controls})
            self.conditions.update({n: Name(c.name, r.kind, r.description, r.units, r.runtime)
                                    for n, r in c.conditions.items()})
            self.setting_units.update({k: "true or false" for k in c.step_keys
                                       if k not in c.conditions and isinstance(c.state.param[k].default, bool)})
            self.setting_units.update(c.setting_units)
        self.names = {name: n.description for name, n in self.conditions.items()}
        self.runtime_names = [name for name, n in self.conditions.items() if n.runtime]
        self.stopped = {sec: {name: False for name in self.runtime_names if self.conditions[name].section == sec}
                        for sec in self.sections}

    def contract(self, section: str):
        return self.catalogue[section]

    def names_of(self, section: str) -> tuple[str, ...]:
        """The condition names of one section, in ``conditions``' order."""
        return tuple(name for name, c in self.conditions.items() if c.section == section)

    def settable_keys(self, section: str) -> tuple[str, ...]:
        """The settings a step of ``section`` may set: its own, then the ones it reads from another section."""
        return self.section_keys[section] + self.reads.get(section, ())

    def figure_section(self, name: str) -> str:
        """The section a figure is in (the one whose ``look`` names it)."""
        return next(sec for sec in self.sections if name in self.look.get(sec, ()))

    def operators(self, name: str) -> tuple[str, ...]:
        return NUMBER_OPERATORS if self.conditions[name].kind == "number" else EQUALITY_OPERATORS

    def choices(self, name: str) -> list:
        """The values a condition of kind "choice" may take: its readout's declared ones, else those of the
        setting of the same name."""
        declared = self.contract(self.conditions[name].section).conditions[name].choices
        if declared:
            return list(declared() if callable(declared) else declared)
        return list(self.spec[name]["choices"])

    def step_choices(self, key: str) -> list:
        """A choice setting's values a step may set (a section may leave some out: its contract's
        ``untoured_choices``)."""
        left_out = {v for c in self.catalogue for v in c.untoured_choices.get(key, ())}
        return [c for c in self.spec[key]["choices"] if c not in left_out]

    def setting_units_of(self, key: str) -> str:
        """A setting's units: ``setting_units``, else those of the condition of the same name."""
        return self.setting_units.get(key) or self.conditions[key].units

    def setting_doc(self, key: str) -> str:
        """What a setting is, in its section's own words (its parameter's doc)."""
        return " ".join(self.catalogue.state.param[key].doc.split()).rstrip(".")

    def settings_owner(self, key: str, section: str) -> str:
        """The section that owns a setting a step of ``section`` sets (a step may set a setting of another
        section that its picture reads: ``reads``)."""
        return next((sec for sec, keys in self.section_keys.items() if key in keys), section)

    def full_state(self, values: dict, section: str | None = None) -> dict:
        """The settings ``section``'s step sets (the first section's by default), every left-out one at its
        default (as a deep link reads)."""
        return {k: values.get(k, self.spec[k]["default"]) for k in self.settable_keys(section or self.first)}

    def section_readouts(self, section: str, values: dict, needs=None, dataset=None) -> dict:
        """Every name of ``section`` the core can compute, for a state in deep-link values (defaults filled in),
        by the section's contract's ``readouts``; ``needs`` (the names a step compares) lets a section skip its
        costlier numbers; ``dataset`` (your own data) replaces the one the state names.  Play is stopped in such a
        state (``stopped``: Show me stops it, a link opens without it)."""
        if section not in self.sections:
            raise ValueError(f"section must be one of {', '.join(self.sections)}, got {section!r}")
        computed = self.contract(section).readouts(self.full_state(values, section), needs=needs, dataset=dataset)
        return {**computed, **self.stopped[section]}


@lru_cache(maxsize=None)
def terms(catalogue) -> Terms:
    """The tour's reading of ``catalogue``, made once per catalogue."""
    return Terms(catalogue)


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


MAX_SHOWN = 40               # characters of a bad value repeated back


def shown(text: str) -> str:
    """A text of the file repeated back: on one line (a line break or another unprintable character written as
    its escape, \\n or \\u202e), cut to MAX_SHOWN characters."""
    text = "".join(ch if ch.isprintable() else json.dumps(ch)[1:-1] if ch in "\n\r\t" else f"\\u{ord(ch):04x}"
                   for ch in text[:MAX_SHOWN + 1])
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "\u2026"


def shown_json(v) -> str:
    return shown(json.dumps(v, ensure_ascii=False))


def plain(v) -> str:
    """A value in a message: true/false, text in quotes, a number in at most 4 significant digits without
    exponent notation (in words when it is very large or very near 0)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return shown_json(v)
    x = float(v)
    if not math.isfinite(x):
        return "not a number" if math.isnan(x) else "infinity" if x > 0 else "minus infinity"
    if abs(x) >= PLAIN_LARGE:
        return "a number over a trillion" if x > 0 else "a number below minus a trillion"
    if 0 < abs(x) < PLAIN_SMALL:
        return "a number between 0 and 0.000001" if x > 0 else "a number between -0.000001 and 0"
    return np.format_float_positional(x, precision=4, unique=True, fractional=False, trim="-")
