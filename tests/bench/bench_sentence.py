"""Benchmarks of the self-attention section: a new sentence (served) and head / word switches (in the browser).

``run(quick)`` returns rows for tests/bench/__main__.py (section "sentence"):

* Python only: ``SentenceView.set_sentence`` for a fresh 32-token sentence (tokenize, analyze_sentence for
  three heads, JSON, write into the data holder), no browser.
* served page, a new 32-token sentence -> the section redrawn (target p95 <= 150 ms): the text box's value is
  set as Enter sets it; the time runs to the last of the matrix, bar and sense plots repainting with the new
  words, so it holds the websocket round trip, Python's recompute and push, the engine and the paint.
* served page, switching the head / the selected word -> redrawn (target p95 <= 20 ms, all in the browser):
  from setting the widget's value to the plots' repaint, for the default sentence and for 32 tokens.

Times are taken inside the page with ``performance.now()``; a plot counts as drawn when its view has
repainted (BokehJS paints on the next animation frame, so the figures include that wait).  Without Chromium
the browser rows are replaced by one row saying so.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

SECTION = "sentence"
TARGET_NEW_SENTENCE_P95_US = 150_000.0
TARGET_SWITCH_P95_US = 20_000.0
WORDS32 = ("the bank by the river approved the loan and we sat on the bank of the river with cash "
           "in the bank near a boat while she put money to the bank").split()[:32]

INSTRUMENT_JS = """() => {
  if (window.__sb) return window.__sb.names.length;
  const names = ['attention_heatmap', 'row_bars', 'sense_plot'];
  const doc = Bokeh.documents[0], b = window.__sb = { paints: {}, names: [], data: {} };
  for (const n of names) {
    const v = Bokeh.index.find_one(doc.get_model_by_name(n));
    if (!v) continue;
    b.names.push(n); b.paints[n] = [];
    const orig = v.repaint;
    v.repaint = function (...args) { const r = orig.apply(this, args); b.paints[n].push(performance.now()); return r; };
  }
  for (const s of ['sentence_tokens', 'attention_cells', 'row_weights']) {
    const m = doc.get_model_by_name(s); b.data[s] = [];
    m.connect(m.properties.data.change, () => b.data[s].push(performance.now()));
  }
  return b.names.length;
}"""

# Set `prop` of the model `name` to each value in turn; for each, [the time from the write to the last of
# `plots` repainting after the source `source` changed, the time to that change (the engine's work, before
# any paint)].  NaN when nothing was drawn within 5 s.
MEASURE_JS = """async ([name, prop, values, source, plots]) => {
  const doc = Bokeh.documents[0], b = window.__sb, m = doc.get_model_by_name(name);
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const first = (arr, t) => { for (const x of arr) if (x >= t) return x; return null; };
  const out = [];
  for (const v of values) {
    await sleep(60);
    const t0 = performance.now();
    m[prop] = v;
    let done = null, tc = null;
    while (performance.now() - t0 < 5000) {
      tc = first(b.data[source], t0);
      if (tc !== null) {
        const ps = plots.map((p) => first(b.paints[p], tc));
        if (ps.every((x) => x !== null)) { done = Math.max(...ps); break; }
      }
      await sleep(2);
    }
    out.push([done === null ? NaN : done - t0, tc === null ? NaN : tc - t0]);
  }
  return out;
}"""


def _row(name, us, *, target=None, note=""):
    a = np.asarray(us, dtype=float)
    missing = int(np.isnan(a).sum())
    a = a[~np.isnan(a)]
    row = {"section": SECTION, "name": name,
           "median_us": float(np.median(a)) if a.size else None,
           "p95_us": float(np.percentile(a, 95)) if a.size else None, "n_runs": int(a.size)}
    if target is not None:
        row["target"] = f"p95 <= {target / 1000:g} ms"
        row["meets_target"] = bool(a.size and row["p95_us"] <= target and not missing)
    notes = [n for n in (note, f"{missing} never drawn" if missing else "") if n]
    try:
        notes.append("load average %.1f %.1f %.1f" % os.getloadavg())
    except OSError:
        pass
    row["note"] = "; ".join(notes)
    return row


def _python_rows(reps: int) -> list[dict]:
    from app.sentence.view import build_sentence
    from app.state import SentenceState

    view = build_sentence(SentenceState(), mode="served")
    out = np.empty(reps)
    for k in range(reps):
        words = WORDS32[:31] + [f"w{k}x{time.perf_counter_ns() % 100000}"]   # a new sentence: no cache hit
        t0 = time.perf_counter_ns()
        ok = view.set_sentence(" ".join(words))
        out[k] = (time.perf_counter_ns() - t0) / 1e3
        assert ok
    return [_row("set_sentence, 32 tokens (tokenize, analyze 3 heads, JSON, push)", out,
                 note="Python only, no browser: the server's share of a new sentence")]


def _browser_rows(quick: bool) -> list[dict]:
    from tests.browser.pageutil import CHROMIUM, LAUNCH_ARGS

    if not Path(CHROMIUM).exists():
        return [{"section": SECTION, "name": "browser timings", "median_us": None, "p95_us": None, "n_runs": 0,
                 "note": f"skipped: Chromium not found at {CHROMIUM}"}]
    from playwright.sync_api import sync_playwright

    from tests.app.serverutil import FAST_CLEANUP, AppServer

    n_sent, n_switch = (8, 12) if quick else (30, 60)
    rows = []
    with AppServer(extra=FAST_CLEANUP) as srv, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(60000)
            page.goto(srv.url)
            page.wait_for_function("""() => { const d = window.Bokeh && Bokeh.documents[0];
              const m = d && d.get_model_by_name('sentence_readouts'); return !!(m && m.text.includes('max weight')); }""")
            page.evaluate("""() => Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('attention_heatmap'))
              .el.scrollIntoView({ block: 'center' })""")
            assert page.evaluate(INSTRUMENT_JS) == 3
            plots = ["attention_heatmap", "row_bars", "sense_plot"]

            def switches(label):
                heads = [1, 2, 0] * (n_switch // 3 + 1)
                ms = np.array(page.evaluate(MEASURE_JS, ["head_select", "active", heads[:n_switch], "attention_cells",
                                                         plots]))
                rows.append(_row(f"switch head -> matrix, bars and sense plot redrawn ({label})",
                                 ms[:, 0] * 1e3, target=TARGET_SWITCH_P95_US, note="client-side only"))
                rows.append(_row(f"switch head: engine only, before the paint ({label})", ms[:, 1] * 1e3,
                                 note="recompute + new data for every plot; the paint waits for the next frame"))
                n = len(page.evaluate("() => Bokeh.documents[0].get_model_by_name('sentence_tokens').data.tok"))
                toks = [str((3 * k + 1) % n) for k in range(n_switch)]
                toks = [t if t != toks[k - 1] or k == 0 else str((int(t) + 1) % n) for k, t in enumerate(toks)]
                ms = np.array(page.evaluate(MEASURE_JS, ["token_select", "value", toks, "row_weights",
                                                         ["row_bars", "sense_plot"]]))
                rows.append(_row(f"switch selected word -> bars and sense plot redrawn ({label})",
                                 ms[:, 0] * 1e3, target=TARGET_SWITCH_P95_US, note="client-side only"))
                rows.append(_row(f"switch selected word: engine only, before the paint ({label})", ms[:, 1] * 1e3))

            switches("5 tokens, the default sentence")
            # new 32-token sentences through the server; each differs in its last word
            sentences = [" ".join(WORDS32[:31] + [w]) for w in
                         ["bank", "river", "loan", "boat", "cash", "money", "shore", "account"] * (n_sent // 8 + 1)]
            sentences = sentences[:n_sent]
            for k in range(1, len(sentences)):
                if sentences[k] == sentences[k - 1]:
                    sentences[k] = " ".join(WORDS32[:31] + [f"word{k}"])
            ms = np.array(page.evaluate(MEASURE_JS, ["sentence_input", "value", sentences, "sentence_tokens", plots]))
            rows.append(_row("served: new 32-token sentence -> section redrawn (round trip + Python + push + draw)",
                             ms[:, 0] * 1e3, target=TARGET_NEW_SENTENCE_P95_US,
                             note="the text box's value set as Enter sets it"))
            rows.append(_row("served: new 32-token sentence -> new words in the browser (round trip + Python + push)",
                             ms[:, 1] * 1e3, note="before the engine's redraw and the paint"))
            switches("32 tokens")
        finally:
            browser.close()
    return rows


def run(quick: bool) -> list[dict]:
    rows = _python_rows(20 if quick else 200)
    rows += _browser_rows(quick)
    return rows


if __name__ == "__main__":
    import sys

    for r in run(quick="--quick" in sys.argv):
        med = "-" if r["median_us"] is None else f"{r['median_us'] / 1000:8.2f} ms"
        p95 = "-" if r["p95_us"] is None else f"{r['p95_us'] / 1000:8.2f} ms"
        print(f"{r['name']:<96} median {med}  p95 {p95}  {r.get('target', '')} {r.get('meets_target', '')}")
