"""The offline file: one skeleton of placeholders, the document with one root per block, the plan the loader
follows, the page's CSS; nothing fetched; presentation sizes and the page's font in every canvas text; and how
the file is written."""

from __future__ import annotations

import json
import os
import re
from html import unescape

import pytest
from bokeh.core.property.vectorization import Value
from bokeh.models import Axis, CustomJSTickFormatter, GlyphRenderer, InlineStyleSheet, Legend, Plot

from app.delivery import cli
from app.delivery.export import build_document, write_atomic
from app.sections import CATALOGUE, PAGE_ORDER, ExplorableState
from app.tour.model import load_tour

from app.ui import theme
from app.ui.layout import SKELETON_CSS
from app.tour.terms import terms

from tests.browser.pageutil import ROOT

TERMS = terms(CATALOGUE)   # what the tour knows of the page's sections


@pytest.fixture(scope="module")
def present():
    """The whole page as ?present=1 opens it."""
    return build_document(ExplorableState(present=True))


def _plan_blocks(page) -> list[dict]:
    return page.plan["blocks"]


def _sections(page) -> dict:
    return {p.name: p for p in page.built.pages()}


def _script(html: str, element: str) -> str:
    m = re.search(rf'<script type="application/json" id="{element}">(.*?)</script>', html, re.S)
    assert m, element
    return m.group(1)


# ---- the skeleton and the plan ------------------------------------------------------------------------------

def test_the_html_has_one_placeholder_per_block(offline, offline_html):
    blocks = _plan_blocks(offline)
    assert offline_html.count('class="attn-block ') == len(blocks) == len(offline.doc.roots)
    for b in blocks:
        assert offline_html.count(f'id="{b["el"]}"') == 1, b["name"]
    # the sections' skeletons, in page order, inside the page's <main>
    found = re.findall(r'<section class="attn-sec attn-sec-(\w+)"', offline_html)
    assert found == list(PAGE_ORDER)
    assert offline_html.index('<main class="attn-page" data-present="0">') < offline_html.index("<section")


def test_the_plan_names_every_blocks_root_and_element(offline):
    blocks = _plan_blocks(offline)
    assert [b["root"] for b in blocks] == [r.id for r in offline.doc.roots]   # one root per block, in order
    assert len({b["name"] for b in blocks}) == len(blocks)
    want = [(name, b.name, f"attn-b-{b.name}", b.model.id) for name, p in _sections(offline).items()
            for b in p.blocks]
    assert [(b["section"], b["name"], b["el"], b["root"]) for b in blocks] == want
    assert [b["section"] for b in blocks] == sorted((b["section"] for b in blocks), key=PAGE_ORDER.index)


def test_the_first_screen_is_the_regressions_figure_and_the_top_of_its_side_column(offline):
    reg = _sections(offline)["regression"].blocks
    first = {b["name"] for b in _plan_blocks(offline) if b["first"]}
    assert first <= {b.name for b in reg if b.place in ("head", "stage", "xplots", "side")}
    assert {b.name for b in reg if b.place in ("head", "stage", "xplots")} <= first
    side = [b.name for b in reg if b.place == "side"]
    shown_first = [name in first for name in side]
    assert shown_first[0] and shown_first == sorted(shown_first, reverse=True)   # a leading run of the side column
    assert side[0] == "tour" and "regression-readouts" in first


def test_each_sections_engines_are_listed_and_the_shared_figures_named(offline):
    engines = offline.plan["engines"]
    assert list(engines) == list(PAGE_ORDER)
    for name in PAGE_ORDER:
        assert engines[name] == [e.id for e in offline.built.engines_of(name)]
        for eid in engines[name]:
            assert offline.doc.get_model_by_id(eid) is not None, (name, eid)   # the loader finds it
    built = offline.built
    assert engines["regression"] == [built.regression.engine.id, built.tour.engine.id, built.regression.disclosure.id]
    f = built.regression.figures
    assert offline.plan["shared"] == [f["main"].id, f["weights"].id, f["entropy_x"].id]


def test_every_look_of_the_shipped_tours_is_in_a_block_the_plan_names(offline):
    """Show me, Next and Previous scroll a step's look into view: the loader finds its block in the plan."""
    looked = {n: b["name"] for b in _plan_blocks(offline) for n in b.get("looks", [])}
    for path in sorted((ROOT / "data" / "tours").glob("*.json")):
        if path.name.endswith(".schema.json"):
            continue
        for step in load_tour(CATALOGUE, path).steps:
            for name in step.looks_at:
                shown = TERMS.look_models.get(name, name)
                assert shown in looked, (path.name, step.id, name)
                assert offline.doc.get_model_by_name(shown) is not None


def test_the_document_json_and_the_plan_cannot_close_their_script(offline_html):
    for element in ("attn-doc", "attn-plan"):
        assert "<" not in _script(offline_html, element), element
    for part in _parts(offline_html):
        assert "<" not in part
    assert "AttnPage.start(" in offline_html


def _parts(html: str) -> list[str]:
    return re.findall(r'<script type="application/json" class="attn-part" data-section="[a-z-]+">(.*?)</script>',
                      html, re.S)


def _objects(node, defined: list, referred: list) -> None:
    """The ids a serialized document defines (``{"type": "object", "id": ...}``) and refers to (``{"id": ...}``),
    in the order a decoder meets them."""
    if isinstance(node, dict):
        if node.get("type") == "object" and "id" in node:
            defined.append(node["id"])
        elif set(node) == {"id"}:
            referred.append((node["id"], len(defined)))
        for v in node.values():
            _objects(v, defined, referred)
    elif isinstance(node, list):
        for v in node:
            _objects(v, defined, referred)


def test_the_document_comes_as_the_first_screen_then_one_part_per_later_section(offline, offline_html):
    """app/ui/loader.js decodes the first screen's roots first and each later section's roots later, in page
    order, into the same document: every model is defined once, in the first part that meets it, and a part
    refers only to models defined before it or in it."""
    doc = next(iter(json.loads(unescape(_script(offline_html, "attn-doc"))).values()))
    parts = [json.loads(unescape(t)) for t in _parts(offline_html)]
    sections = re.findall(r'class="attn-part" data-section="([a-z-]+)"', offline_html)
    blocks = _plan_blocks(offline)
    first = [b["root"] for b in blocks if b["first"]]
    assert [r["id"] for r in doc["roots"]] == first
    later = [b for b in blocks if not b["first"]]
    assert [r["id"] for part in parts for r in part["roots"]] == [b["root"] for b in later]
    assert sections == list(dict.fromkeys(b["section"] for b in later))       # page order, one part a section
    defined, referred, ends = [], [], []
    for part in [doc, *parts]:
        _objects(part, defined, referred)
        ends.append(len(defined))
    assert sorted(defined) == sorted({m.id for m in offline.doc.models} | {m.id for m in offline.doc.config.references()})
    assert len(defined) == len(set(defined))                                   # each model defined once
    where = {d: k for k, d in enumerate(defined)}
    # a reference points to a model its own part or an earlier one defined, never to a later part's
    part_of = lambda position: next(k for k, end in enumerate(ends) if position <= end)
    assert all(where[i] < ends[part_of(at)] for i, at in referred)
    in_first = ends[0]
    assert in_first < len(defined) / 2, (in_first, len(defined))               # the first screen needs the few


def test_no_js_file_hides_a_comment_line_inside_a_template_literal():
    """read_js ships the JS without its whole-line // comments: safe only if no such line is inside a `...`."""
    from app.ui.engine import CORE, UI

    for path in sorted([*UI.parent.rglob("*.js"), *CORE.rglob("*.js")]):
        inside = False
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith("//"):
                assert not inside, f"{path}:{number} is a // line inside a template literal"
                continue
            code = re.sub(r'"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'', '""', line)
            code = code if inside else re.sub(r"//.*$", "", code)
            if code.count("`") % 2:
                inside = not inside
        assert not inside, f"{path}: a template literal is left open"


def test_the_document_defines_no_data_model_it_does_not_use(offline):
    """Bokeh lists every data model the process registered; with Panel imported and the notebook component defined
    (as in ``panel serve``) those are Panel's, and the served page would differ from the offline file."""
    from bokeh.core.has_props import is_DataModel
    from bokeh.model import Model

    from app.delivery.export import page_html
    from app.delivery.page import Explorable  # noqa: F401  (its ReactiveHTML makes Panel register its data models)

    assert any(is_DataModel(m) for m in Model.model_class_reverse_map.values())
    doc = json.loads(unescape(_script(page_html(offline), "attn-doc")))
    assert [d.get("defs") for d in doc.values()] == [None] * len(doc)


# ---- nothing fetched ----------------------------------------------------------------------------------------

def test_everything_is_inline_and_no_outside_host_is_referenced(offline_html):
    assert "<script src=" not in offline_html.replace("<script src=\"data:", "")
    assert not re.search(r'<script\b[^>]*\bsrc=', offline_html.replace('src="data:', ""))
    assert not re.search(r'<link[^>]+href="(?!data:)', offline_html)
    assert "cdn.bokeh.org" not in offline_html and "cdn.holoviz.org" not in offline_html
    assert 'rel="icon" href="data:,"' in offline_html          # no favicon request either


def test_the_file_stays_within_three_megabytes(offline_html):
    assert len(offline_html.encode("utf-8")) <= 3_000_000


def test_the_shared_javascript_ships_once(offline, offline_html):
    """Every shared file is in the page once, in its own script (app/ui/engine.py LIBRARY), not once per engine;
    the document's library model leaves its text to that script."""
    from app.delivery.export import LIBRARY_IN_THE_PAGE
    from app.ui.engine import LIBRARY, read_js

    for path, module in LIBRARY:
        text = read_js(path)
        assert offline_html.count(text[:400]) == 1, path.name
        assert offline_html.count(f"const {module} = ") == 1, module
    assert offline.built.library.code == LIBRARY_IN_THE_PAGE


# ---- the page's CSS -----------------------------------------------------------------------------------------

def test_the_page_css_holds_the_skeleton_the_text_sizes_and_every_sections_css(offline, offline_html):
    css = offline.css
    assert SKELETON_CSS in css and theme.root_css() in css
    for name, p in _sections(offline).items():
        if p.css:
            assert p.css in css, name
    assert ".b-regression-plot" in css            # the regression's plots take their heights from it
    assert f"<style>\n{css}\n</style>" in offline_html


# ---- presentation sizes, the font, fewer models -------------------------------------------------------------

def _px(v):
    raw = v.value if isinstance(v, Value) else v
    assert isinstance(raw, str) and raw.endswith("px"), v
    return float(raw[:-2])


def _text_sizes(page):
    """(model, property, px) of every canvas text drawn: a legend's title only when it has one."""
    for m in page.doc.models:
        for name in m.properties():
            if not name.endswith("text_font_size"):
                continue
            if isinstance(m, Legend) and name == "title_text_font_size" and not m.title:
                continue
            yield m, name, _px(getattr(m, name))


def test_a_page_opened_in_presentation_mode_is_built_at_its_sizes(present, offline):
    sizes = list(_text_sizes(present))
    assert len(sizes) > 100
    small = [(type(m).__name__, m.name, name, px) for m, name, px in sizes if px < theme.PRESENT_TEXT_MIN]
    assert small == []
    assert present.plan["present"] is True and present.plan["theme"]["built_present"] is True
    assert offline.plan["present"] is False
    # every plot of a fixed height is theme.present_height taller there, once (not once per block that reaches it),
    # and notes its normal height for the page to shrink it back (?present=0)
    plots = lambda page: {m.name: m for m in page.doc.models  # noqa: E731
                          if isinstance(m, Plot) and m.name and m.height and m.frame_height is None
                          and m.sizing_mode != "stretch_both"}
    normal, big = plots(offline), plots(present)
    assert len(normal) > 10 and set(normal) == set(big)
    assert {k: m.height for k, m in big.items()} == {k: theme.present_height(m.height) for k, m in normal.items()}
    assert {k: [t for t in m.tags if isinstance(t, dict)] for k, m in big.items()} == \
        {k: [{"normal_height": m.height}] for k, m in normal.items()}
    # a small fixed frame (a head's matrix) grows by half, a larger one stays
    frames = lambda page: {m.name: (m.frame_width, m.frame_height) for m in page.doc.models  # noqa: E731
                           if isinstance(m, Plot) and m.name and m.frame_height is not None and m.frame_width}
    small = {k: v for k, v in frames(offline).items() if v[1] < theme.PRESENT_MIN_FRAME}
    assert small and all(frames(present)[k] == tuple(round(x * theme.PRESENT_HEIGHT) for x in v)
                         for k, v in small.items())
    # and words drawn inside a plot (text glyphs) are theme.present_text_size of a laptop's, once
    words = lambda page: {(f.name, k): r.glyph.text_font_size for f in page.doc.models  # noqa: E731
                          if isinstance(f, Plot) and f.name for k, r in enumerate(f.renderers)
                          if getattr(r.glyph, "text_font_size", None) is not None}
    normal, big = words(offline), words(present)
    assert normal and set(normal) == set(big)
    assert {k: _px(v) for k, v in big.items()} == {k: _px(theme.present_text_size(v)) for k, v in normal.items()}


@pytest.mark.parametrize("which", ["offline", "present"])
def test_every_canvas_text_names_the_pages_font(which, request):
    page = request.getfixturevalue(which)
    fonts = [(type(m).__name__, name, getattr(m, name)) for m in page.doc.models for name in m.properties()
             if name.endswith("text_font")]
    assert len(fonts) > 100
    assert [f for f in fonts if (f[2].value if isinstance(f[2], Value) else f[2]) != theme.FONT] == []


def test_the_document_draws_no_selected_or_muted_copies_and_shares_formatters_and_style_sheets(offline):
    models = list(offline.doc.models)
    renderers = [m for m in models if isinstance(m, GlyphRenderer)]
    assert renderers and all(r.nonselection_glyph in (None, "auto") and r.muted_glyph in (None, "auto")
                             for r in renderers)
    formatters = {}
    for ax in (m for m in models if isinstance(m, Axis)):
        f = ax.formatter
        if isinstance(f, CustomJSTickFormatter) and not f.args:
            assert formatters.setdefault(f.code, f) is f, "two axes with equal formatters hold two models"
    sheets = [m for m in models if isinstance(m, InlineStyleSheet)]
    assert len(sheets) == len({s.css for s in sheets})


def test_slim_shares_what_is_equal_and_says_how_many_models_it_saved():
    from bokeh.layouts import column
    from bokeh.models import Div
    from bokeh.plotting import figure

    figs = [theme.style_figure(figure()) for _ in range(3)]
    for f in figs:
        f.line([0, 1], [0, 1])
    divs = [Div(stylesheets=[theme.widget_css()]) for _ in range(2)]
    own = CustomJSTickFormatter(code=theme.PLAIN_TICKS_JS, args={"k": divs[0]})   # args: kept as it is
    figs[0].xaxis.formatter = own
    root = column(*figs, *divs)
    before = len(root.references())
    saved = theme.slim([root])
    assert saved == before - len(root.references()) > 0
    plain = {id(ax.formatter) for f in figs for ax in f.axis if ax.formatter is not own}
    assert len(plain) == 1 and figs[0].xaxis[0].formatter is own
    assert divs[0].stylesheets[0] is divs[1].stylesheets[0]
    assert all(r.nonselection_glyph is None and r.muted_glyph is None for f in figs for r in f.renderers)
    assert theme.slim([root]) == 0   # nothing left to share


# ---- writing the file ---------------------------------------------------------------------------------------

def test_written_through_a_temporary_file_and_readable_by_a_web_server(tmp_path):
    target = write_atomic(tmp_path / "lecture.html", "<html></html>")
    assert target.read_text() == "<html></html>"
    assert os.stat(target).st_mode & 0o044 == 0o044          # group and others may read it
    assert [p.name for p in tmp_path.iterdir()] == ["lecture.html"]


def test_a_failed_write_leaves_nothing_behind(tmp_path, monkeypatch):
    def boom(*_args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        write_atomic(tmp_path / "lecture.html", "<html></html>")
    assert list(tmp_path.iterdir()) == []


def test_export_to_an_unwritable_place_exits_2_with_one_line(tmp_path, capsys):
    assert cli.main(["export", str(tmp_path / "missing" / "lecture.html"), "--sections", "regression"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("attention-explorable export: error: cannot write") and "\n" not in err
    assert not (tmp_path / "missing").exists()


def test_export_writes_the_requested_state(tmp_path, capsys):
    out = tmp_path / "lecture.html"
    assert cli.main(["export", str(out), "--sections", "regression", "--query", "2.5", "--present"]) == 0
    html = out.read_text(encoding="utf-8")
    assert '["initial",{"type":"map","entries":[["query",2.5]' in html   # the engine's opening state
    assert '<main class="attn-page" data-present="1">' in html
    plan = json.loads(unescape(_script(html, "attn-plan")))
    assert plan["present"] is True and set(plan["engines"]) == {"regression"}
    assert "wrote" in capsys.readouterr().out


def test_export_embed_opens_on_a_section_offered_alone_and_refuses_another(tmp_path, capsys):
    """`export --embed SECTION` writes a page that opens as that section's frame blocks (issue 48; app/ui/embed.js
    reads plan.embed); a section the file lacks is refused in one line, which names those it offers."""
    from app.sections import CONTRACTS

    out = tmp_path / "frame.html"
    assert cli.main(["export", str(out), "--sections", "regression,sentence", "--embed", "sentence"]) == 0
    plan = json.loads(unescape(_script(out.read_text(encoding="utf-8"), "attn-plan")))
    assert plan["embed"] == "sentence" and plan["embed_figures"]["sentence"] == next(iter(CONTRACTS["sentence"].figures))
    assert [b["name"] for b in plan["blocks"] if b.get("embed")] == [*CONTRACTS["regression"].embed,
                                                                    *CONTRACTS["sentence"].embed]
    capsys.readouterr()
    for bad in ("routing", "nonsense"):   # a section the file lacks, a name of none
        assert cli.main(["export", str(tmp_path / "no.html"), "--sections", "regression,sentence,ideas",
                         "--embed", bad]) == 2
        err = capsys.readouterr().err.strip()
        assert "--embed" in err and "regression, sentence, ideas" in err and "\n" not in err, err
    assert not (tmp_path / "no.html").exists()


def test_each_section_is_a_landmark_named_by_its_contract_and_a_skip_link_leads_to_the_lesson(offline_html):
    """A screen reader lists the sections by the words their contracts declare (issue 47), and the page's first
    link skips to the step card's block."""
    import re

    from app.sections import CONTRACTS, PAGE_ORDER

    labels = re.findall(r'<section [^>]*data-section="([a-z]+)" aria-label="([^"]+)"', offline_html)
    assert labels == [(n, CONTRACTS[n].words) for n in PAGE_ORDER]
    main = offline_html.index('<main class="attn-page"')
    skip = re.search(r'<a class="attn-skip" href="#([^"]+)">', offline_html[main:])
    assert skip and f'id="{skip[1]}"' in offline_html and skip[1] == "attn-b-tour"
    assert offline_html.index('class="attn-skip"') < offline_html.index("<section ")
