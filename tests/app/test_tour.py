"""The guided tour without a browser: the file format's checks, the shipped tour, conditions with the core, the CLI."""

from __future__ import annotations

import copy
import json
import re

import pytest

from app import cli
from app.state import ExplorableState, parse_query, url_spec
from app.tour import (MAX_STEPS, NAMES, STATE_KEYS, TourError, default_tour, default_tour_path, holds, load_tour,
                      parse_tour, readouts)
from app.tour.model import compare, full_state
from app.tour.view import card_html, tour_length

GOOD_STEP = {"title": "Shrink h", "text": "A small h gives one sample all the weight.", "do": "Drag h down.",
             "state": {"bandwidth": 0.05}, "when": [["max_weight", ">=", 0.95]], "found": "One sample wins."}


def tour_with(step: dict | None = None, *, at: int = 2, **top) -> dict:
    """A valid three-step tour whose step ``at`` (from 1) is replaced by ``step``."""
    steps = [copy.deepcopy(GOOD_STEP) for _ in range(3)]
    if step is not None:
        steps[at - 1] = step
    return {"title": "A tour", "steps": steps, **top}


def changed(**fields) -> dict:
    s = copy.deepcopy(GOOD_STEP)
    for k, v in fields.items():
        if v is ...:
            del s[k]
        else:
            s[k] = v
    return s


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
    (changed(state=[1]), '"state"', "expected an object"),
    (changed(state={"sentence": "the bank"}), '"state" sentence', "not a setting a step can set"),
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
    ("just text", "step 2", "expected an object"),
]


@pytest.mark.parametrize("step, field, words", BAD_STEPS, ids=[f"{f}:{w}" for _, f, w in BAD_STEPS])
def test_a_bad_step_is_named_with_its_field(step, field, words):
    with pytest.raises(TourError) as err:
        parse_tour(tour_with(step, at=2))
    msg = str(err.value)
    assert msg.startswith(f"step 2, {field}") or (field == "step 2" and msg.startswith("step 2")), msg
    assert words in msg, msg
    assert "\n" not in msg


@pytest.mark.parametrize("data, words", [
    ([], "expected an object"),
    ({"steps": [GOOD_STEP]}, '"title": missing'),
    ({"title": "t", "steps": []}, '"steps": expected a non-empty list'),
    ({"title": "t", "steps": [GOOD_STEP], "author": "me"}, '"author": unknown field'),
    ({"title": "t", "steps": [GOOD_STEP] * (MAX_STEPS + 1)}, f"at most {MAX_STEPS}"),
])
def test_a_bad_tour_is_named_with_its_field(data, words):
    with pytest.raises(TourError, match=re.escape(words)):
        parse_tour(data)


def test_bad_json_and_unreadable_files_say_so(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"title": "t", "steps": [}', encoding="utf-8")
    with pytest.raises(TourError, match=r"not valid JSON \(line 1, column 26"):
        load_tour(bad)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(TourError, match="not UTF-8"):
        load_tour(binary)
    with pytest.raises(TourError, match="cannot read"):
        load_tour(tmp_path / "missing.json")


def test_a_good_file_loads(tmp_path):
    p = tmp_path / "mine.json"
    p.write_text(json.dumps(tour_with()), encoding="utf-8")
    tour = load_tour(p)
    assert len(tour) == 3 and tour.steps[0].when == (("max_weight", ">=", 0.95),)


# ---- the shipped tour -----------------------------------------------------------------------------

def test_the_shipped_tour_validates_and_has_six_to_ten_steps():
    tour = default_tour()
    assert 6 <= len(tour) <= 10
    raw = json.loads(default_tour_path().read_text(encoding="utf-8"))
    assert parse_tour(raw).as_dict() == tour.as_dict()   # nothing in the file is dropped or rewritten


def test_the_shipped_tour_reads_as_plain_text():
    for i, s in enumerate(default_tour().steps, 1):
        for text in (s.title, s.text, s.do, s.found):
            assert not re.search(r"\d[eE][+\-\u2212]?\d", text), (i, text)
            assert not re.search(r"(?<![\w)])-\d", text), (i, text)
            assert "<" not in text and "&" not in text, (i, text)


@pytest.mark.parametrize("k", range(1, len(default_tour()) + 1))
def test_show_me_reaches_a_state_that_satisfies_the_step(k):
    """The state "show me" moves to, computed with the numpy core, meets the step's own condition..."""
    step = default_tour().steps[k - 1]
    assert holds(step.when, readouts(step.state)), (k, readouts(step.state))


@pytest.mark.parametrize("k", range(1, len(default_tour()) + 1))
def test_the_opening_state_does_not_satisfy_any_step(k):
    """... and the page as it opens does not: every step asks the student to change something."""
    step = default_tour().steps[k - 1]
    assert not holds(step.when, readouts({})), k


def test_readouts_are_the_cores_numbers():
    import attention

    d = attention.load_dataset()
    r = readouts({"query": 3.2, "bandwidth": 0.62})
    core = attention.readout(3.2, d.x, d.y, bandwidth=0.62)
    assert r["max_weight"] == core.max_weight and r["effective_points"] == core.effective_points
    assert r["effective_share"] == pytest.approx(core.effective_points / 24)
    assert set(r) == set(NAMES)
    tilted = readouts({"kernel": "dot", "key_norm": 2.0})
    assert tilted["winner_gap"] > 2 and tilted["max_weight"] > 0.99   # a far, long key wins
    assert readouts({"kernel": "dot"})["winner_gap"] == 0.0            # equal lengths: the nearest wins
    assert readouts({"bandwidth": 0.2, "temperature": 9.61})["h_eff"] == pytest.approx(0.62)
    assert readouts({"bandwidth": 0.27})["loo_excess"] < 0.01 < readouts({})["loo_excess"]


@pytest.mark.parametrize("a, op, b, want", [
    (0.95, ">=", 0.95, True), (0.95 - 1e-12, ">=", 0.95, True), (0.94, ">=", 0.95, False),
    (1.0, "<", 1.0, False), (0.0, "==", 0, True), (0.05, "!=", 0, True), ("dot", "==", "dot", True),
    ("dot", "!=", "gaussian", True), ("dot", "<", "gaussian", False),
])
def test_compare(a, op, b, want):
    assert compare(a, op, b) is want


def test_full_state_fills_in_the_defaults_as_a_link_does():
    spec = url_spec()
    s = full_state({"bandwidth": 0.05})
    assert set(s) == set(STATE_KEYS) and s["bandwidth"] == 0.05 and s["query"] == spec["query"]["default"]


# ---- the card and the link -----------------------------------------------------------------------

def test_card_text_is_escaped_and_emphasis_is_the_only_markup():
    data = tour_with(changed(title="<b>bold</b>", text="Watch *this* & <script>alert(1)</script>."), at=1)
    html = card_html(parse_tour(data), 1)
    assert "<script>" not in html and "&lt;script&gt;" in html and "&lt;b&gt;" in html
    assert "<em>this</em>" in html and "&amp;" in html
    assert "Step 1 of 3" in html


def test_tour_in_a_link_is_clamped_to_the_tours_steps():
    tour = parse_tour(tour_with())
    with tour_length(tour):
        values, notices = parse_query("tour=9")
        assert values["tour"] == 3 and notices == ["tour=9 is outside 0 to 3; using 3."]
        values, notices = parse_query("tour=abc")
        assert "tour" not in values and notices == ["Ignored tour=\u201cabc\u201d: not a whole number."]
        assert parse_query("tour=0")[0]["tour"] == 0
    assert ExplorableState.param.tour.bounds[1] >= len(default_tour())


# ---- the command line ------------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["export", "serve"])
def test_a_bad_tour_file_exits_2_with_one_line(tmp_path, capsys, command):
    bad = tmp_path / "mine.json"
    bad.write_text(json.dumps(tour_with(changed(when=[["max_wieght", ">=", 1]]))), encoding="utf-8")
    argv = [command] + ([str(tmp_path / "out.html")] if command == "export" else []) + ["--tour", str(bad)]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"--tour {bad}: step 2, \"when\" [1]: unknown name \"max_wieght\"" in err
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
    from app.tour import ENV_TOUR

    mine = tmp_path / "mine.json"
    mine.write_text(json.dumps(tour_with()), encoding="utf-8")
    ran = {}
    monkeypatch.setenv(ENV_TOUR, "")   # put back as it was after the test
    monkeypatch.setattr("os.execv", lambda exe, cmd: ran.setdefault("cmd", cmd))
    monkeypatch.setattr("app.live.server.serve", lambda **kw: ran.setdefault("live", kw))
    assert cli.main(["serve", "--tour", str(mine), "--port", "5999"]) == 0   # the live page
    assert ran["live"]["port"] == 5999 and "cmd" not in ran
    import os

    assert os.environ[ENV_TOUR] == str(mine.resolve())
    from app.tour import active_tour

    assert len(active_tour()) == 3
    monkeypatch.setenv(ENV_TOUR, "")
    assert cli.main(["serve", "--sessions", "--tour", str(mine), "--port", "5999"]) == 0   # a session per visit
    assert os.environ[ENV_TOUR] == str(mine.resolve()) and "--tour" not in ran["cmd"]


def test_the_readmes_example_tour_is_valid():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```json\n(\{\n  \"title\".*?)```", readme, re.S)
    assert block, "the README shows an example tour"
    tour = parse_tour(json.loads(block[1]))
    step = tour.steps[0]
    assert holds(step.when, readouts(step.state))


def test_the_tour_engine_is_the_mirror_and_tour_js_only():
    """The card talks to the regression section through named models, never by including its engine."""
    from app.tour.view import engine_source

    code = engine_source()
    assert "const AttnMirror" in code and "const AttnTour" in code
    assert "Explorable" not in code and "AttnCommon" not in code


def test_links_reach_every_step_of_the_shipped_tour_and_no_further():
    assert ExplorableState.param.tour.bounds == (0, len(default_tour()))
    assert url_spec()["tour"]["hi"] == len(default_tour()) <= MAX_STEPS


# ---- the tour's step from Python (a notebook's e.tour) --------------------------------------------------------

def test_setting_tour_from_python_moves_the_card_and_the_card_sets_it_back():
    """e.tour = 3 after the page is shown sets the synced step the tour engine listens to (tour.js
    fromStepper), and a later rendering starts there; the card's own moves (the browser writing the step)
    set e.tour."""
    from app.page import Explorable

    e = Explorable()
    e.__panel__()
    stepper, config = e._tour.models["stepper"], e._tour.models["config"]
    engine = e._tour.engine
    assert stepper.value == 1 and stepper.name == "tour_step"
    assert engine in stepper.js_property_callbacks["change:value"]   # the card hears it
    e.tour = 3
    assert stepper.value == 3 and config["initial_step"] == 3
    e.tour = 0                                                        # 0 hides the card
    assert stepper.value == 0 and config["initial_step"] == 0
    stepper.value = 5                                                 # Next in the browser
    assert e.tour == 5 and config["initial_step"] == 5


def test_a_tour_step_outside_the_tour_is_refused_with_the_parameters_name():
    from app.page import Explorable

    e = Explorable()
    e.__panel__()
    with pytest.raises(ValueError, match="tour"):
        e.tour = len(default_tour()) + 1
    with pytest.raises(ValueError, match="tour"):
        e.tour = -1
    assert e._tour.models["stepper"].value == 1   # the card stays where it was


def test_a_step_that_needs_a_hidden_control_is_marked_for_the_card():
    """tour.js opens "More controls" for a step whose state sets the kernel, the tilt, the dataset, a check box."""
    from app.tour.view import needs_more, tour_config

    cfg = tour_config(default_tour(), mode="static", step=1)
    marked = [k for k, s in enumerate(cfg["steps"], 1) if s["more"]]
    assert marked == [k for k, s in enumerate(default_tour().steps, 1)
                      if any(key in s.state for key in ("kernel", "key_norm", "dataset", "link", "limits"))]
    assert needs_more({"kernel": "dot"}) and needs_more({"limits": True})
    assert not needs_more({"query": 1.0, "bandwidth": 0.05}) and not needs_more({"kernel": "gaussian"})
