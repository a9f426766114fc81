"""The self-attention section in a real browser, driven with real clicks and keystrokes.

Everything the engine computes is held to numpy (attention.analyze_sentence) within 1e-9; the readouts to the
core's entropy_bits / effective_points.  A typed sentence is analysed in the browser (attention/words.js) in every
delivery.  The section sits below the regression: a test draws it at once (AttnPage.ensure), as a student's
scroll would, except the deep-link test, which lets the loader draw it later on a phone and checks that the link's
state is what it then shows, served and offline.  The other tests open the offline file with every request
outside it refused.
"""

from __future__ import annotations

import math
from io import BytesIO
from urllib.parse import quote

import numpy as np
import pytest
from PIL import Image

import attention
from app.sentence.sizes import geometry
from app.ui import theme
from tests.browser.pageutil import (AXIS_LABELS_JS, FIRST_READOUTS_JS, SAID_JS, SETTLED_JS, block_outside, draw, first_readouts, model_prop,
                                    open_more_controls, source_data, wait_drawn, wait_frames, wait_ready,
                                    wait_settled)

MODEL = attention.load_sentence_model()
PRESETS = [p.text for p in MODEL.presets]
TOL = 1e-9

READY_JS = """() => { const d = window.Bokeh && Bokeh.documents && Bokeh.documents[0];
  const m = d && d.get_model_by_name('sentence_readouts'); return !!(m && m.text.includes('max weight')); }"""

VIEW_JS = """([name]) => { const m = Bokeh.documents[0].get_model_by_name(name); return Bokeh.index.find_one(m); }"""

CELL_JS = """([name, x, y]) => {
  const fig = Bokeh.documents[0].get_model_by_name(name);
  const view = Bokeh.index.find_one(fig);
  const host = view.el.getBoundingClientRect();
  return { x: host.left + view.frame.x_scale.compute(x), y: host.top + view.frame.y_scale.compute(y),
           top: host.top, bottom: host.bottom };
}"""


def wait_section(page, timeout=30000):
    """Wait until the page is ready, draw the sentence section and wait until its engine has written its readouts."""
    wait_ready(page)
    draw(page, "sentence")
    page.wait_for_function(READY_JS, timeout=timeout)


def element(page, name, attr, index=None):
    """The DOM element ``attr`` of the view of the model called ``name`` (scrolled into view)."""
    h = page.evaluate_handle("""([n, a, i]) => { const m = Bokeh.documents[0].get_model_by_name(n);
      const v = Bokeh.index.find_one(m); const el = i === null ? v[a] : v[a][i];
      el.scrollIntoView({ block: 'center' }); return el; }""", [name, attr, index])
    return h.as_element()


def wait_tokens(page, tokens, timeout=20000):
    page.wait_for_function("""(want) => { const s = Bokeh.documents[0].get_model_by_name('attention_cells');
      const t = Bokeh.documents[0].get_model_by_name('sentence_tokens');
      return t.data.tok.join(' ') === want.join(' ') && s.data.w.length === want.length * want.length
        && !(globalThis.__attnTextsPending > 0); }""",   # the rest of the section follows the matrix (afterPaint)
                           arg=tokens, timeout=timeout)


def wait_model(page, name, prop, value, timeout=20000):
    page.wait_for_function("([n, p, v]) => Bokeh.documents[0].get_model_by_name(n)[p] === v",
                           arg=[name, prop, value], timeout=timeout)


def click_cell(page, x, y):
    """A real mouse click at the centre of cell (column x, row y) of the big heatmap."""
    page.evaluate("""() => { const m = Bokeh.documents[0].get_model_by_name('attention_heatmap');
      Bokeh.index.find_one(m).el.scrollIntoView({ block: 'center' }); }""")
    p = page.evaluate(CELL_JS, ["attention_heatmap", x, y])
    page.mouse.click(p["x"], p["y"])


def type_sentence(page, text):
    box = element(page, "sentence_input", "input_el")
    box.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def matrix(page, name="attention_cells"):
    d = source_data(page, name)
    n = int(round(len(d["w"]) ** 0.5))
    W = np.full((n, n), np.nan)
    W[np.array(d["y"], dtype=int), np.array(d["x"], dtype=int)] = d["w"]
    return W


def cell_image(page, name="attention_image"):
    """What an image source of the section draws, n x n: each cell's colour value (the weight itself, on the
    colour mapper's 0 to 1; NaN, drawn grey, where the causal mask hides it)."""
    d = page.evaluate("""(n) => { const im = Bokeh.documents[0].get_model_by_name(n).data.image[0];
      return { shape: Array.from(im.shape), values: Array.from(im) }; }""", name)
    return np.array(d["values"], dtype=float).reshape(d["shape"])


def colours(W, causal):
    """numpy's colour values for a matrix of weights: the weights themselves (the page's one scale, 0 to 1), NaN
    above the diagonal when masked."""
    C = np.array(W, dtype=float)
    if causal:
        C[np.triu_indices(len(W), k=1)] = np.nan
    return C


def state(page):
    return {"token": int(model_prop(page, "token_select", "value")), "head": model_prop(page, "head_select", "active"),
            "temperature": 10 ** model_prop(page, "att_temperature_slider", "value"),
            "causal": model_prop(page, "causal_toggle", "active")}


def check_parity(page, text):
    """Every number the engine drew equals numpy's within 1e-9, for the page's own state."""
    s = state(page)
    a = attention.analyze_sentence(text, temperature=s["temperature"], causal=s["causal"])
    h, i = s["head"], s["token"]
    assert source_data(page, "sentence_tokens")["tok"] == a.tokens
    assert np.abs(matrix(page) - a.weights[h]).max() <= TOL
    labels = source_data(page, "cell_labels")   # a cell's number: black from 0.5 up, white below (CELL_TEXT)
    assert labels["tc"] == ["#000000" if a.weights[h][int(y)][int(x)] >= 0.5 else "#FFFFFF"
                            for x, y in zip(labels["x"], labels["y"])]
    np.testing.assert_allclose(cell_image(page), colours(a.weights[h], a.causal), rtol=0, atol=TOL)
    n, edges = len(a.tokens), source_data(page, "attention_edges")   # the white lines: between every two cells
    lines = [(k - 0.5, -0.5, k - 0.5, n - 0.5) for k in range(1, n)] + [(-0.5, k - 0.5, n - 0.5, k - 0.5)
                                                                        for k in range(1, n)]
    assert sorted(zip(edges["x0"], edges["y0"], edges["x1"], edges["y1"])) == sorted(lines)
    for g in range(len(MODEL.heads)):
        np.testing.assert_allclose(cell_image(page, f"head_cells_{g}"), colours(a.weights[g], a.causal), rtol=0,
                                   atol=TOL)
    bars = source_data(page, "row_weights")
    assert np.abs(np.array(bars["w"]) - a.weights[h][i]).max() <= TOL
    out = source_data(page, "sense_output")
    assert np.abs(np.array([out["x"][0], out["y"][0]]) - a.output_xy[h][i]).max() <= TOL
    comb = source_data(page, "sense_combined")
    assert np.abs(np.array([comb["x"][0], comb["y"][0]]) - a.combined_xy[i]).max() <= TOL
    vals = source_data(page, "sense_values")
    for x, y in zip(vals["x"], vals["y"]):
        assert np.abs(a.value_xy[h] - [x, y]).max(axis=1).min() <= TOL
    return a, s


def check_readouts(page, a, head, token):
    w = a.weights[head][token]
    text = model_prop(page, "sentence_readouts", "text")
    k = token + 1 if a.causal else a.n           # a causal row sees itself and the words before it
    seen = (f"of {np.log2(k):.2f} ({k} visible)<", f"of {k} visible<") if a.causal else \
        (f"of {np.log2(k):.2f}<", f"of {k}<")
    for want in (f"<td>{w.max():.3f}</td>", f"<td>{attention.entropy_bits(w):.2f} bits</td>",
                 f"<td>{attention.effective_points(w):.1f}</td>", f"<td>{a.tokens[token]}</td>") + seen:
        assert want in text, (want, text)


def no_outside(watch, origin):
    assert watch.outside_requests([origin, "data:", "blob:"]) == []
    assert watch.console_errors() == []


def wait_notice(page, needle, timeout=20000):
    page.wait_for_function("(s) => Bokeh.documents[0].get_model_by_name('sentence_notices').text.includes(s)",
                           arg=needle, timeout=timeout)


def link_sentence(page):
    return page.evaluate("() => new URLSearchParams(location.search).get('sentence')")


@pytest.fixture
def offline(static_file, watch):
    """open(query): the offline file (every request outside it refused) with the sentence section drawn; after the
    test, no console error and no request outside the file."""
    block_outside(watch.page)

    def go(query=""):
        watch.page.goto(static_file.as_uri() + query)
        wait_section(watch.page)
        return watch.page

    yield go
    no_outside(watch, "file:")


# --------------------------------------------------------------------------- the matrix, its rows and words

def test_rows_sum_to_one_and_a_click_on_bank_selects_its_row(offline):
    page = offline("?token=3")
    assert model_prop(page, "token_select", "value") == "3"
    W = matrix(page)
    assert W.shape == (5, 5)
    np.testing.assert_allclose(W.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert source_data(page, "row_sums")["text"] == ["1.000"] * 5
    check_parity(page, "the bank by the river")

    click_cell(page, 2, 1)                                        # "bank"'s row, the "by" column
    wait_model(page, "token_select", "value", "1")
    a, s = check_parity(page, "the bank by the river")
    assert (s["head"], s["token"]) == (0, 1)
    check_readouts(page, a, 0, 1)
    assert source_data(page, "row_mark")["y"] == [1]
    assert "one regression query" in model_prop(page, "sentence_caption", "text")
    # the link follows: token=1 is the default, so it leaves the query string
    page.wait_for_function("() => !location.search.includes('token=')")


def test_the_matrix_colours_the_weight_itself_and_its_numbers_stay_legible(offline):
    """The page's one colour scale: an even row of five words is 0.2 in every cell, dark, not "hot" (the colour
    was once the weight over the matrix's largest); the colour bar says "weight", 0 to 1; a cell's number is black
    on the palette's brighter half and white on the darker, at 4.5 : 1 or more on each of its ten colours."""
    from tests.browser.test_routing import contrast

    page = offline("?att_temperature=100")                        # T = 100: every row almost even
    wait_model(page, "att_temperature_slider", "value", 2)
    a, _ = check_parity(page, "the bank by the river")
    assert np.abs(cell_image(page) - 0.2).max() < 0.03
    bar = page.evaluate("""() => { const f = Bokeh.documents[0].get_model_by_name('attention_heatmap');
      const b = f.right.find((m) => m.type === 'ColorBar'), cm = b.color_mapper;
      return { title: b.title, low: cm.low, high: cm.high, ticks: b.ticker.ticks, palette: cm.palette }; }""")
    assert bar == {"title": "weight", "low": 0, "high": 1, "ticks": [0, 0.5, 1], "palette": list(theme.WEIGHT_PALETTE)}
    labels = source_data(page, "cell_labels")
    assert labels["tc"] and set(labels["tc"]) == {"#FFFFFF"}      # 0.2: white on dark blue
    page = offline("?att_temperature=0.05")                       # sharp rows: bright cells, black numbers
    check_parity(page, "the bank by the river")
    labels = source_data(page, "cell_labels")
    assert "#000000" in labels["tc"] and "#FFFFFF" in labels["tc"]
    for k, colour in enumerate(theme.WEIGHT_PALETTE):
        assert contrast(colour, "#000000" if k >= 5 else "#FFFFFF") >= 4.5, colour


def test_typing_a_sentence_updates_the_matrix(offline):
    page = offline()
    type_sentence(page, "The loan from the bank was paid.")
    tokens = ["the", "loan", "from", "the", "bank", "was", "paid"]
    wait_tokens(page, tokens)
    page.wait_for_function("() => location.search.includes('sentence=')")
    assert model_prop(page, "token_select", "value") == "4"       # a new sentence follows "bank"
    # the engine sized the matrix as Python's twin does (what the opening page is built with)
    geo = geometry(tokens)
    assert model_prop(page, "attention_heatmap", "frame_width") == geo["frame_width"]
    assert model_prop(page, "attention_heatmap", "frame_height") == geo["frame_height"]
    assert model_prop(page, "matrix_box", "width") == geo["box"]
    a, _ = check_parity(page, "the loan from the bank was paid")
    check_readouts(page, a, 0, 4)
    np.testing.assert_allclose(matrix(page).sum(axis=1), 1.0, rtol=0, atol=1e-12)

    type_sentence(page, " ".join(["river"] * 33))                 # refused with the count, matrix stays
    wait_notice(page, "33 tokens")
    assert model_prop(page, "sentence_notices", "visible") is True
    assert source_data(page, "sentence_tokens")["tok"] == tokens
    check_parity(page, "the loan from the bank was paid")


def test_the_axes_make_room_for_wider_words_in_a_sentence_as_long_as_the_last(offline):
    """Five words after five, each as many letters as "river" but wider: the ranges and the box stay, so only the
    axes can make room; the matrix's row labels are measured again."""
    page = offline()
    wide = ["mmmmm", "wwwww", "mmmmm", "wwwww", "mmmmm"]
    type_sentence(page, " ".join(wide))
    wait_tokens(page, wide)
    page.wait_for_function("() => !(globalThis.__attnTextsPending > 0)")
    page.evaluate(SETTLED_JS)
    axes = page.evaluate(AXIS_LABELS_JS, "attention_heatmap")
    assert "left" in {a["side"] for a in axes} and all(a["labels"] == wide for a in axes), axes
    assert [a for a in axes if a["widest"] > a["depth"]] == []


def test_injection_strings_stay_literal_text(offline, watch):
    """(Offline: the served page is the same bytes, and its Content-Security-Policy allows inline scripts, so it
    would not stop an injection the engine let through: the engine is what keeps typed text as text.)"""
    dialogs = []
    watch.page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page = offline()
    for evil in ("<img src=x onerror=alert(1)>", "<script>alert(1)</script>"):
        typed_stays_text(page, evil)
    assert dialogs == []


def typed_stays_text(page, evil):
    type_sentence(page, evil + " by the bank")
    wait_tokens(page, attention.tokenize(evil + " by the bank"))
    page.wait_for_function("(s) => Bokeh.documents[0].get_model_by_name('sentence_info').text.includes(s)",
                           arg=evil.replace("<", "&lt;").replace(">", "&gt;"))
    shown = page.evaluate("""() => { const m = Bokeh.documents[0].get_model_by_name('sentence_info');
      return Bokeh.index.find_one(m).shadow_el.textContent; }""")
    assert evil in shown                                          # literal text on the page
    info = model_prop(page, "sentence_info", "text")
    for word in [t for t in attention.tokenize(evil) if t not in MODEL.vocab]:
        assert f"\u201c{word}\u201d" in info.rsplit("Not in the toy vocabulary", 1)[1]   # unknown words listed
    live = page.evaluate("""() => { let imgs = 0, scripts = 0;
      function walk(root) { for (const el of root.querySelectorAll('*')) {
          if (el.tagName === 'IMG') imgs++;
          if (el.tagName === 'SCRIPT' && el.textContent.includes('alert')) scripts++;
          if (el.shadowRoot) walk(el.shadowRoot); } }
      walk(document); return [imgs, scripts]; }""")
    assert live == [0, 0]       # no element exists whose onerror or script could fire later, so no waiting
    assert model_prop(page, "sentence_input", "value") == evil + " by the bank"
    check_parity(page, evil + " by the bank")


def test_hovering_a_cell_names_its_query_its_key_and_its_weight(offline):
    """The cells are an image; the hover reads the invisible squares drawn over it, one per cell."""
    page = offline()
    a = attention.analyze_sentence("the bank by the river")
    heat = "Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('attention_heatmap'))"
    page.evaluate(f"() => {heat}.el.scrollIntoView({{ block: 'center' }})")
    wait_settled(page, scroll_only=True)
    xy = page.evaluate(f"""() => {{ const v = {heat}, r = v.el.getBoundingClientRect(), f = v.frame;
      return [r.left + f.x_scale.compute(4), r.top + f.y_scale.compute(1)]; }}""")
    page.mouse.move(xy[0] - 3, xy[1])
    page.mouse.move(xy[0], xy[1])
    want = f"query (row): bank (1) key (column): river (4) weight: {a.weights[state(page)['head']][1][4]:.4f}"
    page.wait_for_function("""(want) => { let found = false; const walk = (root) => {
        for (const el of root.querySelectorAll('*')) {
          const text = el.textContent.replace(/\\s+/g, ' ').trim();
          if (String(el.className).includes('tooltip') && text === want) found = true;
          if (el.shadowRoot) walk(el.shadowRoot); } };
      walk(document); return found; }""", arg=want)


def test_causal_mask_zeroes_the_upper_triangle(offline):
    page = offline("?sentence=" + quote("the bank by the river approved the loan"))
    W = matrix(page)
    assert (W[np.triu_indices(8, k=1)] > 0).all()
    element(page, "causal_toggle", "checkbox_el").click()
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('attention_cells').data.w[1] === 0")
    W = matrix(page)
    assert (W[np.triu_indices(8, k=1)] == 0).all()
    assert (W[np.tril_indices(8)] > 0).all()
    np.testing.assert_allclose(W.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    wc = cell_image(page)
    assert np.isnan(wc[np.triu_indices(8, k=1)]).all()           # masked cells are drawn grey
    assert not np.isnan(wc[np.tril_indices(8)]).any()
    a, _ = check_parity(page, "the bank by the river approved the loan")
    assert a.causal
    page.wait_for_function("() => location.search.includes('causal=1')")
    # on screen, row i is query i and column j key j: the masked cells (j > i) are the grey ones
    shown = drawn_cells(page, 8)
    grey = np.all(np.abs(shown - MASK_GREY) <= 3, axis=2)
    assert (grey == np.triu(np.ones((8, 8), bool), k=1)).all(), grey.astype(int)


MASK_GREY = np.array([0xE4, 0xE4, 0xE4])   # the colour mapper's nan_color (app/sentence/view.py)


def drawn_cells(page, n):
    """The colour the student sees at the centre of each cell of the attention matrix (n x n x RGB): from a
    screenshot, at the points the plot's own scales give for (j, i)."""
    wait_frames(page, 3)
    centres = page.evaluate("""(n) => {
      const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('attention_heatmap'));
      v.el.scrollIntoView({ block: 'center' });
      const r = v.el.getBoundingClientRect(), f = v.frame, out = [];
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++)
        out.push([r.left + f.x_scale.compute(j), r.top + f.y_scale.compute(i)]);
      return out; }""", n)
    wait_frames(page, 3)
    shot = np.asarray(Image.open(BytesIO(page.screenshot())).convert("RGB"), dtype=int)
    return np.array([shot[round(y), round(x)] for x, y in centres]).reshape(n, n, 3)


def test_bank_moves_toward_water_or_money_with_its_context(offline):
    page = offline()
    out = source_data(page, "sense_output")
    assert out["x"][0] > out["y"][0]                              # "the bank by the river": water
    element(page, "preset_select", "input_el").select_option(label="the bank approved the loan")
    wait_tokens(page, ["the", "bank", "approved", "the", "loan"])
    assert model_prop(page, "token_select", "value") == "1"
    out = source_data(page, "sense_output")
    assert out["y"][0] > out["x"][0]                              # "the bank approved the loan": money
    check_parity(page, "the bank approved the loan")
    assert "loan" in model_prop(page, "preset_note", "text")
    # the text box shows the example, ready to be edited
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('sentence_input').value === "
                           "'the bank approved the loan'")


def test_head_switch_and_presentation_mode(offline):
    page = offline()
    element(page, "head_select", "_buttons", 1).click()          # "previous word"
    wait_model(page, "head_select", "active", 1)
    page.wait_for_function("""() => { const d = Bokeh.documents[0], big = d.get_model_by_name('attention_cells').data.w;
      const mini = d.get_model_by_name('head_cells_1').data.image[0], top = Math.max(...big);
      return mini.length === 25 && big.length === 25 && Math.abs(mini[5] - big[5]) < 1e-12 && top > 0; }""")
    a, _ = check_parity(page, "the bank by the river")
    assert matrix(page)[1].argmax() == 0                          # "bank" looks one word back
    click_cell(page, 0, 4)
    wait_model(page, "token_select", "value", "4")
    check_readouts(page, a, 1, 4)
    # issue 47: a screen reader hears the chosen row's readouts once they settle, as the table writes them
    want = page.evaluate("() => AttnDescribe.plainWords(Bokeh.documents[0].get_model_by_name('sentence_readouts').text)")
    assert "row 4" in want
    page.wait_for_function(f"(s) => ({SAID_JS})() === s", arg=want)
    before = page.evaluate("() => Bokeh.documents[0].get_model_by_name('attention_heatmap').frame_width")
    open_more_controls(page)   # presentation mode sits behind the regression section's "More controls"
    element(page, "present_toggle", "checkbox_el").click()
    big = theme.SIZES["present"]["tick"]                              # the theme's presentation size
    page.wait_for_function("(px) => Bokeh.documents[0].get_model_by_name('attention_heatmap').above[0]"
                           ".major_label_text_font_size === px", arg=big)
    after = page.evaluate("() => Bokeh.documents[0].get_model_by_name('attention_heatmap').frame_width")
    assert after > before


def test_a_32_token_sentence_stays_legible_on_a_phone(static_file, browser):
    ctx = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.set_default_timeout(30000)
    try:
        block_outside(page)
        page.goto(static_file.as_uri())
        wait_section(page)
        words = ("the bank by the river approved the loan and we sat on the bank of the river with cash "
                 "in the bank near a boat while she put money to the bank").split()[:32]
        type_sentence(page, " ".join(words))
        wait_tokens(page, words)
        geo = page.evaluate("""() => { const d = Bokeh.documents[0];
          const fig = d.get_model_by_name('attention_heatmap'); const v = Bokeh.index.find_one(fig);
          const box = Bokeh.index.find_one(d.get_model_by_name('matrix_box')).el;
          const section = document.getElementById('attn-sec-sentence');
          return { cell: v.frame.bbox.height / 32, cellw: v.frame.bbox.width / 32, scroll: box.scrollWidth,
                   client: box.clientWidth, section: section.getBoundingClientRect().width }; }""")
        assert geo["cell"] >= 20 and geo["cellw"] >= 20           # every cell at least 20 x 20 px
        assert geo["section"] <= 360                              # the section itself fits the screen
        assert geo["scroll"] > geo["client"]                      # the matrix scrolls sideways inside its box
        np.testing.assert_allclose(matrix(page).sum(axis=1), 1.0, rtol=0, atol=1e-12)
    finally:
        ctx.close()


# --------------------------------------------------------------------------- presets, links, causal rows

def test_offline_presets_match_numpy_with_the_network_blocked(offline):
    page = offline()
    for k, text in enumerate(PRESETS):
        element(page, "preset_select", "input_el").select_option(label=text)
        wait_tokens(page, attention.tokenize(text))
        for h in range(len(MODEL.heads)):
            element(page, "head_select", "_buttons", h).click()
            wait_model(page, "head_select", "active", h)
            a, s = check_parity(page, text)
            check_readouts(page, a, h, s["token"])
            np.testing.assert_allclose(matrix(page).sum(axis=1), 1.0, rtol=0, atol=1e-12)
        p = MODEL.presets[k]
        out = source_data(page, "sense_output")
        if "bank" in a.tokens:
            element(page, "head_select", "_buttons", 0).click()
            wait_model(page, "head_select", "active", 0)
            out = source_data(page, "sense_output")
            if p.sense == "water":
                assert out["x"][0] > out["y"][0], text
            elif p.sense == "money":
                assert out["y"][0] > out["x"][0], text
    assert not model_prop(page, "sentence_notices", "visible")


@pytest.mark.parametrize("where", ["served", "offline"])   # served: the link is an http address, written back
def test_a_deep_link_lands_in_the_section_once_the_loader_draws_it(request, browser, where):
    """On a phone the section is far below the first screen: the loader draws it after the first readouts, by
    itself.  The link's sentence, word (clamped to the sentence, with a notice), head, temperature and mask are
    then what the section shows, as numpy computes it; the link is written back with the clamped word, and the
    regression's key kept."""
    base = request.getfixturevalue("served_page") if where == "served" else \
        request.getfixturevalue("static_file").as_uri()
    ctx = browser.new_context(viewport={"width": 390, "height": 700}, is_mobile=True, has_touch=True, idle_drawing=True)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        if where == "offline":
            block_outside(page)
        page.add_init_script(FIRST_READOUTS_JS.replace("NAMES", '["sentence_input", "attention_heatmap"]'))
        page.goto(base + "?sentence=" + quote("We walked to the BANK.") +
                  "&token=30&head=2&att_temperature=0.3&causal=1&query=2.5")
        wait_ready(page)
        assert first_readouts(page)["drawn"] == {"sentence_input": False, "attention_heatmap": False}
        wait_drawn(page, "attention_heatmap")
        page.wait_for_function(READY_JS)
        notices = model_prop(page, "sentence_notices", "text")
        assert "token=30" in notices and "(4)" in notices
        assert state(page) == {"token": 4, "head": 2, "temperature": pytest.approx(0.3), "causal": True}
        check_parity(page, "we walked to the bank")
        page.wait_for_function("() => location.search.includes('token=4')")
        search = page.evaluate("() => location.search")
        assert "query=2.5" in search and "causal=1" in search and "head=2" in search
        assert errors == []
    finally:
        ctx.close()


def test_causal_rows_count_only_the_words_they_see(offline):
    """With the causal mask row i sees i + 1 words: its entropy is out of log2(i + 1) bits and its effective
    tokens out of i + 1 ("of 1 visible" for the first word), not out of the whole sentence."""
    sentence = "the bank by the river approved the loan"
    page = offline("?sentence=" + quote(sentence) + "&token=0&causal=1")
    a, s = check_parity(page, sentence)
    assert s["causal"] and s["token"] == 0
    check_readouts(page, a, s["head"], 0)
    text = model_prop(page, "sentence_readouts", "text")
    assert "of 0.00 (1 visible)" in text and "of 1 visible" in text and "of 3.00" not in text

    element(page, "token_select", "input_el").select_option(label="4: river")   # row 4 sees 5 words
    wait_model(page, "token_select", "value", "4")
    a, s = check_parity(page, sentence)
    check_readouts(page, a, s["head"], 4)
    assert "of 2.32 (5 visible)" in model_prop(page, "sentence_readouts", "text")

    element(page, "causal_toggle", "checkbox_el").click()                         # no mask: all 8 words
    page.wait_for_function("() => !Bokeh.documents[0].get_model_by_name('sentence_readouts').text.includes('visible')")
    a, s = check_parity(page, sentence)
    assert not a.causal
    check_readouts(page, a, s["head"], 4)
    assert "of 3.00<" in model_prop(page, "sentence_readouts", "text")


def test_offline_typed_sentence_is_analysed_in_the_browser_as_the_core_does(offline):
    """The offline file takes a typed sentence, unknown words included, with every outside request refused:
    the tokens, the matrix and every number equal the core's; a sentence the core refuses leaves the page as
    it was, with the served page's words for the reason."""
    page = offline()
    assert model_prop(page, "sentence_input", "value") == "the bank by the river"   # the box is there offline
    text = "The zorblat bank, by the quux river!"
    type_sentence(page, text)
    want = attention.tokenize(text)
    assert want == ["the", "zorblat", "bank", "by", "the", "quux", "river"]
    wait_tokens(page, want)
    a, s = check_parity(page, text)
    assert a.unknown == ["zorblat", "quux"] and s["token"] == 2          # a new sentence follows "bank"
    check_readouts(page, a, s["head"], s["token"])
    unknown = model_prop(page, "sentence_info", "text").rsplit("Not in the toy vocabulary", 1)[1]
    assert "\u201czorblat\u201d" in unknown and "\u201cquux\u201d" in unknown
    page.wait_for_function("(s) => new URLSearchParams(location.search).get('sentence') === s", arg=text)
    assert not model_prop(page, "sentence_notices", "visible")

    refused = {" ".join(["river"] * 33): "sentence has 33 tokens; at most 32 are allowed",
               "?! \u2014 \U0001F642": "sentence is empty (no words left once punctuation is removed); type a few words"}
    for typed, reason in refused.items():
        type_sentence(page, typed)
        wait_notice(page, reason)
        notice = model_prop(page, "sentence_notices", "text")
        assert notice == f'<p class="notice">That sentence was not used: {reason}. The previous sentence stays.</p>'
        assert model_prop(page, "sentence_notices", "visible") is True
        assert source_data(page, "sentence_tokens")["tok"] == want                  # the previous sentence stays
        check_parity(page, text)
        assert link_sentence(page) == text

    type_sentence(page, "my bank is closed today")                                  # a good one clears the notice
    wait_tokens(page, ["my", "bank", "is", "closed", "today"])
    page.wait_for_function("() => !Bokeh.documents[0].get_model_by_name('sentence_notices').visible")
    check_parity(page, "my bank is closed today")


def test_offline_link_with_its_own_sentence_opens_on_it(offline, watch):
    """?sentence=... with words the toy vocabulary lacks (and markup): the offline file analyses it, shows it
    as text, opens at the linked word and writes it back into the link; a sentence the core refuses falls
    back to the opening one with the reason."""
    dialogs = []
    watch.page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    text = "<b>zorblat</b> quux & the bank"
    page = offline("?sentence=" + quote(text) + "&token=3&causal=1")
    want = attention.tokenize(text)
    assert want == ["b", "zorblat", "b", "quux", "the", "bank"]
    wait_tokens(page, want)
    a, s = check_parity(page, text)
    assert (s["token"], s["causal"]) == (3, True)
    assert not model_prop(page, "sentence_notices", "visible")
    assert model_prop(page, "sentence_input", "value") == text
    info = model_element_text(page, "sentence_info")
    assert text in info and "<b>" not in model_prop(page, "sentence_info", "text")
    page.wait_for_function("() => location.search.includes('causal=1')")
    assert link_sentence(page) == text and "token=3" in page.evaluate("() => location.search")

    page = offline("?sentence=" + quote("w " * 40) + "&token=4")
    wait_notice(page, "40 tokens")
    notice = model_prop(page, "sentence_notices", "text")
    assert ("The sentence from the link was not used: sentence has 40 tokens; at most 32 are allowed. "
            "Showing \u201cthe bank by the river\u201d.") in notice
    check_parity(page, "the bank by the river")
    assert state(page)["token"] == 4
    assert dialogs == []


def model_element_text(page, name):
    """The text a model's rendered element shows (Bokeh draws into shadow DOM)."""
    return page.evaluate("""(n) => { const m = Bokeh.documents[0].get_model_by_name(n);
      const v = Bokeh.index.find_one(m); return (v.shadow_el || v.el).textContent; }""", name)


# --------------------------------------------------------------------------- what shows on a phone and a laptop

def open_screen(browser, static_file, width, height=800, query=""):
    """The offline file at ``width`` px (a phone under 600 px: touch, 2x pixels), the sentence section drawn."""
    phone = dict(is_mobile=True, has_touch=True, device_scale_factor=2) if width < 600 else {}
    ctx = browser.new_context(viewport={"width": width, "height": height}, **phone)
    page = ctx.new_page()
    page.set_default_timeout(30000)
    block_outside(page)
    page.goto(static_file.as_uri() + query)
    wait_section(page)
    return ctx, page


def select_word(page, token):
    """Pick a word in the "query word (row)" list, as a student does, and wait until the section has followed."""
    word = source_data(page, "sentence_tokens")["tok"][token]
    element(page, "token_select", "input_el").select_option(label=f"{token}: {word}")
    wait_model(page, "token_select", "value", str(token))
    page.wait_for_function("""(w) => Bokeh.documents[0].get_model_by_name('sense_output').data.label[0] === w
      && !(globalThis.__attnTextsPending > 0)""", arg=f"{word} (output)")


# The sense plot's markers and the output's label as painted (canvas px), once every glyph shows its source's
# current data: the label's box (the Text glyph's own rect_i), the output's dot and the diamond (all heads
# combined) as squares of their size plus their outline, and the frame.
SENSE_BOXES_JS = """() => { const d = Bokeh.documents[0], pv = Bokeh.index.find_one(d.get_model_by_name('sense_plot'));
  if (!pv) return null;
  const f = pv.frame, views = [...pv.renderer_views.values()];
  const find = (src, type) => views.find((v) => v.glyph && v.glyph.model.type === type
    && v.model.data_source && v.model.data_source.name === src);
  const text = find('sense_output', 'Text'), dot = find('sense_output', 'Scatter');
  const diamond = find('sense_combined', 'Scatter');
  const current = (v) => { const s = v.model.data_source.data;
    return v.glyph.data_size === 1 && Math.abs(v.glyph.sx[0] - f.x_scale.compute(s.x[0])) < 0.01
      && Math.abs(v.glyph.sy[0] - f.y_scale.compute(s.y[0])) < 0.01; };
  if (![text, dot, diamond].every(current) || text.glyph.labels[0].text !== text.model.data_source.data.label[0])
    return null;
  const marker = (v) => { const g = v.glyph, h = g.size.get(0) / 2 + g.visuals.line.line_width.get(0) / 2;
    return [g.sx[0] - h, g.sy[0] - h, g.sx[0] + h, g.sy[0] + h]; };
  const r = text.glyph.rect_i(0), xs = [r.p0.x, r.p1.x, r.p2.x, r.p3.x], ys = [r.p0.y, r.p1.y, r.p2.y, r.p3.y];
  return { label: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)], text: text.glyph.labels[0].text,
           dot: marker(dot), diamond: marker(diamond),
           frame: [f.bbox.left, f.bbox.top, f.bbox.right, f.bbox.bottom] }; }"""


def px(box):
    return [round(v, 1) for v in box]


def overlap(a, b):
    """Whether two boxes [x0, y0, x1, y1] share more than an edge."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("width", [1366, 390])
def test_the_output_label_is_clear_of_both_markers(browser, static_file, width):
    """Item 7 of issue 23: the purple diamond (all heads combined) covered "bank (output)".  For every word of every
    example sentence, the label of the word's output lies inside the plot's frame and overlaps neither the output's
    dot nor the diamond, in screen pixels."""
    ctx, page = open_screen(browser, static_file, width)
    bad, seen = [], 0
    try:
        element(page, "sense_plot", "el").scroll_into_view_if_needed()
        for sentence in dict.fromkeys(["the bank by the river", *PRESETS]):
            type_sentence(page, sentence)
            tokens = attention.tokenize(sentence)
            wait_tokens(page, tokens)
            for i in range(len(tokens)):
                if i != int(model_prop(page, "token_select", "value")):
                    select_word(page, i)
                page.wait_for_function(SENSE_BOXES_JS)
                g = page.evaluate(SENSE_BOXES_JS)
                assert all(math.isfinite(v) for k in ("label", "dot", "diamond") for v in g[k]), g
                seen += 1
                lb, fr = g["label"], g["frame"]
                inside = fr[0] - 0.5 <= lb[0] and lb[2] <= fr[2] + 0.5 and fr[1] - 0.5 <= lb[1] and lb[3] <= fr[3] + 0.5
                for what, hit in (("the diamond", overlap(lb, g["diamond"])), ("its dot", overlap(lb, g["dot"])),
                                  ("the frame's edge", not inside)):
                    if hit:
                        bad.append(f"{sentence!r}, word {i}: {g['text']!r} at {px(lb)} meets {what} (diamond "
                                   f"{px(g['diamond'])}, dot {px(g['dot'])}, frame {px(fr)})")
    finally:
        ctx.close()
    assert seen >= 40
    assert not bad, f"at {width} px wide:\n  " + "\n  ".join(bad[:30])


# The tick labels an axis view paints (canvas px), caught in a repaint of the whole plot: its labels' own boxes, after
# the axis's labelling policy chose which to draw and moved the end ones inside the canvas.
DRAWN_TICK_LABELS_JS = """async (name) => {
  const pv = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name(name));
  const axes = [...pv.renderer_views.values()].filter((v) => /Axis$/.test(v.model.type) && v.model.visible);
  const drawn = new Map(), frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  for (const av of axes) {
    av._draw_oriented_labels = function (ctx, labels, ...rest) {
      const boxes = [];
      for (const l of labels.items) {
        const paint = l.paint;
        l.paint = function (c) {
          const b = this.bbox();
          boxes.push({text: this.text, box: [b.left, b.top, b.right, b.bottom]});
          return paint.call(this, c);
        };
      }
      drawn.set(av, boxes);
      return Object.getPrototypeOf(av)._draw_oriented_labels.call(this, ctx, labels, ...rest);
    };
  }
  pv.request_paint();
  for (let k = 0; k < 60 && axes.some((av) => !drawn.has(av)); k++) await frame();
  for (const av of axes) delete av._draw_oriented_labels;
  return { canvas: [pv.bbox.width, pv.bbox.height],
           axes: axes.map((av) => ({side: av.panel.side, labels: drawn.get(av) || null})) }; }"""

LABEL_GAP = 2   # px: tick labels closer than this touch


@pytest.mark.parametrize("width", [360, 390])
def test_the_cost_plots_tick_labels_do_not_touch(browser, static_file, width):
    """Item 7 of issue 23: "10 k" and "100 k" collided at 360-390 px.  Every tick label the cost plot (and the timing
    plot beside it) paints keeps LABEL_GAP px from its neighbours and stays inside the canvas."""
    ctx, page = open_screen(browser, static_file, width)
    bad = []
    try:
        for name in ("cost_plot", "timing_plot"):
            element(page, name, "el").scroll_into_view_if_needed()
            wait_frames(page, 2)
            got = page.evaluate(DRAWN_TICK_LABELS_JS, name)
            w, h = got["canvas"]
            for ax in got["axes"]:
                labels = ax["labels"]
                assert labels, f"{name}: the {ax['side']} axis painted no tick labels"
                vertical = ax["side"] in ("left", "right")
                lo, hi = (1, 3) if vertical else (0, 2)
                spans = sorted((b["box"][lo], b["box"][hi], b["text"]) for b in labels)
                for (a0, a1, ta), (b0, b1, tb) in zip(spans, spans[1:]):
                    if b0 - a1 < LABEL_GAP:
                        bad.append(f"{name} {ax['side']} axis: {ta!r} and {tb!r} are {b0 - a1:.1f} px apart")
                for b in labels:
                    x0, y0, x1, y1 = b["box"]
                    if x0 < -0.5 or y0 < -0.5 or x1 > w + 0.5 or y1 > h + 0.5:
                        bad.append(f"{name} {ax['side']} axis: {b['text']!r} at {[round(v) for v in b['box']]} runs "
                                   f"out of the {w:.0f}x{h:.0f} canvas")
    finally:
        ctx.close()
    assert not bad, f"at {width} px wide:\n  " + "\n  ".join(bad)


@pytest.mark.parametrize("width", [360, 390])
def test_no_text_runs_out_of_the_cost_plot_on_a_phone(browser, static_file, width):
    """Item 7 of issue 23: "this sentence: n = 5, 25 sc..." was cut at 360-390 px, and so were the matrix's colour bar
    labels.  On a phone every word drawn in the cost plot (its Text glyph, clipped to the frame) lies inside the
    frame, for a short sentence and for the longest one; the colour bar steps aside (the cells print their
    weights) and the matrix's words stay inside its frame too."""
    from tests.browser.pageutil import ALL_VIEWS_JS
    from tests.browser.test_screens import CANVAS_TEXTS_JS

    texts_js = """(names) => { const views = (ALL_VIEWS)(), texts = (CANVAS_TEXTS), out = {};
      for (const n of names) {
        const pv = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name(n)), f = pv.frame.bbox;
        out[n] = {frame: [f.left, f.top, f.right, f.bottom], canvas: [pv.bbox.width, pv.bbox.height],
                  bars: pv.model.right.filter((r) => r.type === 'ColorBar').map((r) => r.visible),
                  texts: texts(pv, views.filter((v) => v.parent === pv)).filter((t) => t.what === 'text glyph')}; }
      return out; }""".replace("ALL_VIEWS", ALL_VIEWS_JS).replace("CANVAS_TEXTS", CANVAS_TEXTS_JS)
    ctx, page = open_screen(browser, static_file, width)
    bad, words = [], {}
    try:
        for sentence in ("the bank by the river", " ".join(["river"] * attention.MAX_TOKENS)):
            type_sentence(page, sentence)
            n = len(attention.tokenize(sentence))
            wait_tokens(page, attention.tokenize(sentence))
            label = f"this sentence\nn = {n}\n{n * n} scores"
            page.wait_for_function("""(t) => {
              const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('cost_plot'));
              const r = v && [...v.renderer_views.values()].find((x) => x.glyph && x.glyph.model.type === 'Text');
              return !!r && r.glyph.labels[0] && r.glyph.labels[0].text === t; }""", arg=label)
            wait_frames(page, 2)
            got = page.evaluate(texts_js, ["cost_plot", "attention_heatmap"])
            assert got["attention_heatmap"]["bars"] == [False], "the matrix's colour bar shows on a phone"
            for name, g in got.items():
                fr = g["frame"]
                for t in g["texts"]:
                    words[name] = words.get(name, 0) + 1
                    x0, y0, x1, y1 = t["box"]
                    if x0 < fr[0] - 0.5 or y0 < fr[1] - 0.5 or x1 > fr[2] + 0.5 or y1 > fr[3] + 0.5:
                        bad.append(f"{n} words, {name}: {t['text']!r} at {[round(v) for v in t['box']]} runs out of "
                                   f"the frame {[round(v) for v in fr]}")
    finally:
        ctx.close()
    assert words.get("cost_plot") == 2 and words.get("attention_heatmap", 0) >= 5, words
    assert not bad, f"at {width} px wide:\n  " + "\n  ".join(bad)


def test_the_selected_rows_weights_axis_stays_at_0_to_1(offline):
    """Item 6 of issue 23: the "Weights of the selected row" axis ran 0-0.22 for "the" and 0-0.89 for "bank".  It is
    fixed at 0 to 1.05 for every row, as the regression's weights are, in the model and in what the plot maps."""
    page = offline()
    element(page, "row_bars", "el").scroll_into_view_if_needed()
    ranges = {}
    for token, word in ((0, "the"), (1, "bank"), (4, "river")):
        if int(model_prop(page, "token_select", "value")) != token:
            select_word(page, token)
        page.wait_for_function("""(i) => { const d = Bokeh.documents[0], s = d.get_model_by_name('row_weights').data;
          return s.color.length === 5 && s.color[i] !== s.color[(i + 1) % 5]; }""", arg=token)
        wait_frames(page, 2)
        ranges[word] = page.evaluate("""() => { const m = Bokeh.documents[0].get_model_by_name('row_bars');
          const r = Bokeh.index.find_one(m).frame.y_scale.source_range;
          return {model: [m.y_range.start, m.y_range.end], drawn: [r.start, r.end],
                  top: Math.max(...Bokeh.documents[0].get_model_by_name('row_weights').data.w)}; }""")
    assert ranges["the"]["top"] < 0.5 < ranges["bank"]["top"], ranges   # rows of very different peaks
    for word, r in ranges.items():
        assert r["model"] == [0, 1.05] and r["drawn"] == [0, 1.05], (word, ranges)
