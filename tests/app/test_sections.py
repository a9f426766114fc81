"""app/sections.py: one composition for the offline file and the notebook component, in the order a student
meets the ideas, each section as its blocks and its engines."""

from __future__ import annotations

import pytest

from app.sections import PAGE_ORDER, SECTIONS, ExplorableState, build_sections, check_sections
from app.ui.engine import by_name


@pytest.fixture(scope="module")
def notebook_layout(component):
    """The Bokeh layout the notebook component shows (the first object of its Panel column)."""
    return component.__panel__()[0].object


def test_sections_come_in_page_order_and_the_learning_follows_the_regression(offline):
    built = offline.built
    assert [name for name, _ in built.in_page_order()] == list(PAGE_ORDER)
    assert PAGE_ORDER.index("learning") == PAGE_ORDER.index("regression") + 1
    engines = built.engines()
    assert engines[0] is built.regression.engine
    # the step card's engine and "More controls" start after the regression's own engine
    assert engines[1] is built.tour.engine and engines[2] is built.regression.disclosure
    assert engines[3:] == [e for name in PAGE_ORDER[1:] for e in built.engines_of(name)]
    assert len(engines) == len(set(engines)) == 3 + len(PAGE_ORDER) - 1   # every other section: one engine


def test_each_section_gives_its_blocks_and_the_step_card_heads_the_regressions_side_column(offline):
    pages = offline.built.pages()
    assert [p.name for p in pages] == list(PAGE_ORDER)
    for p in pages:
        assert p.blocks and all(b.name.startswith(p.name) or b.name == "tour" for b in p.blocks), p.name
        assert p.engines == offline.built.engines_of(p.name)
    reg = pages[0]
    side = [b for b in reg.blocks if b.place == "side"]
    assert side[0].name == "tour" and side[0].model is offline.built.tour.layout and side[0].first
    assert [b.name for b in reg.blocks].count("tour") == 1


def test_the_offline_file_and_the_notebook_show_the_same_sections_in_the_same_order(offline, notebook_layout):
    assert notebook_layout.name == "explorable_page"
    assert [c.name for c in notebook_layout.children] == [f"{s}_section" for s in PAGE_ORDER]
    # the same models, by name: every block of every section, nothing left out on either side
    served = set(by_name(notebook_layout)) - {"explorable_page"} - {f"{s}_section" for s in PAGE_ORDER}
    offline_names = {m.name for m in offline.doc.models if m.name}
    assert served == offline_names


def test_a_subset_keeps_the_page_order():
    built = build_sections(ExplorableState(), sections=("ideas", "regression", "learning"))
    assert [name for name, _ in built.in_page_order()] == ["regression", "learning", "ideas"]
    assert built.sentence is None
    assert [p.name for p in built.pages()] == ["regression", "learning", "ideas"]


@pytest.mark.parametrize("sections, words", [
    ((), "non-empty subset"),
    (("regression", "charts"), "charts"),
    (("learning",), "learning section draws on the regression section"),
])
def test_bad_section_lists_are_refused_with_the_reason(sections, words):
    with pytest.raises(ValueError, match=words):
        check_sections(sections)
    assert set(SECTIONS) == set(PAGE_ORDER)
