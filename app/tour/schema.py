"""The tour file's JSON Schema (data/tours/tour.schema.json is this, written out for a catalogue's sections).

The schema says what JSON Schema can: the fields, their kinds and limits, each section's settings with their
bounds and units, its condition names with their operators and values.  ``PYTHON_ONLY`` lists what only
`attention-explorable tour check` checks (app/tour/model.py).
"""

from __future__ import annotations

import json

from .model import (CLOSING_FIELDS, EXPONENT, ID_PATTERN, MARKUP, MAX_CONDITIONS, MAX_ID, MAX_LOOK, MAX_STEPS,
                    STEP_FIELDS, TEXT_LIMITS)
from .terms import plain as _plain, terms


SCHEMA_ID = "urn:attention-explorable:tour"
# What the schema cannot say; `attention-explorable tour check` checks these too.
# The sections' own rules (a contract's ``step_rule``) come after the fourth.
PYTHON_ONLY = (
    "ids are unique, and a file gives every step an id and a section or none (then every step is a "
    "{first} step, with an id made from its title)",
    "steps follow the page's order of sections",
    "a text's sentences are counted, its whitespace collapsed before its length is measured, and a negative "
    "number is written with the minus sign",
    "a word or a sentence in a condition is written as the page splits text into words",
    "a step compares more than whether Play runs ({runtime})",
    "the state Show me reaches meets the step's own condition, by the numpy core",
)


def python_only(catalogue) -> tuple[str, ...]:
    """``PYTHON_ONLY`` with the catalogue's first section, its runtime names and its sections' rules written in."""
    T = terms(catalogue)
    names = T.runtime_names
    runtime = f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else "".join(names)
    rules = [rule.format(runtime=runtime, first=T.first) for rule in PYTHON_ONLY]
    return tuple(rules[:4] + [c.step_rule for c in catalogue if c.step_rule] + rules[4:])


def _text_schema(fld: str) -> dict:
    limit, sentences = TEXT_LIMITS[fld]
    what = "one sentence" if sentences == 1 else f"one to {sentences} sentences"
    return {"type": "string", "maxLength": limit, "pattern": r"\S",
            "not": {"anyOf": [{"pattern": EXPONENT.pattern}, {"pattern": MARKUP.pattern}]},
            "description": f"Plain text, {what}, at most {limit} characters; *word* sets a word in italics. "
                           f"Numbers without exponent notation, negative ones with the minus sign."}


def _setting_description(T, key: str, s: dict, schema: dict) -> str:
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
    return f"{T.setting_doc(key)}. Units: {T.setting_units_of(key)}. {values}"


def _setting_schema(T, key: str, s: dict) -> dict:
    kind = s["kind"]
    if kind == "bool":
        out = {"type": "boolean"}
    elif kind in ("float", "int"):
        out = {"type": "number" if kind == "float" else "integer", "minimum": s["lo"], "maximum": s["hi"]}
    elif kind == "choice":
        out = {"enum": T.step_choices(key)}
    else:
        out = {"type": "string", "minLength": 1, "maxLength": s["max"]}
    return {**out, "description": _setting_description(T, key, s, out)}


def _value_schema(T, name: str) -> dict:
    kind = T.conditions[name].kind
    if kind == "number":
        return {"type": "number"}
    if kind == "bool":
        return {"type": "boolean"}
    if kind == "choice":
        return {"enum": T.choices(name)}
    return {"type": "string", "minLength": 1, "pattern": r"^\S+$" if kind == "word" else r"^\S+( \S+)*$"}


def _condition_schema(T, section: str) -> dict:
    alternatives = []
    for name in T.names_of(section):
        c = T.conditions[name]
        note = (" Show me stops Play and never presses it, so in the state it reaches this is false: a goal "
                "that needs it true is reported by tour check." if c.runtime else "")
        alternatives.append({"prefixItems": [
            {"const": name, "description": f"{c.description[0].upper()}{c.description[1:]}. Units: {c.units}.{note}"},
            {"enum": list(T.operators(name))}, _value_schema(T, name)]})
    return {"type": "array", "minItems": 3, "maxItems": 3, "anyOf": alternatives,
            "description": f"[name, operator, value]: a name of the {section} section."}


def tour_schema(catalogue) -> dict:
    """The JSON Schema (draft 2020-12) of a tour of ``catalogue``'s sections, made from the definitions above."""
    T = terms(catalogue)
    defs = {}
    for section in T.sections:
        keys = T.settable_keys(section)
        defs[f"state-{section}"] = {"type": "object", "additionalProperties": False,
                                    "properties": {k: _setting_schema(T, k, T.spec[k]) for k in keys},
                                    "description": f"What Show me sets for a {section} step (deep-link names)."}
        defs[f"condition-{section}"] = _condition_schema(T, section)
    step = {
        "type": "object", "required": list(STEP_FIELDS), "additionalProperties": False,
        "properties": {
            "id": {"type": "string", "maxLength": MAX_ID, "pattern": ID_PATTERN,
                   "description": "A stable name, unique in the file: ?tour=<id> opens the step."},
            "section": {"enum": list(T.sections), "description": "The section the step is about."},
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
        # a step without a section is one of the first section's (a file from before sections existed)
        "allOf": [{"if": {"properties": {"section": {"const": section}},
                          **({} if section == T.first else {"required": ["section"]})},
                   "then": {"properties": {"state": {"$ref": f"#/$defs/state-{section}"},
                                           "when": {"items": {"$ref": f"#/$defs/condition-{section}"}},
                                           "look": {"items": {"enum": list(T.look[section])}}}}}
                  for section in T.sections],
    }
    defs["step"] = step
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
        "title": "A guided tour of the attention explorable",
        "description": "Checked by `attention-explorable tour check FILE`, which also checks what a schema "
                       "cannot say: " + "; ".join(python_only(catalogue)) + ".",
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


def schema_json(catalogue) -> str:
    """``tour_schema(catalogue)`` as the shipped file holds it (for the page's catalogue)."""
    return json.dumps(tour_schema(catalogue), indent=1, ensure_ascii=False) + "\n"


__all__ = ["tour_schema", "schema_json", "schema_path", "python_only", "PYTHON_ONLY", "SCHEMA_ID"]
