"""The guided tour without a browser: the file format's checks, the shipped tours, ?tour=, conditions with the
core, the CLI's --tour."""

from __future__ import annotations

import copy
import inspect
import json
import re
from pathlib import Path

import numpy as np
import pytest

import attention
from app.delivery import cli
from app.sections import CATALOGUE, CONTRACTS, ExplorableState, parse_query, url_spec
from app.tour import (MAX_STEPS, Step, Tour, TourError, check_tour_data, default_tour, default_tour_path, holds,
                      lesson_tour, load_tour, parse_tour, readouts, resolve_step, section_readouts, show_me_problems,
                      show_me_settings, step_readouts)
from app.tour.model import MAX_CONDITIONS, MAX_ID, compare, full_state, shipped_tour, slug, tour_path
from app.tour.view import card_html
from app.ui.engine import read_js
from app.tour.terms import terms

from tests.browser.pageutil import ROOT

TERMS = terms(CATALOGUE)   # what the tour knows of the page's sections

GOOD_STEP = {"title": "Shrink h", "text": "A small h gives one sample all the weight.", "do": "Drag h down.",
             "state": {"bandwidth": 0.05}, "when": [["max_weight", ">=", 0.95]], "found": "One sample wins."}
# One good step of each section, in the new format (an id and a section).
NEW_STEPS = {
    "regression": dict(GOOD_STEP, id="shrink", section="regression"),
    "learning": dict(GOOD_STEP, id="refused", section="learning", state={"lr": "300", "step": 1},
                     when=[["refused", "==", True]]),
    "sentence": dict(GOOD_STEP, id="mask", section="sentence", state={"causal": True},
                     when=[["causal", "==", True], ["future_weight", "==", 0]]),
    "routing": dict(GOOD_STEP, id="trained", section="routing", state={"qk_step": 150},
                    when=[["qk_finished", "==", True], ["bank_top_word", "==", "river"]]),
    "ideas": dict(GOOD_STEP, id="lag", section="ideas", state={"period": 5}, when=[["top_lag", "==", 5]]),
}
# The steps of the first tour, by number: links instructors made (?tour=3) keep opening these steps.
REGRESSION_IDS = ("query-listens", "shrink-h", "widen-h", "temperature-knob", "dot-equal-keys", "long-keys-win",
                  "best-bandwidth")
# Every step of the whole lesson, by number: ?tour=<id> links depend on these names, so a rename must be deliberate.
LESSON_IDS = REGRESSION_IDS + ("learn-play", "learn-overshoot", "learn-refused", "metric-stretch", "bank-row",
                               "bank-loan", "rows-sum-to-one", "causal-mask", "heads", "n-squared", "qk-play",
                               "qk-held-out", "rnn-chain", "lag-feature")
SHIPPED = ("regression", "lesson")


def tour_with(step: dict | None = None, *, at: int = 2, **top) -> dict:
    """A valid three-step tour (written before steps had ids) whose step ``at`` (from 1) is replaced by ``step``."""
    steps = [copy.deepcopy(GOOD_STEP) for _ in range(3)]
    if step is not None:
        steps[at - 1] = step
    return {"title": "A tour", "steps": steps, **top}


def new_tour(*steps) -> dict:
    """A tour in the new format from steps (default: one of each section, in the page's order)."""
    steps = steps or tuple(NEW_STEPS[s] for s in TERMS.sections)
    return {"title": "A tour", "steps": [copy.deepcopy(s) for s in steps]}


def new_step(of: str, /, **fields) -> dict:
    """NEW_STEPS[of] with ``fields`` replaced (``...`` deletes one)."""
    s = copy.deepcopy(NEW_STEPS[of])
    for k, v in fields.items():
        if v is ...:
            del s[k]
        else:
            s[k] = v
    return s


def changed(**fields) -> dict:
    s = copy.deepcopy(GOOD_STEP)
    for k, v in fields.items():
        if v is ...:
            del s[k]
        else:
            s[k] = v
    return s


def errors_of(data) -> list[str]:
    tour, errors = check_tour_data(CATALOGUE, data)
    assert (tour is None) == bool(errors)
    return errors


# ---- bad files: each error names the step and the field ------------------------------------------

BAD_STEPS = [
    (changed(colour="red"), '"colour"', "unknown field"),
    (changed(text=...), '"text"', "missing"),
    (changed(text=42), '"text"', "expected text, got a number"),
    (changed(text=""), '"text"', "empty"),
    (changed(text="One. Two. Three. Four."), '"text"', "4 sentences"),
    (changed(text="x" * 500), '"text"', "500 characters"),
    (changed(text="h is 1e-3 here."), '"text"', "exponent"),
    (changed(do="Move the tilt to -2."), '"do"', "minus sign"),
    (changed(found="One. Two."), '"found"', "2 sentences"),
    (changed(do="Press <b>Show me</b>."), '"do"', "markup"),
    (changed(found="It was <script>alert(1)</script>."), '"found"', "markup"),
    (changed(text="Use &lt; here."), '"text"', "markup"),
    (changed(state=[1]), '"state"', "expected an object"),
    (changed(state={"sentence": "the bank"}), '"state" sentence', "not a setting a regression step can set"),
    (changed(state={"bandwidth": 500}), '"state" bandwidth', "outside 0.005 to 50"),
    (changed(state={"bandwidth": "wide"}), '"state" bandwidth', "expected a number, got text"),
    (changed(state={"bandwidth": True}), '"state" bandwidth', "expected a number, got true/false"),
    (changed(state={"kernel": "cosine"}), '"state" kernel', "not one of gaussian, dot"),
    (changed(state={"dataset": "generated"}), '"state" dataset', "not one of"),
    (changed(state={"limits": 1}), '"state" limits', "expected true or false"),
    (changed(when=[]), '"when"', "non-empty list"),
    (changed(when=[["max_weight", ">="]]), '"when" [1]', "[name, operator, value]"),
    (changed(when=[["max_weight", ">=", 0.9], ["max_wieght", ">=", 0.95]]), '"when" [2]', 'unknown name "max_wieght"'),
    (changed(when=[["max_weight", "=>", 0.95]]), '"when" [1]', 'unknown operator "=>"'),
    (changed(when=[["max_weight", ">=", "high"]]), '"when" [1]', "compared with a number"),
    (changed(when=[["kernel", "<", "dot"]]), '"when" [1]', "== or !="),
    (changed(when=[["kernel", "==", "cosine"]]), '"when" [1]', "not a kernel"),
    (changed(when=[["__import__('os')", "==", 1]]), '"when" [1]', "unknown name"),
    (changed(when=[["top_word", "==", "river"]]), '"when" [1]', "top_word is a name of the sentence section"),
    (changed(when=[["max_weight", ">=", 0.9]] * (MAX_CONDITIONS + 1)), '"when"', f"at most {MAX_CONDITIONS}"),
    (changed(optional="yes"), '"optional"', "expected true or false"),
    ("just text", "", "expected an object"),
]


@pytest.mark.parametrize("step, field, words", BAD_STEPS, ids=[f"{f}:{w}" for _, f, w in BAD_STEPS])
def test_a_bad_step_is_named_with_its_number_id_and_field(step, field, words):
    with pytest.raises(TourError) as err:
        parse_tour(CATALOGUE, tour_with(step, at=2))
    msg = str(err.value)
    # a file without ids: the step's id is made from its title (the three steps share one title: -2 is step 2's)
    where = "step 2: " if isinstance(step, str) else f"step 2 (shrink-h-2), {field}"
    assert msg.startswith(where), msg
    assert words in msg, msg
    assert "\n" not in msg


@pytest.mark.parametrize("data, words", [
    ([], "expected an object"),
    ({"steps": [GOOD_STEP]}, '"title": missing'),
    ({"title": "t", "steps": []}, '"steps": expected a non-empty list'),
    ({"title": "t", "steps": [GOOD_STEP], "author": "me"}, '"author": unknown field'),
    ({"title": "t", "steps": [GOOD_STEP] * (MAX_STEPS + 1)}, f"at most {MAX_STEPS}"),
    ({"title": "<i>t</i>", "steps": [GOOD_STEP]}, '"title": markup'),
    ({"title": "t", "steps": [GOOD_STEP], "$schema": 3}, '"$schema": expected text'),
])
def test_a_bad_tour_is_named_with_its_field(data, words):
    with pytest.raises(TourError, match=re.escape(words)):
        parse_tour(CATALOGUE, data)


# Steps of the new format: a step names its id and section; its state and conditions are its section's.
BAD_NEW = [
    (new_step("regression", id="Shrink H"), 'step 1, "id"', "is not an id"),
    (new_step("regression", id="42"), 'step 1, "id"', "at least one letter"),
    (new_step("regression", id="a" * 41), 'step 1, "id"', "41 characters, at most 40"),
    (new_step("regression", id=7), 'step 1, "id"', "expected text, got a number"),
    (new_step("regression", id=...), 'step 1, "id"', "missing"),
    (new_step("regression", section="sentiment"), 'step 1 (shrink), "section"', '"sentiment" is not a section'),
    (new_step("regression", section=...), 'step 1 (shrink), "section"', "missing"),
    (new_step("learning", state={"lr": 2}), 'step 1 (refused), "state" lr', "written as text, in quotes"),
    (new_step("learning", state={"step": 2.5}), 'step 1 (refused), "state" step', "a whole number, got 2.5"),
    (new_step("learning", state={"step": 61}), 'step 1 (refused), "state" step', "outside 0 to 60"),
    (new_step("learning", state={"query": 1.0}), 'step 1 (refused), "state" query', "belongs to the regression"),
    (new_step("learning", when=[["playing", "==", True]]), 'step 1 (refused), "when"', "not a state Show me can reach"),
    (new_step("learning", when=[["refused", "==", "yes"]]), 'step 1 (refused), "when" [1]', "true or false, got text"),
    (new_step("learning", when=[["lr", "==", 300]]), 'step 1 (refused), "when" [1]', "written as text"),
    (new_step("learning", when=[["refused", ">=", True]]), 'step 1 (refused), "when" [1]', "== or !="),
    (new_step("sentence", state={"token": 7}), 'step 1 (mask), "state" token', "past the end of the 5-word sentence"),
    (new_step("sentence", state={"head": 3}), 'step 1 (mask), "state" head', "there is no head 3"),
    (new_step("sentence", state={"sentence": "!!!"}), 'step 1 (mask), "state" sentence', "sentence is empty"),
    (new_step("sentence", state={"sentence": "a " * 40}), 'step 1 (mask), "state" sentence', "at most 32"),
    (new_step("sentence", when=[["word", "==", "Bank"]]), 'step 1 (mask), "when" [1]', "write a word as the page"),
    (new_step("sentence", when=[["sentence", "==", "The bank."]]), 'step 1 (mask), "when" [1]', "as the page splits"),
    (new_step("sentence", when=[["head_name", "==", "grammar"]]), 'step 1 (mask), "when" [1]', "not a head_name"),
    (new_step("routing", state={"qk_step": 151}), 'step 1 (trained), "state" qk_step', "outside 0 to 150"),
    (new_step("routing", state={"qk_sentence": "the bank by the river"}), 'step 1 (trained), "state" qk_sentence',
     "expected a whole number, got text"),
    (new_step("routing", state={"sentence": "the bank"}), 'step 1 (trained), "state" sentence', "sentence section"),
    (new_step("routing", when=[["qk_playing", "==", True]]), 'step 1 (trained), "when"', "not a state Show me can reach"),
    (new_step("routing", when=[["bank_top_word", "==", "River"]]), 'step 1 (trained), "when" [1]',
     "write a word as the page"),
    (new_step("routing", when=[["bank_sense", "==", "the water"]]), 'step 1 (trained), "when" [1]',
     "write a word as the page"),
    (new_step("routing", when=[["qk_sentence", "==", "The bank, by the river."]]), 'step 1 (trained), "when" [1]',
     "as the page splits"),
    (new_step("routing", when=[["top_word", "==", "river"]]), 'step 1 (trained), "when" [1]',
     "top_word is a name of the sentence section"),
    (new_step("ideas", state={"period": 15}), 'step 1 (lag), "state" period', "outside 3 to 14"),
    (new_step("ideas", state={"sentence": "the bank", "token": 1}), 'step 1 (lag), "state" token', "sentence section"),
]


@pytest.mark.parametrize("step, where, words", BAD_NEW, ids=[f"{w}:{x}" for _, w, x in BAD_NEW])
def test_a_bad_step_of_any_section_is_named(step, where, words):
    errors = errors_of(new_tour(step))
    assert len(errors) == 1, errors
    assert errors[0].startswith(where) and words in errors[0], errors


def test_every_problem_of_a_file_is_one_line():
    bad = new_tour(new_step("regression", title=3, when=[["nope", "<", 1]]),
                   new_step("learning", state={"lr": "7"}))
    assert errors_of(bad) == [
        'step 1 (shrink), "title": expected text, got a number',
        'step 1 (shrink), "when" [1]: unknown name "nope" (known: ' + ", ".join(TERMS.names_of("regression")) + ")",
        'step 2 (refused), "state" lr: "7" is not one of 0.5, 2, 10, 20, 50, 300',
    ]


def test_ids_are_unique_and_sections_follow_the_page():
    twice = new_tour(NEW_STEPS["regression"], new_step("learning", id="shrink"))
    assert errors_of(twice) == ['step 2 (shrink), "id": \'shrink\' is already step 1\'s id']
    backwards = new_tour(NEW_STEPS["sentence"], NEW_STEPS["learning"])
    assert errors_of(backwards) == ['step 2 (refused), "section": a learning step after a sentence step; steps '
                                    "follow the page's order: regression, learning, sentence, routing, ideas"]
    # a later regression step after learning is out of order too, even with a sentence step between
    late = new_tour(NEW_STEPS["learning"], NEW_STEPS["sentence"], new_step("regression", id="late"))
    assert [e.split(":")[0] for e in errors_of(late)] == ['step 3 (late), "section"']


def test_a_file_gives_every_step_an_id_and_a_section_or_none():
    mixed = {"title": "t", "steps": [NEW_STEPS["regression"], changed(title="No id")]}
    assert errors_of(mixed) == ['step 2, "id": missing (a tour whose steps have ids and sections gives every step '
                                'both)',
                                'step 2, "section": missing (a tour whose steps have ids and sections gives every '
                                'step both)']


def test_a_file_from_before_ids_loads_with_ids_made_from_its_titles(tmp_path):
    old = {"title": "t", "steps": [changed(title="Who does the query listen to?"),
                                   changed(title="Café au lait, h·√T"), changed(title="Café au lait, h·√T"),
                                   changed(title="42"),
                                   changed(title="A very long title that goes on and on past forty characters")]}
    p = tmp_path / "old.json"
    p.write_text(json.dumps(old), encoding="utf-8")
    tour = load_tour(CATALOGUE, p)
    assert tour.ids == ("who-does-the-query-listen-to", "cafe-au-lait-h-t", "cafe-au-lait-h-t-2", "step",
                        "a-very-long-title-that-goes-on-and-on")
    assert {s.section for s in tour.steps} == {"regression"}
    assert all(len(i) <= 40 for i in tour.ids)
    assert resolve_step("cafe-au-lait-h-t-2", tour) == (3, None)


def test_slug_rules():
    assert slug("Shrink h: one sample takes everything") == "shrink-h-one-sample-takes-everything"
    assert slug("   ") == "step" and slug("2 + 2") == "step"
    assert slug("x" * 50) == "x" * 40                        # no hyphen to cut at: cut at 40
    assert slug("ab-" * 20, taken={"ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab"}) == "ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-2"
    assert slug("a" * 40, taken={"a" * 40}) == "a" * 38 + "-2"


def test_hostile_json_is_one_line(tmp_path):
    cases = {
        "twice.json": ('{"title": "a", "title": "b", "steps": []}', 'the field "title" is given twice'),
        "nan.json": ('{"title": "t", "steps": [{"query": NaN}]}', "NaN is not a number JSON knows"),
        "deep.json": ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        "big.json": ('{"title": "' + "x" * 300_000 + '"}', '"title": 300000 characters, at most 80'),
        "padded.json": (" " * 300_000 + json.dumps(tour_with()), "the file is 301 kB: a tour file is at most 200 kB"),
    }
    for name, (text, words) in cases.items():
        p = tmp_path / name
        p.write_text(text, encoding="utf-8")
        with pytest.raises(TourError) as err:
            load_tour(CATALOGUE, p)
        assert words in str(err.value) and "\n" not in str(err.value), (name, str(err.value))


def test_bad_json_and_unreadable_files_say_so(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"title": "t", "steps": [}', encoding="utf-8")
    with pytest.raises(TourError, match=r"not valid JSON \(line 1, column 26"):
        load_tour(CATALOGUE, bad)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(TourError, match="not UTF-8"):
        load_tour(CATALOGUE, binary)
    with pytest.raises(TourError, match="cannot read"):
        load_tour(CATALOGUE, tmp_path / "missing.json")


def test_a_good_file_loads_and_a_byte_order_mark_is_fine(tmp_path):
    p = tmp_path / "mine.json"
    p.write_text(json.dumps(tour_with()), encoding="utf-8")
    tour = load_tour(CATALOGUE, p)
    assert len(tour) == 3 and tour.steps[0].when == (("max_weight", ">=", 0.95),)
    p.write_bytes(b"\xef\xbb\xbf" + json.dumps(new_tour()).encode("utf-8"))   # as some Windows editors save
    assert load_tour(CATALOGUE, p).ids == ("shrink", "refused", "mask", "trained", "lag")


def test_a_step_may_set_what_its_section_reads_from_another():
    """The bandwidth's path is trained on the regression's dataset; the ideas' graphs follow the sentence."""
    ok = new_tour(new_step("learning", state={"dataset": "bump", "lr": "2"}),
                  new_step("ideas", state={"sentence": "the bank", "period": 4}))
    tour = parse_tour(CATALOGUE, ok)
    assert tour.steps[0].state == {"dataset": "bump", "lr": "2"}
    assert TERMS.reads == {"learning": ("dataset",), "ideas": ("sentence",)}


# ---- the shipped tours ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", SHIPPED)
def test_the_shipped_tours_validate_as_written(name):
    tour = shipped_tour(CATALOGUE, name)
    raw = json.loads(tour_path(name).read_text(encoding="utf-8"))
    assert raw["steps"] and all("id" in s and "section" in s for s in raw["steps"])   # nothing made up on reading
    assert parse_tour(CATALOGUE, raw).as_dict() == tour.as_dict()
    assert [s.as_dict() for s in tour.steps] == [
        {k: v for k, v in s.items()} | {"when": [list(c) for c in s["when"]]} for s in raw["steps"]]


@pytest.mark.parametrize("name", SHIPPED)
def test_no_text_of_a_shipped_tour_runs_over_60_words(name):
    """Issue 39: no paragraph of the page over 60 words; a step's words, its Try it, what it finds and the closing
    card are each a paragraph of the card."""
    tour = shipped_tour(CATALOGUE, name)
    texts = [(s.id, f, getattr(s, f)) for s in tour.steps for f in ("title", "text", "do", "found")]
    texts += [("closing", f, t) for f, t in zip(("title", "text"), tour.closing or ())]
    assert [(i, f, len(t.split())) for i, f, t in texts if len(t.split()) > 60] == []


def test_the_lesson_ends_with_its_one_sentence():
    """The closing card sums the lesson up in the seed's sentence."""
    title, text = lesson_tour(CATALOGUE).closing
    assert title == "Attention is kernel regression with a learned kernel" and "W_Q and W_K" in text


def test_the_whole_lesson_is_the_default_with_a_few_steps_per_section():
    """The page's tour is the lesson: every section in a handful of steps (a class gets through one section's in a
    sitting), the first section's no fewer and no more than the first tour had."""
    assert default_tour(CATALOGUE) is shipped_tour(CATALOGUE, "lesson") is lesson_tour(CATALOGUE)
    assert default_tour_path() == tour_path("lesson")
    counts = {sec: sum(s.section == sec for s in default_tour(CATALOGUE).steps) for sec in TERMS.sections}
    assert 6 <= counts["regression"] <= 10 and all(2 <= n <= 7 for n in counts.values()), counts
    assert len(default_tour(CATALOGUE)) == sum(counts.values()) <= MAX_STEPS
    assert 6 <= len(shipped_tour(CATALOGUE, "regression")) <= 10   # the one-section tour, kept as an example


def test_numbered_links_keep_their_steps():
    """?tour=1 ... ?tour=7 open the same seven steps in the first tour and in the whole lesson."""
    first, lesson = shipped_tour(CATALOGUE, "regression"), lesson_tour(CATALOGUE)
    assert first.ids == REGRESSION_IDS
    assert [s.as_dict() for s in lesson.steps[:7]] == [s.as_dict() for s in first.steps]
    for k, sid in enumerate(REGRESSION_IDS, 1):
        for tour in (first, lesson):
            assert resolve_step(str(k), tour) == (k, None)
            assert resolve_step(sid, tour) == (k, None)
            assert tour.steps[k - 1].id == sid


def test_the_lessons_ids_are_stable_and_unique():
    lesson = lesson_tour(CATALOGUE)
    assert lesson.ids == LESSON_IDS
    assert len(set(lesson.ids)) == len(lesson)


def test_the_lesson_goes_through_every_section_in_the_pages_order():
    lesson = lesson_tour(CATALOGUE)
    assert lesson.sections() == TERMS.sections
    order = [TERMS.sections.index(s.section) for s in lesson.steps]
    assert order == sorted(order)
    counts = {sec: sum(s.section == sec for s in lesson.steps) for sec in TERMS.sections}
    assert counts["learning"] >= 3 and counts["sentence"] >= 6 and counts["routing"] >= 2 and counts["ideas"] >= 2
    assert any(s.optional for s in lesson.steps) and len(lesson) <= MAX_STEPS


@pytest.mark.parametrize("name", SHIPPED)
def test_the_shipped_tours_read_as_plain_text(name):
    for i, s in enumerate(shipped_tour(CATALOGUE, name).steps, 1):
        for text in (s.title, s.text, s.do, s.found):
            assert not re.search(r"\d[eE][+\-\u2212]?\d", text), (i, text)
            assert not re.search(r"(?<![\w)])-\d", text), (i, text)
            assert "<" not in text and "&" not in text, (i, text)


LESSON_STEPS = [pytest.param(s, id=s.id) for s in lesson_tour(CATALOGUE).steps]


@pytest.mark.parametrize("step", LESSON_STEPS)
def test_show_me_reaches_a_state_that_satisfies_the_step(step):
    """The state "show me" moves to, computed with the numpy core, meets the step's own condition ..."""
    values = step_readouts(step)
    assert holds(step.when, values), (step.id, values)


@pytest.mark.parametrize("step", LESSON_STEPS)
def test_the_opening_state_does_not_satisfy_any_step(step):
    """... and the page as it opens does not: every step asks the student to change something ..."""
    assert not holds(step.when, step_readouts(step, {})), step.id


def arrivals(tour: Tour):
    """The settings a student meets each step with after pressing Show me on every step before it: all from
    their defaults, then each step's Show-me settings applied in turn (what "Show me" leaves alone stays)."""
    spec = {k: url_spec().get(k) for sec in TERMS.sections for k in TERMS.section_keys[sec]}
    now = {k: s["default"] for k, s in spec.items()}
    for step in tour.steps:
        yield step, dict(now)
        now.update(show_me_settings(step))


@pytest.mark.parametrize("name", SHIPPED)
def test_no_step_is_met_where_the_step_before_left_the_page(name):
    """... nor where "Show me" on the step before left it: a goal met on arrival could never be found."""
    for step, settings in arrivals(shipped_tour(CATALOGUE, name)):
        values = step_readouts(step, settings)
        assert not holds(step.when, values), (step.id, values)


def test_steps_not_marked_for_the_shipped_data_work_on_every_shipped_dataset():
    """needs_shipped_data marks the steps written for the worked example's samples; the others' Show me meets
    their goal whichever shipped dataset is loaded (a step's state may still name its own)."""
    checked = 0
    for step in lesson_tour(CATALOGUE).steps:
        if step.needs_shipped_data or "dataset" not in TERMS.settable_keys(step.section):
            continue
        for name in attention.list_datasets():
            assert holds(step.when, step_readouts(step, {**step.state, "dataset": name})), (step.id, name)
        checked += 1
    assert checked >= 4
    marked = [s.id for s in lesson_tour(CATALOGUE).steps if s.needs_shipped_data]
    assert "learn-refused" in marked and "best-bandwidth" in marked


# A number in the data's units: a position or a bandwidth ("past x = 1.5", "h near 0.2").  On your own data the
# sliders and axes show the data's units, so such a number is true of the shipped data only.
DATA_UNITS_NUMBER = re.compile(r"(?<![\w·])(x|y|h|h·√T|query|bandwidth)\s*(=|≈|near|of|to|at|is|reads|from)?\s*"
                               r"[\u2212-]?\d")


@pytest.mark.parametrize("name", SHIPPED)
def test_steps_not_marked_for_the_shipped_data_quote_no_number_of_theirs(name):
    """A step that keeps your own data (not needs_shipped_data) says nothing true of the shipped data only: no
    position or bandwidth by its number (the steps marked say so on your data, and offer the shipped data back)."""
    for s in shipped_tour(CATALOGUE, name).steps:
        if s.needs_shipped_data or "dataset" not in TERMS.section_keys[s.section] + TERMS.reads.get(s.section, ()):
            continue
        for text in (s.title, s.text, s.do, s.found):
            assert not DATA_UNITS_NUMBER.search(text), (s.id, DATA_UNITS_NUMBER.search(text)[0], text)
    assert DATA_UNITS_NUMBER.search("past x = 1.5") and DATA_UNITS_NUMBER.search("with h·√T near 0.62")
    assert not DATA_UNITS_NUMBER.search("2 to the power of the entropy, at temperature 1, a 2 × 2 matrix")


def test_a_step_whose_show_me_misses_its_goal_is_reported():
    step = new_step("sentence", state={"causal": False}, when=[["causal", "==", True], ["top_word", "==", "river"]])
    problems = show_me_problems(parse_tour(CATALOGUE, new_tour(step)))
    assert problems == ['step 1 (mask), "when" [1]: Show me does not reach it: causal is false there, and the step '
                        'asks == true']


# ---- the conditions, by the core ---------------------------------------------------------------------

def test_readouts_are_the_cores_numbers():
    d = attention.load_dataset()
    r = readouts(CATALOGUE, {"query": 3.2, "bandwidth": 0.62})
    core = attention.readout(3.2, d.x, d.y, bandwidth=0.62)
    assert r["max_weight"] == core.max_weight and r["effective_points"] == core.effective_points
    assert r["effective_share"] == pytest.approx(core.effective_points / 24)
    assert set(r) == set(TERMS.names_of("regression"))
    tilted = readouts(CATALOGUE, {"kernel": "dot", "key_norm": 2.0})
    assert tilted["winner_gap"] > 2 and tilted["max_weight"] > 0.99   # a far, long key wins
    assert readouts(CATALOGUE, {"kernel": "dot"})["winner_gap"] == 0.0            # equal lengths: the nearest wins
    assert readouts(CATALOGUE, {"bandwidth": 0.2, "temperature": 9.61})["h_eff"] == pytest.approx(0.62)
    assert readouts(CATALOGUE, {"bandwidth": 0.27})["loo_excess"] < 0.01 < readouts(CATALOGUE, {})["loo_excess"]


def test_learning_readouts_are_the_cores_paths():
    """The paths trained here, by attention.train_bandwidth / train_metric, from the page's start (h = 0.15, W = I)."""
    d = attention.load_dataset("bump")
    tr = attention.train_bandwidth(d.x, d.y, h0=0.15, learning_rate=10.0, steps=60)
    r = section_readouts(CATALOGUE, "learning", {"dataset": "bump", "lr": "10", "step": 7})
    assert r["learned_h"] == pytest.approx(tr.h[7], rel=1e-12) and r["step"] == 7
    grid = np.geomspace(0.005, 50, 241)
    lowest = min(attention.loo_error(d.x, d.y, bandwidths=grid).min(), tr.loss[7])
    assert r["learned_excess"] == pytest.approx(tr.loss[7] / lowest - 1, rel=1e-9, abs=1e-12)
    assert not r["refused"] and not r["finished"]
    refused = section_readouts(CATALOGUE, "learning", {"lr": "300", "step": 60})     # past the end: its last step
    x, y = attention.load_dataset().x, attention.load_dataset().y
    t300 = attention.train_bandwidth(x, y, h0=0.15, learning_rate=300.0, steps=60)
    assert t300.diverged and refused["step"] == len(t300.h) - 1 and refused["refused"] and refused["finished"]
    m = attention.learn.load_metric_dataset()
    tm = attention.train_metric(m.X, m.y, W0=np.eye(2), learning_rate=2.0, steps=150)
    r = section_readouts(CATALOGUE, "learning", {"metric_step": 40})
    assert r["column_ratio"] == pytest.approx(tm.column_ratio()[40], rel=1e-12)
    assert set(r) == set(TERMS.names_of("learning"))
    assert (r["playing"], r["metric_playing"]) == (False, False)   # Show me and a link: Play stopped


def test_sentence_readouts_are_the_cores_analysis():
    a = attention.analyze_sentence("the bank approved the loan", temperature=2.0, causal=True)
    r = section_readouts(CATALOGUE, "sentence", {"sentence": "The bank approved the loan!", "token": 3, "head": 2,
                                      "att_temperature": 2.0, "causal": True})
    w = a.weights[2][3]
    assert r["sentence"] == "the bank approved the loan" and r["word"] == "the" and r["head_name"] == "content words"
    assert r["top_word"] == a.tokens[int(np.argmax(w))] and r["top_weight"] == float(w.max())
    assert r["row_sum"] == pytest.approx(1.0, abs=1e-12) and r["future_weight"] == 0.0   # the mask
    assert (r["sense_water"], r["sense_money"]) == tuple(float(v) for v in a.output_xy[2][3])
    assert (r["n_tokens"], r["n_scores"]) == (5, 25)
    assert set(r) == set(TERMS.names_of("sentence"))
    unmasked = section_readouts(CATALOGUE, "sentence", {})
    assert unmasked["future_weight"] == pytest.approx(float(attention.analyze_sentence(
        "the bank by the river").weights[0][1][2:].sum()))


def test_ideas_readouts_are_the_cores_numbers():
    res = attention.compare_lag_models(9)
    r = section_readouts(CATALOGUE, "ideas", {"period": 9, "sentence": "we walked to the bank"})
    assert r["top_lag"] == res["top_lag"]
    assert r["top_lag_weight"] == pytest.approx(res["weights"][res["top_lag"] - 1], abs=5e-5)   # shipped rounded
    assert r["rmse_attention"] == pytest.approx(res["rmse_attention"], abs=5e-5)
    assert r["rmse_linear"] == pytest.approx(res["rmse_linear"], abs=5e-5)
    assert (r["rnn_steps"], r["attention_steps"]) == (5, 1)
    assert set(r) == set(TERMS.names_of("ideas"))


def test_routing_readouts_are_the_cores_trained_path():
    """At the recorded step at or before the one asked for (the page plays steps 0, 3, ..., 150), on the shown
    sentence, by attention.train_qk and sense_readout."""
    from app.routing.state import QK_SHOWN

    tr = attention.train_qk()
    trained = {" ".join(t.tokens) for t in attention.load_sense_corpus().train}
    for k, (step, shown) in enumerate([(10, 9), (0, 0), (150, 150)]):
        i = (k * 3 + 1) % len(QK_SHOWN)
        r = section_readouts(CATALOGUE, "routing", {"qk_step": step, "qk_sentence": i})
        core = attention.sense_readout(QK_SHOWN[i], tr.w_q[shown], tr.w_k[shown])
        top = int(np.argmax(core.weights))
        assert (r["qk_step"], r["qk_finished"]) == (shown, shown == len(tr.w_q) - 1)
        assert r["qk_sentence"] == " ".join(core.tokens) and r["held_out"] == (r["qk_sentence"] not in trained)
        assert (r["bank_top_word"], r["bank_top_weight"], r["bank_sense"]) == \
            (core.tokens[top], float(core.weights[top]), core.sense)
    assert set(r) == set(TERMS.names_of("routing")) and r["qk_playing"] is False
    held = {section_readouts(CATALOGUE, "routing", {"qk_sentence": i})["held_out"] for i in range(len(QK_SHOWN))}
    assert held == {True, False}


def test_every_name_has_a_section_a_kind_a_description_and_units():
    assert set(TERMS.names) == set(TERMS.conditions)
    for name, c in TERMS.conditions.items():
        assert c.section in TERMS.sections and c.kind in ("number", "bool", "choice", "word", "words"), name
        assert c.description and c.units and not re.search(r"\d[eE]\d", c.description + c.units), name
    assert tuple(TERMS.runtime_names) == ("playing", "metric_playing", "qk_playing")


def test_the_tours_keys_are_the_pages():
    """The sections, their deep-link keys and the lag panel's periods, against the page's own definitions."""
    from app.ideas.view import PERIODS
    from app.learning.view import URL_KEYS
    from app.routing.view import URL_KEYS as ROUTING_KEYS
    from app.sections import PAGE_ORDER
    from app.sentence.view import SENTENCE_KEYS

    assert TERMS.sections == PAGE_ORDER
    assert TERMS.section_keys["learning"] == URL_KEYS and TERMS.section_keys["sentence"] == SENTENCE_KEYS
    assert TERMS.section_keys["routing"] == ROUTING_KEYS
    spec = url_spec()
    missing = [k for sec in TERMS.sections for k in TERMS.section_keys[sec] if k not in spec]
    assert missing == []   # every key a step sets is a deep link's
    p = spec["period"]
    assert (p["lo"], p["hi"]) == (PERIODS[0], PERIODS[-1]) and p["default"] == attention.lags.DEFAULT_PERIOD


def test_whether_play_runs_is_false_where_show_me_lands():
    """Show me stops Play and never presses it: the core reads the runtime names as false there, so a goal that
    needs Play running is reported, naming the step and the comparison (the browser's readouts say it live)."""
    when = (("playing", "==", True), ("step", ">=", 3))
    assert not holds(when, section_readouts(CATALOGUE, "learning", {"step": 5}))
    assert holds(when, {"step": 5, "playing": True})        # the page, while Play runs
    assert holds((("playing", "==", False), ("step", ">=", 3)), section_readouts(CATALOGUE, "learning", {"step": 5}))
    playing = new_step("learning", id="play", state={"lr": "2", "step": 60},
                       when=[["learned_excess", "<=", 0.01], ["metric_playing", "==", True]])
    assert show_me_problems(parse_tour(CATALOGUE, new_tour(playing))) == [
        'step 1 (play), "when" [2]: Show me does not reach it: metric_playing is false there (Show me stops Play and '
        'never presses it), and the step asks == true']


@pytest.mark.parametrize("a, op, b, want", [
    (0.95, ">=", 0.95, True), (0.95 - 1e-12, ">=", 0.95, True), (0.94, ">=", 0.95, False),
    (1.0, "<", 1.0, False), (0.0, "==", 0, True), (0.05, "!=", 0, True), ("dot", "==", "dot", True),
    ("dot", "!=", "gaussian", True), ("dot", "<", "gaussian", False), (True, "==", True, True),
    (False, "==", True, False), (True, "!=", False, True), (1, "==", True, False), (True, ">=", False, False),
])
def test_compare(a, op, b, want):
    assert compare(a, op, b) is want


def test_full_state_fills_in_the_defaults_as_a_link_does():
    spec = url_spec()
    s = full_state(CATALOGUE, {"bandwidth": 0.05})
    assert set(s) == set(TERMS.section_keys["regression"])
    assert s["bandwidth"] == 0.05 and s["query"] == spec["query"]["default"]
    assert full_state(CATALOGUE, {}, "ideas") == {"period": 7, "sentence": spec["sentence"]["default"]}


def test_show_me_sets_its_sections_settings_and_only_the_read_ones_it_names():
    lesson = {s.id: s for s in lesson_tour(CATALOGUE).steps}
    learn = show_me_settings(lesson["learn-refused"])
    assert learn == {"lr": "300", "step": 1, "metric_lr": "2", "metric_step": 0, "dataset": "default"}
    assert show_me_settings(lesson["metric-stretch"]) == {"lr": "2", "step": 0, "metric_lr": "2", "metric_step": 150}
    assert show_me_settings(lesson["lag-feature"]) == {"period": 5}     # the sentence stays as the student left it
    assert show_me_settings(lesson["qk-play"]) == {"qk_step": 150, "qk_sentence": 2}
    assert set(show_me_settings(lesson["heads"])) == set(TERMS.section_keys["sentence"])


def test_the_sentences_the_lessons_show_me_sets():
    """Each once, in the steps' order: two of them are no example of the page's (the browser analyses them)."""
    from app.sentence.data import presets_payload

    needed = list(dict.fromkeys(s.state["sentence"] for s in lesson_tour(CATALOGUE).steps if "sentence" in s.state))
    presets = {p["text"] for p in presets_payload()}
    assert "the bank approved the loan" in needed and len(needed) == len(set(needed))
    assert set(needed) - presets == {"the fisherman rowed his boat to the muddy river bank",
                                     "we sat on the muddy bank of the river and the fisherman rowed his boat to the "
                                     "shore"}


# ---- ?tour= ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("raw, want", [
    (None, (1, None)),
    ("1", (1, None)), ("7", (7, None)), ("19", (19, None)), ("0", (0, None)), ("007", (7, None)),
    (" \t12\n", (12, None)),
    ("heads", (16, None)), ("HEADS", (16, None)), (" Bank-Row ", (12, None)), ("qk-held-out", (19, None)),
    ("lag-feature", (21, None)), ("21", (21, None)),
    ("", (1, "Ignored an empty value for \u201ctour\u201d.")),
    ("  ", (1, "Ignored an empty value for \u201ctour\u201d.")),
    ("99", (1, "There is no step 99 in this tour (it has 21 steps); showing step 1.")),
    ("-1", (1, "Ignored tour=\u201c-1\u201d: expected a step's number (0 to 21) or its id, such as "
               "\u201cquery-listens\u201d; showing step 1.")),
    ("+3", (1, "Ignored tour=\u201c+3\u201d: expected a step's number (0 to 21) or its id, such as "
               "\u201cquery-listens\u201d; showing step 1.")),
    ("3.0", (1, "Ignored tour=\u201c3.0\u201d: expected a step's number (0 to 21) or its id, such as "
                "\u201cquery-listens\u201d; showing step 1.")),
    ("\u0663", (1, "Ignored tour=\u201c\u0663\u201d: expected a step's number (0 to 21) or its id, such as "
                   "\u201cquery-listens\u201d; showing step 1.")),     # an Arabic-Indic three is not a step number
    ("shrink-hh", (1, "There is no step \u201cshrink-hh\u201d in this tour; showing step 1.")),
    ("<script>alert(1)</script>", (1, "Ignored tour=\u201c<script>alert(1)</script>\u201d: expected a step's "
                                      "number (0 to 21) or its id, such as \u201cquery-listens\u201d; showing step 1.")),
    ("x" * 50, (1, "Ignored tour=\u201c" + "x" * 40 + "\u2026\u201d: expected a step's number (0 to 21) or its id, "
                   "such as \u201cquery-listens\u201d; showing step 1.")),
    ("9" * 50, (1, "There is no step " + "9" * 40 + "\u2026 in this tour (it has 21 steps); showing step 1.")),
])
def test_a_tour_link_opens_a_step_by_number_or_id(raw, want):
    assert resolve_step(raw, lesson_tour(CATALOGUE)) == want


def test_a_link_number_counts_the_steps_of_the_tour_shown():
    only = lesson_tour(CATALOGUE).only(["sentence"])
    assert only.ids[0] == "bank-row" and len(only) == 6
    assert resolve_step("1", only) == (1, None) and resolve_step("heads", only) == (5, None)
    assert resolve_step("7", only) == (1, "There is no step 7 in this tour (it has 6 steps); showing step 1.")
    assert lesson_tour(CATALOGUE).only(["routing"]).ids == ("qk-play", "qk-held-out")
    with pytest.raises(TourError, match="no step goes through"):
        shipped_tour(CATALOGUE, "regression").only(["ideas"])
    with pytest.raises(TourError, match='"maths" is not a section'):
        default_tour(CATALOGUE).only(["maths"])


# ---- the card and the link -----------------------------------------------------------------------

def test_card_text_is_escaped_and_emphasis_is_the_only_markup():
    """A tour file cannot hold markup (the checks refuse it); the card escapes everything anyway."""
    steps = parse_tour(CATALOGUE, tour_with()).steps
    odd = Step(title="<b>bold</b>", text="Watch *this* & <script>alert(1)</script>.", do="d", state={},
               when=steps[0].when, found="f", id="odd", section="regression")
    html = card_html(Tour("A tour", (odd,) + steps[1:], catalogue=CATALOGUE), 1)
    assert "<script>" not in html and "&lt;script&gt;" in html and "&lt;b&gt;" in html
    assert "<em>this</em>" in html and "&amp;" in html
    assert "Step 1 of 3" in html


def test_tour_in_a_link_is_kept_as_written_and_the_tour_shown_resolves_it():
    """The link's parser keeps the value (cut to its length); the tour the page shows says what it cannot open."""
    tour = parse_tour(CATALOGUE, tour_with())
    values, notices = parse_query("tour=9")
    assert values["tour"] == "9" and notices == []
    assert resolve_step(values["tour"], tour) == (1, "There is no step 9 in this tour (it has 3 steps); showing step 1.")
    values, notices = parse_query("tour=Shrink-H-2")
    assert notices == [] and resolve_step(values["tour"], tour) == (2, None)
    assert resolve_step(parse_query("tour=0")[0]["tour"], tour) == (0, None)
    assert resolve_step(parse_query("tour=abc")[0]["tour"], tour) == \
        (1, "There is no step \u201cabc\u201d in this tour; showing step 1.")
    values, notices = parse_query("tour=" + "x" * 500)
    assert values["tour"] == "x" * url_spec()["tour"]["max"] and notices == []
    assert resolve_step(values["tour"], tour)[0] == 1


# ---- the command line ------------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["export", "serve"])
def test_a_bad_tour_file_exits_2_with_one_line(tmp_path, capsys, command):
    bad = tmp_path / "mine.json"
    bad.write_text(json.dumps(tour_with(changed(when=[["max_wieght", ">=", 1]]))), encoding="utf-8")
    argv = [command] + ([str(tmp_path / "out.html")] if command == "export" else []) + ["--tour", str(bad)]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"--tour {bad}: step 2 (shrink-h-2), \"when\" [1]: unknown name \"max_wieght\"" in err
    assert not (tmp_path / "out.html").exists()


def test_export_with_a_tour_file_carries_its_steps(tmp_path, capsys):
    mine = tmp_path / "mine.json"
    data = tour_with(changed(title="My own step"), at=1)
    mine.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "lecture.html"
    assert cli.main(["export", str(out), "--sections", "regression", "--tour", str(mine)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "My own step" in html and "Step 1 of 3" in html
    assert cli.main(["export", str(out), "--sections", "sentence", "--tour", str(mine)]) == 2
    assert "regression" in capsys.readouterr().err


def test_serve_passes_a_checked_tour_to_the_server_by_its_path(tmp_path, monkeypatch):
    """The tour is checked before the server starts, and reaches it by its path (an environment variable)."""
    from app.tour import ENV_TOUR

    mine = tmp_path / "mine.json"
    mine.write_text(json.dumps(tour_with()), encoding="utf-8")
    ran = {}
    monkeypatch.setenv(ENV_TOUR, "")   # put back as it was after the test
    monkeypatch.setattr("os.execv", lambda exe, cmd: ran.setdefault("cmd", cmd))
    assert cli.main(["serve", "--tour", str(mine), "--port", "5999"]) == 0   # this process becomes panel serve
    import os

    assert os.environ[ENV_TOUR] == str(mine.resolve()) and "--tour" not in ran["cmd"]
    from app.tour import active_tour

    assert len(active_tour(CATALOGUE)) == 3


def test_the_readmes_example_tour_is_valid():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```json\n(\{\s*\"title\".*?)```", readme, re.S)
    assert block, "the README shows an example tour"
    tour = parse_tour(CATALOGUE, json.loads(block[1]))
    step = tour.steps[0]
    assert holds(step.when, readouts(CATALOGUE, step.state))


def section_folder(section: str) -> Path:
    """The folder of a section's code, its view's (named for what the section teaches, not always its name)."""
    return Path(inspect.getfile(CONTRACTS[section].build)).parent


def test_the_tour_engine_is_tour_js_only_on_the_shared_library():
    """The card talks to the sections through named models and the page's bus, never by including an engine; the
    helpers it uses (the mirror, the bus) are the page's one library."""
    from app.tour.view import engine_source
    from app.ui.engine import LOAD_LIBRARY

    code = engine_source()
    assert code.startswith(LOAD_LIBRARY) and code.count("const AttnTour =") == 1
    assert "const AttnMirror =" not in code and "const AttnCommon =" not in code
    for section in ("regression", "learning", "sentence", "routing", "ideas"):
        assert read_js(section_folder(section) / "engine.js") not in code, section


def test_links_reach_every_step_of_the_shipped_tour_and_no_further():
    tour = default_tour(CATALOGUE)
    assert url_spec()["tour"]["max"] >= MAX_ID                 # the longest id survives the link's parser
    for k, sid in enumerate(tour.ids, 1):
        for raw in (str(k), sid):
            assert resolve_step(parse_query(f"tour={raw}")[0]["tour"], tour) == (k, None), raw
    past = str(len(tour) + 1)
    assert resolve_step(parse_query(f"tour={past}")[0]["tour"], tour) == \
        (1, f"There is no step {past} in this tour (it has {len(tour)} steps); showing step 1.")
    assert ExplorableState(tour="heads").tour == "heads" and ExplorableState(tour=3).tour == 3


# ---- the tour's step from Python (a notebook's e.tour) --------------------------------------------------------

@pytest.fixture(scope="module")
def shown():
    """The notebook component, built as a notebook shows it."""
    from app.delivery.page import Explorable

    e = Explorable()
    e.__panel__()
    return e


def test_setting_tour_from_python_moves_the_card_and_the_card_sets_it_back(shown):
    """e.tour = 3 after the page is shown sets the synced step the tour engine listens to (tour.js
    fromStepper), and a later rendering starts there; the card's own moves (the browser writing the step)
    set e.tour."""
    e, tour = shown, shown._built.tour
    stepper, config = tour.models["stepper"], tour.models["config"]
    assert stepper.name == "tour_step" and stepper.high == len(default_tour(CATALOGUE))
    assert tour.engine in stepper.js_property_callbacks["change:value"]   # the card hears it
    e.tour = 1
    assert stepper.value == 1
    e.tour = 3
    assert stepper.value == 3 and config["initial_step"] == 3
    e.tour = 0                                                        # 0 hides the card
    assert stepper.value == 0 and config["initial_step"] == 0
    stepper.value = 5                                                 # Next in the browser
    assert e.tour == 5 and config["initial_step"] == 5
    e.tour = default_tour(CATALOGUE).steps[3].id.upper()                       # a step's id, as a link may write it
    assert stepper.value == 4 and config["initial_step"] == 4


def test_a_tour_step_outside_the_tour_is_refused_with_the_parameters_name(shown):
    e = shown
    e.tour = 2
    with pytest.raises(ValueError, match="tour"):
        e.tour = len(default_tour(CATALOGUE)) + 1
    with pytest.raises(ValueError, match="tour"):
        e.tour = -1
    # the card stays where it was, and the parameter says so
    assert e._built.tour.models["stepper"].value == 2 and e.tour == 2


def test_a_step_that_needs_a_hidden_control_is_marked_for_the_card():
    """tour.js opens "More controls" for a step whose state sets the kernel, the tilt, the dataset, a check box."""
    from app.sections import CONTRACTS
    from app.tour.view import needs_more, tour_config

    more = CONTRACTS["regression"].more   # the regression section's contract declares them
    cfg = tour_config(default_tour(CATALOGUE), step=1, more_keys=more)
    marked = [k for k, s in enumerate(cfg["steps"], 1) if s["more"]]
    assert marked and marked == [k for k, s in enumerate(default_tour(CATALOGUE).steps, 1) if s.section == "regression"
                                 and any(key in s.state for key in ("kernel", "key_norm", "dataset", "link", "limits"))]
    assert needs_more(TERMS, {"kernel": "dot"}, more) and needs_more(TERMS, {"limits": True}, more)
    assert not needs_more(TERMS, {"query": 1.0, "bandwidth": 0.05}, more)
    assert not needs_more(TERMS, {"kernel": "gaussian"}, more)
    # each step's look, by the names of the page's models: the readouts are the line under the main plot, and the
    # attention matrix is its box (which scrolls sideways on a phone); test_export checks every one is on the page
    shown_as = {"readouts": "readout_strip", "attention_heatmap": "matrix_box"}
    assert [s["look"] for s in cfg["steps"]] == [
        [shown_as.get(n, n) for n in s.looks_at] for s in default_tour(CATALOGUE).steps]
    assert any("matrix_box" in s["look"] for s in cfg["steps"]) and any("readout_strip" in s["look"] for s in cfg["steps"])


def test_the_card_saves_a_steps_first_figure_and_offers_no_png_for_controls_only():
    """The card's "Save the figure as PNG" saves the first plot a step looks at (a control exported is an empty
    picture); a step that looks at controls only gets no such button (tour.js hides it)."""
    from app.tour.view import build_tour, tour_config

    mine = parse_tour(CATALOGUE, new_tour(new_step("regression", look=["bandwidth_slider", "main_plot"]),
                               new_step("learning", look=["learn_lr_select", "learn_bw_controls"])))
    assert [s["png"] for s in tour_config(mine, step=1)["steps"]] == ["main_plot", None]
    named = _regression_named()
    assert build_tour(tour=mine, step=2, named=named).models["png"].visible is False
    assert build_tour(tour=mine, step=1, named=named).models["png"].visible is True
    cfg = tour_config(default_tour(CATALOGUE), step=1)
    for s, st in zip(cfg["steps"], default_tour(CATALOGUE).steps):
        assert s["png"] == next(n for n in st.looks_at if n in TERMS.figures), st.id
    # the self-attention steps keep the matrix's box on screen, and save the matrix itself
    bank = cfg["steps"][default_tour(CATALOGUE).number_of("bank-row") - 1]
    assert bank["look"][0] == "matrix_box" and bank["png"] == "attention_heatmap"


def _regression_named():
    from app.regression.view import build_regression

    return build_regression(ExplorableState()).named


def test_the_figures_are_the_pages_plots_each_a_name_a_step_may_look_at():
    """FIGURES (the card's PNG, the page's "Save a figure as PNG") are the page's plots, each in its section's
    TERMS.look (so the loader knows its block, to draw it before saving), in the page's order, with a name a person
    reads; only the heads' small matrices are left out."""
    from bokeh.models import Plot

    from app.delivery.export import build_document

    doc = build_document().doc
    plots = {m.name for m in doc.models if isinstance(m, Plot)}
    assert set(TERMS.figures) == {n for n in plots if not re.fullmatch(r"head_heatmap_\d", n)}
    order = [n for sec in TERMS.sections for n in TERMS.look[sec] if n in TERMS.figures]
    assert list(TERMS.figures) == order
    owners = [TERMS.figure_section(n) for n in TERMS.figures]
    assert owners == sorted(owners, key=TERMS.sections.index)
    for name, words in TERMS.figures.items():
        assert words[0].isupper() and len(words) <= 60 and "<" not in words and "&" not in words, name


def test_what_shows_a_steps_hidden_control_is_its_own_switch_not_what_it_asks_the_student_to_move():
    """Issue 46: a step opened outside presentation mode while a control it asks for is hidden first sets its own
    switches (menus and check boxes of its state), never the settings of the controls it looks at: step 6 (the tilt,
    shown for the dot kernel alone) switches to the dot kernel and leaves the tilt to the student."""
    from app.tour.model import ready_settings

    six = default_tour(CATALOGUE).steps[default_tour(CATALOGUE).number_of("long-keys-win") - 1]
    assert ready_settings(six) == {"regression": {"kernel": "dot"}}
    for step in default_tour(CATALOGUE).steps:
        asked = {TERMS.control_keys[n] for n in step.looks_at if n in TERMS.control_keys}
        for section, values in ready_settings(step).items():
            assert section in TERMS.section_keys and set(values) <= set(TERMS.section_keys[section]), step.id
            assert not set(values) & asked, step.id
            assert all(TERMS.control_kinds[k] in ("select", "toggle", "radio") and step.state[k] == v
                       for k, v in values.items()), step.id


def test_a_page_built_in_a_state_of_its_own_is_prepared_and_presentation_keeps_it():
    """export --present --query 2.5 builds a prepared page: presentation mode then opens its unnamed first step
    without applying the step's state (app/tour/steps.js opening); the opening state, or presentation mode alone,
    is no prepared state."""
    from app.sections import ExplorableState
    from app.tour.view import prepared

    assert not prepared(ExplorableState()) and not prepared(ExplorableState(present=True, tour=3))
    assert prepared(ExplorableState(query=2.5, present=True)) and prepared(ExplorableState(sentence="a b c"))
