"""The sections' declarations (app/contract.py) are what the page has: every declared control is a widget of the
built page, by its name, kind, words and value; and what the tour, the link grammar, "More controls" and the
notebook component know of the sections comes from those declarations, so a new declaration reaches all of them.
"""

from __future__ import annotations

import dataclasses

import param
import pytest
from bokeh.models import Checkbox, NumericInput, RadioButtonGroup, Select, Slider, TextInput

from app.contract import Catalogue, Control, Readout, SectionContract
from app.delivery.page import _LINKS
from app.sections import CATALOGUE, CONTRACTS, PAGE_ORDER, ExplorableState, build_sections, synced_controls, url_spec
from app.state import PageState
from app.tour.terms import terms
from app.ui.engine import by_name

WIDGETS = {"slider": Slider, "log_slider": Slider, "select": Select, "toggle": Checkbox, "radio": RadioButtonGroup,
           "text": TextInput, "number": NumericInput}


@pytest.fixture(scope="module")
def named():
    built = build_sections(ExplorableState())
    out = {}
    for page in built.pages():
        for block in page.blocks:
            out.update(by_name(block.model))
    return out


def _controls():
    return [(name, c) for name in PAGE_ORDER for c in CONTRACTS[name].controls]


@pytest.mark.parametrize("section, control", _controls(), ids=[f"{s}.{c.key}" for s, c in _controls()])
def test_every_declared_control_is_a_widget_of_the_page_with_its_name_kind_words_and_value(named, section, control):
    w = named.get(control.name)
    assert isinstance(w, WIDGETS[control.kind]), f"{control.name}: {type(w).__name__}"
    words = getattr(w, "label", None) if control.kind == "toggle" else getattr(w, "title", None)
    if control.kind != "radio":
        assert words == control.label
    default = ExplorableState.param[control.key].default
    got, want = getattr(w, control.prop), control.to_widget(default)
    if control.key == "sentence" or (control.kind == "select" and control.key == "token"):
        return   # the sentence section shows its analysed sentence and a menu of its words
    assert got == pytest.approx(want) if isinstance(want, float) else got == want, (got, want)


def test_the_tour_knows_each_sections_settings_names_figures_and_words_from_its_contract():
    T = terms(CATALOGUE)
    for name, c in CONTRACTS.items():
        assert T.section_keys[name] == c.step_keys
        assert T.look[name][0] == (c.look_first or list(c.figures)[0])
        assert set(T.look[name]) == set(c.figures) | {k.name for k in c.controls} | set(c.look)
        assert T.section_words[name] == c.words
        assert {n for n, cond in T.conditions.items() if cond.section == name} == set(c.conditions)
    assert list(T.figures) == [f for name in PAGE_ORDER for f in CONTRACTS[name].figures]


def test_the_links_and_more_controls_come_from_the_declarations():
    assert set(url_spec()) == {k for c in CONTRACTS.values() for k in c.keys} | {"tour", "keys", "embed"}
    assert [(link[0], link[2]) for link in _LINKS] == [(s, c.key) for s, c in synced_controls()]
    assert CONTRACTS["regression"].more == tuple(c.key for c in CONTRACTS["regression"].controls if c.role == "more")


def test_a_new_declaration_reaches_the_tours_settings_look_names_and_units():
    """A check box declared on a copy of the regression's contract: the tour takes it as a setting a step may set
    (true or false), and its widget as a name a step may look at."""
    reg = CONTRACTS["regression"]

    class Wider(reg.state):
        grid = param.Boolean(False, doc="A test setting.")

    wider = dataclasses.replace(reg, state=Wider, controls=reg.controls + (
        Control("grid", "grid_toggle", "toggle", "show a grid", role="more"),))
    T = terms(Catalogue([wider, *(c for n, c in CONTRACTS.items() if n != "regression")], PageState))
    assert "grid" in T.section_keys["regression"] and "grid_toggle" in T.look["regression"]
    assert T.setting_units["grid"] == "true or false"
    assert wider.more[-1] == "grid"
    assert "grid" not in terms(CATALOGUE).section_keys["regression"]   # the page's catalogue is another


def test_a_contract_refuses_a_control_of_no_setting_a_name_given_twice_and_an_unknown_kind():
    reg = CONTRACTS["regression"]
    with pytest.raises(ValueError, match="not one of its settings"):
        dataclasses.replace(reg, controls=reg.controls + (Control("nope", "nope_toggle", "toggle", "no"),))
    with pytest.raises(ValueError, match="more than once"):
        dataclasses.replace(reg, look=("main_plot",))
    with pytest.raises(ValueError, match="kind"):
        Control("query", "q", "dial", "query")
    with pytest.raises(ValueError, match="role"):
        Control("query", "q", "slider", "query", role="hidden")
    with pytest.raises(ValueError, match="kind"):
        Readout("colour", "a colour", "none")
    assert isinstance(reg, SectionContract)


def test_a_catalogue_refuses_a_section_twice_a_borrowing_it_cannot_keep_and_two_gliders():
    """What a catalogue checks of its contracts (app/contract.py Catalogue): each section once, a borrowing only
    from an earlier section that lends it, one section at most whose sliders Show me glides."""
    reg, learning, sentence, ideas = (CONTRACTS[n] for n in ("regression", "learning", "sentence", "ideas"))
    with pytest.raises(ValueError, match="each section once"):
        Catalogue([reg, reg], PageState)
    with pytest.raises(ValueError, match="borrows from sentence, which comes after it"):
        Catalogue([reg, ideas, sentence], PageState)
    with pytest.raises(ValueError, match="borrows nope from regression, which does not lend it"):
        Catalogue([reg, dataclasses.replace(learning, borrows={"regression": ("ds", "nope")})], PageState)
    with pytest.raises(ValueError, match="needs regression, which the catalogue does not list"):
        Catalogue([learning], PageState)
    with pytest.raises(ValueError, match="glides one section"):
        Catalogue([reg, dataclasses.replace(sentence, show_me="glide")], PageState)
    assert Catalogue([sentence, ideas], PageState).glider is None   # a page without the regression glides nothing
