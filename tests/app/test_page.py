"""app/delivery/page.py and app/regression/view.py without a browser or a server."""

from __future__ import annotations

import html
import inspect
import re
import subprocess
import sys
from pathlib import Path

import panel as pn
import pytest
from bokeh.document import Document
from bokeh.models import CustomJS

import attention
from app.delivery.page import EnginePane, Explorable, create_page
from app.regression.view import ENGINE_ARGS, ENGINE_JS, GENERATOR_KEYS, build_regression, engine_source
from app.sections import CONTRACTS, ExplorableState, parse_query
from app.ui.engine import by_name, read_js

from tests.browser.pageutil import ROOT

# A link that sets much of the page and carries bad values, an unknown key made of HTML among them.
ROUGH_LINK = ("kernel=dot&key_norm=0.2&dataset=generated&fn=sine&n=300&limits=1&bandwidth=-1&query=abc"
              "&seed=x&%3Cscript%3Ealert(1)%3C%2Fscript%3E=1")


def _named(page: Explorable) -> dict:
    """The page's models by name, as the browser's document holds them."""
    return by_name(page.__panel__()[0].object)


@pytest.fixture(scope="module")
def rough():
    page = create_page(ROUGH_LINK)
    page.__panel__()
    return page


@pytest.fixture(scope="module")
def plain(component):
    return component


# ---- create_page: the link ------------------------------------------------------------------------------

def test_create_page_reads_the_link():
    page = create_page("query=2.5&bandwidth=0.3")
    assert isinstance(page, Explorable)
    assert (page.query, page.bandwidth) == (2.5, 0.3)
    assert page.temperature == 1.0 and page.kernel == "gaussian"  # the rest are defaults
    assert page._notices == []


def test_create_page_takes_session_args():
    page = create_page({"query": [b"1.5"], "kernel": [b"dot"], "temperature": [b"4"]})
    assert (page.query, page.kernel, page.temperature) == (1.5, "dot", 4.0)


def test_a_link_with_bad_values_gives_notices_shown_escaped(rough):
    values, notices = parse_query(ROUGH_LINK)
    assert len(notices) == 4 and rough._notices == notices
    assert rough.bandwidth == 0.005 and rough.query == 3.2 and rough.seed == 0    # clamped, or left at the default
    assert (rough.kernel, rough.key_norm, rough.dataset, rough.n, rough.limits) == ("dot", 0.2, "generated", 300, True)
    div = _named(rough)["notices"]
    assert div.visible is True
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in div.text and "<script" not in div.text
    assert [html.unescape(p) for p in div.text.split('<p class="notice">')[1:]] == [n + "</p>" for n in notices]


def test_a_clean_link_shows_no_notice(plain):
    div = _named(plain)["notices"]
    assert div.visible is False and div.text == ""


# ---- the component ------------------------------------------------------------------------------------------

def test_explorable_builds_a_panel_layout_without_a_server(plain):
    layout = plain.__panel__()
    assert isinstance(layout, pn.Column)
    assert plain.__panel__() is layout  # built once
    named = _named(plain)
    assert named["query_slider"].value == 2.5
    assert plain._built.regression.models["config"]["initial"]["bandwidth"] == 0.3
    # the pane starts every section's engine, the regression's first
    pane = layout[0]
    assert isinstance(pane, EnginePane) and pane._engines == plain.engines
    assert all(isinstance(e, CustomJS) for e in plain.engines) and plain.engines[0] is plain._built.regression.engine
    assert len(plain.engines) == len(set(plain.engines)) == len(plain._built.engines())
    # it renders to a Bokeh model tree, and attaches the engines to the document's ready event
    doc = Document()
    assert layout.get_root(doc) is not None
    assert doc.callbacks.js_event_callbacks["document_ready"] == plain.engines


@pytest.mark.parametrize("which", ["plain", "rough"])
def test_the_served_document_passes_bokehs_integrity_checks(which, request):
    """The server skips Bokeh's per-session check (app/delivery/serving.py); this is where it runs instead."""
    from bokeh.core.validation import check_integrity

    doc = Document()
    request.getfixturevalue(which).__panel__().server_doc(doc)
    issues = check_integrity([m for root in doc.roots for m in root.references()])
    assert issues.error == [] and issues.warning == []


def test_served_app_skips_the_per_session_check_unless_told_otherwise(monkeypatch):
    import os

    from app.delivery.serving import skip_document_validation

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
                                       ("temperature", 0.0005), ("temperature", 1001.0), ("key_norm", 0.3),
                                       ("key_norm", -0.26), ("n", 1), ("n", 2001), ("noise", -0.1), ("seed", -1),
                                       ("kernel", "cosine"), ("dataset", "nope"), ("period", 2)])
def test_param_bounds_refuse_out_of_range_values(name, bad):
    with pytest.raises(ValueError):
        ExplorableState(**{name: bad})
    page = Explorable()
    with pytest.raises(ValueError):
        setattr(page, name, bad)


# ---- the regression section's builder -----------------------------------------------------------------------

def test_build_regression_gives_blocks_that_serialise_and_its_engine():
    state = ExplorableState(query=2.5, kernel="dot", dataset="step")
    view = build_regression(state, notices=["a <b>notice</b>"])
    doc = Document()
    for b in view.blocks:
        doc.add_root(b.model)
    doc.to_json()  # every model serialises
    assert view.ds.data["x"] == attention.load_dataset("step").x.tolist()
    assert view.widgets["keynorm"].visible is True
    assert view.notice_div.text == '<p class="notice">a &lt;b&gt;notice&lt;/b&gt;</p>' and view.notice_div.visible
    options = [v for v, _ in view.widgets["dataset"].options]
    assert options == attention.list_datasets() + ["generated"]   # the seeded generator is always offered
    assert "mode" not in view.models["config"]
    assert view.engine.code == engine_source() and view.engines[0] is view.engine
    # the named models the other sections and the tour find it by
    for name in ("main_plot", "query_slider", "bandwidth_slider", "dataset", "more_controls", "notices"):
        assert name in view.named, name
    assert view.css and ".b-regression-plot" in view.css


def test_the_generators_fields_start_from_the_state_and_drive_the_engine():
    state = ExplorableState(fn="sine", n=37, noise=0.5, seed=12)
    view = build_regression(state)
    g = view.generator
    assert set(g) == set(GENERATOR_KEYS) | {"go"}
    assert (g["fn"].value, g["n"].value, g["noise"].value, g["seed"].value) == ("sine", 37, 0.5, 12)
    assert view.engine in g["go"].js_event_callbacks["button_click"]
    assert {view.models[f"g_{k}"] for k in GENERATOR_KEYS} == {g[k] for k in GENERATOR_KEYS}
    assert view.named["generator"] is not None   # under "More controls", on every page
    assert view.models["config"]["generator_keys"] == list(GENERATOR_KEYS)


def test_build_regression_shows_a_generated_dataset():
    d = attention.make_dataset("sine", 17, 0.2, 4)
    view = build_regression(ExplorableState(dataset="generated"), dataset=d)
    assert view.ds.data["x"] == d.x.tolist() and view.widgets["dataset"].value == "generated"
    # a link to a generated dataset opens on the seeded generator's samples
    view = build_regression(ExplorableState(dataset="generated", fn="sine", n=17, noise=0.2, seed=4))
    assert view.ds.data["x"] == d.x.tolist() and view.ds.data["y"] == d.y.tolist()


def test_the_library_holds_the_shared_files_once_each_and_the_engine_its_own():
    """The shared files ship once, in the library every engine runs (app/ui/engine.py), in the order they use one
    another; the section's engine is its own modules (view.py ENGINE_JS, in order) and the call."""
    from app.ui.engine import LIBRARY, LOAD_LIBRARY, library_source

    src, library = engine_source(), library_source()
    files = [read_js(path) for path, _ in LIBRARY]
    assert [library.count(js) for js in files] == [1] * len(files)
    at = [library.index(js) for js in files]
    assert at == sorted(at)   # each uses only what comes before it
    glue = "".join(read_js(ROOT / "app" / "regression" / name) for name in ENGINE_JS)
    assert src == LOAD_LIBRARY + glue + "\nRegression.handle(cb_obj, {" + ", ".join(ENGINE_ARGS) + "});\n"
    assert not any(js in src for js in files)


def test_each_regression_module_is_handed_only_the_library_and_the_modules_before_it():
    """The regression engine's files (view.py ENGINE_JS) hold one module each, whose wrapper is handed only the
    page's library and the modules of the files before it: the engine reads, and runs, in that order."""
    from app.ui.engine import LIBRARY

    known = {module for _, module in LIBRARY}
    for name in ENGINE_JS:
        js = read_js(ROOT / "app" / "regression" / name)
        defined = re.findall(r"^const (\w+) = \(function \(", js, re.M)
        handed = re.search(r"^\}\)\(([\w\s,]*)\);\s*$", js, re.M)
        assert len(defined) == 1 and handed, name
        args = {arg.strip() for arg in handed.group(1).split(",")}
        assert args <= known, (name, args - known)
        known.add(defined[0])
    assert defined == ["Regression"]


def section_folder(section: str) -> Path:
    """The folder of a section's code, its view's (named for what the section teaches, not always its name)."""
    return Path(inspect.getfile(CONTRACTS[section].build)).parent


def test_no_engine_includes_another_sections_engine(offline):
    """Each section's engine is the shared ui/ files and its own engine.js, never another section's."""
    built = offline.built
    engines = {name: getattr(built, name).engine.code for name in ("regression", "sentence", "learning", "ideas")}
    sources = {name: read_js(section_folder(name) / "engine.js") for name in engines}
    for name, code in engines.items():
        for other, js in sources.items():
            assert code.count(js) == (1 if other == name else 0), (name, other)
    # and every engine of the page runs the one library the composition made
    every = [e for e in built.engines() if "library" in e.args]
    assert len(every) >= 6 and all(e.args["library"] is built.library for e in every)
