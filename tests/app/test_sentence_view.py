"""The self-attention section without a browser: every build, the engine's config and code, the served sentence
hook."""

from __future__ import annotations


import numpy as np
import pytest
from bokeh.models import Div

import attention
from app.sentence import view as sentence_view
from app.sentence.view import REFUSED_LINK, REFUSED_TYPED, browser_model, build_sentence, sentence_key
from app.state import ExplorableState, SentenceState, url_spec

MODEL = attention.load_sentence_model()
INJECTIONS = ["<img src=x onerror=alert(1)>", "<script>alert(1)</script>"]


def divs(view):
    return [m for m in view.layout.references() if isinstance(m, Div)]


def all_div_text(view):
    return "\n".join(d.text for d in divs(view))


@pytest.mark.parametrize("mode", ["served", "static", "live"])
def test_builds_the_same_section_in_every_mode(mode):
    v = build_sentence(ExplorableState(), mode=mode)
    assert v.layout.name == "sentence_section"
    assert "SentenceExplorable.handle(cb_obj" in v.engine.code
    assert "function multiHeadAttention" in v.engine.code      # the mirror is inside the engine
    assert "function tokenize" in v.engine.code                # and the tokenizer: the browser reads typed text
    names = {m.name for m in v.layout.references() if m.name}
    for name in ("attention_heatmap", "row_bars", "sense_plot", "cost_plot", "head_select", "token_select",
                 "att_temperature_slider", "causal_toggle", "preset_select", "sentence_readouts",
                 "sentence_input", "sentence_input_note"):
        assert name in names, name
    assert v.text_input.name == "sentence_input" and v.widgets["input"] is v.text_input
    assert v.text_input.max_length == url_spec()["sentence"]["max"]
    assert "sentence_static_note" not in names                  # typing needs no server anywhere
    note = next(m for m in v.layout.references() if m.name == "sentence_input_note").text
    assert "served" not in note and f"at most {attention.MAX_TOKENS} words" in note
    assert v.engine.args["config"]["mode"] == mode
    # the engine hears the text box (Enter), as it hears the other controls
    assert v.engine in v.text_input.js_property_callbacks["change:value"]


def test_the_engine_holds_the_tokenizer_once_after_the_mirror_it_uses():
    code = build_sentence(SentenceState(), mode="static").engine.code
    ui = sentence_view.HERE.parent / "ui"
    mirror, common, words = ((ui / f).read_text(encoding="utf-8") for f in ("mirror.js", "common.js", "words.js"))
    engine = (sentence_view.HERE / "engine.js").read_text(encoding="utf-8")
    assert [code.count(js) for js in (mirror, common, words, engine)] == [1, 1, 1, 1]
    assert code.index(mirror) < code.index(words) < code.index(engine)
    assert code.count("const AttnWords =") == 1


def test_bad_mode_is_refused():
    with pytest.raises(ValueError, match="mode"):
        build_sentence(SentenceState(), mode="pdf")


def test_config_carries_every_preset_and_the_model_not_precomputed_sentences():
    v = build_sentence(SentenceState(), mode="static")
    cfg = v.engine.args["config"]
    assert [p["text"] for p in cfg["presets"]] == [p.text for p in MODEL.presets]
    assert [p["note"] for p in cfg["presets"]] == [p.note for p in MODEL.presets]
    assert [p["key"] for p in cfg["presets"]] == [sentence_key(attention.tokenize(p.text)) for p in MODEL.presets]
    assert "sentences" not in cfg                                     # the browser analyses every sentence
    assert cfg["model"] == browser_model()
    assert cfg["spec"].keys() == {"sentence", "token", "head", "att_temperature", "causal"}


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
    cfg = build_sentence(state, mode="static").engine.args["config"]
    assert cfg["initial"] == {"text": "A boat on the river!", "token": 2, "head": 1, "temperature": 0.5,
                              "causal": True}


def test_the_refusals_say_what_the_served_page_said():
    """The engine's notices for a refused sentence: the words the served page (app/page.py) and the live
    page's endpoint (app/live/api.py) gave, reason included."""
    cfg = build_sentence(SentenceState(), mode="static").engine.args["config"]
    reason = "sentence has 33 tokens; at most 32 are allowed"
    assert cfg["refused"]["typed"].replace("{reason}", reason) == \
        f"That sentence was not used: {reason}. The previous sentence stays."
    assert cfg["refused"]["too_long"] == f"it is longer than {url_spec()['sentence']['max']} characters"
    assert cfg["refused"]["typed"] == REFUSED_TYPED and cfg["refused"]["link"] == REFUSED_LINK


def test_token_past_the_end_is_clamped_with_a_notice():
    v = build_sentence(SentenceState(sentence="the bank by the river", token=20), mode="served")
    assert v.engine.args["config"]["initial"]["token"] == 4
    assert v.notice_div.visible and "token=20" in v.notice_div.text and "(4)" in v.notice_div.text


def test_a_sentence_from_a_link_that_is_too_long_falls_back_with_a_notice():
    v = build_sentence(SentenceState(sentence="word " * 40), mode="served")
    assert v.engine.args["config"]["initial"]["text"] == sentence_view.DEFAULT_SENTENCE
    assert v.text_input.value == sentence_view.DEFAULT_SENTENCE
    assert ("The sentence from the link was not used: sentence has 40 tokens; at most 32 are allowed. Showing "
            "\u201cthe bank by the river\u201d.") in v.notice_div.text


def test_custom_sentence_hook_refuses_33_tokens_and_keeps_the_old_sentence():
    v = build_sentence(SentenceState(), mode="served")
    before = dict(v.holder.data)
    assert v.set_sentence(" ".join(["river"] * 33)) is False
    assert v.holder.data == before
    assert v.current_plain()["text"] == "the bank by the river"
    assert v.notice_div.visible and "33 tokens" in v.notice_div.text and "previous sentence stays" in v.notice_div.text
    assert v.set_sentence(" ".join(["river"] * 32)) is True          # 32 is allowed
    assert len(v.current_plain()["tokens"]) == 32
    assert not v.notice_div.visible


@pytest.mark.parametrize("raw", ["", "   ", "?!.,", None])
def test_custom_sentence_hook_refuses_empty(raw):
    v = build_sentence(SentenceState(), mode="served")
    before = dict(v.holder.data)
    assert v.set_sentence(raw) is False
    assert v.holder.data == before
    assert "empty" in v.notice_div.text


def test_unknown_words_are_listed_and_pushed():
    v = build_sentence(SentenceState(), mode="served")
    assert v.set_sentence("The zorblat bank, by the quux river.") is True
    plain = v.current_plain()
    assert plain["tokens"] == ["the", "zorblat", "bank", "by", "the", "quux", "river"]
    assert plain["unknown"] == ["zorblat", "quux"]                   # the engine lists them (sentence_info)
    assert not v.notice_div.visible
    # the pushed numbers are the core's, for the unknown words' deterministic vectors too
    a = attention.analyze_sentence("The zorblat bank, by the quux river.")
    np.testing.assert_array_equal(np.array(plain["heads"][0]["v"]), a.v[0])
    v.set_sentence("w " * 40)
    assert v.notice_div.visible
    assert v.set_sentence("the bank by the river") is True
    assert not v.notice_div.visible                                   # a good sentence clears the refusal


@pytest.mark.parametrize("evil", INJECTIONS + ["bank <u>under</u> & \"quotes\" 'single'"])
def test_html_in_a_sentence_never_reaches_a_div_as_html(evil):
    v = build_sentence(SentenceState(sentence=evil + " zzq"), mode="served")
    assert v.set_sentence(evil + " qqz bank") is True
    assert v.current_plain()["text"] == evil + " qqz bank"              # kept as data, for the engine to escape
    text = all_div_text(v)
    for bad in ("<img", "<script", "<u>", "onerror="):
        if bad in evil:
            assert bad not in text
    # the engines write HTML in one place only (setHtml in ui/common.js, given the same escaped HTML as the
    # Div's model); this section's engine and the tokenizer write none themselves, and run nothing they read
    js = (sentence_view.HERE / "engine.js").read_text(encoding="utf-8")
    words = (sentence_view.HERE.parent / "ui" / "words.js").read_text(encoding="utf-8")
    common = (sentence_view.HERE.parent / "ui" / "common.js").read_text(encoding="utf-8")
    for code in (js, words):
        for bad in ("innerHTML", "outerHTML", "insertAdjacentHTML", "eval(", "Function(", "document.write"):
            assert bad not in code, bad
    assert common.count("innerHTML") == 1 and "view.markup_el.innerHTML = html;" in common


def test_html_from_a_link_is_escaped_in_the_notice():
    v = build_sentence(SentenceState(sentence="<script>alert(1)</script> " + "w " * 40), mode="served")
    assert "<script" not in all_div_text(v)


@pytest.mark.parametrize("mode", ["served", "static"])
def test_engine_writes_only_browser_side_models(mode):
    v = build_sentence(SentenceState(), mode=mode)
    m = v.models
    for name in ("cells", "rowsums", "rowmark", "bars", "sense_values", "sense_arrows", "sense_output",
                 "sense_combined", "cost_now", "tokens_src", "readout_div", "caption_div", "info_div", "notice_div"):
        assert m[name].syncable is False, name                       # the engine writes the notices everywhere
    assert "holder" not in m                                         # no sentence comes from Python any more
    assert m["w_input"].syncable is True                             # served, Python still hears the text box


def test_cost_curve_is_the_cores_attention_cost():
    v = build_sentence(SentenceState(), mode="static")
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


def test_the_served_page_wires_the_section():
    from app.page import Explorable

    page = Explorable()
    layout = page.__panel__()
    assert any(e is page._sentence_view.engine for e in page.engines)
    sv = page._sentence_view
    assert any(sv.layout in getattr(getattr(p, "object", None), "children", ()) for p in layout)  # on the page
    page._on_sentence_text("value", "", "w " * 40)                    # refused, never raises
    assert page.sentence == "the bank by the river"
    assert "40 tokens" in sv.notice_div.text
    page._on_sentence_text("value", "", "the bank approved the loan")
    assert page.sentence == "the bank approved the loan"
    assert sv.current_plain()["tokens"] == ["the", "bank", "approved", "the", "loan"]
    sv.widgets["token"].value = "4"
    sv.widgets["head"].active = 2
    sv.widgets["causal"].active = True
    sv.widgets["temperature"].value = -1.0
    assert (page.token, page.head, page.causal) == (4, 2, True)
    assert page.att_temperature == pytest.approx(0.1)


def test_the_offline_document_holds_the_section():
    from app.export import build_static_document

    doc = build_static_document(ExplorableState())
    names = {m.name for m in doc.models if m.name}
    assert "sentence_section" in names and "regression_section" in names
    ready = doc.callbacks._js_event_callbacks["document_ready"] if hasattr(doc.callbacks, "_js_event_callbacks") \
        else doc.js_event_callbacks["document_ready"]
    assert any("SentenceExplorable" in cb.code for cb in ready)


def test_no_div_renders_tex():
    v = build_sentence(SentenceState(sentence="$$x^2$$ bank"), mode="served")
    assert all(d.disable_math for d in divs(v))


def test_python_geometry_matches_the_opening_build():
    from app.sentence.view import geometry

    v = build_sentence(SentenceState(sentence="we sat on the bank of the river"), mode="static")
    g = geometry(attention.tokenize("we sat on the bank of the river"))
    heat = v.models["heat"]
    assert (heat.frame_width, heat.frame_height, v.models["matrix_box"].width) == \
        (g["frame_width"], g["frame_height"], g["box"])
    assert g["cell"] == 48 and g["frame_height"] == 8 * 48           # 440 px over n + 1 = 9 cells
    assert geometry(["w"] * 32)["cell"] == 20                          # never under 20 px
    assert geometry(["w"] * 32, inner_width=360)["box"] == 328         # at most the screen, minus a margin
