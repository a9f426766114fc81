"""app/ui/layout.py: the page cut into blocks, the skeleton the offline file writes, and the notebook's layout."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from bokeh.layouts import column, row
from bokeh.models import Button, CustomJS, Div, GridBox, Slider
from bokeh.plotting import figure

from app.ui import theme
from app.ui.layout import (GRID_PLACES, PLACES, Block, SectionBlocks, bokeh_layout, element_id, layout_names,
                           placeholder, section_html)


class _Skeleton(HTMLParser):
    """For every element with an id: the classes of the elements around it, outermost first."""

    def __init__(self):
        super().__init__()
        self.stack, self.where, self.order, self.styles = [], {}, [], {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id", "").startswith("attn-b-"):
            self.where[a["id"]] = [c for c in self.stack if c]
            self.order.append(a["id"])
            self.styles[a["id"]] = a.get("style")
        self.stack.append((a.get("class") or "").split(" ")[0])

    def handle_endtag(self, tag):
        self.stack.pop()


def _parse(html: str) -> _Skeleton:
    p = _Skeleton()
    p.feed(html)
    assert p.stack == [], "every element is closed"
    return p


def _blocks(*specs) -> list[Block]:
    return [Block(name, Div(text=name, name=f"div-{name}"), place, height=height, css_height=css)
            for name, place, height, css in specs]


# ---- Block ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("place", ["top", "", "Stage", "sidebar"])
def test_a_block_in_an_unknown_place_is_refused_with_the_places_allowed(place):
    with pytest.raises(ValueError, match="place must be one of head, stage, xplots, side, body") as info:
        Block("plot", Div(), place)
    assert repr(place) in str(info.value)


@pytest.mark.parametrize("name", ["my plot", "plot_1", "<b>x</b>", "a\"b", ""])
def test_a_block_name_that_cannot_be_an_id_or_a_class_is_refused(name):
    with pytest.raises(ValueError, match="letters, digits and '-'"):
        Block(name, Div(), "body")


def test_a_good_block_names_its_element_and_keeps_its_height_until_drawn():
    b = Block("regression-plot-2", Div(), "stage", height=300)
    assert element_id(b) == "attn-b-regression-plot-2"
    assert placeholder(b) == ('<div class="attn-block b-regression-plot-2" id="attn-b-regression-plot-2" '
                              'style="min-height:300px"></div>')
    # a block whose height the page's CSS sets, or a hidden one (height 0), reserves nothing inline
    assert "style" not in placeholder(Block("p", Div(), "stage", height=300, css_height=True))
    assert "style" not in placeholder(Block("p", Div(), "side"))
    assert set(PLACES) > set(GRID_PLACES)


# ---- section_html -----------------------------------------------------------------------------------------

def test_section_html_puts_each_placeholder_in_its_place_in_order():
    section = SectionBlocks("demo", _blocks(("b1", "body", 10, False), ("h1", "head", 10, False),
                                            ("s1", "side", 10, False), ("p1", "stage", 10, True),
                                            ("x1", "xplots", 10, True), ("p2", "stage", 10, False),
                                            ("s2", "side", 10, False), ("b2", "body", 10, False),
                                            ("x2", "xplots", 10, True)))
    html = section_html(section)
    sk = _parse(html)
    want = {"h1": ["attn-sec", "attn-head"], "p1": ["attn-sec", "attn-grid", "attn-fig", "attn-stage"],
            "p2": ["attn-sec", "attn-grid", "attn-fig", "attn-stage"],
            "x1": ["attn-sec", "attn-grid", "attn-fig", "attn-xplots"],
            "x2": ["attn-sec", "attn-grid", "attn-fig", "attn-xplots"],
            "s1": ["attn-sec", "attn-grid", "attn-side"], "s2": ["attn-sec", "attn-grid", "attn-side"],
            "b1": ["attn-sec", "attn-body"], "b2": ["attn-sec", "attn-body"]}
    assert {k.removeprefix("attn-b-"): v for k, v in sk.where.items()} == want
    # the skeleton's order: head, the figure (stage, then the plots under it), the side column, the body;
    # within a place, the blocks keep the order the section gave them
    assert [k.removeprefix("attn-b-") for k in sk.order] == ["h1", "p1", "p2", "x1", "x2", "s1", "s2", "b1", "b2"]
    assert html.startswith('<section class="attn-sec attn-sec-demo" id="attn-sec-demo" data-section="demo">')


def test_every_section_has_a_slot_for_the_step_card_at_each_place_it_can_stand():
    """app/tour/tour.js moves the card to the section of the step it shows: a section with a figure has two slots,
    at the top of its side column (the figure kept in view) and above the figure (the figure scrolls with the page
    on a phone); a section of one column has one, at the top of its body."""
    slot = lambda name, where: f'<div class="attn-card-slot" data-section="{name}" data-where="{where}"></div>'  # noqa: E731
    grid = section_html(SectionBlocks("g", _blocks(("p", "stage", 0, False), ("s", "side", 0, False),
                                                   ("b", "body", 0, False))))
    assert grid.count("attn-card-slot") == 2
    assert f'{slot("g", "top")}<div class="attn-grid">' in grid
    assert f'<div class="attn-side">{slot("g", "side")}<div class="attn-block b-s"' in grid
    assert 'data-where="body"' not in grid
    words = section_html(SectionBlocks("w", _blocks(("w1", "body", 0, False))))
    assert words.count("attn-card-slot") == 1
    assert f'<div class="attn-body">{slot("w", "body")}<div class="attn-block' in words
    empty = section_html(SectionBlocks("e", []))
    assert empty.count("attn-card-slot") == 1 and slot("e", "body") in empty


def test_a_section_without_grid_blocks_has_no_grid_and_one_without_a_head_no_head():
    body_only = section_html(SectionBlocks("words", _blocks(("w1", "body", 0, False), ("w2", "body", 0, False))))
    assert "attn-grid" not in body_only and "attn-head" not in body_only
    assert [k for k in _parse(body_only).order] == ["attn-b-w1", "attn-b-w2"]
    side_only = section_html(SectionBlocks("side", _blocks(("s", "side", 0, False))))
    assert 'class="attn-grid"' in side_only and "attn-body" not in side_only and "attn-head" not in side_only


# ---- layout_names -----------------------------------------------------------------------------------------

def test_layout_names_follow_the_layout_tree_not_every_reference():
    hidden = Slider(start=0, end=1, value=0, name="engine_widget")       # reachable only through a callback
    fig = figure(name="plot")
    fig.js_on_event("tap", CustomJS(args={"w": hidden}, code=""))
    grid = GridBox(children=[(Div(name="in_grid"), 0, 0)], name="grid")
    tree = column(Div(name="words"), row(fig, Button(name="button"), name="controls"), grid, name="box")
    names = layout_names(tree)
    assert sorted(names) == ["box", "button", "controls", "grid", "in_grid", "plot", "words"]
    assert "engine_widget" in {m.name for m in tree.references()}   # the model graph holds it; the layout does not


# ---- bokeh_layout -----------------------------------------------------------------------------------------

def _children(model):
    return [k[0] if isinstance(k, tuple) else k for k in (getattr(model, "children", None) or [])]


def _walk(model):
    yield model
    for k in _children(model):
        yield from _walk(k)


def _sections():
    reg = SectionBlocks("reg", _blocks(("head", "head", 100, False), ("plot", "stage", 300, True),
                                       ("controls", "stage", 100, False), ("weights", "xplots", 150, True),
                                       ("card", "side", 200, False), ("explain", "body", 60, False)))
    words = SectionBlocks("words", _blocks(("w1", "body", 50, False), ("w2", "body", 50, False)))
    return [reg, words]


@pytest.mark.parametrize("present", [False, True])
def test_bokeh_layout_holds_every_block_once_sections_in_order(present):
    sections = _sections()
    page = bokeh_layout(sections, present=present)
    assert page.name == "explorable_page"
    assert [s.name for s in _children(page)] == ["reg_section", "words_section"]
    shown = [m for m in _walk(page)]
    for s in sections:
        for b in s.blocks:
            assert sum(m is b.model for m in shown) == 1, b.name
    # a block whose height the page's CSS sets gets its height from the notebook's wrapper instead
    for b in sections[0].blocks:
        wrapper = next(m for m in shown if b.model in _children(m))
        if b.css_height:   # (a projector's is taller by its larger text: theme.present_height)
            assert wrapper.height == (theme.present_height(b.height) if present else b.height)
            assert _children(wrapper) == [b.model]
        else:
            assert wrapper.height is None


def test_bokeh_layout_puts_the_figure_column_beside_the_side_column():
    reg = bokeh_layout(_sections())
    head, grid, body = _children(_children(reg)[0])
    assert head.name == "div-head" and body.name == "div-explain"
    fig, side = _children(grid)
    names = lambda m: [x.name for x in _walk(m) if x.name and x.name.startswith("div-")]  # noqa: E731
    assert names(fig) == ["div-plot", "div-controls", "div-weights"] and names(side) == ["div-card"]
