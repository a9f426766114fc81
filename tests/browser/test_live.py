"""The live page (`attention-explorable serve`, app/live) in a real browser: what needs Python goes through
app/live/bridge.js to the server's JSON endpoints, and the page shows exactly what the numpy core computes.

Every wait is for a condition (no request in flight, globalThis.__attnLivePending, and the data the
test expects), never for a time.
"""

from __future__ import annotations

import json
import warnings
import urllib.error
import urllib.request
from urllib.parse import parse_qs, quote, urlsplit

import numpy as np
import pytest

import attention
from app.learning.view import BANDWIDTH_LR_PRESETS, bandwidth_trajectory_for
from app.regression.view import dataset_meta
from app.sentence.view import presets_payload
from tests.browser.pageutil import (check_against_core, model_element, model_prop, open_more_controls, set_model_prop,
                                    source_data, wait_prop, wait_ready, wait_texts)

IDLE_JS = "!(globalThis.__attnLivePending > 0)"
M = "Bokeh.documents[0].get_model_by_name"
NOISE = 0.3   # the generator's default noise (ExplorableState)

# every element in the document and in every shadow root under it (Bokeh draws into shadow DOM)
COUNT_TAGS_JS = """(tag) => { let n = 0;
  const walk = (root) => { for (const el of root.querySelectorAll('*')) {
      if (el.tagName === tag) n++; if (el.shadowRoot) walk(el.shadowRoot); } };
  walk(document); return n; }"""


# the longest time between two painted frames from now on (ms): how long the page stopped answering
STALL_WATCH_JS = """() => { let last = performance.now(), worst = 0;
  const f = () => { const t = performance.now(); worst = Math.max(worst, t - last); last = t; requestAnimationFrame(f); };
  requestAnimationFrame(f); globalThis.__attnTestStall = () => worst; }"""


# ---- helpers --------------------------------------------------------------------------------------------

def wait_idle(page, condition="true", arg=None, timeout=30000):
    """Wait until no request to the server is in flight and ``condition`` (JS, may use ``arg``) holds."""
    page.wait_for_function(f"(arg) => {IDLE_JS} && ({condition})", arg=arg, timeout=timeout)


def open_live(watch, base, query=""):
    page = watch.page
    page.goto(base + query)
    wait_ready(page)
    return page


def script_errors(watch):
    """Console errors and uncaught exceptions, except the browser's own line for a refused or failed request
    (a 400 from the server, or a request the test aborted on purpose)."""
    return [e for e in watch.console_errors() if not e.startswith("Failed to load resource")]


def no_outside(watch, base):
    assert watch.outside_requests([base, "data:", "blob:"]) == []


def api_calls(watch, name):
    return [u for u in watch.requests if f"/api/{name}?" in u]


def set_number(page, name, value):
    """Type a number into a NumericInput as a student does (select all, type, Enter)."""
    box = model_element(page, name, "input")
    box.scroll_into_view_if_needed()
    box.click()
    box.press("Control+A")
    box.type(str(value))
    box.press("Enter")


def set_generator(page, fn=None, n=None, seed=None):
    open_more_controls(page)
    if fn is not None:
        model_element(page, "generator_fn", "select").select_option(fn)
        wait_prop(page, "generator_fn", "value", f"(v) => v === {json.dumps(fn)}")
    if n is not None:
        set_number(page, "generator_n", n)
        wait_prop(page, "generator_n", "value", f"(v) => v === {int(n)}")
    if seed is not None:
        set_number(page, "generator_seed", seed)
        wait_prop(page, "generator_seed", "value", f"(v) => v === {int(seed)}")


def press_generate(page):
    b = model_element(page, "generator_go", "button")
    b.scroll_into_view_if_needed()
    b.click()


def wait_dataset(page, d, timeout=30000):
    """Wait until the regression's data source holds the generated dataset ``d`` (its meta tag) and is idle."""
    wait_idle(page, f"{M}('dataset').tags[0] === arg && {M}('dataset').data.x.length === {len(d.x)}",
              dataset_meta("generated", d), timeout=timeout)


def check_dataset(page, d):
    """The data source, the dataset select and the readouts against the numpy core on ``d``."""
    data = source_data(page, "dataset")
    np.testing.assert_allclose(data["x"], d.x, rtol=0, atol=1e-12)
    np.testing.assert_allclose(data["y"], d.y, rtol=0, atol=1e-12)
    assert model_prop(page, "dataset_select", "value") == "generated"
    state, _ = check_against_core(page)
    assert len(state["x"]) == len(d.x)


def query_of(page):
    return {k: v[-1] for k, v in parse_qs(urlsplit(page.url).query, keep_blank_values=True).items()}


def wait_path(page, lr, timeout=60000):
    """Wait until learning's `learn_generated` holds a path for the regression's dataset at learning rate lr."""
    wait_idle(page, f"""(() => {{ const g = {M}('learn_generated'), t = JSON.parse(g.tags[0] || '{{}}');
      return t.lr === arg && t.dataset === {M}('dataset').tags[0] && g.data.h.length > 0; }})()""", lr,
              timeout=timeout)


def check_path(page, d, lr):
    gen = source_data(page, "learn_generated")
    tag = json.loads(model_prop(page, "learn_generated", "tags")[0])
    assert tag["lr"] == lr and "error" not in tag
    assert json.loads(tag["dataset"]) == json.loads(dataset_meta("generated", d))
    want = bandwidth_trajectory_for(d.x, d.y, lr)
    for col in ("h", "loss", "grad"):
        np.testing.assert_allclose(gen[col], want[col], rtol=1e-12, atol=1e-12, err_msg=col)
    assert gen["status"] == want["status"]


def type_sentence(page, text):
    box = model_element(page, "sentence_input", "input")
    box.scroll_into_view_if_needed()
    box.click()
    box.press("Control+A")
    box.press("Delete")
    if text:
        box.type(text)
    box.press("Enter")


def tokens_shown(page):
    return source_data(page, "sentence_tokens")["tok"]


def wait_tokens(page, tokens, timeout=30000):
    wait_idle(page, f"{M}('sentence_tokens').data.tok.join('\\u0001') === arg.join('\\u0001')", tokens,
              timeout=timeout)


def token_options(page):
    return [o[1] if isinstance(o, list) else o for o in model_prop(page, "token_select", "options")]


# ---- the page itself --------------------------------------------------------------------------------------

def test_the_page_loads_clean_asks_only_its_server_and_revalidates(live_app, watch):
    page = open_live(watch, live_app)
    wait_idle(page)
    wait_texts(page)
    assert watch.console_errors() == []
    no_outside(watch, live_app)
    assert api_calls(watch, "dataset") == []   # the shipped dataset needs no server

    with urllib.request.urlopen(live_app) as r:
        etag = r.headers["ETag"]
        body = r.read()
        assert r.status == 200 and etag and r.headers["Cache-Control"] == "no-cache"
    with urllib.request.urlopen(live_app.rstrip("/") + "/main") as r:   # the address of earlier versions
        assert r.headers["ETag"] == etag and r.read() == body
    req = urllib.request.Request(live_app, headers={"If-None-Match": etag})
    with pytest.raises(urllib.error.HTTPError) as e:   # urllib reports a 304 as an error
        urllib.request.urlopen(req)
    assert e.value.code == 304 and e.value.read() == b""
    # a stale ETag gets the page again
    with urllib.request.urlopen(urllib.request.Request(live_app, headers={"If-None-Match": '"stale"'})) as r:
        assert r.status == 200 and r.read() == body


# ---- the generator -------------------------------------------------------------------------------------

def test_generate_gives_the_cores_dataset_and_the_address_holds_it(live_app, watch):
    page = open_live(watch, live_app)
    set_generator(page, fn="step", n=80, seed=7)
    press_generate(page)
    d = attention.make_dataset("step", 80, NOISE, 7)
    wait_dataset(page, d)
    check_dataset(page, d)
    q = query_of(page)
    assert {k: q.get(k) for k in ("dataset", "fn", "n", "seed")} == \
        {"dataset": "generated", "fn": "step", "n": "80", "seed": "7"}
    assert float(q["noise"]) == NOISE
    assert model_prop(page, "notices", "visible") is False or model_prop(page, "notices", "text") == ""
    assert len(api_calls(watch, "dataset")) == 1

    # another seed: another dataset, and the readouts follow again
    set_generator(page, seed=8)
    press_generate(page)
    d8 = attention.make_dataset("step", 80, NOISE, 8)
    wait_dataset(page, d8)
    check_dataset(page, d8)
    assert query_of(page)["seed"] == "8"

    # a shipped dataset, then "generated" picked in the list: the generator's fields are asked for again
    sel = model_element(page, "dataset_select", "select")
    sel.select_option("bump")
    wait_idle(page, f"JSON.parse({M}('dataset').tags[0]).name === 'bump'")
    assert model_prop(page, "dataset_select", "value") == "bump"
    sel.select_option(label="generated (seeded)")
    wait_idle(page, f"{M}('dataset').tags[0] === arg && {len(d8.x)} === {M}('dataset').data.x.length",
              dataset_meta("generated", d8))
    check_dataset(page, d8)
    assert len(api_calls(watch, "dataset")) == 3   # one request for each of the three (none echoed)
    assert script_errors(watch) == []
    no_outside(watch, live_app)


def test_n_too_large_is_clamped_with_a_notice_and_the_page_keeps_working(live_app, watch):
    page = open_live(watch, live_app)
    # 2000 samples: the regression engine's h curves (leave-one-out and bias/variance over the h grid, O(n^2)
    # each) hold the main thread for many seconds on a slow machine, so this test waits longer
    page.set_default_timeout(120000)
    set_generator(page, fn="sine", n=5000)
    page.evaluate(STALL_WATCH_JS)
    press_generate(page)
    d = attention.make_dataset("sine", 2000, NOISE, 0)
    wait_dataset(page, d, timeout=120000)
    stall = page.evaluate("() => globalThis.__attnTestStall()")
    if stall > 2000:
        warnings.warn(f"the page stopped painting for {stall / 1000:.1f} s after a 2000-sample dataset arrived")
    wait_prop(page, "generator_n", "value", "(v) => v === 2000")
    notice = model_prop(page, "notices", "text")
    assert "n=5000" in notice and "2000" in notice, notice
    assert model_prop(page, "notices", "visible") is True
    check_dataset(page, d)
    assert query_of(page)["n"] == "2000"
    # still working: a slider move redraws against the core, and a small dataset replaces the large one
    set_model_prop(page, "query_slider", "value", 1.25)
    check_against_core(page)
    set_generator(page, n=30)
    press_generate(page)
    d30 = attention.make_dataset("sine", 30, NOISE, 0)
    wait_dataset(page, d30)
    check_dataset(page, d30)
    wait_prop(page, "notices", "text", "(t) => !t.includes('n=5000')")   # the old notice is gone
    assert script_errors(watch) == []


def test_a_generated_link_opens_on_that_dataset_and_learning_trains_on_it(live_app, watch):
    page = open_live(watch, live_app, "?dataset=generated&fn=step&n=80&seed=7")
    d = attention.make_dataset("step", 80, NOISE, 7)
    wait_dataset(page, d)
    check_dataset(page, d)
    lr = model_prop(page, "learn_lr_select", "value")
    assert lr in BANDWIDTH_LR_PRESETS
    wait_path(page, lr)
    check_path(page, d, lr)
    assert len(api_calls(watch, "dataset")) == 1 and len(api_calls(watch, "train")) == 1   # asked once each
    # the generator's fields show the link's values
    assert (model_prop(page, "generator_fn", "value"), model_prop(page, "generator_n", "value"),
            model_prop(page, "generator_seed", "value")) == ("step", 80, 7)

    other = next(p for p in BANDWIDTH_LR_PRESETS if p != lr)   # another learning rate: another path
    sel = model_element(page, "learn_lr_select", "select")
    sel.scroll_into_view_if_needed()
    sel.select_option(other)
    wait_path(page, other)
    check_path(page, d, other)
    assert script_errors(watch) == []
    no_outside(watch, live_app)


# the plots that made BokehJS lay the page out again from its root because their axes changed size (a plot
# checks its axes before each paint, and a tick label that changed width sends it to the root's layout)
COUNT_LAYOUTS_JS = """() => { globalThis.__attnLayouts = [];
  const doc = Bokeh.documents[0];
  let asking = null;
  for (const m of doc.all_models) {
    const v = Bokeh.index.find_one(m);
    if (!v || typeof v._invalidate_layout_if_needed !== "function") continue;
    const f = v._invalidate_layout_if_needed.bind(v);
    v._invalidate_layout_if_needed = () => { asking = m.name; try { return f(); } finally { asking = null; } };
  }
  for (const v of Object.values(Bokeh.index)) {
    if (!v || typeof v.compute_layout !== "function") continue;
    const f = v.compute_layout.bind(v);
    v.compute_layout = (...args) => { if (asking !== null) globalThis.__attnLayouts.push(asking); return f(...args); };
  } }"""
LOSS_SPAN_JS = f"() => {{ const r = {M}('learn_loss_plot').y_range; return [r.start, r.end]; }}"
TWO_FRAMES_JS = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"


def test_a_new_dataset_and_its_path_leave_the_page_layout_alone(live_app, watch):
    """A generated dataset and its learning path change the spans of the error and loss axes, but their tick
    labels keep their width (theme.steady_ticks), so no plot sends the page to be laid out again (30-60 ms a
    dataset on a laptop).  (Text that wraps to another number of lines still resizes the page, as it should.)"""
    page = open_live(watch, live_app)
    lr = model_prop(page, "learn_lr_select", "value")
    open_more_controls(page)
    page.evaluate(TWO_FRAMES_JS)
    page.evaluate(COUNT_LAYOUTS_JS)
    spans = [page.evaluate(LOSS_SPAN_JS)]
    for seed in (3, 4):
        set_generator(page, fn="bump" if seed == 3 else "step", n=40 + seed, seed=seed)
        press_generate(page)
        d = attention.make_dataset("bump" if seed == 3 else "step", 40 + seed, NOISE, seed)
        wait_dataset(page, d)
        wait_path(page, lr)
        page.wait_for_function(f"(s) => {{ const r = {M}('learn_loss_plot').y_range; "
                               "return r.start !== s[0] || r.end !== s[1]; }", arg=spans[-1])
        page.wait_for_function("() => !(globalThis.__attnTextsPending > 0)")
        page.evaluate(TWO_FRAMES_JS)   # the plots have painted the new ranges
        spans.append(page.evaluate(LOSS_SPAN_JS))
        check_dataset(page, d)
    assert len({tuple(s) for s in spans}) == 3, spans   # the loss axis really changed its span twice
    assert page.evaluate("() => globalThis.__attnLayouts") == []
    assert script_errors(watch) == []


# ---- the typed sentence ---------------------------------------------------------------------------------

def test_a_typed_sentence_comes_from_the_server_and_a_refused_one_keeps_the_last(live_app, watch):
    page = open_live(watch, live_app)
    text = "The loan from the bank was paid."
    type_sentence(page, text)
    want = attention.analyze_sentence(text).to_plain()["tokens"]
    wait_tokens(page, want)
    assert tokens_shown(page) == want
    assert token_options(page) == [f"{i}: {t}" for i, t in enumerate(want)]
    assert len(api_calls(watch, "sentence")) == 1
    assert model_prop(page, "sentence_notices", "visible") is False

    def refused(value, reason, *, typed=True):
        before = len(api_calls(watch, "sentence"))
        if typed:
            type_sentence(page, value)
        else:   # past the input's max_length: set as a script (or a long paste elsewhere) would
            set_model_prop(page, "sentence_input", "value", value)
        wait_idle(page, f"{M}('sentence_notices').text.includes(arg)", reason)
        assert len(api_calls(watch, "sentence")) == before + 1
        assert model_prop(page, "sentence_notices", "visible") is True
        assert "The previous sentence stays" in model_prop(page, "sentence_notices", "text")
        assert tokens_shown(page) == want
        assert token_options(page) == [f"{i}: {t}" for i, t in enumerate(want)]

    refused(" ".join(["river"] * 33), "33 tokens")
    refused("?! ...", "sentence is empty")
    refused("a" * 600, "longer than 500 characters", typed=False)

    refused("", "sentence is empty")   # Enter on an empty box: the reason, as the per-session page gives it

    # a good sentence after a refusal clears the notice
    type_sentence(page, "she put cash in my bank")
    want2 = attention.analyze_sentence("she put cash in my bank").to_plain()["tokens"]
    wait_tokens(page, want2)
    wait_prop(page, "sentence_notices", "visible", "(v) => v === false")

    # an example picked from the list is on the page already: its text shows in the box, the server is not asked
    before = len(api_calls(watch, "sentence"))
    set_model_prop(page, "preset_select", "value", "1")   # as the list does when a student picks the second example
    first = presets_payload()[0][1]["text"]
    wait_tokens(page, attention.analyze_sentence(first).to_plain()["tokens"])
    wait_idle(page, f"{M}('sentence_input').value === arg", first)
    assert len(api_calls(watch, "sentence")) == before
    assert script_errors(watch) == []
    no_outside(watch, live_app)


def test_a_link_with_its_own_sentence_opens_on_it_at_the_linked_word(live_app, watch):
    text = "my bank is closed today"
    want = attention.analyze_sentence(text).to_plain()["tokens"]
    assert len(want) == 5
    page = open_live(watch, live_app, "?sentence=" + quote(text) + "&token=4")
    wait_tokens(page, want)
    wait_prop(page, "token_select", "value", "(v) => v === '4'")
    assert len(api_calls(watch, "sentence")) == 1
    assert model_prop(page, "sentence_notices", "visible") is False
    page.wait_for_function("() => location.search.includes('token=4')")
    assert query_of(page)["sentence"] == text

    page = open_live(watch, live_app, "?sentence=" + quote(text) + "&token=9")   # past the end: the last word
    wait_tokens(page, want)
    wait_prop(page, "token_select", "value", "(v) => v === '4'")
    notice = model_prop(page, "sentence_notices", "text")
    assert "token=9" in notice and "(4)" in notice, notice
    assert model_prop(page, "sentence_notices", "visible") is True
    assert script_errors(watch) == []


# ---- a server that does not answer, and text that is not HTML ----------------------------------------

def test_a_server_that_stops_answering_gives_a_notice_and_the_plots_keep_their_data(live_app, watch):
    page = open_live(watch, live_app)
    before = source_data(page, "dataset")
    meta = model_prop(page, "dataset", "tags")
    page.route("**/api/**", lambda route: route.abort())
    set_generator(page, fn="bump", n=40, seed=3)
    press_generate(page)
    wait_idle(page, f"{M}('notices').text.includes('could not be reached')")
    assert model_prop(page, "notices", "visible") is True
    assert source_data(page, "dataset") == before and model_prop(page, "dataset", "tags") == meta
    assert "dataset=generated" not in page.url
    check_against_core(page)

    page.unroute("**/api/**")   # the server is back: the next press works
    press_generate(page)
    d = attention.make_dataset("bump", 40, NOISE, 3)
    wait_dataset(page, d)
    check_dataset(page, d)
    wait_prop(page, "notices", "text", "(t) => !t.includes('could not be reached')")
    assert [e for e in watch.errors] == []


def test_a_servers_reason_is_shown_as_text_never_as_html(live_app, watch):
    page = open_live(watch, live_app)
    evil = "<img src=x onerror=alert(1)>"
    page.route("**/api/dataset**", lambda route: route.fulfill(
        status=400, content_type="application/json", body=json.dumps({"error": evil})))
    set_generator(page, n=40)
    press_generate(page)
    wait_idle(page, f"{M}('notices').text.includes('&lt;img')")
    assert evil not in model_prop(page, "notices", "text")
    shown = model_element(page, "notices").evaluate("(el) => (el.shadowRoot || el).textContent")
    assert evil in shown
    assert page.evaluate(COUNT_TAGS_JS, "IMG") == 0
    assert [e for e in watch.errors] == []


def test_a_typed_sentence_is_text_and_its_address_round_trips(live_app, watch):
    dialogs = []
    watch.page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page = open_live(watch, live_app)
    text = "<img src=x onerror=alert(1)> by the bank"
    want = attention.analyze_sentence(text).to_plain()["tokens"]
    type_sentence(page, text)
    wait_tokens(page, want)
    page.wait_for_function("(s) => new URLSearchParams(location.search).get('sentence') === s", arg=text)
    info = model_element(page, "sentence_info").evaluate("(el) => (el.shadowRoot || el).textContent")
    assert "<img" in info                            # the literal text is on the page
    assert page.evaluate(COUNT_TAGS_JS, "IMG") == 0   # and no element was made of it
    assert model_prop(page, "sentence_input", "value") == text

    address = page.url
    page = open_live(watch, address)   # the written address, opened again
    wait_tokens(page, want)
    wait_prop(page, "sentence_input", "value", f"(v) => v === {json.dumps(text)}")
    assert query_of(page)["sentence"] == text
    assert page.evaluate(COUNT_TAGS_JS, "IMG") == 0
    assert dialogs == []
    assert script_errors(watch) == []
    no_outside(watch, live_app)
