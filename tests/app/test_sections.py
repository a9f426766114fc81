"""app/sections.py: one composition for every delivery, in the order a student meets the ideas."""

from __future__ import annotations

import pytest

from app.export import build_static_document
from app.page import Explorable
from app.sections import PAGE_ORDER, SECTIONS, build_sections, check_sections
from app.state import ExplorableState

# the regression's figure grid stands for its section: the served page places the section's parts, not its column
NAMES = {"regression": "figure_grid", "learning": "learning_section", "sentence": "sentence_section",
         "ideas": "ideas_section"}


def _section_order(models):
    """The section names in the order their layouts appear among ``models`` (a depth-first walk)."""
    seen, out = set(), []

    def walk(m):
        if id(m) in seen:
            return
        seen.add(id(m))
        if getattr(m, "name", None) in NAMES.values() and m.name not in out:
            out.append(m.name)
        kids = list(getattr(m, "children", []) or []) + list(getattr(m, "objects", []) or [])  # Bokeh, Panel
        for child in kids:
            walk(child[0] if isinstance(child, tuple) else child)
        obj = getattr(m, "object", None)   # a Panel pane around a Bokeh layout
        if obj is not None and not isinstance(obj, str):
            walk(obj)
    for m in models:
        walk(m)
    return out


def test_sections_come_in_page_order_and_the_learning_follows_the_regression():
    built = build_sections(ExplorableState(), mode="static")
    assert [name for name, _ in built.in_page_order()] == list(PAGE_ORDER)
    assert PAGE_ORDER.index("learning") == PAGE_ORDER.index("regression") + 1
    assert len(built.engines()) == 6 and built.engines()[0] is built.regression.engine
    # the "More controls" disclosure starts after the regression's engine and the tour's
    assert built.engines()[1] is built.tour.engine and built.engines()[2] is built.regression.disclosure


def test_the_offline_file_and_the_served_page_show_the_sections_in_the_same_order():
    offline = _section_order(build_static_document().roots)
    served = _section_order([Explorable()._build()])
    assert offline == served == [NAMES[s] for s in PAGE_ORDER]


def test_a_subset_keeps_the_page_order():
    built = build_sections(ExplorableState(), mode="static", sections=("ideas", "regression", "learning"))
    assert [name for name, _ in built.in_page_order()] == ["regression", "learning", "ideas"]
    assert built.sentence is None


@pytest.mark.parametrize("sections, words", [
    ((), "non-empty subset"),
    (("regression", "charts"), "charts"),
    (("learning",), "learning section drives the regression"),
])
def test_bad_section_lists_are_refused_with_the_reason(sections, words):
    with pytest.raises(ValueError, match=words):
        check_sections(sections)
    assert set(SECTIONS) == set(PAGE_ORDER)
