"""The notebook component takes a tour file of one's own: ``Explorable(tour_file=...)`` or ``e.tour_file = ...``
(issue #26: "serve --tour, export --tour and the notebook take it")."""

from __future__ import annotations

import json

import pytest

from app.delivery.page import Explorable
from app.tour import load_tour
from app.tour.model import default_tour_path
from app.sections import CATALOGUE

EXAMPLES = default_tour_path().parent / "examples"


def card_steps(e):
    return [s["id"] for s in e._built.tour.models["config"]["steps"]]


def test_a_tour_file_given_at_the_start_is_the_cards():
    path = EXAMPLES / "ideas.json"
    e = Explorable(tour_file=str(path), tour=2)
    e.__panel__()
    assert card_steps(e) == [s.id for s in load_tour(CATALOGUE, path).steps]
    assert e._built.tour.models["stepper"].value == 2


def test_setting_a_tour_file_on_a_shown_page_builds_it_again_at_the_first_step():
    e = Explorable(tour=5)
    layout = e.__panel__()
    before = layout.objects[0]
    lesson = card_steps(e)
    path = EXAMPLES / "sentence.json"
    e.tour_file = str(path)
    assert card_steps(e) == [s.id for s in load_tour(CATALOGUE, path).steps] != lesson
    assert e.tour == 1 and e._built.tour.models["stepper"].value == 1
    assert e.__panel__() is layout and layout.objects[0] is not before   # the same cell, a new page in it


def test_a_step_id_of_the_files_tour_moves_the_card():
    path = EXAMPLES / "sentence.json"
    tour = load_tour(CATALOGUE, path)
    e = Explorable(tour_file=str(path))
    e.__panel__()
    e.tour = tour.steps[-1].id
    assert e._built.tour.models["stepper"].value == len(tour)


@pytest.mark.parametrize("content, reason", [
    (None, "cannot read the file"),
    ("not json", "not valid JSON"),
    (json.dumps({"title": "t", "steps": [{"id": "a", "section": "maths", "title": "x", "text": "y"}]}), "maths"),
])
def test_a_bad_tour_file_is_refused_in_one_line_and_the_page_keeps_its_tour(tmp_path, content, reason):
    path = tmp_path / "tour.json"
    if content is not None:
        path.write_text(content)
    e = Explorable()
    e.__panel__()
    lesson = card_steps(e)
    with pytest.raises(ValueError) as err:
        e.tour_file = str(path)
    message = str(err.value)
    assert message.startswith(f"tour_file {path}") and reason in message and "\n" not in message
    assert e.tour_file is None and card_steps(e) == lesson
    with pytest.raises(ValueError, match="cannot read the file"):
        Explorable(tour_file=str(tmp_path / "missing.json"))


def test_a_step_the_tour_does_not_have_is_refused_and_the_card_stays():
    path = EXAMPLES / "sentence.json"
    e = Explorable(tour_file=str(path))
    e.__panel__()
    e.tour = 2
    with pytest.raises(ValueError, match=r"not a step of this tour .* the card stays at step 2"):
        e.tour = 99
    assert e.tour == 2 and e._built.tour.models["stepper"].value == 2
