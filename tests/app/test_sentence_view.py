"""The self-attention section without a browser: its build and blocks, the engine's config and code, the notices
Python writes for a link, and the page's parameters."""

from __future__ import annotations

import logging
import re

import numpy as np
import pytest
from bokeh.models import Div

import attention
from app.sentence import view as sentence_view
from app.sentence.text import REFUSED_LINK, REFUSED_TYPED
from app.sentence.data import browser_model, sentence_key
from app.sentence.view import build_sentence
from app.routing.text import plain_words
from app.sections import ExplorableState, url_spec
from app.sentence.state import SentenceState
from app.ui.engine import LIBRARY_FILES, read_js

MODEL = attention.load_sentence_model()
INJECTIONS = ["<img src=x onerror=alert(1)>", "<script>alert(1)</script>"]


def divs(view):
    return [m for m in view.layout.references() if isinstance(m, Div)]


def all_div_text(view):
    return "\n".join(d.text for d in divs(view))


def test_builds_one_section_for_every_delivery():
    """One build: the browser analyses every sentence (the opening one, an example, the link's, a typed one)."""
    v = build_sentence(ExplorableState())
    assert v.layout.name == "sentence_section"
    assert "Sentence.handle(cb_obj" in v.engine.code
    library = v.engine.args["library"].code                      # the page's one library, which the engine runs:
    assert "function multiHeadAttention" in library              # the mirror,
    assert "function tokenize" in library                        # and the tokenizer: the browser reads typed text
    names = {m.name for m in v.layout.references() if m.name}
    for name in ("attention_heatmap", "row_bars", "sense_plot", "cost_plot", "head_select", "token_select",
                 "att_temperature_slider", "causal_toggle", "preset_select", "sentence_readouts",
                 "sentence_input", "sentence_input_note", "matrix_box", "matrix_note", "sentence_knobs"):
        assert name in names, name
    assert v.text_input.name == "sentence_input" and v.widgets["input"] is v.text_input
    assert v.text_input.max_length == url_spec()["sentence"]["max"]
    assert "sentence_static_note" not in names                  # typing needs no server anywhere
    note = next(m for m in v.layout.references() if m.name == "sentence_input_note").text
    assert "served" not in note and f"at most {attention.MAX_TOKENS} words" in note
    assert "mode" not in v.engine.args["config"]
    # the engine hears the text box (Enter), as it hears the other controls
    assert v.engine in v.text_input.js_property_callbacks["change:value"]
    for key, prop in (("preset", "value"), ("token", "value"), ("temperature", "value"), ("head", "active"),
                      ("causal", "active")):
        assert v.engine in v.widgets[key].js_property_callbacks[f"change:{prop}"], key


def _names(model) -> list[str]:
    from app.ui.layout import layout_names

    return layout_names(model)


def test_the_matrix_is_kept_in_view_with_the_knobs_above_it_and_its_note_below():
    """The stage holds what acts on the matrix (head, T, mask, row) and then the matrix; the box that scrolls
    sideways on a phone holds the heatmap alone, and the note about it stands under that box."""
    v = build_sentence(ExplorableState())
    stage = [b for b in v.blocks if b.place == "stage"]
    assert [b.name for b in stage] == ["sentence-knobs", "sentence-matrix"]
    knobs = _names(stage[0].model)
    for name in ("head_select", "att_temperature_slider", "causal_toggle", "token_select"):
        assert name in knobs, name
    box = v.models["matrix_box"]
    assert box.children == [v.models["heat"]] and box.styles["overflow-x"] == "auto"
    matrix = stage[1].model
    assert matrix.children[0] is box and matrix.children[1].name == "matrix_note"
    assert "Rows are queries, columns are keys" in matrix.children[1].text
    side = {b.name: _names(b.model) for b in v.blocks if b.place == "side"}
    assert "sentence_input" in side["sentence-controls"] and "preset_select" in side["sentence-controls"]
    assert "sense_plot" in side["sentence-routing"]
    # the row's bars open the body (beside the matrix they made the side column a screen longer than the figure's)
    body = [b for b in v.blocks if b.place == "body"]
    assert body[0].name == "sentence-row" and "row_bars" in _names(body[0].model)
    assert {b.place for b in v.blocks if b.name in ("sentence-heads", "sentence-cost")} == {"body"}
    # a hidden block (no notice) keeps no room
    assert next(b for b in v.blocks if b.name == "sentence-notices").height == 0


def test_the_library_holds_the_tokenizer_once_after_the_mirror_it_uses_and_the_engine_its_own_code():
    v = build_sentence(SentenceState())
    code, library = v.engine.code, v.engine.args["library"].code
    mirror, common, words = (read_js(LIBRARY_FILES[f]) for f in ("mirror.js", "common.js", "words.js"))
    engine = [read_js(f) for f in sentence_view.ENGINE_FILES]
    assert [library.count(js) for js in (mirror, common, words)] == [1, 1, 1]
    assert library.index(mirror) < library.index(words) and library.count("const AttnWords =") == 1
    assert [code.count(js) for js in engine] == [1] * len(engine) and mirror not in code and words not in code


def test_config_carries_every_preset_and_the_model_not_precomputed_sentences():
    v = build_sentence(SentenceState())
    cfg = v.engine.args["config"]
    assert [p["text"] for p in cfg["presets"]] == [p.text for p in MODEL.presets]
    assert [p["note"] for p in cfg["presets"]] == [p.note for p in MODEL.presets]
    assert [p["key"] for p in cfg["presets"]] == [sentence_key(attention.tokenize(p.text)) for p in MODEL.presets]
    assert "sentences" not in cfg                                     # the browser analyses every sentence
    assert cfg["model"] == browser_model()
    assert cfg["spec"].keys() == {"sentence", "token", "head", "att_temperature", "causal"}
    assert cfg["geometry"] == sentence_view.GEOMETRY                  # engine.js sizes the matrix by the same rules


def test_the_browser_model_is_the_cores_model():
    m = browser_model()
    assert m["dims"] == list(MODEL.dims) and m["position_features"] == list(MODEL.position_features)
    assert m["vocab"].keys() == MODEL.vocab.keys()
    for word, vec in MODEL.vocab.items():
        np.testing.assert_array_equal(m["vocab"][word], vec)
    assert m["unknown_scale"] == MODEL.unknown_scale and (m["d_k"], m["d_v"]) == (MODEL.d_k, MODEL.d_v)
    for got, head in zip(m["heads"], MODEL.heads, strict=True):
        assert (got["name"], got["description"], got["qk_columns"]) == (head.name, head.description,
                                                                        list(head.qk_columns))
        for key in ("w_q", "w_k", "w_v"):
            np.testing.assert_array_equal(got[key], getattr(head, key))
    # what an analysis ships of the model, exactly as the core's to_plain() gives it
    plain = attention.analyze_sentence("the bank by the river").to_plain()
    for key in ("value_columns", "output_columns", "w_o", "sense_plane", "d_k", "d_v"):
        assert m[key] == plain[key], key


def test_config_opens_on_the_states_sentence():
    state = ExplorableState(sentence="A boat on the river!", token=2, head=1, att_temperature=0.5, causal=True)
    v = build_sentence(state)
    cfg = v.engine.args["config"]
    assert cfg["initial"] == {"text": "A boat on the river!", "token": 2, "head": 1, "att_temperature": 0.5,
                              "causal": True}
    assert v.text_input.value == "A boat on the river!" and cfg["notices"] == [] and not v.notice_div.visible


def _core_refusal(raw) -> str:
    """The core's reason for refusing a sentence (its ValueError)."""
    with pytest.raises(ValueError) as err:
        attention.analyze_sentence(raw)
    return str(err.value)


@pytest.mark.parametrize("raw", [" ".join(["river"] * 33), "", "   ", "?!.,"])
def test_a_typed_sentence_the_core_refuses_gets_the_cores_reason_and_the_old_sentence_stays(raw):
    """The engine fills the config's words with the core's reason (AttnWords refuses what the core refuses:
    tests/browser/test_sentence.py types them); each notice is one plain sentence that keeps the page."""
    cfg = build_sentence(SentenceState()).engine.args["config"]
    assert cfg["refused"]["typed"] == REFUSED_TYPED and cfg["refused"]["link"] == REFUSED_LINK
    notice = cfg["refused"]["typed"].replace("{reason}", _core_refusal(raw))
    assert notice.startswith("That sentence was not used: ") and notice.endswith(". The previous sentence stays.")
    assert plain_words(notice) and "\n" not in notice and "<" not in notice
    assert attention.analyze_sentence(" ".join(["river"] * 32)).n == 32          # 32 words are taken


def test_a_sentence_longer_than_a_link_holds_is_refused_with_the_links_limit():
    cfg = build_sentence(SentenceState()).engine.args["config"]
    limit = url_spec()["sentence"]["max"]
    assert cfg["refused"]["too_long"] == f"it is longer than {limit} characters"
    assert cfg["spec"]["sentence"]["max"] == limit == build_sentence(SentenceState()).text_input.max_length


def test_token_and_head_past_the_end_are_clamped_with_a_notice():
    v = build_sentence(SentenceState(sentence="the bank by the river", token=20))
    assert v.engine.args["config"]["initial"]["token"] == 4
    assert v.notice_div.visible and "token=20" in v.notice_div.text and "(4)" in v.notice_div.text
    v = build_sentence(SentenceState(head=3))
    assert v.engine.args["config"]["initial"]["head"] == len(MODEL.heads) - 1
    assert v.notice_div.visible and "head=3 does not exist" in v.notice_div.text


def test_a_sentence_from_a_link_that_is_too_long_falls_back_with_a_notice():
    v = build_sentence(SentenceState(sentence="word " * 40))
    assert v.engine.args["config"]["initial"]["text"] == sentence_view.DEFAULT_SENTENCE
    assert v.text_input.value == sentence_view.DEFAULT_SENTENCE
    assert ("The sentence from the link was not used: sentence has 40 tokens; at most 32 are allowed. Showing "
            "\u201cthe bank by the river\u201d.") in v.notice_div.text
    assert v.engine.args["config"]["notices"] == [REFUSED_LINK.format(reason=_core_refusal("word " * 40),
                                                                      shown=sentence_view.DEFAULT_SENTENCE)]


def test_a_link_sentence_with_unknown_words_opens_and_lists_them():
    """Words outside the toy vocabulary get the core's made-up vectors; the opening analysis is the core's."""
    raw = "The zorblat bank, by the quux river."
    v = build_sentence(SentenceState(sentence=raw))
    assert v.engine.args["config"]["initial"]["text"] == raw and not v.notice_div.visible
    plain = sentence_view.sentence_plain(raw)
    assert plain["tokens"] == ["the", "zorblat", "bank", "by", "the", "quux", "river"]
    assert plain["unknown"] == ["zorblat", "quux"]
    a = attention.analyze_sentence(raw)
    np.testing.assert_array_equal(np.array(plain["heads"][0]["v"]), a.v[0])
    assert v.models["tokens_src"].data["tok"] == plain["tokens"]       # the axes' labels, before the engine runs


@pytest.mark.parametrize("evil", INJECTIONS + ["bank <u>under</u> & \"quotes\" 'single'"])
def test_html_in_a_sentence_never_reaches_a_div_as_html(evil):
    v = build_sentence(SentenceState(sentence=evil + " zzq"))
    assert v.engine.args["config"]["initial"]["text"] == evil + " zzq"   # kept as data, for the engine to escape
    assert v.text_input.value == evil + " zzq"                           # a widget's value, never markup
    text_ = all_div_text(v)
    for bad in ("<img", "<script", "<u>", "onerror="):
        if bad in evil:
            assert bad not in text_
    # the engines write HTML in one place only (setHtml in ui/common.js, given the same escaped HTML as the
    # Div's model); this section's engine and the tokenizer write none themselves, and run nothing they read
    js = "".join(f.read_text(encoding="utf-8") for f in sentence_view.ENGINE_FILES)
    words = LIBRARY_FILES["words.js"].read_text(encoding="utf-8")
    common = LIBRARY_FILES["common.js"].read_text(encoding="utf-8")
    for code in (js, words):
        for bad in ("innerHTML", "outerHTML", "insertAdjacentHTML", "eval(", "Function(", "document.write"):
            assert bad not in code, bad
    # one place writes markup (setHtml, whose callers escape); reading the skeleton's innerHTML writes nothing
    assert len(re.findall(r"innerHTML\s*\+?=(?!=)", common)) == 1 and "el.innerHTML = html;" in common
    assert "outerHTML" not in common and "insertAdjacentHTML" not in common


def test_html_from_a_link_is_escaped_in_the_notice():
    raw = "<script>alert(1)</script> " + "w " * 40
    v = build_sentence(SentenceState(sentence=raw))
    assert "<script" not in all_div_text(v)
    assert v.notice_div.visible and _core_refusal(raw) in v.notice_div.text


def test_engine_writes_only_browser_side_models():
    v = build_sentence(SentenceState())
    m = v.models
    for name in ("cells", "rowsums", "rowmark", "bars", "sense_values", "sense_arrows", "sense_output",
                 "sense_combined", "cost_now", "tokens_src", "readout_div", "caption_div", "info_div", "notice_div",
                 "matrix_box"):
        assert m[name].syncable is False, name                       # the engine writes the notices everywhere
    assert "holder" not in m                                         # no sentence comes from Python any more
    assert m["w_input"].syncable is True                             # a notebook's e.sentence hears the text box
    assert set(m) == set(sentence_view.ENGINE_ARGS)


def test_cost_curve_is_the_cores_attention_cost():
    v = build_sentence(SentenceState())
    src = next(m for m in v.layout.references() if getattr(m, "name", None) == "cost_curve")
    n = np.array(src.data["n"])
    assert n[0] == 8 and n[-1] == 131072
    np.testing.assert_array_equal(np.array(src.data["scores"]), attention.attention_cost(n)[0])
    slope = np.diff(np.log(src.data["scores"])) / np.diff(np.log(n))
    np.testing.assert_allclose(slope, 2.0)


def test_timings_are_measured_here_once_per_process(monkeypatch):
    """The app reads nothing from tests/ (an installed package has none): it times the core itself, once."""
    calls = []
    real = sentence_view.attention.dot_product_attention
    monkeypatch.setattr(sentence_view.attention, "dot_product_attention",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    sentence_view.measured_timings.cache_clear()
    try:
        rows, note = sentence_view.measured_timings()
        assert len(rows) >= 2 and "measured" in note
        assert [n for n, _ in rows] == list(sentence_view.TIMING_N[:len(rows)])
        assert all(us > 0 for _, us in rows)
        first = len(calls)
        assert sentence_view.measured_timings() == (rows, note) and len(calls) == first
    finally:
        sentence_view.measured_timings.cache_clear()


def test_the_page_wires_the_section(caplog):
    """The notebook component (and ``panel serve app/delivery/main.py``): the section's engine starts with the page, its
    blocks are in the page's layout, and e.sentence follows the text box only for a sentence the page shows."""
    from app.delivery.page import Explorable

    page = Explorable()
    layout = page.__panel__()
    sv = page._built.sentence
    assert sv.engine in page.engines
    shown = {m.name for m in layout[0].object.references() if m.name}
    assert {"sentence_section", "matrix_box", "sentence_knobs", "sentence_controls"} <= shown
    with caplog.at_level(logging.WARNING, logger="app.delivery.page"):
        sv.text_input.value = "w " * 40                               # the engine refuses it in the browser ...
    assert page.sentence == "the bank by the river"                  # ... and the parameter keeps the shown one
    assert "40 tokens" in caplog.text
    sv.text_input.value = "x" * (url_spec()["sentence"]["max"] + 1)   # longer than a link holds
    assert page.sentence == "the bank by the river"
    sv.text_input.value = "the bank approved the loan"
    assert page.sentence == "the bank approved the loan"
    sv.widgets["token"].value = "4"
    sv.widgets["head"].active = 2
    sv.widgets["causal"].active = True
    sv.widgets["temperature"].value = -1.0
    assert (page.token, page.head, page.causal) == (4, 2, True)
    assert page.att_temperature == pytest.approx(0.1)


def test_the_offline_document_holds_the_section_and_starts_its_engine(offline):
    sentence = [b for b in offline.plan["blocks"] if b["section"] == "sentence"]
    assert [b["name"] for b in sentence] == [b.name for b in offline.built.sentence.blocks]
    assert offline.plan["engines"]["sentence"] == [offline.built.sentence.engine.id]
    assert "const Sentence =" in offline.built.sentence.engine.code
    assert offline.doc.get_model_by_name("attention_heatmap") is offline.built.sentence.models["heat"]
    assert any("matrix_box" in b.get("looks", []) for b in sentence)   # a tour step's look finds the matrix


def test_no_div_renders_tex():
    v = build_sentence(SentenceState(sentence="$$x^2$$ bank"))
    assert all(d.disable_math for d in divs(v))


def test_python_geometry_matches_the_opening_build():
    from app.sentence.sizes import geometry

    v = build_sentence(SentenceState(sentence="we sat on the bank of the river"))
    g = geometry(attention.tokenize("we sat on the bank of the river"))
    heat = v.models["heat"]
    assert (heat.frame_width, heat.frame_height, v.models["matrix_box"].width) == \
        (g["frame_width"], g["frame_height"], g["box"])
    assert g["cell"] == 48 and g["frame_height"] == 8 * 48           # 440 px over n + 1 = 9 cells
    assert geometry(["w"] * 32)["cell"] == 20                          # never under 20 px
    assert geometry(["w"] * 32, inner_width=360)["box"] == 328         # at most the screen, minus a margin


def test_the_cells_fit_a_small_projectors_height():
    """Presentation mode on a 1280 x 720 projector: the rows fit the height left beside the knobs and labels,
    never under 20 px (a longer sentence scrolls instead)."""
    from app.sentence.sizes import GEOMETRY, geometry

    ten = ["w"] * 10
    wide = geometry(ten, present=True)                                 # no height given: the width decides
    assert wide["cell"] == round(40 * GEOMETRY["present_scale"])       # 440 px over 11 cells, 1.3 times larger
    small = geometry(ten, present=True, inner_width=1280, inner_height=720)
    assert small["cell"] * 10 <= 720 - GEOMETRY["height_margin"][1] < (small["cell"] + 1) * 10
    assert small["frame_height"] == 10 * small["cell"] < wide["frame_height"]
    assert geometry(ten, inner_height=720)["cell"] == 40               # room enough without presentation mode
    assert geometry(["w"] * 32, present=True, inner_height=720)["cell"] == GEOMETRY["cell_range"][0]


# Advance widths in em of the page's font and its widest fallback (DejaVu Sans and Verdana: digits 0.636 em, the
# point 0.318 and 0.364 em): what the matrix's numbers and row sums take.
DIGIT_EM, POINT_EM = 0.636, 0.364


@pytest.mark.parametrize("present", [False, True])
def test_the_matrix_keeps_room_for_its_numbers_at_their_size(present):
    """A cell prints its weight ("0.20") only when it holds it at the text glyphs' size with 2 px either side, and
    the row sums ("1.000") have their width right of the cells: 13 px words on a laptop, 20 px projected."""
    from app.sentence.sizes import GEOMETRY
    from app.ui import theme

    normal = theme.SIZES["normal"]["glyph"]
    px = float((theme.present_text_size(normal) if present else normal)[:-2])
    assert not present or px >= theme.PRESENT_TEXT_MIN
    i = int(present)
    assert GEOMETRY["numbers_cell"][i] >= (3 * DIGIT_EM + POINT_EM) * px + 4
    assert GEOMETRY["sums_px"][i] >= (4 * DIGIT_EM + POINT_EM) * px
