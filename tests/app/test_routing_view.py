"""The routing section's builder (no browser): its blocks, its engine's wiring and config, the path it hands
the browser (the core's), its fonts, its place in the page and its deep-link keys."""

from __future__ import annotations

import html
import re
import subprocess
import sys

import numpy as np
import pytest
from bokeh.core.property.dataspec import DataSpec
from bokeh.models import Plot

import attention
from attention import learn_qk
from app.cli import build_parser
from app.export import build_document
from app.routing import text
from app.routing import view as rv
from app.sections import PAGE_ORDER, SECTIONS, build_sections
from app.state import QK_SHOWN, ExplorableState, parse_query, url_spec
from app.ui import theme
from app.ui.layout import PLACES, bokeh_layout

from tests.browser.pageutil import ROOT


@pytest.fixture(scope="module")
def built():
    return rv.build_routing(ExplorableState())


@pytest.fixture(scope="module")
def core():
    return attention.train_qk()


def test_the_section_is_blocks_in_its_places(built):
    names = [b.name for b in built.blocks]
    assert names == ["routing-head", "routing-controls", "routing-matrix", "routing-sense", "routing-key",
                     "routing-loss", "routing-accuracy", "routing-readout", "routing-weights", "routing-learned",
                     "routing-own"]
    places = {b.name: b.place for b in built.blocks}
    assert places["routing-head"] == "head"
    assert {places[n] for n in ("routing-controls", "routing-matrix", "routing-sense")} == {"stage"}
    assert {places[n] for n in ("routing-key", "routing-loss", "routing-accuracy")} == {"xplots"}
    assert all(b.place in PLACES and not b.first for b in built.blocks)
    # the plots fill heights the page's CSS gives them; the other blocks reserve theirs before they are drawn
    for b in built.blocks:
        if isinstance(b.model, Plot):
            assert b.css_height and f".b-{b.name}" in built.css
        else:
            assert not b.css_height and b.height >= 30


def test_the_engine_hears_its_controls_and_writes_only_in_the_browser(built):
    e = built.engine
    assert "Routing.handle(cb_obj" in e.code and "const AttnMirror" in e.code and "const AttnCommon" in e.code
    assert set(e.args) == set(rv.ENGINE_ARGS)
    w = built.widgets
    for key in ("sentence", "frame", "input"):
        assert e in w[key].js_property_callbacks["change:value"]
    for key in ("play", "pause", "step", "reset"):
        assert e in w[key].js_event_callbacks["button_click"]
    for name in ("cells", "cell_labels", "rowmark", "sense_values", "sense_trail", "sense_point", "loss_src",
                 "acc_src", "status_div", "readout_div", "weights_div", "own_div"):
        assert built.models[name].syncable is False, name
    # ui/words.js (AttnWords) reads a typed sentence; it computes with the mirror, so it comes after it
    assert e.code.index("const AttnMirror") < e.code.index("const AttnWords") < e.code.index("const Routing")


def test_the_path_handed_to_the_browser_is_the_cores(built, core):
    p = built.models["config"]["plain"]
    idx = core.frames(rv.FRAMES)
    assert p["frame_steps"] == idx.tolist() and len(idx) == rv.FRAMES
    np.testing.assert_array_equal(np.array(p["w_q"]), core.w_q[idx])
    np.testing.assert_array_equal(np.array(p["w_k"]), core.w_k[idx])
    np.testing.assert_array_equal(p["loss"], core.loss)
    np.testing.assert_array_equal(p["held_out_accuracy"], core.held_out_accuracy)
    assert [s["text"] for s in p["sentences"]] == [s.text for s in core.corpus.shown] == list(QK_SHOWN)
    for s in p["sentences"]:
        x, unknown = attention.encode(s["tokens"])
        assert unknown == [] and np.array_equal(np.array(s["x"]), x)
        # the core's rows and points stay out of the page: the browser computes what it draws
        assert "weights" not in s and "point" not in s


def test_the_word_readers_model_encodes_as_the_core_does(built):
    """AttnWords.encode(tokens, model) builds X from this model; rebuilt here the same way, it is the core's X."""
    m = built.models["config"]["words_model"]
    core_model = attention.load_sentence_model()
    assert m["dims"] == list(core_model.dims) and m["unknown_scale"] == core_model.unknown_scale
    features = {"position": lambda i: i, "position squared": lambda i: i * i, "constant": lambda i: 1}
    tokens = ["the", "bank", "by", "the", "river", "zorble"]
    rows = [(m["vocab"][t] if t in m["vocab"] else list(attention.sentences.unknown_word_vector(
        t, len(m["dims"]), m["unknown_scale"]))) + [features[f](i) for f in m["position_features"]]
        for i, t in enumerate(tokens)]
    np.testing.assert_array_equal(np.array(rows), attention.encode(tokens)[0])


def test_the_opening_state_comes_from_the_state_and_its_keys_are_bounded():
    spec = url_spec()
    assert spec["qk_step"]["hi"] == learn_qk.DEFAULT_QK_STEPS
    assert spec["qk_sentence"]["hi"] == len(attention.load_sense_corpus().shown) - 1
    assert QK_SHOWN[spec["qk_sentence"]["default"]] == "the bank by the river"
    values, notices = parse_query("qk_step=400&qk_sentence=-1")
    assert values == {"qk_step": 150} and len(notices) == 2
    v = rv.build_routing(ExplorableState(qk_step=61, qk_sentence=1))
    cfg = v.models["config"]
    assert cfg["initial"] == {"qk_step": 61, "qk_sentence": 1}
    assert v.widgets["sentence"].value == "1"
    assert rv.build_routing().models["config"]["initial"] == {"qk_step": 0, "qk_sentence": 2}


def test_every_canvas_text_names_the_pages_font():
    """As the page is built (theme.name_fonts): any canvas text left without a font would be "helvetica"."""
    page = build_document(ExplorableState(), sections=("routing",))
    count = 0
    for b in page.built.routing.blocks:
        for m in b.model.references():
            for name in m.properties():
                if not name.endswith("text_font"):
                    continue
                v = getattr(m, name)
                font = v.get("value") if isinstance(v, dict) else getattr(v, "value", v)
                # (a glyph's font is a data spec: a bare string there would name a column, not a font)
                assert font == theme.FONT and (isinstance(m.lookup(name).property, DataSpec) or isinstance(v, str)), \
                    (type(m).__name__, name, v)
                count += 1
    assert count >= 25   # the titles, axes and text glyphs of four plots


def test_the_summary_is_the_cores_in_plain_words(built, core):
    learned = next(b.model for b in built.blocks if b.name == "routing-learned")
    summary = learn_qk.learned_words(core).summary()
    assert html.escape(summary) in learned.text
    plain = html.unescape(re.sub(r"<[^>]+>", " ", learned.text))
    assert text.plain_words(plain) and "\u2212" in plain   # the typographic minus, as the page writes numbers


def test_the_section_follows_self_attention_in_every_delivery():
    assert "routing" in SECTIONS and PAGE_ORDER.index("routing") == PAGE_ORDER.index("sentence") + 1
    s = build_sections(ExplorableState(), sections=("routing",))
    pages = s.pages()
    # alone on a page, it is the first section: the tour's card (routing's steps of the lesson) starts with it
    assert [p.name for p in pages] == ["routing"] and pages[0].engines == [s.routing.engine, s.tour.engine]
    assert any(b.model is s.tour.layout for b in pages[0].blocks) and {st["section"] for st in s.tour.models["config"]["steps"]} == {"routing"}
    assert pages[0].css == rv.STAGE_CSS
    # the offline file and the served page: one root per block, the engine started with the section
    page = build_document(ExplorableState(), sections=("sentence", "routing"))
    assert [b["section"] for b in page.plan["blocks"]][-len(s.routing.blocks):] == ["routing"] * len(s.routing.blocks)
    assert page.plan["engines"]["routing"] == [page.built.routing.engine.id]
    # the notebook: the same blocks in Bokeh layouts
    layout = bokeh_layout(pages)
    assert "routing_section" in {m.name for m in layout.references()}


def test_export_takes_the_section_by_name():
    help_text = build_parser()._subparsers._group_actions[0].choices["export"].format_help()
    assert all(name in help_text for name in SECTIONS)
    assert build_parser().parse_args(["export", "x.html"]).sections is None   # None: every section
    out = subprocess.run([sys.executable, "-m", "app.cli", "export", "/nonexistent/x.html", "--sections", "routing,x"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "routing" in out.stderr and "x" in out.stderr


def test_texts_are_plain_words():
    for t in (text.intro(word="bank", train=40, held_out=16, steps=150), text.MATRIX_NOTE, text.WEIGHTS_INTRO,
              text.PREFERENCE_NOTE, text.OWN_INTRO):
        assert text.plain_words(html.unescape(re.sub(r"<[^>]+>", " ", t)))
