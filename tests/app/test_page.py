"""app/page.py and app/regression/view.py without a browser or a server."""

from __future__ import annotations

import html
import subprocess
import sys

import panel as pn
import pytest
from bokeh.document import Document
from bokeh.models import CustomJS

import attention
from app.regression.view import ENGINE_ARGS, build_regression, engine_source
from app.page import Explorable, create_page
from app.state import ExplorableState, parse_query

from tests.browser.pageutil import ROOT


def test_create_page_reads_the_link():
    page = create_page("query=2.5&bandwidth=0.3")
    assert isinstance(page, Explorable)
    assert (page.query, page.bandwidth) == (2.5, 0.3)
    assert page.temperature == 1.0 and page.kernel == "gaussian"  # the rest are defaults
    assert page._notices == []


def test_create_page_keeps_the_notices_of_a_bad_link_and_shows_them_escaped():
    link = "bandwidth=-1&query=abc&kernel=<script>alert(1)</script>"
    page = create_page(link)
    assert page.bandwidth == 0.005 and page.query == 3.2 and page.kernel == "gaussian"
    assert page._notices == parse_query(link)[1] and len(page._notices) == 3
    page.__panel__()
    div = page._view.notice_div
    assert div.visible is True
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in div.text and "<script" not in div.text
    assert [html.unescape(p) for p in div.text.split('<p class="notice">')[1:]] == \
        [n + "</p>" for n in page._notices]


def test_create_page_takes_session_args():
    page = create_page({"query": [b"1.5"], "kernel": [b"dot"], "temperature": [b"4"]})
    assert (page.query, page.kernel, page.temperature) == (1.5, "dot", 4.0)


def test_explorable_builds_a_panel_layout_without_a_server():
    page = Explorable(query=2.5, bandwidth=0.3)
    layout = page.__panel__()
    assert isinstance(layout, pn.Column)
    assert page.__panel__() is layout  # built once
    assert page._view.widgets["query"].value == 2.5
    assert page._view.models["config"]["initial"]["bandwidth"] == 0.3
    assert isinstance(page.engine, CustomJS)
    # it renders to a Bokeh model tree without a server
    model = layout.get_root(Document())
    assert model is not None


@pytest.mark.parametrize("link", ["", "kernel=dot&key_norm=0.5&dataset=generated&n=300&limits=1"])
def test_the_served_document_passes_bokehs_integrity_checks(link):
    """The server skips Bokeh's per-session check (app/serving.py); this is where it runs instead."""
    from bokeh.core.validation import check_integrity

    doc = Document()
    create_page(link).__panel__().server_doc(doc)
    issues = check_integrity([m for root in doc.roots for m in root.references()])
    assert issues.error == [] and issues.warning == []


def test_served_app_skips_the_per_session_check_unless_told_otherwise(monkeypatch):
    import os

    from app.serving import skip_document_validation

    monkeypatch.delenv("BOKEH_VALIDATE_DOC", raising=False)
    skip_document_validation()
    assert os.environ["BOKEH_VALIDATE_DOC"] == "false"
    monkeypatch.setenv("BOKEH_VALIDATE_DOC", "true")
    skip_document_validation()  # an explicit choice wins
    assert os.environ["BOKEH_VALIDATE_DOC"] == "true"


def test_from_app_import_explorable():
    from app import Explorable as E

    assert E is Explorable
    with pytest.raises(ImportError):
        from app import NoSuchThing  # noqa: F401
    # in a fresh interpreter too, where the import of Panel waits until it is asked for
    out = subprocess.run([sys.executable, "-c", "import sys, app; assert 'panel' not in sys.modules; "
                          "from app import Explorable; print(Explorable(query=2.5).query)"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "2.5"


@pytest.mark.parametrize("name, bad", [("query", 7.0), ("query", -0.6), ("bandwidth", 0.0), ("bandwidth", 51.0),
                                       ("temperature", 0.0005), ("temperature", 1001.0), ("key_norm", 2.5),
                                       ("n", 1), ("n", 2001), ("noise", -0.1), ("seed", -1), ("kernel", "cosine"),
                                       ("dataset", "nope")])
def test_param_bounds_refuse_out_of_range_values(name, bad):
    with pytest.raises(ValueError):
        ExplorableState(**{name: bad})
    page = Explorable()
    with pytest.raises(ValueError):
        setattr(page, name, bad)


@pytest.mark.parametrize("mode", ["served", "static"])
def test_build_regression_in_both_modes(mode):
    state = ExplorableState(query=2.5, kernel="dot", dataset="step")
    view = build_regression(state, mode=mode, notices=["a <b>notice</b>"])
    doc = Document()
    doc.add_root(view.layout)
    doc.to_json()  # every model serialises
    assert view.ds.data["x"] == attention.load_dataset("step").x.tolist()
    assert view.widgets["keynorm"].visible is True
    assert view.notice_div.text == '<p class="notice">a &lt;b&gt;notice&lt;/b&gt;</p>'
    options = [v for v, _ in view.widgets["dataset"].options]
    assert ("generated" in options) == (mode == "served")
    assert ("static_note" in view.parts) == (mode == "static")
    assert view.models["config"]["mode"] == mode
    assert view.engine.code == engine_source()


def test_build_regression_shows_a_generated_dataset():
    d = attention.make_dataset("sine", 17, 0.2, 4)
    view = build_regression(ExplorableState(dataset="generated"), mode="served", dataset=d)
    assert view.ds.data["x"] == d.x.tolist() and view.widgets["dataset"].value == "generated"


def test_build_regression_refuses_an_unknown_mode():
    with pytest.raises(ValueError):
        build_regression(ExplorableState(), mode="embedded")


def test_engine_source_holds_the_shared_files_and_its_own_engine_once_each():
    src = engine_source()
    ui = ROOT / "app" / "ui"
    mirror, common = ((ui / f).read_text(encoding="utf-8") for f in ("mirror.js", "common.js"))
    glue = (ROOT / "app" / "regression" / "engine.js").read_text(encoding="utf-8")
    assert src.count(mirror) == 1 and src.count(common) == 1 and src.count(glue) == 1
    assert src.index(mirror) < src.index(common) < src.index(glue)  # the glue uses AttnMirror and AttnCommon
    assert src.count("const AttnMirror =") == 1 and src.count("const Explorable =") == 1
    assert src.rstrip().endswith("Explorable.handle(cb_obj, {" + ", ".join(ENGINE_ARGS) + "});")


def test_no_engine_includes_another_sections_engine():
    """Each section's engine is the shared ui/ files and its own engine.js, never another section's."""
    from app.ideas.view import build_ideas
    from app.learning.view import build_learning
    from app.sentence.view import build_sentence

    state = ExplorableState()
    regression = build_regression(state, mode="static")
    engines = {"regression": regression.engine.code, "sentence": build_sentence(state, mode="static").engine.code,
               "learning": build_learning(state, mode="static", regression=regression).engine.code,
               "ideas": build_ideas(mode="static").engine.code}
    sources = {name: (ROOT / "app" / name / "engine.js").read_text(encoding="utf-8") for name in engines}
    for name, code in engines.items():
        for other, js in sources.items():
            assert code.count(js) == (1 if other == name else 0), (name, other)


def _generator_input(page, label):
    gen = next(o for o in page.__panel__().objects if getattr(o, "name", "") == "generator")
    return next(w for w in gen.select(pn.widgets.IntInput) if w.name == label)


@pytest.mark.parametrize("typed, kept", [(5000, attention.datasets.MAX_GENERATED_N), (1, 2)])
def test_a_typed_n_outside_the_generators_range_is_clamped_with_a_notice(typed, kept):
    page = Explorable()
    n = _generator_input(page, "samples n")
    n.value = typed
    assert page.n == kept and n.value == kept
    notice = page._view.notice_div
    assert notice.visible and f"n = {typed}" in notice.text and f"n = {kept}" in notice.text


def test_a_typed_n_inside_the_range_is_taken_as_it_is_and_follows_the_parameter():
    page = Explorable()
    n = _generator_input(page, "samples n")
    n.value = 300
    assert page.n == 300 and not page._view.notice_div.visible
    page.n = 120            # a notebook sets the parameter: the input follows
    assert n.value == 120
