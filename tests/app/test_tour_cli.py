"""``attention-explorable tour check FILE`` and ``tour schema``: one line per problem and exit code 2, or a summary."""

from __future__ import annotations

import copy
import json
import re

import pytest

from app.delivery import cli
from app.tour.model import tour_path
from app.tour.schema import schema_path
from attention.datasets import data_path
from app.sections import CATALOGUE

STEP = {"id": "shrink", "section": "regression", "title": "Shrink h", "text": "A small h gives one sample the weight.",
        "do": "Drag h down.", "state": {"bandwidth": 0.05}, "when": [["max_weight", ">=", 0.95]],
        "found": "One sample wins."}


PLAYING = {"id": "play", "section": "learning", "title": "Press Play", "text": "Training moves h downhill.",
           "do": "Press Play.", "state": {"lr": "2", "step": 60},
           "when": [["playing", "==", True], ["learned_excess", "<=", 0.01]], "found": "It runs."}
QK_PLAYING = {"id": "qk", "section": "routing", "title": "Press Play", "text": "W_Q and W_K learn.",
              "do": "Press Play.", "state": {"qk_step": 150},
              "when": [["qk_finished", "==", True], ["qk_playing", "==", True]], "found": "It runs."}


def run(argv, capsys):
    """Run the CLI in-process; return (exit code, stdout lines, stderr lines)."""
    try:
        code = cli.main(argv)
    except SystemExit as e:           # argparse exits on its own errors
        code = e.code
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


def tour_file(tmp_path, *steps, name="mine.json", **top) -> str:
    p = tmp_path / name
    data = {"title": "A tour", "steps": [copy.deepcopy(s) for s in (steps or (STEP,))], **top}
    p.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return str(p)


def step(**fields) -> dict:
    s = copy.deepcopy(STEP)
    s.update(fields)
    return s


def test_the_whole_lesson_is_fine(capsys):
    path = str(tour_path("lesson"))
    code, out, err = run(["tour", "check", path], capsys)
    assert (code, err) == (0, [])
    assert out == [f"{path}: fine: 21 steps (regression 7, learning 4, sentence 6, routing 2, ideas 2, 1 optional); "
                   f"every Show me reaches its step's goal, by the numpy core"]


@pytest.mark.parametrize("section", ["regression", "learning", "sentence", "routing", "ideas"])
def test_each_example_is_fine(capsys, section):
    path = str(data_path("tours", "examples", f"{section}.json"))
    code, out, err = run(["tour", "check", path], capsys)
    assert (code, err) == (0, []) and len(out) == 1 and out[0].startswith(f"{path}: fine: 2 steps ({section} 2")


def written(tmp_path, name, data: bytes | str) -> str:
    p = tmp_path / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return str(p)


# Files an instructor (or anyone) might hand the checker: how to make each, and the words of the one line it gets.
HOSTILE = {
    "an unknown condition key": (lambda d: tour_file(d, step(when=[["colour", "==", 1]])),
                                 'step 1 (shrink), "when" [1]: unknown name "colour"'),
    "a value of the wrong type": (lambda d: tour_file(d, step(state={"bandwidth": "wide"})),
                                  'step 1 (shrink), "state" bandwidth: expected a number, got text'),
    "a section that does not exist": (lambda d: tour_file(d, step(section="sentiment")),
                                      'step 1 (shrink), "section": "sentiment" is not a section'),
    # a file of a few MB is read, and its problem named (10 000 empty steps: the next test)
    "10 000 steps": (lambda d: tour_file(d, *[step(id=f"s{k}") for k in range(10_000)]),
                     '"steps": 10000 steps, at most 40'),
    "a 5 MB text": (lambda d: tour_file(d, step(text="x" * 5_000_000)),
                    'step 1 (shrink), "text": 5000000 characters, at most 400'),
    # ... a larger one is not: it has no step to name, so its size is said plainly
    "a file too large to read": (lambda d: written(d, "huge.json", " " * 9_000_000 + "{}"),
                                 "the file is 9 MB, too large to read as a tour: a tour file is at most 200 kB"),
    "a file a little too large": (lambda d: tour_file(d, step(), **{"$schema": " " * 250_000}),
                                  "the file is 251 kB: a tour file is at most 200 kB"),
    "a number too large for any setting": (lambda d: written(d, "inf.json", json.dumps(
        {"title": "t", "steps": [step(state={"bandwidth": 0.05})]}).replace("0.05", "1e999")),
        'step 1 (shrink), "state" bandwidth: expected a number, got one too large to hold (it reads as infinity)'),
    "a goal far past any number": (lambda d: tour_file(d, step(when=[["max_weight", ">=", 1e308]])),
                                   'there, and the step asks >= a number over a trillion'),
    "a goal nearer 0 than a millionth": (lambda d: tour_file(d, step(when=[["max_weight", "<=", 1e-300]])),
                                         "the step asks <= a number between 0 and 0.000001"),
    "a line break in a field's name": (lambda d: tour_file(d, step(**{"col\nour": 1})),
                                       'step 1 (shrink), "col\\nour": unknown field'),
    "<b> in a title": (lambda d: tour_file(d, step(title="<b>Shrink</b> h")),
                       'step 1 (shrink), "title": markup (\'<b\')'),
    "<script> in a title": (lambda d: tour_file(d, step(title="Shrink <script>alert(1)</script>")),
                            'step 1 (shrink), "title": markup (\'<s\')'),
    "bad JSON": (lambda d: written(d, "broken.json", '{"title": "t", "steps": ['),
                 "not valid JSON (line 1, column 26"),
    "a file not in UTF-8": (lambda d: written(d, "latin1.json", '{"title": "Caf\u00e9"}'.encode("latin-1")),
                            "not UTF-8 text"),
    "a missing file": (lambda d: str(d / "nowhere.json"), "cannot read the file: No such file or directory"),
    "a folder": (lambda d: str(d), "cannot read the file"),
    "a name of another section": (lambda d: tour_file(d, step(when=[["top_word", "==", "river"]])),
                                  "top_word is a name of the sentence section"),
    "a goal Show me does not reach": (lambda d: tour_file(d, step(state={"bandwidth": 5.0})),
                                      'step 1 (shrink), "when" [1]: Show me does not reach it: max_weight is'),
    # Show me stops Play and never presses it: a goal that only a running Play meets is not reached
    "a goal only Play meets": (lambda d: tour_file(d, PLAYING), 'step 1 (play), "when" [1]: Show me does not reach '
                                                                'it: playing is false there'),
    "a goal only the routing's Play meets": (lambda d: tour_file(d, QK_PLAYING),
                                             'step 1 (qk), "when" [2]: Show me does not reach it: qk_playing is false'),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_file_gets_one_line_and_exit_code_2(tmp_path, capsys, name):
    make, words = HOSTILE[name]
    path = make(tmp_path)
    code, out, err = run(["tour", "check", path], capsys)
    assert code == 2 and out == []
    assert len(err) == 1, err
    assert err[0].startswith(f"{path}: ") and words in err[0], err
    # one short, plain line, whatever the file held (the file's own path, wherever it lies, is not the checker's)
    line = err[0][len(f"{path}: "):]
    assert len(line) < 320, err
    assert not re.search(r"\d[eE][+\-]?\d|\d{16}|bytes", line), err   # no exponent, no 309 digits, no byte counts


def test_ten_thousand_small_steps_are_counted_not_read(tmp_path, capsys):
    path = tmp_path / "many.json"
    path.write_text(json.dumps({"title": "t", "steps": [{}] * 10_000}), encoding="utf-8")
    code, out, err = run(["tour", "check", str(path)], capsys)
    assert code == 2 and err == [f'{path}: "steps": 10000 steps, at most 40']


def test_every_problem_is_one_line_naming_the_step_and_field(tmp_path, capsys):
    path = tour_file(tmp_path, step(text=3, state={"kernel": "cosine"}),
                     step(id="late", section="learning", state={"lr": "2"}, when=[["max_weight", ">=", 1]]))
    code, out, err = run(["tour", "check", path], capsys)
    assert code == 2 and out == []
    assert [line.split(": ", 2)[1] for line in err] == ['step 1 (shrink), "text"', 'step 1 (shrink), "state" kernel',
                                                        'step 2 (late), "when" [1]']


def test_a_flood_of_problems_is_cut_short(tmp_path, capsys):
    path = tour_file(tmp_path, *[step(id=f"s{k}", text=3, do=4) for k in range(30)])   # 60 problems
    code, out, err = run(["tour", "check", path], capsys)
    assert code == 2 and len(err) == cli.MAX_ERROR_LINES + 1
    assert err[-1] == f"{path}: and {60 - cli.MAX_ERROR_LINES} more problems"


def test_sections_leave_out_steps_with_a_notice(capsys):
    path = str(tour_path("lesson"))
    code, out, err = run(["tour", "check", path, "--sections", "regression,sentence"], capsys)
    assert (code, err) == (0, [])
    assert out == [f"{path}: notice: left out 8 steps of learning, routing, ideas (steps 8-11, 18-21)",
                   f"{path}: fine: 13 steps (regression 7, sentence 6); every Show me reaches its step's goal, "
                   f"by the numpy core"]
    code, out, err = run(["tour", "check", path, "--sections", "sentence, regression, ideas , learning"], capsys)
    assert code == 0 and out[0] == f"{path}: notice: left out 2 steps of routing (steps 18, 19)"
    assert len(out) == 2 and "fine: 19 steps" in out[1]
    code, out, err = run(["tour", "check", path, "--sections", "routing,sentence, regression, ideas , learning"], capsys)
    assert code == 0 and len(out) == 1 and "fine: 21 steps" in out[0]   # nothing left out: no notice


@pytest.mark.parametrize("sections, words", [
    ("regression,maths", '--sections: "maths" is not a section (one of regression, learning, sentence, routing, '
                         'ideas)'),
    (" , ", "--sections: name at least one section, e.g. --sections regression,sentence"),
])
def test_bad_sections_are_one_line(capsys, sections, words):
    path = str(tour_path("lesson"))
    code, out, err = run(["tour", "check", path, "--sections", sections], capsys)
    assert code == 2 and err == [f"{path}: {words}"]


def test_sections_that_leave_no_step_are_an_error(capsys):
    path = str(tour_path("regression"))
    code, out, err = run(["tour", "check", path, "--sections", "ideas"], capsys)
    assert code == 2 and err == [f"{path}: --sections: no step goes through ideas (the tour's sections: regression)"]


def test_a_file_from_before_ids_is_fine(tmp_path, capsys):
    old = {k: v for k, v in STEP.items() if k not in ("id", "section")}
    path = tour_file(tmp_path, old, dict(old, title="Shrink h again"))
    code, out, err = run(["tour", "check", path], capsys)
    assert code == 0 and out[0].endswith("fine: 2 steps (regression 2); every Show me reaches its step's goal, "
                                         "by the numpy core")


def test_the_schema_is_printed(capsys):
    code, out, err = run(["tour", "schema"], capsys)
    assert code == 0 and err == []
    assert "\n".join(out) + "\n" == schema_path().read_text(encoding="utf-8")


def test_tour_needs_a_subcommand(capsys):
    code, out, err = run(["tour"], capsys)
    assert code == 2 and err == ["attention-explorable tour: error: the following arguments are required: "
                                 "{check,schema}"]


@pytest.mark.parametrize("command", ["export", "serve"])
def test_serve_and_export_print_every_problem_of_a_tour_one_line_each(tmp_path, capsys, command):
    path = tour_file(tmp_path, step(text=3, state={"kernel": "cosine"}),
                     step(id="late", when=[["max_wieght", ">=", 1]]))
    argv = [command] + ([str(tmp_path / "out.html")] if command == "export" else []) + ["--tour", path]
    code, out, err = run(argv, capsys)
    assert code == 2 and out == [] and not (tmp_path / "out.html").exists()
    assert [line.split(": ", 4)[2:4] for line in err] == [
        ["--tour " + path, 'step 1 (shrink), "text"'], ["--tour " + path, 'step 1 (shrink), "state" kernel'],
        ["--tour " + path, 'step 2 (late), "when" [1]']]
    assert all(line.startswith(f"attention-explorable {command}: error: --tour {path}: ") for line in err)


def test_export_with_sections_drops_the_others_steps_with_a_notice(tmp_path, capsys):
    """Not an error: the file holds the steps of its sections, and says which were left out."""
    out_file = tmp_path / "two.html"
    code, out, err = run(["export", str(out_file), "--sections", "regression,sentence"], capsys)
    assert code == 0
    assert err == ["attention-explorable export: notice: left out 8 steps of learning, routing, ideas "
                   "(steps 8-11, 18-21): their sections are not in this file"]
    html = out_file.read_text(encoding="utf-8")
    assert "Step 1 of 13" in html and "Step 1 of 21" not in html
    from app.tour import default_tour

    kept = [s for s in default_tour(CATALOGUE).steps if s.section in ("regression", "sentence")]
    left = [s for s in default_tour(CATALOGUE).steps if s.section not in ("regression", "sentence")]
    assert all(json.dumps(s.id) in html for s in kept) and not any(json.dumps(s.title)[1:-1] in html for s in left)
