"""What the page computes in the browser against the numpy core: training the bandwidth (attention/train.js) in
Chromium and in a Web Worker (app/ui/worker.js).  The seeded generator (attention/generator.js), the lowest
leave-one-out error and the trainer's exponential are pure arithmetic, held to the core in tests/js (an embedded
V8, the same cases).

The JS files are loaded into a blank Chromium page in the order the engines join them (attention/mirror.js,
ui/common.js, then these), and each batch of cases is evaluated by one ``page.evaluate`` call.

* Training: the paths of ``attention.train_bandwidth`` (h, loss, slope within 1e-6 relative; status and message
  equal) and the columns of ``app.learning.view.bandwidth_trajectory_for`` on 30 datasets (the shipped ones and
  generated ones up to n = 2000) at every learning-rate preset.
* The worker: the same columns from inside ``AttnWorker`` on a file:// page and on an http page served with
  the Content-Security-Policy ``default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:``; a newer run
  replaces an older one; a worker that cannot start or fails rejects with one plain sentence.

The generator's settings, the datasets trained and how a path is compared are tests/parity/compute.py's, which
tests/js runs too.
"""

from __future__ import annotations

import http.server
import json
import math
import threading
from functools import partial

import numpy as np
import pytest

import attention
from app.learning import view as lv
from app.learning.state import BANDWIDTH_LR_PRESETS

from tests.browser.pageutil import free_port
from tests.parity import compute as pc
from tests.parity import library_js
from tests.parity.compute import assert_columns, assert_path, column_cases, columns_want

PAGE_FILES = ("numbers.js", "kernels.js", "mirror.js", "format.js", "common.js", "generator.js", "train.js", "worker.js")
WORKER_FILES = ("numbers.js", "kernels.js", "mirror.js", "format.js", "common.js", "train.js")   # what a worker needs for AttnTrain
CSP = "default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:"


HARNESS = r"""
window.compute = (function (G, T, W) {
  const arr = (a) => Array.from(a);
  const columns = (c) => ({ x: c.x, y: c.y, lr: c.lr, h0: c.h0, steps: c.steps, presets: c.presets });
  const settle = (p) => p.then((v) => ({ ok: true, value: v }),
                               (e) => ({ ok: false, message: e.message, reason: e.reason, cancelled: e.cancelled,
                                         isError: e instanceof Error }));
  return {
    datasets: (cases) => cases.map((c) => G.makeDataset(c.fn, c.n, c.noise, c.seed)),
    uniforms: (cases) => cases.map((c) => arr(G.uniforms(c.seed, c.count))),
    badDatasets: (cases) => cases.map((c) => { try { G.makeDataset(c.fn, c.n, c.noise, c.seed); return null; }
                                               catch (e) { return e.message; } }),
    train: (cases) => cases.map((c) => T.trainBandwidth(c.x, c.y, c.opt)),
    exp: (ss) => ss.map((v) => T.expNeg(v)),
    lowestLoo: (cases) => cases.map((c) => T.lowestLoo(c)),
    columns: (cases) => cases.map((c) => T.trainColumns(columns(c))),
    inWorker: (cases) => Promise.all(cases.map((c) =>
      settle(W.run(SOURCES, "AttnTrain.trainColumns", columns(c)).promise))),
    here: (cases) => Promise.all(cases.map((c) => settle(W.runHere(T.trainColumns, columns(c)).promise))),
    settle,
  };
})(AttnGenerator, AttnTrain, AttnWorker);
"""


def _page_script() -> str:
    sources = json.dumps([library_js([n]) for n in WORKER_FILES]).replace("</", "<\\/")
    return library_js(PAGE_FILES) + f"\nconst SOURCES = {sources};\n{HARNESS}"


def _page_html() -> str:
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>compute</title>"
            f"<link rel='icon' href='data:,'></head><body><script>\n{_page_script()}\n</script></body></html>")


def _open(page, errors):
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.wait_for_function("() => typeof window.compute === 'object'")
    page.set_default_timeout(120000)

    def run(name, cases):
        return page.evaluate("([n, cs]) => window.compute[n](cs)", [name, cases])

    run.page = page
    return run


@pytest.fixture(scope="module")
def js(browser):
    """A blank page holding the JS files; js(name, cases) runs one batch."""
    ctx = browser.new_context()
    page = ctx.new_page()
    errors = []
    page.set_content("<html><body></body></html>")
    page.add_script_tag(content=_page_script())
    run = _open(page, errors)
    yield run
    assert errors == []
    ctx.close()


@pytest.fixture(scope="module")
def file_page(browser, tmp_path_factory):
    """The same files, inline in an HTML file opened from file:// (as the offline page is)."""
    path = tmp_path_factory.mktemp("compute") / "compute.html"
    path.write_text(_page_html(), encoding="utf-8")
    ctx = browser.new_context()
    page = ctx.new_page()
    errors = []
    page.goto(path.as_uri())
    yield _open(page, errors)
    assert errors == []
    ctx.close()


class _CSPHandler(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        self.send_header("Content-Security-Policy", CSP)
        super().end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def csp_page(browser, tmp_path_factory):
    """The same HTML served over http by a small server thread that sends the Content-Security-Policy."""
    root = tmp_path_factory.mktemp("csp")
    (root / "compute.html").write_text(_page_html(), encoding="utf-8")
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()),
                                            partial(_CSPHandler, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    ctx = browser.new_context()
    page = ctx.new_page()
    errors = []
    resp = page.goto(f"http://127.0.0.1:{httpd.server_address[1]}/compute.html")
    assert resp.headers["content-security-policy"] == CSP
    yield _open(page, errors)
    assert errors == []
    ctx.close()
    httpd.shutdown()


# ---- training ------------------------------------------------------------------------------------------

def test_training_columns_match_the_core_on_30_datasets_at_every_preset(js):
    data = pc.training_datasets()
    assert len(data) == 30 and max(d.n for _, d, _ in data) == 2000
    assert {lr for _, d, presets in data if d.n > 300 for lr in presets} == set(BANDWIDTH_LR_PRESETS)
    statuses = set()
    for k in range(0, len(data), 5):       # 5 datasets per batch
        cases = column_cases(data[k:k + 5])
        statuses |= pc.check_columns(js, cases, [columns_want(c) for c in cases])
    assert statuses == {"ok", "diverged"}                  # refused steps are among the cases


def test_training_paths_and_the_cores_refusals_match(js):
    """The raw path of attention.train_bandwidth, with its own messages, for rates the page does not offer
    and temperatures other than 1: h running out of its range both ways, the loss blowing up."""
    rng = np.random.default_rng(0)
    x = np.linspace(0, 1, 40)
    blowup = (x, x + 0.05 * rng.standard_normal(40))       # tests/core/test_learn.py's 10x case
    d = attention.load_dataset()
    big = attention.make_dataset("sine", 700, 0.5, 9)
    cases = [(d, dict(h0=0.15, learningRate=1e6, steps=20, temperature=1.0)),
             (d, dict(h0=3.0, learningRate=100.0, steps=50, temperature=1.0)),
             (d, dict(h0=0.4, learningRate=0.7, steps=25, temperature=2.5)),
             (d, dict(h0=9000.0, learningRate=5e5, steps=5, temperature=0.3)),
             (big, dict(h0=0.05, learningRate=3.0, steps=30, temperature=0.5))]
    payload = [{"x": dd.x.tolist(), "y": dd.y.tolist(), "opt": o} for dd, o in cases]
    h0 = 0.02
    _, g = attention.loo_loss_and_grad(*blowup, math.log(h0))
    payload.append({"x": blowup[0].tolist(), "y": blowup[1].tolist(),
                    "opt": dict(h0=h0, learningRate=math.log(100 / h0) / -g, steps=5, temperature=1.0)})
    messages = []
    for c, got in zip(payload, js("train", payload)):
        o = c["opt"]
        tr = attention.train_bandwidth(c["x"], c["y"], h0=o["h0"], learning_rate=o["learningRate"], steps=o["steps"],
                                       temperature=o["temperature"]).as_dict()
        assert got["step"] == tr["step"]
        assert_path(got, tr, o, keys=("log_h", "h", "loss", "grad"))
        assert (got["learning_rate"], got["temperature"]) == (tr["learning_rate"], tr["temperature"])
        messages.append(tr["message"][-1])
    assert any("would become" in m for m in messages) and any("loss would jump" in m for m in messages)


# ---- the worker ----------------------------------------------------------------------------------------

def _worker_cases():
    d = attention.make_dataset("wave", 2000, 0.3, 0)
    small = attention.load_dataset()
    return column_cases([("wave 2000", d, ["2"]), ("default", small, ["2", "300"])])


@pytest.mark.parametrize("where", ["file_page", "csp_page"])
def test_the_worker_returns_the_cores_columns(request, where):
    run = request.getfixturevalue(where)
    cases = _worker_cases()
    for c, got in zip(cases, run("inWorker", cases)):
        assert got["ok"], got
        assert_columns(got["value"], columns_want(c), (where, c["name"], c["lr"]))
    for c, got in zip(cases[1:], run("here", cases[1:])):          # the main thread's run, the same columns
        assert got["ok"], got
        assert_columns(got["value"], columns_want(c), (where, "here", c["lr"]))


SUPERSEDE_JS = """async (payload) => {
  const W = AttnWorker, first = W.run(SOURCES, "AttnTrain.trainColumns", payload, { key: "learn" });
  const second = W.run(SOURCES, "AttnTrain.trainColumns", payload, { key: "learn" });
  const other = W.run(SOURCES, "AttnTrain.trainColumns", payload, { key: "other" });   // another key: untouched
  const third = W.runHere(AttnTrain.trainColumns, payload, { key: "here" });
  const fourth = W.runHere(AttnTrain.trainColumns, payload, { key: "here" });
  const stopped = W.run(SOURCES, "AttnTrain.trainColumns", payload);
  stopped.cancel();
  const s = compute.settle;
  return { first: await s(first.promise), second: await s(second.promise), other: await s(other.promise),
           third: await s(third.promise), fourth: await s(fourth.promise), stopped: await s(stopped.promise) };
}"""


def test_a_newer_run_with_the_same_key_replaces_the_older(file_page):
    d = attention.load_dataset()
    payload = {"x": d.x.tolist(), "y": d.y.tolist(), "lr": "2", "h0": lv.H0, "steps": lv.STEPS,
               "presets": list(BANDWIDTH_LR_PRESETS)}
    r = file_page.page.evaluate(SUPERSEDE_JS, payload)
    want = lv.bandwidth_trajectory_for(d.x, d.y, "2")
    for name in ("first", "third", "stopped"):
        assert r[name]["ok"] is False and r[name]["cancelled"] is True and r[name]["reason"] == "cancelled", name
    for name in ("second", "other", "fourth"):
        assert r[name]["ok"] is True, name
        assert_columns(r[name]["value"], want, name)


FAILURES_JS = """async (payload) => {
  const W = AttnWorker, s = compute.settle, out = {};
  out.syntax = await s(W.run(["const broken = ;"], "AttnTrain.trainColumns", payload).promise);
  out.throwsAtLoad = await s(W.run(["throw new Error('boom at load');"], "AttnTrain.trainColumns", payload).promise);
  out.noEntry = await s(W.run(SOURCES, "AttnTrain.noSuchFunction", payload).promise);
  out.badEntry = await s(W.run(SOURCES, "AttnTrain.trainColumns(1);alert", payload).promise);
  out.entryThrows = await s(W.run(SOURCES, "AttnTrain.trainColumns", Object.assign({}, payload, { h0: 0 })).promise);
  out.hereThrows = await s(W.runHere(AttnTrain.trainColumns, Object.assign({}, payload, { h0: 0 })).promise);
  out.uncopyable = await s(W.run(SOURCES, "AttnTrain.trainColumns", { f: () => 1 }).promise);
  const saved = window.Worker;
  window.Worker = function () { throw new Error("workers are off"); };
  try { out.noWorker = await s(W.run(SOURCES, "AttnTrain.trainColumns", payload).promise); }
  finally { window.Worker = saved; }
  out.after = await s(W.run(SOURCES, "AttnTrain.trainColumns", payload).promise);   // the page keeps working
  out.messages = W.MESSAGES;
  return out;
}"""


def _plain_sentence(text: str) -> bool:
    return (text[:1].isupper() and text.endswith(".") and text.count(". ") == 0 and "Error" not in text
            and "e-" not in text and "\n" not in text)


def test_a_worker_that_cannot_start_or_fails_rejects_with_one_plain_sentence(file_page):
    d = attention.load_dataset()
    payload = {"x": d.x.tolist(), "y": d.y.tolist(), "lr": "2", "h0": lv.H0, "steps": lv.STEPS,
               "presets": list(BANDWIDTH_LR_PRESETS)}
    r = file_page.page.evaluate(FAILURES_JS, payload)
    m = r["messages"]
    assert all(_plain_sentence(v) for v in m.values()), m
    for name in ("syntax", "throwsAtLoad", "noEntry", "badEntry", "uncopyable"):
        assert r[name] == {"ok": False, "message": m["failed"], "reason": "failed", "cancelled": False,
                           "isError": True}, (name, r[name])
    assert r["noWorker"] == {"ok": False, "message": m["unavailable"], "reason": "unavailable", "cancelled": False,
                             "isError": True}
    with pytest.raises(ValueError) as err:                  # the entry's own error: the core's sentence
        attention.train_bandwidth(d.x, d.y, h0=0, steps=lv.STEPS)
    for name in ("entryThrows", "hereThrows"):
        assert r[name]["ok"] is False and r[name]["reason"] == "computation" and r[name]["isError"] is True
        assert r[name]["message"] == str(err.value)
    assert r["after"]["ok"] is True
    assert_columns(r["after"]["value"], lv.bandwidth_trajectory_for(d.x, d.y, "2"), "after")


def test_a_policy_that_forbids_blob_workers_gets_the_plain_sentence(browser, tmp_path):
    """A host whose Content-Security-Policy has no blob: cannot start the worker: the run rejects with
    MESSAGES.unavailable and the same entry still runs on the main thread."""
    (tmp_path / "compute.html").write_text(_page_html(), encoding="utf-8")

    class Strict(_CSPHandler):
        def end_headers(self):
            self.send_header("Content-Security-Policy", "default-src 'self' 'unsafe-inline'")
            http.server.SimpleHTTPRequestHandler.end_headers(self)

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), partial(Strict, directory=str(tmp_path)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        page.goto(f"http://127.0.0.1:{httpd.server_address[1]}/compute.html")
        run = _open(page, [])
        d = attention.load_dataset()
        cases = column_cases([("default", d, ["2"])])
        [got] = run("inWorker", cases)
        assert got["ok"] is False and got["reason"] == "unavailable"
        assert got["message"] == page.evaluate("AttnWorker.MESSAGES.unavailable")
        [here] = run("here", cases)
        assert_columns(here["value"], lv.bandwidth_trajectory_for(d.x, d.y, "2"), "here")
    finally:
        ctx.close()
        httpd.shutdown()
