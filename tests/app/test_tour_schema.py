"""The tour files' JSON Schema (data/tours/tour.schema.json, draft 2020-12): written from app/tour/model.py, valid,
met by the shipped tours and examples, and in agreement with the Python validator on good and bad files."""

from __future__ import annotations

import copy
import json
import re

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from app.tour import check_tour_data
from app.tour.model import MAX_CONDITIONS, MAX_STEPS, _plain, tour_path
from app.tour.schema import python_only, schema_json, schema_path, tour_schema
from attention.datasets import data_path
from app.sections import CATALOGUE
from app.tour.terms import terms

TERMS = terms(CATALOGUE)   # what the tour knows of the page's sections

SCHEMA = json.loads(schema_path().read_text(encoding="utf-8"))
VALIDATOR = Draft202012Validator(SCHEMA)
EXAMPLES = sorted(p.name for p in data_path("tours", "examples").iterdir() if p.name.endswith(".json"))


def schema_ok(data) -> bool:
    return VALIDATOR.is_valid(data)


def python_ok(data) -> bool:
    return not check_tour_data(CATALOGUE, data)[1]


def test_the_shipped_schema_is_the_one_model_py_writes():
    """One definition: the names, kinds, bounds and limits live in model.py; the file is written from them
    (`attention-explorable tour schema > data/tours/tour.schema.json`)."""
    assert schema_path().read_text(encoding="utf-8") == schema_json(CATALOGUE)
    assert SCHEMA == tour_schema(CATALOGUE)


def test_the_schema_is_a_draft_2020_12_schema():
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("path", [tour_path("regression"), tour_path("lesson")]
                         + [data_path("tours", "examples", name) for name in EXAMPLES], ids=lambda p: p.name)
def test_the_shipped_tours_and_examples_meet_the_schema(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    assert [e.message for e in VALIDATOR.iter_errors(data)] == []
    assert python_ok(data)


def test_there_is_one_example_per_section_pointing_at_the_schema():
    assert EXAMPLES == sorted(f"{s}.json" for s in TERMS.sections)
    for name in EXAMPLES:
        path = data_path("tours", "examples", name)
        data = json.loads(path.read_text(encoding="utf-8"))
        assert {s["section"] for s in data["steps"]} == {name[:-len(".json")]}
        assert (path.parent / data["$schema"]).resolve() == schema_path().resolve()   # an editor finds the schema


def test_every_condition_name_is_in_the_schema_with_its_description_and_units():
    for section in TERMS.sections:
        alternatives = SCHEMA["$defs"][f"condition-{section}"]["anyOf"]
        names = [a["prefixItems"][0]["const"] for a in alternatives]
        assert names == list(TERMS.names_of(section))
        for a in alternatives:
            c = TERMS.conditions[a["prefixItems"][0]["const"]]
            assert f"Units: {c.units}." in a["prefixItems"][0]["description"]
            ops = a["prefixItems"][1]["enum"]
            assert ops == (["<", "<=", ">", ">=", "==", "!="] if c.kind == "number" else ["==", "!="])


def test_every_setting_is_described_with_its_units_and_its_range_from_the_deep_links():
    """A state's settings say what they are (app/state.py's own words), in which units, and their range and
    default as a deep link reads them (url_spec): the schema writes the bounds from there, not a second time."""
    from app.sections import ExplorableState, url_spec

    spec = url_spec()
    for section in TERMS.sections:
        props = SCHEMA["$defs"][f"state-{section}"]["properties"]
        assert list(props) == list(TERMS.settable_keys(section))
        for key, p in props.items():
            d, s = p.get("description", ""), spec[key]
            assert d.startswith(" ".join(ExplorableState.param[key].doc.split()).rstrip(".")), (key, d)
            assert re.search(r"Units: [^.]+\.", d), (key, d)
            if s["kind"] in ("float", "int"):
                assert (p["minimum"], p["maximum"]) == (s["lo"], s["hi"])
                assert f"From {_plain(s['lo'])} to {_plain(s['hi'])}; default {_plain(s['default'])}." in d, (key, d)
            elif s["kind"] == "choice":
                assert f"One of {', '.join(p['enum'])}; default {s['default']}." in d, (key, d)
            elif s["kind"] == "bool":
                assert f"Default {str(s['default']).lower()}." in d, (key, d)
            else:
                assert f"At most {s['max']} characters" in d, (key, d)
            assert not re.search(r"\d[eE][+\-]?\d", d), (key, d)


# ---- the schema and the Python validator on the same files ------------------------------------------------

LESSON = json.loads(tour_path("lesson").read_text(encoding="utf-8"))
OLD_STEP = {"title": "Shrink h", "text": "A small h gives one sample all the weight.", "do": "Drag h down.",
            "state": {"bandwidth": 0.05}, "when": [["max_weight", ">=", 0.95]], "found": "One sample wins."}


def lesson(change=None) -> dict:
    """A copy of the whole-lesson tour, changed by ``change(data)``."""
    data = copy.deepcopy(LESSON)
    if change:
        change(data)
    return data


def step(k):
    """A change that applies ``fn`` to step ``k`` (from 1) of the lesson."""
    def wrap(fn):
        return lambda data: fn(data["steps"][k - 1])
    return wrap


def setter(**fields):
    def fn(s):
        for key, v in fields.items():
            if v is ...:
                del s[key]
            else:
                s[key] = v
    return fn


GOOD = {
    "the lesson": lesson(),
    "a file from before ids": {"title": "Old", "steps": [OLD_STEP, OLD_STEP]},
    "a $schema address": lesson(lambda d: d.update({"$schema": "./tour.schema.json"})),
    "an optional step": lesson(step(1)(setter(optional=True))),
    "a learning step naming the dataset it trains on": lesson(step(8)(setter(state={"dataset": "bump", "lr": "10"}))),
    "a whole number written 60.0": lesson(step(8)(setter(state={"lr": "2", "step": 60.0}))),
    "true/false compared": lesson(step(15)(setter(when=[["causal", "!=", False]]))),
    "a head by name": lesson(step(16)(setter(when=[["head_name", "==", "previous word"]]))),
    "a sense compared": lesson(step(18)(setter(when=[["qk_finished", "==", True], ["bank_sense", "==", "water"]]))),
}

BAD = {
    "an unknown field": lesson(lambda d: d.update({"author": "me"})),
    "no title": lesson(lambda d: d.pop("title")),
    "no steps": lesson(lambda d: d.update({"steps": []})),
    "too many steps": lesson(lambda d: d.update({"steps": d["steps"] * 3})),
    "a step's unknown field": lesson(step(2)(setter(colour="red"))),
    "a step without found": lesson(step(2)(setter(found=...))),
    "text that is a number": lesson(step(2)(setter(text=3))),
    "text too long": lesson(step(2)(setter(text="x" * 401))),
    "an empty do": lesson(step(2)(setter(do="   "))),
    "exponent notation": lesson(step(2)(setter(do="Set h to 5e-2."))),
    "markup in a title": lesson(step(2)(setter(title="<b>Shrink</b> h"))),
    "a script in found": lesson(step(2)(setter(found="Done <script>alert(1)</script>."))),
    "an entity": lesson(step(2)(setter(text="Q &amp; A."))),
    "an id with capitals": lesson(step(2)(setter(id="Shrink-H"))),
    "an id of digits": lesson(step(2)(setter(id="12"))),
    "an id too long": lesson(step(2)(setter(id="a" * 41))),
    "a section that does not exist": lesson(step(2)(setter(section="sentiment"))),
    "a setting of another section": lesson(step(2)(setter(state={"token": 1}))),
    "a setting out of bounds": lesson(step(2)(setter(state={"bandwidth": 500}))),
    "true for a number": lesson(step(2)(setter(state={"bandwidth": True}))),
    "a preset as a number": lesson(step(8)(setter(state={"lr": 2}))),
    "a step of 2.5": lesson(step(8)(setter(state={"step": 2.5}))),
    "the generated dataset": lesson(step(2)(setter(state={"dataset": "generated"}))),
    "a period out of bounds": lesson(step(21)(setter(state={"period": 2}))),
    "a training step out of bounds": lesson(step(18)(setter(state={"qk_step": 151}))),
    "a shown sentence by its words": lesson(step(18)(setter(state={"qk_sentence": "the bank by the river"}))),
    "two words for bank's top word": lesson(step(18)(setter(when=[["bank_top_word", "==", "the river"]]))),
    "a runtime name compared with a number": lesson(step(18)(setter(when=[["qk_playing", "==", 1]]))),
    "an unknown name": lesson(step(2)(setter(when=[["max_wieght", ">=", 0.9]]))),
    "a name of another section": lesson(step(2)(setter(when=[["top_word", "==", "river"]]))),
    "an ordering of a kernel": lesson(step(5)(setter(when=[["kernel", "<", "dot"]]))),
    "text for a number": lesson(step(2)(setter(when=[["max_weight", ">=", "high"]]))),
    "true for a number in a condition": lesson(step(2)(setter(when=[["max_weight", ">=", True]]))),
    "two items": lesson(step(2)(setter(when=[["max_weight", ">="]]))),
    "no comparison": lesson(step(2)(setter(when=[]))),
    "too many comparisons": lesson(step(2)(setter(when=[["max_weight", ">=", 0.9]] * (MAX_CONDITIONS + 1)))),
    "optional as text": lesson(step(2)(setter(optional="yes"))),
    "two words for a word": lesson(step(12)(setter(when=[["word", "==", "the bank"]]))),
    "a kernel that does not exist": lesson(step(5)(setter(when=[["kernel", "==", "cosine"]]))),
    "a head that does not exist": lesson(step(16)(setter(when=[["head_name", "==", "grammar"]]))),
    "a sentence too long for a link": lesson(step(12)(setter(state={"sentence": "bank " * 101}))),
}

# What only the Python checks can say (the schema's description lists them: PYTHON_ONLY).
PYTHON_ONLY_BAD = {
    "ids twice": lesson(step(2)(setter(id="query-listens"))),
    "sections out of order": lesson(lambda d: d["steps"].insert(0, d["steps"].pop(12))),
    "ids on some steps only": {"title": "Mixed", "steps": [OLD_STEP, dict(OLD_STEP, id="x", section="regression")]},
    "four sentences": lesson(step(2)(setter(text="One. Two. Three. Four."))),
    "a hyphen for a minus": lesson(step(6)(setter(do="Move the tilt to -2."))),
    "a word with a capital": lesson(step(12)(setter(when=[["word", "==", "Bank"]]))),
    "bank's top word with a capital": lesson(step(18)(setter(when=[["bank_top_word", "==", "River"]]))),
    "a shown sentence with punctuation": lesson(step(19)(setter(when=[["qk_sentence", "==", "The bank, by the river."]]))),
    "a sentence with punctuation": lesson(step(12)(setter(when=[["sentence", "==", "the bank, approved."]]))),
    "a sentence with no words": lesson(step(12)(setter(state={"sentence": "?!"}))),
    "a word past the end": lesson(step(12)(setter(state={"sentence": "the bank", "token": 4}))),
    "a fourth head": lesson(step(16)(setter(state={"head": 3}))),
    "only what the browser knows": lesson(step(8)(setter(when=[["playing", "==", True]]))),
}


@pytest.mark.parametrize("name", GOOD)
def test_both_accept_a_good_file(name):
    assert schema_ok(GOOD[name]) and python_ok(GOOD[name]), check_tour_data(CATALOGUE, GOOD[name])[1]


@pytest.mark.parametrize("name", BAD)
def test_both_refuse_a_bad_file_and_point_at_the_same_step(name):
    data = BAD[name]
    assert not schema_ok(data) and not python_ok(data), name
    path = list(best_match(VALIDATOR.iter_errors(data)).absolute_path)
    first = check_tour_data(CATALOGUE, data)[1][0]
    if len(path) >= 2 and path[0] == "steps":
        assert first.startswith(f"step {path[1] + 1} ") or first.startswith(f"step {path[1] + 1},"), (path, first)
    else:
        assert not first.startswith("step "), (path, first)


@pytest.mark.parametrize("name", PYTHON_ONLY_BAD)
def test_what_only_python_can_check_is_refused_by_python(name):
    """The schema lets these pass (it cannot say so); the Python validator, and so `tour check`, refuses them."""
    assert schema_ok(PYTHON_ONLY_BAD[name]), [e.message for e in VALIDATOR.iter_errors(PYTHON_ONLY_BAD[name])]
    assert not python_ok(PYTHON_ONLY_BAD[name])


def test_the_schema_says_what_it_cannot_check():
    for rule in python_only(CATALOGUE):
        assert rule in SCHEMA["description"]
    assert SCHEMA["properties"]["steps"]["maxItems"] == MAX_STEPS
