"""The routing section in the browser: W_Q and W_K learning the sense of "bank", played back against numpy.

* playback: Play runs to the last step and bank's largest weight lands on the sentence's deciding word;
  Step, Pause and Reset move one recorded step, stop, and go back to step 0; from step 0 to the end takes
  10 to 15 s by the page's clock (performance.now()), as its pace says, holding where the deciding word first
  gets half of bank's weight;
* the untrained start is undecided: every sentence counts half, bank's output sits where an even spread lands;
* parity: for every recorded step and every shown sentence, the matrix the page draws (all of it, bank's row
  included), bank's output point and its weight on the deciding word (the plot of what is learned) equal the
  core's within 1e-9; the engine's formulas (the rows, the sense readout, the weight on the deciding word, the
  learned preference, what bank's query shares with a key, the playback's schedule) too, in a blank page;
* the link's qk_step and qk_sentence, and presentation mode's canvas text (at least 20 px, the page's font);
* your own sentence, read by AttnWords (attention/words.js), against the core's encode and the trained W_Q and W_K:
  unknown words named, a sentence without "bank", an over-long one refused with the core's words.

``python -m tests.browser.test_routing screenshots`` writes the README's before and after pictures;
``python -m tests.browser.test_routing measure`` prints the section's build time and the engine's frame times.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

import attention
from attention import learn_qk
from app.routing import view as rv
from app.sections import url_spec
from app.ui import text as words
from app.ui import theme
from app.ui.engine import library_source

from tests.browser.pageutil import AXIS_LABELS_JS, ROOT, SAID_JS, SETTLED_JS, block_outside, draw, wait_ready

TOL = 1e-9
TRAJ = attention.train_qk()
PLAIN = TRAJ.to_plain(frames=rv.FRAMES)
STEPS = PLAIN["frame_steps"]
LAST = len(STEPS) - 1
SHOWN = PLAIN["sentences"]
OPENING = url_spec()["qk_sentence"]["default"]
FIGURES = ("routing_matrix_plot", "routing_sense_plot", "routing_clue_plot", "routing_accuracy_plot")
CLUE = TRAJ.clue_weights(TRAJ.corpus.shown, STEPS)     # (frames, shown sentences): bank's weight on the clue


def export(out, sections="routing"):
    subprocess.run([sys.executable, "-m", "app.delivery.cli", "export", str(out), "--sections", sections], cwd=ROOT,
                   check=True, capture_output=True, text=True, timeout=300)
    return out


@pytest.fixture(scope="module")
def routing_file(tmp_path_factory):
    """An offline file with the routing section alone, written by the export command."""
    return export(tmp_path_factory.mktemp("routing") / "routing.html")


# ---- reading and driving the page (the loader's document: AttnPage.doc) -----------------------------------

def prop(page, name, p):
    return page.evaluate("([n, p]) => AttnPage.doc.get_model_by_name(n)[p]", [name, p])


def columns(page, name):
    return page.evaluate("""(n) => { const s = AttnPage.doc.get_model_by_name(n), out = {};
      for (const [k, v] of Object.entries(s.data)) out[k] = Array.from(v); return out; }""", name)


def element(page, name, selector):
    h = page.evaluate_handle("""([n, sel]) => { const v = Bokeh.index.find_one(AttnPage.doc.get_model_by_name(n));
      return v ? v.shadow_el.querySelector(sel) : null; }""", [name, selector]).as_element()
    assert h is not None, f"no {selector} drawn for {name}"
    return h


def click(page, name):
    element(page, name, "button").click()


def wait_step(page, step, timeout=60000):
    page.wait_for_function("(s) => AttnPage.doc.get_model_by_name('routing_status').text.includes(s)",
                           arg=f"Step {step} of {PLAIN['steps']}<", timeout=timeout)


def shown_step(page):
    return int(re.search(r"Step (\d+) of", prop(page, "routing_status", "text")).group(1))


def open_routing(page, url):
    """Open ``url``, draw the routing section's blocks and wait until its engine has written the step."""
    page.goto(url)
    page.wait_for_function("() => window.AttnPage && AttnPage.doc")
    draw(page, "routing")
    page.wait_for_function("() => AttnPage.doc.get_model_by_name('routing_status').text.includes('Step ')")
    return page


@pytest.fixture
def opened(watch, routing_file):
    """open(query) opens the routing file (network refused) and checks, at the end, that nothing went wrong."""
    block_outside(watch.page)

    def go(query=""):
        return open_routing(watch.page, routing_file.as_uri() + query)

    yield go
    assert watch.console_errors() == []
    assert watch.outside_requests(["file:", "data:", "blob:"]) == []


# ---- the core's numbers ------------------------------------------------------------------------------------

def core_attention(x, value_xy, f):
    """The whole matrix and every output point under the recorded step f's W_Q and W_K, by numpy."""
    x = np.asarray(x)
    out, a = attention.dot_product_attention(x @ np.asarray(PLAIN["w_q"][f]), x @ np.asarray(PLAIN["w_k"][f]),
                                             np.asarray(value_xy))
    return a, out


def drawn_matrix(page):
    d = columns(page, "routing_cells")
    n = int(round(len(d["w"]) ** 0.5))
    a = np.zeros((n, n))
    a[np.array(d["y"], dtype=int), np.array(d["x"], dtype=int)] = d["w"]
    return a


# ---- playback ---------------------------------------------------------------------------------------------

def test_opens_at_step_zero_with_bank_spreading_its_attention(opened):
    page = opened()
    s = SHOWN[OPENING]
    assert s["text"] == "the bank by the river" and shown_step(page) == 0
    assert columns(page, "routing_tokens")["tok"] == s["tokens"]
    a, _ = core_attention(s["x"], s["value_xy"], 0)
    np.testing.assert_allclose(drawn_matrix(page), a, rtol=0, atol=TOL)
    row = a[s["index"]]
    assert row.max() - row.min() < 0.05          # untrained: almost even
    page.wait_for_function("() => !(globalThis.__attnTextsPending > 0)")
    readout = prop(page, "routing_readout", "text")
    assert "spreads its weight almost evenly" in readout and "where an even spread lands: undecided" in readout
    assert "Undecided, half right" in readout
    # undecided everywhere: every sentence counts half on the accuracy plot, as the legend over it says
    status = prop(page, "routing_status", "text")
    assert "Training: 0 right, 40 undecided; held out: 0 right, 16 undecided." in status
    assert "An undecided sentence counts as half right." in prop(page, "routing_key", "text")
    assert columns(page, "routing_accuracy") == {"step": [0], "train": [50.0], "held": [50.0]}
    # bank's output sits on the ring where an even spread lands, on the dashed line of undecided points
    r = TRAJ.readout(s["text"], 0)
    even = columns(page, "routing_sense_even")
    assert abs(even["x"][0] - r.even[0]) <= TOL and abs(even["y"][0] - r.even[1]) <= TOL
    assert abs(prop(page, "routing_undecided_line", "y_intercept") - (r.even[1] - r.even[0])) <= TOL
    assert prop(page, "routing_pause", "disabled") is True and prop(page, "routing_play", "disabled") is False
    # the untrained start is on the accuracy plot: one dot per curve (a line of one point draws nothing)
    dots = page.evaluate("""(n) => AttnPage.doc.get_model_by_name(n).renderers
      .filter((r) => r.glyph.type === 'Scatter').map((r) => [r.glyph.y.field, r.data_source.data.step.length])""",
                         "routing_accuracy_plot")
    assert sorted(dots) == [["held", 1], ["train", 1]], dots
    # ... and on the plot of what is learned: every shown sentence's weight on its deciding word, at step 0
    clue = columns(page, "routing_clue")
    assert sorted(clue["text"]) == sorted(t["text"] for t in SHOWN) and clue["text"][-1] == s["text"]
    assert all(len(xs) == 1 for xs in clue["xs"])


def test_play_with_reduced_motion_shows_the_end_at_once(browser, routing_file):
    """prefers-reduced-motion: Play draws training's last step straight away, with no animation between."""
    ctx = browser.new_context(viewport={"width": 1366, "height": 768}, reduced_motion="reduce")
    try:
        page = open_routing(ctx.new_page(), routing_file.as_uri())
        page.evaluate("""() => { window.__shownSteps = new Set();
          const m = AttnPage.doc.get_model_by_name('routing_status');
          const look = () => { window.__shownSteps.add(/Step (\\d+) of/.exec(m.text)[1]); requestAnimationFrame(look); };
          look(); }""")
        click(page, "routing_play")
        wait_step(page, PLAIN["steps"])
        page.wait_for_function("(s) => window.__shownSteps.has(s)", arg=str(PLAIN["steps"]))  # its next frame
        seen = page.evaluate("() => [...window.__shownSteps]")    # the step written at each frame
        assert seen == ["0", str(PLAIN["steps"])], seen           # from the start to the end, nothing between
        assert prop(page, "routing_play", "disabled") is False and prop(page, "routing_pause", "disabled") is True
    finally:
        ctx.close()


def test_step_pause_and_reset(opened):
    page = opened()
    click(page, "routing_step")
    wait_step(page, STEPS[1])
    assert prop(page, "routing_step_slider", "value") == 1
    # issue 47: a step taken is said once it settles, as the status line writes it
    page.wait_for_function(f"() => (({SAID_JS})() || '').startsWith('Step {STEPS[1]} of ')")
    assert page.evaluate(SAID_JS) in page.evaluate(
        "() => AttnDescribe.plainWords(AttnPage.doc.get_model_by_name('routing_status').text)")
    click(page, "routing_play")
    page.wait_for_function(f"() => /Step (\\d+) of/.exec(AttnPage.doc.get_model_by_name('routing_status').text)[1]"
                           f" >= {STEPS[3]}")
    click(page, "routing_pause")
    page.wait_for_function("() => AttnPage.doc.get_model_by_name('routing_play').disabled === false")
    k = shown_step(page)
    assert k < PLAIN["steps"]
    click(page, "routing_step")          # paused: the next step is the one after where it stopped
    f = STEPS.index(k)
    wait_step(page, STEPS[f + 1])
    s = SHOWN[OPENING]
    a, _ = core_attention(s["x"], s["value_xy"], f + 1)
    np.testing.assert_allclose(drawn_matrix(page), a, rtol=0, atol=TOL)
    click(page, "routing_reset")
    wait_step(page, 0)
    assert columns(page, "routing_accuracy")["step"] == [0]


# ---- parity: what the page draws against the core ------------------------------------------------------------

# The engine runs a moment after a widget changes (Bokeh runs a CustomJS asynchronously): each change waits
# until the page shows it, yielding to the browser in between.
SETTLE_JS = """const settle = async (cond) => {
  for (let k = 0; k < 2000 && !cond(); k++) await new Promise((r) => setTimeout(r, 0));
  if (!cond()) throw new Error("the routing engine did not draw the state asked for");
};"""

PLAY_EVERY = SETTLE_JS + """
async (counts) => {
  const d = AttnPage.doc, m = (n) => d.get_model_by_name(n), out = [];
  const drawn = (step) => m('routing_accuracy').data.step.length === step + 1;   // the curves end at the step
  for (let i = 0; i < counts.sentences; i++) {
    m('routing_sentence_select').value = String(i);
    await settle(() => m('routing_tokens').data.tok.join(' ') === counts.tokens[i]);
    const frames = [];
    for (let f = 0; f < counts.steps.length; f++) {
      m('routing_step_slider').value = f;
      await settle(() => drawn(counts.steps[f]));
      const c = m('routing_cells').data, p = m('routing_sense_point').data, k = m('routing_clue_now').data;
      frames.push({ x: Array.from(c.x), y: Array.from(c.y), w: Array.from(c.w), point: [p.x[0], p.y[0]],
                    clue: [k.x[0], k.y[0]], tokens: Array.from(m('routing_tokens').data.tok) });
    }
    out.push(frames);
  }
  return out;
}"""


def test_every_step_of_every_shown_sentence_is_the_cores_matrix(opened):
    page = opened()
    drawn = page.evaluate(PLAY_EVERY, {"sentences": len(SHOWN), "steps": STEPS,
                                       "tokens": [" ".join(s["tokens"]) for s in SHOWN]})
    worst = 0.0
    for s, frames in zip(SHOWN, drawn):
        n, b = len(s["tokens"]), s["index"]
        for f, got in enumerate(frames):
            assert got["tokens"] == s["tokens"]
            a = np.zeros((n, n))
            a[np.array(got["y"], dtype=int), np.array(got["x"], dtype=int)] = got["w"]
            core_a, core_out = core_attention(s["x"], s["value_xy"], f)
            worst = max(worst, np.abs(a - core_a).max(), np.abs(a[b] - np.asarray(s["weights"][f])).max(),
                        np.abs(np.asarray(got["point"]) - np.asarray(s["point"][f])).max(),
                        np.abs(core_out[b] - np.asarray(s["point"][f])).max(),
                        abs(got["clue"][1] - s["clue_weight"][f]))
            assert got["clue"][0] == STEPS[f]
    assert worst <= TOL
    # at the end of the path, bank's largest weight is on the deciding word in every shown sentence
    for s in SHOWN:
        assert s["tokens"][int(np.argmax(s["weights"][LAST]))] == s["clue"]


def _table_cells(html):
    return [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", html)]


def _expected_table(f):
    """The W_Q | W_K | "looks for" table of frame f, by the core (learn_qk's preference of the word's vector)."""
    wq, wk = np.asarray(PLAIN["w_q"][f]), np.asarray(PLAIN["w_k"][f])
    pref = learn_qk._preference(wq, wk, PLAIN["word"], attention.load_sentence_model())
    expect = []
    for i, name in enumerate(PLAIN["model_dims"]):
        expect += [words.signed(v, 2) for v in (*wq[i], *wk[i])]
        expect.append(words.signed(pref[name], 2) if name in pref else "fixed")
    return expect


def _table_when_shown(page):
    page.wait_for_function("() => !(globalThis.__attnTextsPending > 0)")
    return _table_cells(prop(page, "routing_weights", "text"))


def test_the_tables_of_w_q_and_w_k_are_the_steps(opened):
    page = opened("?qk_step=150")
    wait_step(page, PLAIN["steps"])
    cells = _table_when_shown(page)
    assert cells == _expected_table(LAST)
    lw = learn_qk.learned_words(TRAJ)   # the last column is what the summary calls the preference after training
    assert [c for c, n in zip(cells[4::5], PLAIN["model_dims"]) if n in lw.preference_after] == \
        [words.signed(lw.preference_after[n], 2) for n in PLAIN["model_dims"] if n in lw.preference_after]
    # the table follows the step: back at the start, then one step on
    click(page, "routing_reset")
    wait_step(page, 0)
    assert _table_when_shown(page) == _expected_table(0) != cells
    click(page, "routing_step")
    wait_step(page, STEPS[1])
    assert _table_when_shown(page) == _expected_table(1) != _expected_table(0)


def test_the_matrix_axes_make_room_for_the_words_of_a_sentence_as_long_as_the_last(browser, static_file):
    """Show me of the held-out step swaps "the bank by the river" for "the bank approved the mortgage": as many
    words, so the same ranges, but longer ones; the axes measure them again (they once kept the old room and cut
    "approved" and "mortgage" to "roved" and "tgage")."""
    ctx = browser.new_context(viewport={"width": 1366, "height": 768}, reduced_motion="reduce")
    page = ctx.new_page()
    try:
        block_outside(page)
        page.goto(static_file.as_uri() + "?tour=qk-held-out")
        wait_ready(page)
        draw(page, "routing")
        page.get_by_role("button", name="Show me").click()
        page.wait_for_function("() => AttnPage.doc.get_model_by_name('routing_tokens').data.tok.includes('mortgage')")
        page.wait_for_function("() => !(globalThis.__attnTextsPending > 0)")
        page.evaluate(SETTLED_JS)
        axes = page.evaluate(AXIS_LABELS_JS, "routing_matrix_plot")
        assert {a["side"] for a in axes} >= {"left"} and all("mortgage" in a["labels"] for a in axes), axes
        assert [a for a in axes if a["widest"] > a["depth"]] == []
    finally:
        ctx.close()


HARNESS = r"""
window.R = Routing;
window.routingParity = (cases) => cases.map((c) => {
  const r = Routing.attend(c.x, c.value_xy, c.wq, c.wk), b = c.index, pt = Array.from(r.outputs[b]);
  const even = Routing.evenOf(c.value_xy), cols = Routing.sharedColumns(c.xword, c.xclue, c.wq, c.wk, c.names,
                                                                          c.share, c.from_share);
  return { row: Array.from(r.weights[b]), point: pt, even, sense: Routing.senseOf(pt, even, c.beta, c.tol),
           clue: Routing.clueWeight(r.weights[b], c.tokens, c.clue), cols,
           shared: Routing.sharedSummary("bank", c.clue, cols, c.share),
           preference: Routing.preference(c.xword, c.wq, c.wk, c.dims) };
});
"""


@pytest.fixture(scope="module")
def js(browser):
    """A blank page holding the page's library (attention/mirror.js, ui/common.js, attention/words.js, ...) and the
    routing engine's modules, as the engine joins them."""
    ctx = browser.new_context()
    page = ctx.new_page()
    page.set_content("<html><body></body></html>")
    code = library_source() + "\n".join(p.read_text(encoding="utf-8") for p in rv.ENGINE_FILES)
    page.add_script_tag(content=code + HARNESS)
    yield page
    ctx.close()


def test_the_engines_formulas_are_the_cores(js):
    """Every recorded step of every shown sentence: bank's row, its point, the sense readout and the learned
    preference, against attention.learn_qk (sense_readout at that entry, _preference)."""
    m = attention.load_sentence_model()
    x_word = attention.encode([PLAIN["word"]])[0][0].tolist()
    cases, expect = [], []
    for j, s in enumerate(TRAJ.corpus.shown):
        for f, step in enumerate(STEPS):
            cases.append({"x": attention.encode(list(s.tokens))[0].tolist(),
                          "value_xy": (attention.encode(list(s.tokens))[0] @ np.asarray(PLAIN["value_projection"])).tolist(),
                          "wq": PLAIN["w_q"][f], "wk": PLAIN["w_k"][f], "index": s.index, "beta": PLAIN["readout_scale"],
                          "tol": PLAIN["undecided_within"], "tokens": list(s.tokens), "clue": s.clue,
                          "xword": x_word, "xclue": attention.encode([s.clue])[0][0].tolist(), "names": list(m.dims),
                          "share": PLAIN["feature_share"], "from_share": learn_qk.FROM_SHARE,
                          "dims": len(PLAIN["trained_rows"])})
            expect.append((TRAJ.readout(s, entry=step),
                           learn_qk._preference(TRAJ.w_q[step], TRAJ.w_k[step], PLAIN["word"], m), CLUE[f, j],
                           learn_qk.shared_columns(TRAJ.w_q[step], TRAJ.w_k[step], "bank", s.clue),
                           learn_qk.shared_summary(TRAJ.w_q[step], TRAJ.w_k[step], "bank", s.clue)))
    got = js.evaluate("(cs) => window.routingParity(cs)", cases)
    senses, shared_texts = set(), set()
    for g, (r, pref, clue, cols, said) in zip(got, expect):
        assert np.abs(np.asarray(g["row"]) - r.weights).max() <= TOL
        assert np.abs(np.asarray(g["point"]) - r.point).max() <= TOL
        assert np.abs(np.asarray(g["even"]) - r.even).max() <= TOL
        assert abs(g["sense"]["z"] - r.z) <= TOL and abs(g["sense"]["pWater"] - r.p_water) <= TOL
        assert g["sense"]["sense"] == r.sense
        senses.add(r.sense)
        assert abs(g["clue"] - clue) <= TOL
        for gc, cc in zip(g["cols"], cols):
            assert abs(gc["query"] - cc.query) <= TOL and abs(gc["key"] - cc.key) <= TOL
            assert abs(gc["score"] - cc.score) <= TOL
            assert (tuple(gc["queryFrom"]), tuple(gc["keyFrom"]), tuple(gc["looksFor"])) == \
                (cc.query_from, cc.key_from, cc.looks_for)
        assert g["shared"] == said
        shared_texts.add(said.split(" (")[0].split(":")[0])
        assert np.abs(np.asarray(g["preference"]) - np.asarray(list(pref.values()))).max() <= TOL
    assert senses == {"water", "money", "undecided"}          # every reading met, at one step or another
    assert any("share no column yet" in t for t in shared_texts) and any("share column 1" in t for t in shared_texts)
    lw = learn_qk.learned_words(TRAJ)
    assert list(lw.preference_after.values()) == pytest.approx(got[len(STEPS) - 1]["preference"], abs=TOL)
    assert js.evaluate("() => [0, 1, 2, 3, 4, 150].map((s) => R.frameAt(%s, s))" % json.dumps(STEPS)) == \
        [0, 0, 0, 1, 1, LAST]


# ---- the link ---------------------------------------------------------------------------------------------------

def test_the_link_opens_at_its_step_and_sentence_and_follows_the_state(opened):
    page = opened("?qk_step=61&qk_sentence=1")
    wait_step(page, 60)                       # 61 is not recorded: the recorded step before it, said so
    notice = prop(page, "routing_notices", "text")
    assert "showing step 60 for qk_step=61" in notice and prop(page, "routing_notices", "visible") is True
    assert prop(page, "routing_sentence_select", "value") == "1"
    assert columns(page, "routing_tokens")["tok"] == SHOWN[1]["tokens"]
    click(page, "routing_step")
    wait_step(page, 63)
    page.wait_for_function("() => location.search.includes('qk_step=63') && location.search.includes('qk_sentence=1')")


# ---- presentation mode -----------------------------------------------------------------------------------------

CANVAS_TEXT = """(names) => {
  const val = (x) => (x !== null && typeof x === 'object' && 'value' in x) ? x.value : x;
  const out = [];
  for (const n of names) {
    const f = AttnPage.doc.get_model_by_name(n);
    if (f.title && f.title.text) out.push([n, 'title', f.title.text_font_size, f.title.text_font]);
    for (const ax of [...f.left, ...f.below, ...f.above, ...f.right]) {
      if (ax.major_label_text_font_size === undefined) continue;
      out.push([n, 'ticks', ax.major_label_text_font_size, ax.major_label_text_font]);
      if (ax.axis_label) out.push([n, 'axis label', ax.axis_label_text_font_size, ax.axis_label_text_font]);
    }
    for (const r of [...f.center, ...f.right, ...f.below]) if (r.type === 'Legend')
      out.push([n, 'legend', r.label_text_font_size, r.label_text_font]);
    for (const r of f.renderers) if (r.glyph && r.glyph.type === 'Text')
      out.push([n, 'text glyph', val(r.glyph.text_font_size), val(r.glyph.text_font)]);
  }
  return out;
}"""


@pytest.mark.parametrize("present, least", [(True, 20), (False, 13)])
def test_canvas_text_is_large_in_presentation_mode_and_in_the_pages_font(opened, present, least):
    page = opened("?present=1" if present else "")
    texts = page.evaluate(CANVAS_TEXT, list(FIGURES))
    kinds = {(n, k) for n, k, _, _ in texts}
    assert {("routing_matrix_plot", "text glyph"), ("routing_sense_plot", "text glyph"),
            ("routing_clue_plot", "title"), ("routing_clue_plot", "text glyph"),
            ("routing_accuracy_plot", "axis label")} <= kinds
    for name, kind, size, font in texts:
        assert size.endswith("px") and float(size[:-2]) >= least, (name, kind, size)
        assert font == theme.FONT, (name, kind, font)


# ---- your own sentence ----------------------------------------------------------------------------------------

def type_sentence(page, raw):
    box = element(page, "routing_input", "input")
    box.fill(raw)
    box.press("Enter")


def wait_own(page, needle, timeout=30000):
    page.wait_for_function("(s) => AttnPage.doc.get_model_by_name('routing_own').text.includes(s)", arg=needle,
                           timeout=timeout)


def core_typed(raw):
    tokens = attention.tokenize(raw)
    x, unknown = attention.encode(tokens)
    a, out = core_attention(x, x @ np.asarray(PLAIN["value_projection"]), LAST)
    return tokens, unknown, a, out


def test_your_own_sentence_is_routed_by_the_trained_projections(opened):
    page = opened()
    raw = "The bank by the lake, with zorble!"
    type_sentence(page, raw)
    wait_own(page, "zorble")
    tokens, unknown, a, out = core_typed(raw)
    assert unknown == ["zorble"] and columns(page, "routing_tokens")["tok"] == tokens
    wait_step(page, PLAIN["steps"])                 # a typed sentence meets the trained W_Q and W_K
    np.testing.assert_allclose(drawn_matrix(page), a, rtol=0, atol=TOL)
    b = tokens.index("bank")
    assert tokens[int(np.argmax(a[b]))] == "lake"
    point = columns(page, "routing_sense_point")
    assert abs(point["x"][0] - out[b][0]) <= TOL and abs(point["y"][0] - out[b][1]) <= TOL
    own = prop(page, "routing_own", "text")
    assert "Not in the toy vocabulary" in own and "\u201czorble\u201d" in own
    assert prop(page, "routing_sentence_select", "value") == rv.OWN
    # no ambiguous word: said so, and the matrix is still drawn
    type_sentence(page, "the river flowed")
    page.wait_for_function("() => AttnPage.doc.get_model_by_name('routing_tokens').data.tok.length === 3")
    _, _, a, _ = core_typed("the river flowed")
    np.testing.assert_allclose(drawn_matrix(page), a, rtol=0, atol=TOL)
    # the readout is written on the next frame after the matrix: wait for it rather than read it a frame early
    page.wait_for_function("(s) => AttnPage.doc.get_model_by_name('routing_readout').text.includes(s)",
                           arg="There is no \u201cbank\u201d in this sentence", timeout=10000)
    assert columns(page, "routing_rowmark")["x"] == [] and columns(page, "routing_sense_point")["x"] == []
    # too long: the core's own refusal, and the sentence shown stays
    long = " ".join(["the bank"] * 20)
    with pytest.raises(ValueError) as refusal:
        attention.tokenize(long)
    type_sentence(page, long)
    wait_own(page, "That sentence was not used")
    assert str(refusal.value) in prop(page, "routing_own", "text")
    assert columns(page, "routing_tokens")["tok"] == ["the", "river", "flowed"]
    # Play on a typed sentence starts training from step 0 on it
    click(page, "routing_play")
    page.wait_for_function("() => AttnPage.doc.get_model_by_name('routing_pause').disabled === false")
    page.wait_for_function("() => AttnPage.doc.get_model_by_name('routing_play').disabled === false")
    wait_step(page, PLAIN["steps"])
    assert columns(page, "routing_tokens")["tok"] == ["the", "river", "flowed"]
    # back to an example sentence
    page.evaluate("() => { AttnPage.doc.get_model_by_name('routing_sentence_select').value = '0'; }")
    page.wait_for_function("(t) => AttnPage.doc.get_model_by_name('routing_tokens').data.tok.join(' ') === t",
                           arg=" ".join(SHOWN[0]["tokens"]))


# ---- the whole page -----------------------------------------------------------------------------------------------

def test_the_section_follows_self_attention_on_the_whole_page(static_file, watch):
    block_outside(watch.page)
    page = open_routing(watch.page, static_file.as_uri())
    order = page.evaluate("() => Array.from(document.querySelectorAll('section.attn-sec'), (s) => s.dataset.section)")
    assert order.index("routing") == order.index("sentence") + 1
    assert shown_step(page) == 0
    click(page, "routing_step")
    wait_step(page, STEPS[1])
    # presentation mode switched on by the page's own toggle (the regression section's) reaches this section
    page.evaluate("() => { AttnPage.doc.get_model_by_name('present_toggle').active = true; }")
    page.wait_for_function("() => document.querySelector('.attn-page').getAttribute('data-present') === '1'")
    page.wait_for_function("""() => AttnPage.doc.get_model_by_name('routing_sense_plot').renderers.every((r) => {
      if (!r.glyph || r.glyph.type !== 'Text') return true;
      const s = r.glyph.text_font_size, px = parseFloat(typeof s === 'string' ? s : s.value);
      return px >= 20; })""")
    assert min(float(size[:-2]) for _, _, size, _ in page.evaluate(CANVAS_TEXT, list(FIGURES))) >= 20
    assert [e for e in watch.console_errors() if "(routing)" in e] == []


# ---- pictures and figures (not tests) --------------------------------------------------------------------------

def _screenshots(out_dir):
    """The README's before and after: the section at step 0 and at the end, at 1366 x 768."""
    from playwright.sync_api import sync_playwright

    from tests.browser.pageutil import CHROMIUM, LAUNCH_ARGS

    import tempfile
    from pathlib import Path

    html = export(Path(tempfile.mkdtemp()) / "routing.html")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        page = b.new_page(viewport={"width": 1366, "height": 768})
        open_routing(page, html.as_uri())
        page.evaluate("() => { const el = document.querySelector('.attn-sec-routing .attn-grid');"
                      " window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 8); }")
        page.wait_for_function("() => !(globalThis.__attnTextsPending > 0)")
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
        page.screenshot(path=str(out_dir / "screenshot-routing-before.png"))
        click(page, "routing_play")
        wait_step(page, PLAIN["steps"])
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
        page.screenshot(path=str(out_dir / "screenshot-routing-after.png"))
        b.close()


MEASURE_JS = """async (runs) => {
  const m = (n) => AttnPage.doc.get_model_by_name(n), frame = () => new Promise((r) => requestAnimationFrame(r));
  const slider = m('routing_step_slider'), engine = slider.js_property_callbacks['change:value'][0];
  const sync = [], painted = [];
  for (let run = 0; run < runs; run++) {
    for (let f = 0; f <= slider.end; f++) {
      slider.setv({ value: f }, { silent: true });   // the engine is run here, once, and timed
      const t0 = performance.now();
      await engine.execute(slider, {});
      sync.push(performance.now() - t0);
      await frame(); await frame();                    // the plots paint at the next frame
      painted.push(performance.now() - t0);
    }
  }
  // real playback: the gaps between animation frames while it plays
  const gaps = [];
  slider.value = 0;
  await frame();
  Bokeh.index.find_one(m('routing_play')).shadow_el.querySelector('button').click();
  let last = performance.now();
  while (m('routing_play').disabled || gaps.length === 0) {
    await frame();
    const now = performance.now(); gaps.push(now - last); last = now;
  }
  return { sync, painted, gaps };
}"""


def _measure(runs=5):
    import statistics
    import tempfile
    import time
    from pathlib import Path

    from playwright.sync_api import sync_playwright

    from tests.browser.pageutil import CHROMIUM, LAUNCH_ARGS

    def stats(xs):
        xs = sorted(xs)
        return f"median {statistics.median(xs):.2f} ms, p95 {xs[int(0.95 * (len(xs) - 1))]:.2f} ms (n = {len(xs)})"

    build = []
    for _ in range(runs):
        for f in (rv.trajectory, rv._playback_json, rv.summary, rv._words_model_json, rv.engine_source):
            f.cache_clear()
        t0 = time.perf_counter()
        rv.build_routing()
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        rv.build_routing()
        build.append((cold * 1000, (time.perf_counter() - t0) * 1000))
    print("build_routing, first in a process (trains):", stats([c for c, _ in build]))
    print("build_routing, path cached:", stats([w for _, w in build]))
    html = export(Path(tempfile.mkdtemp()) / "routing.html")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        page = b.new_page(viewport={"width": 1366, "height": 768})
        open_routing(page, html.as_uri())
        page.evaluate("() => document.querySelector('.attn-sec-routing .attn-grid').scrollIntoView()")
        r = page.evaluate(MEASURE_JS, runs)
        print("engine, one step drawn (synchronous work):", stats(r["sync"]))
        print("engine, one step until painted (two animation frames):", stats(r["painted"]))
        print("playback, gaps between animation frames:", stats(r["gaps"]))
        b.close()


if __name__ == "__main__":
    from pathlib import Path

    what = sys.argv[1] if len(sys.argv) > 1 else "screenshots"
    if what == "screenshots":
        _screenshots(Path(__file__).resolve().parent / "screenshots")
    elif what == "measure":
        _measure()
    else:
        sys.exit("usage: python -m tests.browser.test_routing [screenshots|measure]")


def open_more(page):
    """Open the disclosure of W_Q and W_K ("More: the two matrices being learned") with a real click."""
    summary = element(page, "routing_weights", "details > summary")
    summary.scroll_into_view_if_needed()
    summary.click()
    page.wait_for_function("""() => Bokeh.index.find_one(AttnPage.doc.get_model_by_name('routing_weights'))
      .shadow_el.querySelector('details').open""")


def test_on_a_phone_the_table_of_w_q_and_w_k_fits_the_screen(opened, watch):
    """The text under the table talks about its last column: at 360 px the whole table is on screen, not behind
    a sideways scroll, and its text stays at least 14 px."""
    watch.page.set_viewport_size({"width": 360, "height": 780})
    page = opened("?qk_step=150")
    page.wait_for_function("() => AttnPage.doc.get_model_by_name('routing_weights').text.includes('looks for')")
    open_more(page)
    box = page.evaluate("""() => { const v = Bokeh.index.find_one(AttnPage.doc.get_model_by_name('routing_weights'));
      const t = v.shadow_el.querySelector('table.w'), d = t.parentElement, r = t.getBoundingClientRect();
      return { scroll: d.scrollWidth, client: d.clientWidth, right: r.right, width: innerWidth,
               font: Math.min(...[...t.querySelectorAll('td, th')].map((e) => parseFloat(getComputedStyle(e).fontSize))) }; }""")
    assert box["scroll"] <= box["client"] and box["right"] <= box["width"], box
    assert box["font"] >= 14, box


def trained_to_the_end(page):
    """After Play has run to its end: bank looks at the deciding word, every figure shows the core's last step, the
    clue plot every recorded step, and the end was said once in the live region."""
    s = SHOWN[OPENING]
    wait_step(page, PLAIN["steps"])
    page.wait_for_function("() => AttnPage.doc.get_model_by_name('routing_play').disabled === false")
    # issue 47: the end of training is said once in the page's live region, with the last step's status words
    page.wait_for_function(f"() => (({SAID_JS})() || '').includes('Training finished. Step ')")
    said = page.evaluate(SAID_JS)
    assert f"Training finished. Step {PLAIN['steps']} of {PLAIN['steps']}: loss " in said, said
    a = drawn_matrix(page)
    row = a[s["index"]]
    assert s["tokens"][int(np.argmax(row))] == s["clue"] == "river"
    np.testing.assert_allclose(row, PLAIN["sentences"][OPENING]["weights"][LAST], rtol=0, atol=TOL)
    point = columns(page, "routing_sense_point")
    r = TRAJ.readout(s["text"])                    # the trained projections: the path's last entry
    assert abs(point["x"][0] - r.point[0]) <= TOL and abs(point["y"][0] - r.point[1]) <= TOL
    assert len(columns(page, "routing_sense_trail")["x"]) == len(STEPS)
    np.testing.assert_allclose(columns(page, "routing_accuracy")["held"], 100 * TRAJ.held_out_accuracy, atol=1e-12)
    # the plot of what is learned: each shown sentence's weight on its deciding word at every recorded step (the
    # chosen one last, bold, named at its end), rising on the held-out sentences too
    clue = columns(page, "routing_clue")
    by_text = {t: j for j, t in enumerate(x.text for x in TRAJ.corpus.shown)}
    for text_, xs, ys, dash, width in zip(clue["text"], clue["xs"], clue["ys"], clue["dash"], clue["width"]):
        j = by_text[text_]
        assert list(xs) == STEPS
        np.testing.assert_allclose(ys, CLUE[:, j], rtol=0, atol=TOL)
        assert dash == ("dashed" if SHOWN[j]["split"] == "held_out" else "solid")
        assert width == (3.5 if j == OPENING else 1.5)
        if SHOWN[j]["split"] == "held_out":
            assert ys[-1] > 0.5 and ys[-1] > 3 * ys[0], text_
    now = columns(page, "routing_clue_now")
    assert now["x"] == [PLAIN["steps"]] and now["y"] == pytest.approx([CLUE[-1, OPENING]], abs=TOL)
    assert now["label"] == ["river"]
    page.wait_for_function("() => !(globalThis.__attnTextsPending > 0)")
    text = prop(page, "routing_readout", "text")
    assert f"looks most at \u201criver\u201d, with {row.max():.2f} of its weight" in text
    assert f"Its output moved {r.z:.2f} towards water from where an even spread lands: water" in text
    assert text.count("Right:") == 1


# ---- the pace of playback ------------------------------------------------------------------------------------------

PLAY_CLOCK = """async () => {
  const m = (n) => AttnPage.doc.get_model_by_name(n), frame = () => new Promise((r) => requestAnimationFrame(r));
  const slider = m('routing_step_slider'), seen = [];
  const button = Bokeh.index.find_one(m('routing_play')).shadow_el.querySelector('button');
  const t0 = performance.now();
  button.click();
  // the step shown at every animation frame, by the page's clock, until playback has stopped at the end
  while (!(slider.value === slider.end && !m('routing_play').disabled)) {
    const st = m('routing_status').text;   // (the status is written a frame after the plots: its own step)
    const said = Number(/Step (\\d+) of/.exec(st)[1]);
    seen.push([performance.now() - t0, slider.value, st.includes('class="moment"') ? said : -1, said]);
    await frame();
  }
  seen.push([performance.now() - t0, slider.value, -1, -1]);
  const args = slider.js_property_callbacks['change:value'][0].args;
  return { seen, config: args instanceof Map ? args.get('config') : args.config };
}"""


def test_play_takes_10_to_15_seconds_holds_where_the_deciding_word_gets_half_and_ends_trained(opened):
    """Measured with the page's own clock: Play from step 0 to the end takes as long as the schedule it is given
    (app/routing/pace.py: slow while the accuracy climbs, fast once it is settled, a hold at the moment the
    deciding word first gets half of bank's weight), and that is 10 to 15 s; the frame it holds on is the core's
    moment, named in the status line, and it stays longer than the settled frames around it.  At the end bank looks
    at the deciding word (trained_to_the_end)."""
    page = opened()
    r = page.evaluate(PLAY_CLOCK)
    schedule, seen = r["config"]["pace"]["shown"][OPENING], r["seen"]
    assert r["config"]["pace"] == rv.pace()
    hold = int(np.argmax(CLUE[:, OPENING] >= rv.HOLD_SHARE))
    assert 0 < hold < LAST and CLUE[hold - 1, OPENING] < rv.HOLD_SHARE
    planned = sum(schedule[:-1])
    took = seen[-1][0]
    assert 10_000 <= planned <= 15_000
    # (the end shows at the first interval tick after it is due, and is seen at the next animation frame)
    assert planned <= took <= min(15_000, planned + 1500), (planned, took)
    assert [v for _, v, *_ in seen] == sorted(v for _, v, *_ in seen)      # forwards only
    # the status line's step is the slider's at every animation frame (issue 46: "Step 24" beside 27)
    assert [(STEPS[v], k) for _, v, _, k in seen[:-1] if STEPS[v] != k] == []
    # it holds there: its frame is seen for most of the hold and longer than any settled step's around it (the
    # first sighting may come a frame or two late while the machine is busy)
    spans = {}
    for t, v, *_ in seen:
        spans.setdefault(v, [t, t])[1] = t
    held = spans[hold][1] - spans[hold][0]
    assert held >= schedule[hold] / 2, held
    assert held > max(b - a for v, (a, b) in spans.items() if v > hold and v != LAST), spans
    assert {k for _, _, k, _ in seen if k >= 0} == {STEPS[hold]}          # and says why, there only
    # the climb is watched: every frame before the moment is seen, each for a good part of its time
    assert all(f in spans and spans[f][1] - spans[f][0] >= schedule[f] / 2 for f in range(hold) if schedule[f] > 500)
    trained_to_the_end(page)


def test_pause_during_playback_stops_it_and_play_goes_on_from_there(opened):
    page = opened()
    click(page, "routing_play")
    page.wait_for_function(f"() => AttnPage.doc.get_model_by_name('routing_step_slider').value >= 3")
    click(page, "routing_pause")
    page.wait_for_function("() => AttnPage.doc.get_model_by_name('routing_play').disabled === false")
    f = prop(page, "routing_step_slider", "value")
    # paused: a full slow step later (by the page's clock) it has not moved
    page.evaluate("(ms) => new Promise((r) => { const t = performance.now(); const look = () => "
                  "performance.now() - t > ms ? r() : requestAnimationFrame(look); look(); })", 2 * max(rv.pace()["typed"]))
    assert prop(page, "routing_step_slider", "value") == f and f < LAST
    click(page, "routing_play")
    page.wait_for_function(f"() => AttnPage.doc.get_model_by_name('routing_step_slider').value > {f}")
    click(page, "routing_pause")


DUE = r"""(cases) => cases.map((c) => R.dueFrame(c.ms, c.f0, c.schedule))"""


def test_the_playback_schedule_and_its_moment_are_the_cores(js):
    """dueFrame: the frame due at a time after Play, against the schedule walked here; holdFrame: the first
    recorded step where the deciding word gets half of bank's weight, against clue_weights of the core."""
    schedules = rv.pace()["shown"][:2] + [rv.pace()["typed"]]

    def due(ms, f0, schedule):
        f, t = f0, ms
        while f < len(schedule) - 1 and t >= schedule[f]:
            t -= schedule[f]
            f += 1
        return f

    cases = [{"ms": ms, "f0": f0, "schedule": sc} for sc in schedules for f0 in (0, 4, 9, 12, LAST)
             for ms in range(0, 16000, 97)]
    got = js.evaluate(DUE, cases)
    assert got == [due(c["ms"], c["f0"], c["schedule"]) for c in cases]
    assert max(got) == LAST and got[0] == 0
    curves = [list(CLUE[:, j]) for j in range(len(SHOWN))]
    got = js.evaluate("([cs, share]) => cs.map((c) => R.holdFrame(c, share))", [curves, rv.HOLD_SHARE])
    assert got == [int(np.argmax(CLUE[:, j] >= rv.HOLD_SHARE)) for j in range(len(SHOWN))]
    assert js.evaluate("() => R.holdFrame(null, 0.5)") == -1


def test_the_table_of_w_q_and_w_k_sits_behind_more_and_stays_open(opened):
    """The table is one tap away: closed at first (its words are not on the page's first screen), opened by a
    click, and open still after Step (the engine writes it again at every step).  Its columns carry the meanings
    a key needs there (none at the untrained start), and the line under it names the word bank looks at most."""
    page = opened()
    page.wait_for_function("() => AttnPage.doc.get_model_by_name('routing_weights').text.includes('looks for')")
    closed = page.evaluate("""() => { const v = Bokeh.index.find_one(AttnPage.doc.get_model_by_name('routing_weights'));
      return [v.shadow_el.querySelector('details').open, v.shadow_el.querySelector('table.w').checkVisibility()]; }""")
    assert closed == [False, False]
    html = prop(page, "routing_weights", "text")
    assert re.findall(r'<th class="col">(.*?)</th>', html) == ["1", "2", "1", "2"]
    assert "share no column yet" in html
    open_more(page)
    page.evaluate("() => { AttnPage.doc.get_model_by_name('routing_step_slider').value = %d; }" % LAST)
    wait_step(page, PLAIN["steps"])
    page.wait_for_function("() => !(globalThis.__attnTextsPending > 0)")
    html = prop(page, "routing_weights", "text")
    assert html.startswith('<details class="more" open>')
    cols = learn_qk.shared_columns(TRAJ.w_q[-1], TRAJ.w_k[-1], "bank", "river")
    short = lambda names: [n.split(" / ")[0] for n in names[:2]]   # noqa: E731
    labels = [re.findall(r'<span class="lab">(.*?)</span>', h) for h in re.findall(r'<th class="col">(.*?)</th>', html)]
    assert labels == [short(c.looks_for) for c in cols] * 2 and ["money", "water"] in labels
    assert learn_qk.shared_summary(TRAJ.w_q[-1], TRAJ.w_k[-1], "bank", "river") in html.replace("&#39;", "'")


def test_the_matrix_colours_the_weight_itself_with_its_colour_bar(opened):
    """One scale across the page: the cells' colour is the weight, 0 to 1 (the colour mapper's range), said by a
    colour bar; bank's numbers are black on the brighter half of the palette and white on the darker, and every
    one of the palette's ten colours keeps at least 4.5 : 1 against its number."""
    page = opened("?qk_step=150")
    wait_step(page, PLAIN["steps"])
    bar = page.evaluate("""() => { const f = AttnPage.doc.get_model_by_name('routing_matrix_plot');
      const b = f.right.find((m) => m.type === 'ColorBar'), cm = b.color_mapper;
      return { title: b.title, low: cm.low, high: cm.high, palette: cm.palette, ticks: b.ticker.ticks,
               fill: f.renderers.find((r) => r.glyph.type === 'Rect' && r.data_source.name === 'routing_cells')
                 .glyph.fill_color.transform.id === cm.id }; }""")
    assert bar == {"title": "weight", "low": 0, "high": 1, "palette": list(theme.WEIGHT_PALETTE),
                   "ticks": [0, 0.5, 1], "fill": True}
    labels = columns(page, "routing_cell_labels")
    w = np.array(TRAJ.readout(SHOWN[OPENING]["text"]).weights)
    assert labels["tc"] == ["#000000" if v >= 0.5 else "#FFFFFF" for v in w]
    for k, colour in enumerate(theme.WEIGHT_PALETTE):
        text_colour = "#000000" if k >= 5 else "#FFFFFF"
        assert contrast(colour, text_colour) >= 4.5, (colour, text_colour)


def _luminance(hex_colour):
    c = [int(hex_colour.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    c = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in c]
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]


def contrast(a, b):
    """WCAG's contrast ratio of two colours."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)
