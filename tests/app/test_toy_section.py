"""A sixth section is one folder and one line in a catalogue (issue 50): the toy section (tests/app/toy/), listed
after the learning section and borrowing the regression's samples through its contract, is handed to a
``Catalogue`` with no patching of any module; the page, the link, the tour's schema and ``tour check`` take it from
its contract alone, and the page's own catalogue does not change."""

from __future__ import annotations

import json

import pytest

from app.contract import Catalogue
from app.delivery.cli import tour_check
from app.delivery.export import build_document, page_html
from app.sections import CATALOGUE, CONTRACTS
from app.state import PageState, parse_query
from app.tour import default_tour, parse_tour, tour_schema

from tests.app.toy.contract import CONTRACT as TOY

ORDER = ("regression", "learning", "toy", "sentence", "routing", "ideas")


@pytest.fixture(scope="module")
def toy_catalogue():
    contracts = [CONTRACTS[n] for n in ORDER if n != "toy"]
    return Catalogue(contracts[:2] + [TOY] + contracts[2:], PageState)


TOY_STEP = {"id": "spread", "section": "toy", "title": "Spread the samples", "text": "The toy spreads them.",
            "do": "Move the slider.", "state": {"toy_spread": 1.5}, "when": [["toy_spread", ">", 1.2]],
            "found": "They spread."}


@pytest.fixture(scope="module")
def page(toy_catalogue):
    first = default_tour(CATALOGUE).steps[0].as_dict()
    tour = parse_tour(toy_catalogue, {"title": "A toy tour", "steps": [first, TOY_STEP]})
    return build_document(sections=("regression", "learning", "toy"), catalogue=toy_catalogue, tour=tour)


def test_the_catalogue_lists_the_toy_where_it_was_put_and_the_pages_own_is_unchanged(toy_catalogue):
    assert toy_catalogue.names == ORDER
    assert "toy" not in CATALOGUE and "toy_spread" not in CATALOGUE.state.param


def test_the_exported_page_has_the_toys_section_with_its_borrowed_samples(page):
    assert [p.name for p in page.built.pages()] == ["regression", "learning", "toy"]
    toy, regression = page.built.views["toy"], page.built.views["regression"]
    assert toy.named["toy_plot"].renderers[0].data_source is regression.ds   # the regression's own source
    assert {b["name"] for b in page.plan["blocks"] if b["section"] == "toy"} == {"toy-plot", "toy-controls"}
    html = page_html(page)
    assert 'data-section="toy"' in html and "Toy.handle" in html
    # the card's toy step: Show me hands its settings to the toy's engine, which publishes its readouts
    step = page.built.tour.models["config"]["steps"][1]
    assert (step["section"], step["glide"], step["asked"], step["apply"]) == ("toy", False, False,
                                                                              {"toy": {"toy_spread": 1.5}})


def test_the_link_takes_the_toys_setting_with_its_bounds(toy_catalogue):
    values, notices = parse_query("toy_spread=1.5&query=2", toy_catalogue.state)
    assert values == {"toy_spread": 1.5, "query": 2.0} and notices == []
    values, notices = parse_query("toy_spread=9", toy_catalogue.state)
    assert values == {"toy_spread": 2.0} and notices == ["toy_spread=9 is outside 0.5 to 2; using 2."]
    assert parse_query("toy_spread=1", CATALOGUE.state)[1] == ["Ignored unknown setting \u201ctoy_spread\u201d."]


def test_the_tours_schema_lists_the_toy(toy_catalogue):
    schema = tour_schema(toy_catalogue)
    assert "toy" in schema["$defs"]["step"]["properties"]["section"]["enum"]
    assert list(schema["$defs"]["state-toy"]["properties"]) == ["toy_spread"]
    names = [a["prefixItems"][0]["const"] for a in schema["$defs"]["condition-toy"]["anyOf"]]
    assert names == ["toy_spread"]


def test_a_tour_with_a_toy_step_passes_tour_check(toy_catalogue, tmp_path):
    step = dict(TOY_STEP)
    path = tmp_path / "toy.json"
    path.write_text(json.dumps({"title": "A toy tour", "steps": [step]}), encoding="utf-8")
    code, out, err = tour_check(toy_catalogue, path)
    assert (code, err) == (0, []) and "1 step" in out[0]
    # the page's own catalogue has no toy section: the same file is refused, with the reason
    code, _, err = tour_check(CATALOGUE, path)
    assert code == 2 and '"toy" is not a section' in err[0]
    # and a goal the toy's Show me does not reach is reported
    step["when"] = [["toy_spread", ">", 1.8]]
    path.write_text(json.dumps({"title": "A toy tour", "steps": [step]}), encoding="utf-8")
    code, _, err = tour_check(toy_catalogue, path)
    assert code == 2 and "Show me does not reach it: toy_spread is 1.5" in err[0]
