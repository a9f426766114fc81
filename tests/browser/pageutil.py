"""Reading the page: Bokeh renders into shadow DOM, so the tests read its models (they exist from the start);
the loader (app/ui/loader.js, ``AttnPage``) draws the page's blocks first screen first, so a test that reads a
view below it draws its block first (``draw``) or waits for the loader (``wait_drawn``).

Also ``start_server``, a bare ``panel serve app/delivery/main.py`` for the benchmarks (tests/bench/bench_learn.py); the
fixtures serve the page with ``attention-explorable serve`` (tests/app/serverutil.py ``LiveServer``); and
``harness_page``, the blank page the parity tests run their JS in.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
               "--disable-sync", "--no-first-run", "--disable-quic"]


@contextlib.contextmanager
def harness_page(browser, script: str, harness: str, timeout: float = 60000):
    """A blank page running ``script``, which leaves its entry points on ``window[harness]``: yields
    ``run(name, cases)``, the answer of entry ``name`` to ``cases`` (one ``page.evaluate``; ``run.page`` is the
    page).  Any error the page raised fails the test at the end."""
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        page.set_default_timeout(timeout)
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.set_content("<html><body></body></html>")
        page.add_script_tag(content=script)
        assert page.evaluate(f"() => typeof window.{harness}") == "object", errors

        def run(name, cases=None):
            return page.evaluate(f"([n, cs]) => window.{harness}[n](cs)", [name, cases])

        run.page = page
        yield run
        assert errors == []
    finally:
        ctx.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, *extra: str, timeout: float = 120.0) -> subprocess.Popen:
    """Start `panel serve app/delivery/main.py` on 127.0.0.1:port and wait until it answers (``timeout`` s at most)."""
    cmd = [sys.executable, "-m", "panel", "serve", str(ROOT / "app" / "delivery" / "main.py"), "--port", str(port),
           "--address", "127.0.0.1", "--allow-websocket-origin", f"127.0.0.1:{port}",
           "--allow-websocket-origin", f"localhost:{port}", *extra]
    # the server's log goes to a file: a pipe nobody reads would fill up and stall the server
    log = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, text=True)
    proc.log = log
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"panel serve exited early:\n{server_log(proc)}")
        try:
            # A refused connection fails at once; once the server listens, building the
            # first page can take several seconds on a busy machine, so wait for it.
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/main",
                                        timeout=max(1.0, min(30.0, deadline - time.time()))) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError(f"panel serve did not answer within {timeout:.0f} s")


def server_log(proc: subprocess.Popen) -> str:
    """What the server has printed so far."""
    proc.log.flush()
    proc.log.seek(0)
    return proc.log.read()


def stop_server(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)
    proc.log.close()


OFFLINE_ORIGINS = ("file:", "data:", "blob:")   # all the offline file may ask for: itself and what it makes


def block_outside(page):
    """Refuse every request that is not to a local file (the offline file must not need any)."""
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(OFFLINE_ORIGINS)
               else route.abort())


READY_JS = """() => { const d = window.Bokeh && Bokeh.documents && Bokeh.documents[0];
  if (!d) return false; const m = d.get_model_by_name('readouts');
  return !!(m && m.text.includes('max weight')); }"""


def wait_ready(page, timeout=45000):
    """Wait until the engine has drawn the readouts."""
    page.wait_for_function(READY_JS, timeout=timeout)


# ---- the loader (app/ui/loader.js): the page's blocks are drawn first screen first, the rest later ----------

DRAW_ALL_JS = """async () => { for (const s of document.querySelectorAll('section[data-section]'))
  await AttnPage.ensure(s.getAttribute('data-section')); return AttnPage.allDrawn(); }"""


# The block a name is drawn in: a block's own name, or the block that shows a model of that name (a tour's look).
BLOCK_OF_JS = "((n) => { const b = AttnPage.blockOf(n); return b ? b.name : n; })"

# An init script (page.add_init_script, with NAMES replaced by a JSON list of block or model names): when the loader
# says the first screen is done (its readouts written, app/ui/loader.js: the "first-screen" event, sent before any
# lower block is scheduled), it notes in window.__attnFirstReadouts whether each one's block was drawn then
# ("drawn"), the regression's bandwidth slider ("logh") and whether the readouts were written ("readouts").  Noted
# in the event itself: a poll at the next frame could come after the loader's first idle draws on a busy machine.
FIRST_READOUTS_JS = """(() => { const names = NAMES;
  addEventListener('attention-explorable:first-screen', () => {
    if (window.__attnFirstReadouts) return;
    const d = AttnPage.doc, m = d.get_model_by_name('readouts');
    const drawn = (n) => AttnPage.drawn(BLOCK_OF(n));
    window.__attnFirstReadouts = { drawn: Object.fromEntries(names.map((n) => [n, drawn(n)])),
                                   logh: d.get_model_by_name('bandwidth_slider').value,
                                   readouts: !!m && m.text.includes('max weight') };
  }); })();""".replace("BLOCK_OF", BLOCK_OF_JS)


# An init script: a finger that rests on the screen from the start.  The loader draws nothing below the first
# screen while a pointer is down (app/ui/loader.js), so only what the page asks for (a click, the tour) draws a
# lower block.
FINGER_DOWN_JS = """document.addEventListener('DOMContentLoaded', () =>
  dispatchEvent(new PointerEvent('pointerdown', {pointerType: 'touch', bubbles: true})));"""


def first_readouts(page):
    """What FIRST_READOUTS_JS noted when the first screen was done; its readouts were written by then."""
    page.wait_for_function("() => window.__attnFirstReadouts")
    first = page.evaluate("() => window.__attnFirstReadouts")
    assert first["readouts"], "the loader said the first screen was done before its readouts were written"
    return first


# The word labels (fixed ticks) of a plot's left axis, and of its top or bottom one when turned upright, against the
# room BokehJS gave them: for each
# such axis, the widest label drawn (its formatter's text for each tick, in the axis' label font) and the axis'
# depth, in px.  A label wider than its axis runs off the canvas or under the frame.
AXIS_LABELS_JS = """(name) => { const m = Bokeh.documents[0].get_model_by_name(name), v = Bokeh.index.find_one(m);
  const ctx = document.createElement('canvas').getContext('2d'), out = [];
  for (const av of [...v.renderer_views.values()].filter((r) => /Axis$/.test(r.model.type))) {
    const side = av.panel.side, upright = av.model.major_label_orientation === 'vertical' ||
      Math.abs(Math.abs(Number(av.model.major_label_orientation)) - Math.PI / 2) < 1e-6;
    if (!Array.isArray(av.model.ticker.ticks) || !(side === 'left' || (side !== 'right' && upright))) continue;
    ctx.font = av.visuals.major_label_text.font_value();
    const ticks = av.model.ticker.ticks, labels = av.model.formatter.format_graphics
      ? av.model.formatter.format_graphics(ticks, {loc: 0}).map((g) => g.text) : av.model.formatter.doFormat(ticks, {loc: 0});
    const widest = Math.max(...labels.map((t) => ctx.measureText(String(t)).width));
    out.push({side, widest, depth: side === 'left' ? av.bbox.width : av.bbox.height, labels: labels.map(String)});
  }
  return out; }"""


def draw(page, name):
    """Draw a block, or every block of a section, now (AttnPage.ensure), as the tour or a scroll would."""
    assert page.evaluate("(n) => AttnPage.ensure(n)", name) > 0, f"no block or section is named {name!r}"


def draw_all(page):
    """Draw every block of the page now (its views exist once this returns)."""
    assert page.evaluate(DRAW_ALL_JS) is True


def wait_drawn(page, name, timeout=60000):
    """Wait until the loader has drawn the block ``name`` (or the block that shows the model ``name``) by itself,
    as the student scrolls or the browser idles."""
    page.wait_for_function(f"(n) => AttnPage.drawn({BLOCK_OF_JS}(n))", arg=name, timeout=timeout)


def model_prop(page, name, prop):
    return page.evaluate("([n, p]) => Bokeh.documents[0].get_model_by_name(n)[p]", [name, prop])


def set_model_prop(page, name, prop, value):
    """Set a model's property from the browser side, as a widget would."""
    page.evaluate("([n, p, v]) => { Bokeh.documents[0].get_model_by_name(n)[p] = v; }", [name, prop, value])


def source_data(page, name):
    """Columns of a named ColumnDataSource, as lists."""
    return page.evaluate("""(n) => { const s = Bokeh.documents[0].get_model_by_name(n); const out = {};
      for (const [k, v] of Object.entries(s.data)) out[k] = Array.from(v); return out; }""", name)


TEXTS_SETTLED_JS = "() => !(globalThis.__attnTextsPending > 0)"


def wait_texts(page, timeout=10000):
    """Wait until the engines have written the texts for the page's state: they follow the plots' paint
    by a frame (U.afterPaint in app/ui/common.js)."""
    page.wait_for_function(TEXTS_SETTLED_JS, timeout=timeout)


def readout_text(page):
    wait_texts(page)
    return model_prop(page, "readouts", "text")


def wait_text(page, name, needle, timeout=30000):
    """Wait until the text of the model called ``name`` contains ``needle``."""
    page.wait_for_function("([n, s]) => Bokeh.documents[0].get_model_by_name(n).text.includes(s)",
                           arg=[name, needle], timeout=timeout)


# The view (what is on screen) of a named model: Bokeh keeps root views in
# Bokeh.index and each layout view lists its children in child_views.
FIND_VIEW_JS = """(name) => {
  const model = Bokeh.documents[0].get_model_by_name(name);
  const seen = new Set();
  function find(views) {
    for (const v of views) {
      if (!v || seen.has(v)) continue;
      seen.add(v);
      if (v.model === model) return v;
      const r = find(v.child_views ? Array.from(v.child_views) : []);
      if (r) return r;
    }
    return null;
  }
  return find(Object.values(Bokeh.index));
}"""


def model_element(page, name, selector=None):
    """The DOM element (ElementHandle) of a named model's view, or ``selector`` inside its shadow root."""
    handle = page.evaluate_handle(f"""([name, sel]) => {{ const v = ({FIND_VIEW_JS})(name);
      if (!v) return null; return sel ? v.shadow_el.querySelector(sel) : v.el; }}""", [name, selector])
    el = handle.as_element()
    if el is None:
        raise AssertionError(f"no element for model {name!r} (selector {selector!r})")
    return el


# The page has settled: the same scroll position six frames running (a tour step's reveal glides the page for up
# to a second), nothing being revealed, and every text written.  With {scroll: true}, only the scrolling and the
# revealing count (a glide of Show me, whose texts stay pending while it runs, may go on).
SETTLED_JS = """(opts) => new Promise((done) => { let last = -1, still = 0;
  const texts = !(opts && opts.scroll);
  const tick = () => { const y = scrollY; still = y === last ? still + 1 : 0; last = y;
    const busy = (texts && globalThis.__attnTextsPending > 0) || (window.AttnPage && AttnPage.revealing > 0);
    if (still >= 6 && !busy) done(true); else requestAnimationFrame(tick); };
  requestAnimationFrame(tick); })"""


def wait_settled(page, *, scroll_only=False):
    """Wait until the page has settled (SETTLED_JS), or with ``scroll_only`` until it has stopped scrolling and
    revealing.  Geometry measured after this stays true for a drag."""
    page.evaluate(SETTLED_JS, {"scroll": scroll_only})


def plot_geometry(page, name="main_plot"):
    """The frame of a figure in viewport pixels plus its x range: {left, top, width, height, x0, x1}."""
    g = page.evaluate(f"""(name) => {{ const v = ({FIND_VIEW_JS})(name);
      if (!v) return null;
      const host = v.el.getBoundingClientRect(), bb = v.frame.bbox, r = v.model.x_range;
      return {{ left: host.left + bb.left, top: host.top + bb.top, width: bb.width, height: bb.height,
               x0: r.start, x1: r.end }}; }}""", name)
    if g is None:
        raise AssertionError(f"no view found for the figure {name!r}")
    return g


def data_to_page_x(g, x):
    return g["left"] + (x - g["x0"]) / (g["x1"] - g["x0"]) * g["width"]


def page_to_data_x(g, px):
    return g["x0"] + (px - g["left"]) / g["width"] * (g["x1"] - g["x0"])


def wait_query(page, x, tol, timeout=30000):
    """Wait until the engine's query (the slider it writes) is within tol of x."""
    page.wait_for_function("([x, tol]) => Math.abs(Bokeh.documents[0].get_model_by_name('query_slider').value - x)"
                           " <= tol", arg=[x, tol], timeout=timeout)


def wait_prop(page, name, prop, js_test, timeout=30000):
    """Wait until js_test(value) holds for a model's property (js_test is a JS arrow function's source)."""
    page.wait_for_function(f"([n, p]) => ({js_test})(Bokeh.documents[0].get_model_by_name(n)[p])",
                           arg=[name, prop], timeout=timeout)


def open_more_controls(page, timeout=30000):
    """Open the regression section's "More controls" disclosure if it is closed (a real click on its
    button, as a student opens it), and wait until its column shows.  ``page`` may be a frame."""
    if model_prop(page, "more_controls", "visible") is not True:
        button = model_element(page, "more_controls_toggle", "button")
        button.scroll_into_view_if_needed()
        button.click()
    wait_prop(page, "more_controls", "visible", "(v) => v === true", timeout=timeout)
    page.wait_for_function(f"""() => {{ const v = ({FIND_VIEW_JS})('more_controls');
      return !!v && v.el.getBoundingClientRect().height > 0; }}""", timeout=timeout)


NEXT_FRAME_JS = "() => new Promise((done) => requestAnimationFrame(() => done(true)))"


def drag(page, g, y, xs, steps=6):
    """A real mouse drag through the data x positions xs; returns the final pixel x.  The press, each stretch of
    moves and the release each wait for the page's next frame, as a hand's do: on a busy machine the browser
    would otherwise deliver them in one batch, which a gesture recogniser may take for a tap.  (A press that rests
    past BokehJS's 300 ms before the first move is a press, and the page follows the moves after it as a drag's:
    tests/browser/test_bokeh_press.py.)"""
    px = data_to_page_x(g, xs[0])
    page.mouse.move(px, y)
    page.mouse.down()
    page.evaluate(NEXT_FRAME_JS)
    for x in xs[1:]:
        px = data_to_page_x(g, x)
        page.mouse.move(px, y, steps=steps)
        page.evaluate(NEXT_FRAME_JS)
    page.mouse.up()
    return px


# ---- what the page shows against what the core computes -------------------------------------------

def page_state(page):
    """The regression view's state as its widgets and data source hold it."""
    s = page.evaluate("""() => { const d = Bokeh.documents[0], m = (n) => d.get_model_by_name(n);
      const ds = m('dataset');
      return { query: m('query_slider').value, logh: m('bandwidth_slider').value,
               logt: m('temperature_slider').value, kernel: m('kernel_select').value,
               key_norm: m('keynorm_slider').value, dataset: m('dataset_select').value,
               x: Array.from(ds.data.x), y: Array.from(ds.data.y), meta: ds.tags[0] || '{}' }; }""")
    s["bandwidth"] = 10 ** s.pop("logh")
    s["temperature"] = 10 ** s.pop("logt")
    return s


def core_heaviest(state):
    """app.regression.text.heaviest_sample for a page_state(): the heaviest sample under the core's weights."""
    import numpy as np

    import attention
    from app.regression import text

    x, y = np.asarray(state["x"]), np.asarray(state["y"])
    ks = attention.key_norm_tilt(x, state["key_norm"]) if state["kernel"] == "dot" and state["key_norm"] else None
    w = attention.weights(state["query"], x, kernel=state["kernel"], bandwidth=state["bandwidth"],
                          temperature=state["temperature"], key_scale=ks)
    return text.heaviest_sample(state["query"], x, y, np.asarray(w).reshape(-1))


def core_curve_facts(state):
    """app.regression.text.curve_facts for a page_state(): along the prediction curve's grid (the engine's)."""
    import numpy as np

    import attention
    from app.regression import text
    from attention.regression import GRID_N
    from attention.datasets import X_RANGE

    x = np.asarray(state["x"])
    grid = np.linspace(X_RANGE[0], X_RANGE[1], GRID_N)
    ks = attention.key_norm_tilt(x, state["key_norm"]) if state["kernel"] == "dot" and state["key_norm"] else None
    W = attention.weights(grid, x, kernel=state["kernel"], bandwidth=state["bandwidth"],
                          temperature=state["temperature"], key_scale=ks)
    return text.curve_facts(grid, x, W, np.asarray(state["y"]))


def core_readout(state):
    """attention.readout for a page_state(), with the dataset's true function looked up by name."""
    import json

    import numpy as np

    import attention

    fn = json.loads(state["meta"]).get("function")
    x, y = np.asarray(state["x"]), np.asarray(state["y"])
    ks = attention.key_norm_tilt(x, state["key_norm"]) if state["kernel"] == "dot" and state["key_norm"] else None
    return attention.readout(state["query"], x, y, kernel=state["kernel"], bandwidth=state["bandwidth"],
                             temperature=state["temperature"], key_scale=ks,
                             true_function=attention.FUNCTIONS[fn][0] if fn else None)


def readout_rows(page):
    """The readouts table as {label: value text} (the page prints negatives with U+2212)."""
    import html
    import re

    rows = re.findall(r'<th scope="row">(.*?)</th><td>(.*?)</td>', readout_text(page))
    return {html.unescape(k): html.unescape(v) for k, v in rows}


def expected_rows(r):
    """The readouts table the page should print for the core's Readout ``r`` (Python's formatting)."""
    from app.ui.text import _signed

    err = None if r.true_value is None else r.prediction - r.true_value
    return {"max weight": f"{r.max_weight:.3f}", "entropy": f"{r.entropy_bits:.2f} bits",
            "effective points": f"{r.effective_points:.1f}", "prediction": _signed(r.prediction, 2),
            "true f(x)": "unknown" if r.true_value is None else _signed(r.true_value, 2),
            "error": "\u2013" if err is None else _signed(err, 2)}


def shown_paragraphs(page, name):
    """The texts of the <p> paragraphs of a named Div, unescaped."""
    import html
    import re

    wait_texts(page)
    return [html.unescape(t) for t in re.findall(r"<p[^>]*>(.*?)</p>", model_prop(page, name, "text"), re.S)]


def check_against_core(page):
    """Readouts, caption and limit notices equal what the core and app/regression/text.py give for the page's state."""
    from app.regression import text

    wait_texts(page)   # the slider the state is read from is written with the texts
    state = page_state(page)
    r = core_readout(state)
    assert readout_rows(page) == expected_rows(r), state
    tilt = state["key_norm"] if state["kernel"] == "dot" else 0.0
    cap = text.caption(r, kernel=state["kernel"], bandwidth=state["bandwidth"], temperature=state["temperature"],
                       key_norm=tilt)
    assert shown_paragraphs(page, "caption") == [cap]
    assert shown_paragraphs(page, "limits") == text.limit_notices(r, core_heaviest(state), core_curve_facts(state),
                                                                   tilt)
    return state, r


# ---- every screen (tests/browser/test_screens.py) -------------------------------------------------

# Every view on the page: Bokeh.index holds the roots, each layout view lists its children in child_views
# and each plot its renderers (title, axes, legends) in renderer_views.
ALL_VIEWS_JS = """() => {
  const out = [], seen = new Set();
  const visit = (v) => {
    if (!v || seen.has(v)) return;
    seen.add(v); out.push(v);
    for (const c of (v.child_views || [])) visit(c);
    if (v.renderer_views) for (const c of v.renderer_views.values()) visit(c);
  };
  for (const v of Object.values(Bokeh.index)) if (v && v.model) visit(v);
  return out;
}"""

# Resolves after n animation frames (how the tests wait for a repaint without a fixed time).
FRAMES_JS = "(n) => new Promise((done) => { const step = (k) => k <= 0 ? done(true) :" \
            " requestAnimationFrame(() => step(k - 1)); step(n); })"


def wait_frames(page, n=2):
    """Wait until the browser has painted ``n`` more frames."""
    page.evaluate(FRAMES_JS, n)


def scroll_through(page, stable_frames=10, timeout_ms=30000):
    """Scroll the whole page top to bottom (so every lazily laid-out part is drawn), back to the top,
    and wait until the layout stops changing: document size and every root's box equal for
    ``stable_frames`` frames running.  Returns the number of frames it waited."""
    return page.evaluate("""async ([stable, timeout]) => {
      const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
      const t0 = performance.now();
      for (let y = 0; y < document.documentElement.scrollHeight; y += Math.max(200, innerHeight * 0.7)) {
        window.scrollTo(0, y); await frame(); await frame();
      }
      window.scrollTo(0, document.documentElement.scrollHeight); await frame(); await frame();
      window.scrollTo(0, 0);
      const sig = () => { const d = document.documentElement;
        return [d.scrollWidth, d.scrollHeight, ...Object.values(Bokeh.index).filter((v) => v && v.el).map((v) => {
          const r = v.el.getBoundingClientRect(); return `${r.width}x${r.height}`; })].join(','); };
      let last = sig(), same = 0, frames = 0;
      while (same < stable) {
        await frame(); frames++;
        const s = sig();
        if (s === last) same++; else { same = 0; last = s; }
        if (performance.now() - t0 > timeout) throw new Error('layout still changing after ' + timeout + ' ms: ' + s);
      }
      return frames;
    }""", [stable_frames, timeout_ms])


def touch_gesture(cdp, points):
    """A one-finger touch through viewport points [(x, y), ...] (CDP Input.dispatchTouchEvent)."""
    (x0, y0), rest = points[0], points[1:]
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0, "id": 1}]})
    for x, y in rest:
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y, "id": 1}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


# Where the keyboard's focus is: the name of the model whose view holds the deepest focused element (through the
# shadow roots BokehJS draws into), and what that element is: "host" (the view's own element), a slider's
# "handle", or its tag name.  null when nothing of a model has the focus.
FOCUSED_JS = """() => { let e = document.activeElement;
  while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
  if (!e || e === document.body) return null;
  const doc = Bokeh.documents[0];
  for (const m of doc.all_models) {
    if (!m.name) continue;
    const v = Bokeh.index.find_one(m);
    if (!v || !v.el) continue;
    if (v.el === e) return [m.name, 'host'];
    if (v.shadow_el && v.shadow_el.contains(e))
      return [m.name, e.classList.contains('noUi-handle') ? 'handle' : e.tagName.toLowerCase()];
  }
  return ['?', e.tagName.toLowerCase()]; }"""

# What the page's live region (app/ui/common.js say) says now.
SAID_JS = "() => { const el = document.getElementById('attn-say'); return el ? el.textContent : null; }"


WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


def axe_violations(page) -> list:
    """axe-core (shipped inside axe-playwright-python: nothing fetched) with the WCAG 2.0, 2.1 and 2.2 A and AA
    rules on the page as it is: (impact, rule, nodes, help, the first nodes' HTML) for each violation."""
    from axe_playwright_python.sync_playwright import Axe

    result = Axe().run(page, options={"runOnly": {"type": "tag", "values": WCAG_TAGS}})
    return [(v["impact"], v["id"], len(v["nodes"]), v["help"],
             [" ".join(n.get("html", "").split())[:100] for n in v["nodes"][:3]]) for v in result.response["violations"]]
