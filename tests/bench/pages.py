"""Chromium machinery the page benchmarks share (bench_open, bench_browser, bench_sentence, bench_learn,
bench_live): the exported page, a minimal Bokeh page to compare with, devices, throttling, a plain static
server, and the in-page probes.

* ``exported_page()``: the offline file (``attention-explorable export``), built once per process and
  removed at exit; the served page (app/delivery/plugin.py) sends the same bytes.
* ``write_minimal_page(path)``: one figure, two sliders and one Div named "readouts" (holding "max weight"),
  BokehJS inline (``bokeh.embed.file_html`` with ``INLINE``): what any Bokeh page costs to open.
* ``visit(...)``: one visit in a fresh browser context (cold caches, as a student's first visit), optionally a
  phone with its CPU slowed (CDP ``Emulation.setCPUThrottlingRate``) and a slow network (CDP
  ``Network.emulateNetworkConditions``).  ``OPEN_PROBE_JS``, run before the page's own scripts, checks at every
  animation frame whether the readouts are on screen (the view of the Div named "readouts" is in the document
  and its text holds "max weight": "live page ready"), whether the opening is painted (below) and whether
  every block is drawn (``AttnPage.allDrawn()``; a page without the loader has one block), and keeps the
  ``performance.now()`` of each (ms since the navigation started).  "First paint of the opening" is the first
  frame at which both (1) a figure of the opening is on screen: a poster plot (``svg.attn-poster-plot`` inside
  ``.attn-poster``, in the light DOM, visible, a non-zero box that meets the viewport) or the live main plot
  (the view of the Bokeh model named "main_plot" is in the document), and (2) the readouts' words are: an
  ``.attn-poster`` element holding "max weight", it and the innermost element holding the words visible and
  meeting the viewport, or the live readouts as above.  ``window.__open.opening_by`` says which figure and
  which words it was ("poster" or "live" each).  A page without a poster is opened when its main plot is in the
  document and its readouts show.
* ``visit_chart(...)``: the same visit for a page that is not Bokeh (MLU-Explain's built article, the anchor);
  ``CHART_PROBE_JS`` keeps the first frame at which an ``<svg>`` with more than 20 circle, path or rect
  descendants is in the document and its box meets the viewport ("first chart"), and the first at which one is
  in the document with a box of some area, wherever it is (a chart built below the first screen: on the phone,
  the anchor has no such chart in its first screen).
* ``DragProbe`` (async API): a hand dragging on the main plot, mouse events at the hand's pace, each stamped
  with the time the hand moved (see the class).  Its latency runs from each movement's ``timeStamp`` to the
  main plot's first repaint that shows the query of that movement (or of a later one: a movement the next
  one overtook before a frame is answered by the later one's paint).  A paint of an older query does not count.
* ``interleave(...)``: rounds in which every variant is visited once, in an order that rotates round to round,
  after unmeasured warm-up rounds.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import http.server
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.app.serverutil import ROOT
from tests.browser.pageutil import CHROMIUM, DRAW_ALL_JS, LAUNCH_ARGS, block_outside

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
LAPTOP = {"viewport": {"width": 1366, "height": 768}}
PROJECTOR = {"viewport": {"width": 1920, "height": 1080}}
PHONE_CPU_SLOWDOWN = 4.0

# Chrome DevTools' "Fast 3G" preset (front_end/core/sdk/NetworkManager.ts, also Puppeteer's
# PredefinedNetworkConditions['Fast 3G']): download 1.6 Mbit/s x 0.9, upload 750 kbit/s x 0.9, latency 150 ms x
# 3.75.  The factors 0.9 and 3.75 are Lighthouse's DEVTOOLS_THROUGHPUT_ADJUSTMENT_FACTOR and
# DEVTOOLS_RTT_ADJUSTMENT_FACTOR (lighthouse-core/config/constants.js, its "mobileSlow4G": rttMs 150,
# throughputKbps 1.6 x 1024, cpuSlowdownMultiplier 4), which turn a packet-level RTT and throughput into
# request-level ones.  CDP takes bytes per second.
FAST_3G = {"offline": False, "latency": 150 * 3.75, "downloadThroughput": 1.6 * 1000 * 1000 / 8 * 0.9,
           "uploadThroughput": 750 * 1000 / 8 * 0.9}

OPEN_PROBE_JS = """(() => {
  const out = window.__open = { readouts: null, all: null, opening: null, opening_by: null };
  const views = {};
  // the view of the Bokeh model of that name, in any of the page's documents (kept while it is in the document)
  const viewOf = (name) => {
    const v = views[name];
    if (v && v.el && v.el.isConnected) return v;
    if (!window.Bokeh || !Bokeh.documents || !Bokeh.index) return null;
    for (const d of Bokeh.documents) {
      const m = d.get_model_by_name(name), found = m && Bokeh.index.find_one(m);
      if (found) return (views[name] = found);
    }
    return null;
  };
  const readoutsShown = () => {
    const view = viewOf('readouts');
    if (!view) return false;
    const el = view.markup_el || view.el;
    return !!(el && el.isConnected && el.textContent.includes('max weight'));
  };
  const mainPlotShown = () => { const v = viewOf('main_plot'); return !!(v && v.el && v.el.isConnected); };
  // a box with an area that meets the viewport, of an element neither hidden nor inside a hidden one
  const onScreen = (el) => {
    if (el.checkVisibility && !el.checkVisibility({ visibilityProperty: true })) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
  };
  const posterPlot = () => {
    for (const s of document.querySelectorAll('.attn-poster svg.attn-poster-plot')) if (onScreen(s)) return true;
    return false;
  };
  const posterWords = () => {
    for (const p of document.querySelectorAll('.attn-poster')) {
      if (!p.textContent.includes('max weight')) continue;
      let el = p;                     // down to the innermost element that holds the words whole
      for (let c = el.firstElementChild; c;)
        if (c.textContent.includes('max weight')) { el = c; c = c.firstElementChild; } else c = c.nextElementSibling;
      if (onScreen(p) && onScreen(el)) return true;
    }
    return false;
  };
  const tick = () => {
    try {
      if (out.readouts === null && readoutsShown()) out.readouts = performance.now();
      if (out.opening === null) {
        const figure = posterPlot() ? 'poster' : mainPlotShown() ? 'live' : null;
        const words = figure && (posterWords() ? 'poster' : out.readouts !== null ? 'live' : null);
        if (figure && words) {
          out.opening = performance.now(); out.opening_by = figure + ' plot, ' + words + ' words';
        }
      }
      if (out.readouts !== null && out.all === null) {
        if (!window.AttnPage) out.all = out.readouts;          // a page without the loader: one block
        else if (AttnPage.allDrawn()) out.all = performance.now();
      }
    } catch (e) { /* not loaded yet */ }
    if (out.all === null || out.opening === null) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();"""

# The anchor's first chart: the first frame at which an <svg> with more than 20 circles, paths or rects is in the
# document and its box meets the viewport (``chart``), and the first at which one is in the document with a box
# of some area anywhere on the page (``chart_doc``: a chart built below the first screen).
CHART_PROBE_JS = """(() => {
  const out = window.__open = { chart: null, chart_shapes: null, chart_doc: null, chart_doc_top: null };
  const tick = () => {
    for (const s of document.getElementsByTagName('svg')) {
      const n = s.querySelectorAll('circle, path, rect').length;
      if (n <= 20) continue;
      const r = s.getBoundingClientRect();
      if (!(r.width > 0 && r.height > 0)) continue;
      if (out.chart_doc === null) { out.chart_doc = performance.now(); out.chart_doc_top = r.top; }
      if (r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth) {
        out.chart = performance.now(); out.chart_shapes = n; return;
      }
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();"""

READOUTS_SHOWN_JS = "() => window.__open && window.__open.readouts !== null"
ALL_DRAWN_JS = "() => window.__open && window.__open.all !== null"
OPENING_SHOWN_JS = "() => window.__open && window.__open.opening !== null"
CHART_SHOWN_JS = "() => window.__open && window.__open.chart !== null"
CHART_BUILT_JS = "() => window.__open && window.__open.chart_doc !== null"


def chromium_available() -> bool:
    return Path(CHROMIUM).exists()


# -- the pages ---------------------------------------------------------------------------------------------

_TMP: Path | None = None


def _tmp() -> Path:
    global _TMP
    if _TMP is None:
        _TMP = Path(tempfile.mkdtemp(prefix="explorable-bench-"))
        atexit.register(shutil.rmtree, _TMP, True)
    return _TMP


@functools.lru_cache(maxsize=None)
def exported_page() -> Path:
    """The offline file as ``attention-explorable export`` writes it (once per process)."""
    path = _tmp() / "page" / "index.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "app.delivery.cli", "export", str(path)], cwd=ROOT, check=True,
                   capture_output=True, text=True, timeout=900)
    return path


def minimal_root():
    """The minimal page's one root: a figure (one line), two sliders and a Div named 'readouts' ('max weight')."""
    from bokeh.layouts import column
    from bokeh.models import Div, Slider
    from bokeh.plotting import figure

    fig = figure(height=300, sizing_mode="stretch_width")
    fig.line([0, 1, 2, 3], [1, 3, 2, 4])
    return column(fig, Slider(start=0, end=1, value=0.5, step=0.01, title="a"),
                  Slider(start=0, end=1, value=0.5, step=0.01, title="b"),
                  Div(text="<p>max weight</p>", name="readouts"), sizing_mode="stretch_width")


def write_minimal_page(path: Path) -> Path:
    """The minimal page (``minimal_root``) as ``bokeh.embed.file_html`` writes it with BokehJS inline, plus the
    page's viewport line (a phone lays it out at its own width, as it does the page)."""
    from bokeh.embed import file_html
    from bokeh.resources import INLINE

    from app.ui.theme import VIEWPORT_META

    html = file_html(minimal_root(), INLINE, "minimal Bokeh page").replace("<head>", "<head>\n" + VIEWPORT_META, 1)
    path.write_text(html, encoding="utf-8")
    return path


@functools.lru_cache(maxsize=None)
def minimal_page() -> Path:
    path = _tmp() / "minimal" / "index.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_minimal_page(path)


def minimal_drag_root():
    """The floor for a drag: one Bokeh plot named 'main_plot' whose query marker ('qpred') a CustomJS moves to the
    pointer at every pan event, with nothing else on the page.  It carries empty 'sample_marks' and 'sample_dots'
    renderers so that ``DRAG_PROBE_JS`` reads it as it reads the page's main plot."""
    from bokeh.models import ColumnDataSource, CustomJS, Range1d
    from bokeh.plotting import figure

    fig = figure(width=900, height=400, tools="", name="main_plot", x_range=Range1d(0, 6), y_range=Range1d(0, 1))
    fig.line([0, 2, 4, 6], [0.2, 0.8, 0.3, 0.6])
    fig.scatter("x", "y", source=ColumnDataSource({"x": [], "y": []}, name="sample_marks"))
    fig.multi_line("xs", "ys", source=ColumnDataSource({"xs": [], "ys": []}, name="sample_dots"))
    qpred = ColumnDataSource({"x": [3.0], "y": [0.5]}, name="qpred")
    fig.scatter("x", "y", source=qpred, size=13, fill_color="#D55E00", level="overlay")
    move = CustomJS(args={"src": qpred}, code="src.data = { x: [cb_obj.x], y: [0.5] };")
    for event in ("tap", "panstart", "pan"):
        fig.js_on_event(event, move)
    return fig


@functools.lru_cache(maxsize=None)
def minimal_drag_page() -> Path:
    """``minimal_drag_root`` as ``bokeh.embed.file_html`` writes it, BokehJS inline."""
    from bokeh.embed import file_html
    from bokeh.resources import INLINE

    path = _tmp() / "minimal-drag" / "index.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(file_html(minimal_drag_root(), INLINE, "minimal Bokeh drag"), encoding="utf-8")
    return path


class StaticServer:
    """The files of a folder over plain HTTP on 127.0.0.1, never compressed (Python's http.server, a thread):
    what a host that does not compress sends."""

    def __init__(self, folder: Path):
        handler = functools.partial(_QuietHandler, directory=str(folder))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


# -- one visit -----------------------------------------------------------------------------------------------

def new_page(browser, device: dict, *, cpu_slowdown: float = 1.0, network: dict | None = None, block: bool = False,
             probe: bool | str = True, allow: tuple[str, ...] | None = None):
    """A fresh context and page for ``device``; returns (context, page, cdp, transfers).  ``transfers`` gets the
    bytes each response took on the wire (CDP Network.loadingFinished's encodedDataLength) once ``network`` is
    given (an empty dict: count without throttling).  ``block`` refuses every request but a local file's;
    ``allow`` (address prefixes) every request to an address that starts with none of them.  ``probe``: True
    for ``OPEN_PROBE_JS``, or the script to run before the page's own."""
    ctx = browser.new_context(**device)
    page = ctx.new_page()
    page.set_default_timeout(180000)
    if block:
        block_outside(page)
    if allow is not None:
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(allow) else route.abort())
    if probe:
        page.add_init_script(OPEN_PROBE_JS if probe is True else probe)
    cdp = ctx.new_cdp_session(page)
    if cpu_slowdown != 1.0:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": float(cpu_slowdown)})
    transfers: list[int] = []
    if network is not None:
        cdp.send("Network.enable")
        cdp.on("Network.loadingFinished", lambda e: transfers.append(int(e.get("encodedDataLength", 0))))
        if network:
            cdp.send("Network.emulateNetworkConditions", network)
    return ctx, page, cdp, transfers


def visit(browser, url: str, device: dict, *, cpu_slowdown: float = 1.0, network: dict | None = None,
          block: bool = False, wait_all: bool = False, wait_opening: bool = False,
          timeout_ms: float = 300000) -> dict:
    """Open ``url`` once in a fresh context; ms from the navigation's start to the readouts on screen
    (``readouts_ms``, "live page ready"), with ``wait_opening`` to the first paint of the opening
    (``opening_ms``, and ``opening_by``: which figure and words) and, with ``wait_all``, to every block drawn
    (``all_ms``); the requests the page made and, with ``network``, the bytes they took on the wire."""
    ctx, page, _cdp, transfers = new_page(browser, device, cpu_slowdown=cpu_slowdown, network=network, block=block)
    requests = []
    page.on("request", lambda r: requests.append(r.url) if not r.url.startswith("data:") else None)
    waits = [READOUTS_SHOWN_JS] + ([ALL_DRAWN_JS] if wait_all else []) + ([OPENING_SHOWN_JS] if wait_opening else [])
    try:
        page.goto(url, wait_until="commit", timeout=timeout_ms)
        for js in waits:
            page.wait_for_function(js, polling=100, timeout=timeout_ms)
        got = page.evaluate("() => Object.assign({}, window.__open)")
    finally:
        ctx.close()
    return {"readouts_ms": got["readouts"], "all_ms": got["all"] if wait_all else None,
            "opening_ms": got["opening"] if wait_opening else None,
            "opening_by": got["opening_by"] if wait_opening else None,
            "requests": len(requests), "bytes": sum(transfers)}


def visit_chart(browser, url: str, device: dict, *, allow: tuple[str, ...], cpu_slowdown: float = 1.0,
                network: dict | None = None, grace_ms: float = 2000, timeout_ms: float = 300000) -> dict:
    """Open ``url`` (a page that is not Bokeh, e.g. the anchor) once in a fresh context, every request to an
    address outside ``allow`` refused; ms from the navigation's start to its first chart on screen
    (``CHART_PROBE_JS``): ``chart_ms``, None when no chart met the viewport by ``grace_ms`` after both the load
    event and the first chart built anywhere on the page (``chart_doc_ms``, and ``chart_doc_top``: where that
    chart's top was, px from the viewport's); the requests it made and refused, and the bytes."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    ctx, page, _cdp, transfers = new_page(browser, device, cpu_slowdown=cpu_slowdown, network=network,
                                          probe=CHART_PROBE_JS, allow=allow)
    requests = []
    page.on("request", lambda r: requests.append(r.url) if not r.url.startswith("data:") else None)
    try:
        page.goto(url, wait_until="load", timeout=timeout_ms)
        page.wait_for_function(CHART_BUILT_JS, polling=100, timeout=timeout_ms)
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(CHART_SHOWN_JS, polling=100, timeout=grace_ms)
        got = page.evaluate("() => Object.assign({}, window.__open)")
    finally:
        ctx.close()
    refused = [u for u in requests if not u.startswith(allow)]
    return {"chart_ms": got["chart"], "chart_shapes": got["chart_shapes"], "chart_doc_ms": got["chart_doc"],
            "chart_doc_top": got["chart_doc_top"], "requests": len(requests) - len(refused),
            "refused": len(refused), "bytes": sum(transfers)}


def interleave(rounds: int, variants: dict, *, warmup: int = 1) -> dict:
    """Call every function of ``variants`` once a round, for ``warmup + rounds`` rounds, the order rotating by one
    each round (no variant always goes first); the results of the measured rounds, by variant."""
    keys, out = list(variants), {k: [] for k in variants}
    for r in range(warmup + rounds):
        s = r % len(keys)
        for k in keys[s:] + keys[:s]:
            got = variants[k]()
            if r >= warmup:
                out[k].append(got)
    return out


# -- a real mouse drag on the main plot (async Playwright: the hand does not wait for the page) -----------

DRAG_PROBE_JS = """() => {
  if (window.__drag) return window.__drag.geometry;
  const d = Bokeh.documents[0], fig = d.get_model_by_name('main_plot');
  const view = fig && Bokeh.index.find_one(fig);
  if (!view) return null;
  const renderer = (name) => { const src = d.get_model_by_name(name);
    return Array.from(view.renderer_views.values()).find((r) => r.model.data_source === src); };
  const pred = renderer('qpred'), marks = renderer('sample_marks'), dots = renderer('sample_dots');
  // the samples a paint draws: one marker each, or (many samples) dots in groups, each group drawn twice (its
  // rim, then its colour) with three entries a dot (two ends and a NaN)
  const drawn = () => marks.glyph.data_size +
    (dots.glyph.data_size ? dots.model.data_source.data.xs.reduce((s, xs) => s + xs.length, 0) / 6 : 0);
  // the query as the main plot's glyph holds it (what a paint draws), not as a data source says
  const shown = () => (pred.glyph.x && pred.glyph.x.length ? pred.glyph.x[0] : NaN);
  const host = view.el.getBoundingClientRect(), bb = view.frame.bbox;
  const b = window.__drag = { paints: [], shown: [], points: [], moves: [], want: [], waited: [], downs: [], ups: [],
                              tol: 0.5 * Math.abs(fig.x_range.end - fig.x_range.start) / bb.width,
                              geometry: { left: host.left + bb.left, top: host.top + bb.top, width: bb.width,
                                          height: bb.height } };
  const orig = view.repaint;
  view.repaint = function (...args) {
    const r = orig.apply(this, args);
    b.paints.push(performance.now()); b.shown.push(shown()); b.points.push(drawn());
    return r;
  };
  // every movement of the hand (the coalesced events a pointermove carries), and the query it asks for: the
  // pointer's x through the plot's own scale.  (Chromium lists some movements twice: kept once, the last.)
  addEventListener('pointermove', (e) => {
    if (!e.buttons) return;
    const left = view.el.getBoundingClientRect().left, list = e.getCoalescedEvents ? e.getCoalescedEvents() : [];
    const seen = new Map();
    for (const c of (list.length ? list : [e])) if (c.timeStamp <= e.timeStamp) seen.set(c.timeStamp, c.clientX);
    // waited: how long the movement stood in the queue before the page ran its first handler (a block being
    // built, or any other task, holds it there)
    const now = performance.now();
    for (const [t, x] of seen) { b.moves.push(t); b.want.push(view.frame.x_scale.invert(x - left)); b.waited.push(now - t); }
  }, { capture: true, passive: true });
  addEventListener('pointerdown', (e) => b.downs.push(e.timeStamp), true);
  addEventListener('pointerup', (e) => b.ups.push(e.timeStamp), true);
  return b.geometry;
}"""

# For each movement: ms from its timeStamp to the first paint that shows its query or a later movement's (made
# before that paint); null when no paint did.  Also the movements' times, how long each waited before the page
# handled it, the presses and the releases.
DRAG_RESULT_JS = """() => {
  const b = window.__drag, order = b.moves.map((t, i) => i).sort((i, j) => b.moves[i] - b.moves[j]);
  const moves = order.map((i) => b.moves[i]), want = order.map((i) => b.want[i]), waited = order.map((i) => b.waited[i]), lat = [];
  for (let k = 0; k < moves.length; k++) {
    let got = null;
    for (let i = 0; i < b.paints.length && got === null; i++) {
      if (b.paints[i] < moves[k]) continue;
      for (let j = k; j < moves.length && moves[j] <= b.paints[i]; j++)
        if (Math.abs(b.shown[i] - want[j]) <= b.tol) { got = b.paints[i] - moves[k]; break; }
    }
    lat.push(got);
  }
  return { lat, moves, waited, downs: b.downs, ups: b.ups };
}"""


class DragProbe:
    """A hand on the main plot: left-button mouse events sent with CDP Input.dispatchMouseEvent (what
    Playwright's mouse sends; the page gets trusted pointer events), each stamped with the time the hand moved.

    Playwright's own ``mouse.move`` waits until the page has handled each event, so a hand driven by it stops
    while the page is busy, and the time a move waited in the browser's queue never shows.  Here the moves go
    out at the hand's pace (60 a second) whether or not the page has caught up, with their own timestamps
    (CDP ``timestamp``, seconds since the epoch), so a move that waited behind a block's build says so.
    Strokes sweep to and fro across the middle 60 % of the plot, at the height of its middle.
    """

    RATE_HZ = 60.0

    def __init__(self, page, cdp, geometry: dict):
        self.page, self.cdp, self.k = page, cdp, 0
        self.y = geometry["top"] + geometry["height"] / 2
        self.x0, self.w = geometry["left"] + 0.2 * geometry["width"], 0.6 * geometry["width"]

    @classmethod
    async def attach(cls, page, cdp) -> "DragProbe":
        geometry = await page.evaluate(DRAG_PROBE_JS)
        if geometry is None:
            raise RuntimeError("no main plot to drag on")
        return cls(page, cdp, geometry)

    def _x(self) -> float:
        phase = (self.k * 0.025) % 2.0                  # 40 moves from one side to the other
        return self.x0 + self.w * (phase if phase <= 1 else 2 - phase)

    def _send(self, kind: str, buttons: int):
        return asyncio.ensure_future(self.cdp.send("Input.dispatchMouseEvent", {
            "type": kind, "x": self._x(), "y": self.y, "button": "left", "buttons": buttons,
            "clickCount": 1 if kind != "mouseMoved" else 0, "timestamp": time.time()}))

    async def stroke(self, moves: int, stop: "asyncio.Event | None" = None) -> int:
        """Press, make ``moves`` moves (fewer once ``stop`` is set), release; returns the moves made.  Nothing
        waits for the page until the release has been sent."""
        loop = asyncio.get_running_loop()
        sent = [self._send("mouseMoved", 0), self._send("mousePressed", 1)]
        t0, made = loop.time(), 0
        for _ in range(moves):
            if stop is not None and stop.is_set():
                break
            self.k += 1
            sent.append(self._send("mouseMoved", 1))
            made += 1
            await asyncio.sleep(max(0.0, t0 + made / self.RATE_HZ - loop.time()))   # the hand's pace
        sent.append(self._send("mouseReleased", 0))
        await asyncio.gather(*sent)
        return made

    async def result(self) -> dict:
        return await self.page.evaluate(DRAG_RESULT_JS)


@contextlib.asynccontextmanager
async def async_chromium():
    """A headless Chromium driven by Playwright's async API (for the drags)."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            yield browser
        finally:
            await browser.close()


async def async_page(browser, device: dict, *, block: bool = False):
    """A fresh context and page (async API) with the open probe; returns (context, page, cdp)."""
    ctx = await browser.new_context(**device)
    page = await ctx.new_page()
    page.set_default_timeout(180000)
    if block:
        await page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
            ("file:", "data:", "blob:")) else route.abort())
    await page.add_init_script(OPEN_PROBE_JS)
    return ctx, page, await ctx.new_cdp_session(page)


BLOCK_TIMINGS_JS = "() => AttnPage.timings.map((t) => ({ block: t.block, ms: t.ms, at: t.at }))"
BLOCKS_DRAWN_JS = ("() => [document.querySelectorAll('[data-drawn]').length, "
                   "document.querySelectorAll('[data-block]').length]")


@contextlib.contextmanager
def chromium():
    """A headless Chromium (the browser tests' binary and flags)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            yield browser
        finally:
            browser.close()


__all__ = ["ALL_DRAWN_JS", "BLOCKS_DRAWN_JS", "BLOCK_TIMINGS_JS", "CHART_BUILT_JS", "CHART_PROBE_JS", "CHART_SHOWN_JS",
           "DRAW_ALL_JS", "DragProbe", "FAST_3G", "LAPTOP", "OPENING_SHOWN_JS", "OPEN_PROBE_JS", "PHONE",
           "PHONE_CPU_SLOWDOWN", "PROJECTOR", "READOUTS_SHOWN_JS", "StaticServer", "async_chromium", "async_page",
           "chromium", "chromium_available", "exported_page", "interleave", "minimal_page", "minimal_root", "new_page",
           "visit", "visit_chart", "write_minimal_page"]
