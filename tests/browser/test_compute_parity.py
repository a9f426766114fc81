"""What the page computes in the browser against the numpy core: the seeded generator (attention/generator.js),
training the bandwidth (attention/train.js) and running it in a Web Worker (app/ui/worker.js).

The JS files are loaded into a blank Chromium page in the order the engines join them (attention/mirror.js,
ui/common.js, then these), and each batch of cases is evaluated by one ``page.evaluate`` call.

* Generator: 50 settings (every function, n from 2 to 2000, noise 0 to 2, seeds 0 and 2^31 - 1 among them):
  x equal bit for bit, y within 1e-12, the description equal to Python's character for character.
* Training: the paths of ``attention.train_bandwidth`` (h, loss, slope within 1e-6 relative; status and message
  equal) and the columns of ``app.learning.view.bandwidth_trajectory_for`` on 30 datasets (the shipped ones and
  generated ones up to n = 2000) at every learning-rate preset.
* The worker: the same columns from inside ``AttnWorker`` on a file:// page and on an http page served with
  the Content-Security-Policy ``default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:``; a newer run
  replaces an older one; a worker that cannot start or fails rejects with one plain sentence.
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
from app.state import BANDWIDTH_LR_PRESETS
from app.ui.engine import LIBRARY_FILES

from tests.browser.pageutil import free_port

PAGE_FILES = ("kernels.js", "mirror.js", "format.js", "common.js", "generator.js", "train.js", "worker.js")
WORKER_FILES = ("kernels.js", "mirror.js", "format.js", "common.js", "train.js")          # what a worker needs for AttnTrain
CSP = "default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:"
REL = 1e-6


def _source(name: str) -> str:
    return LIBRARY_FILES[name].read_text(encoding="utf-8")


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
    sources = json.dumps([_source(n) for n in WORKER_FILES]).replace("</", "<\\/")
    return "\n".join(_source(n) for n in PAGE_FILES) + f"\nconst SOURCES = {sources};\n{HARNESS}"


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


# ---- the generator -------------------------------------------------------------------------------------

def _generator_settings():
    """50 settings: every function, n from 2 to 2000 (both ends included), noise 0 to 2, seeds from 0 to
    2^31 - 1 (the page's range) and the generator's largest, 2^32 - 1."""
    rng = np.random.default_rng(2026)
    fns = sorted(attention.FUNCTIONS)
    ns = [2, 2000, 3, 24, 400, 1999] + [int(v) for v in np.round(10 ** rng.uniform(math.log10(2), 3.3, 44))]
    noises = [0.0, 2.0, 0.3, 1.0, 0.05, 1.2345678] + [float(v) for v in rng.uniform(0, 2, 44)]
    seeds = [0, 2 ** 31 - 1, attention.datasets.SEED_MAX, 1, 68545, 7] + [int(v) for v in
                                                                           rng.integers(0, 2 ** 31, 44)]
    return [{"fn": fns[i % len(fns)], "n": min(ns[i], 2000), "noise": noises[i], "seed": seeds[i]}
            for i in range(50)]


def test_generated_samples_and_descriptions_match_the_core(js):
    cases = _generator_settings()
    assert {c["fn"] for c in cases} == set(attention.FUNCTIONS) and {2, 2000} <= {c["n"] for c in cases}
    got = js("datasets", cases)
    for c, g in zip(cases, got):
        d = attention.make_dataset(c["fn"], c["n"], c["noise"], c["seed"])
        assert g["x"] == d.x.tolist(), c                                   # only exact arithmetic: bit for bit
        assert np.max(np.abs(np.asarray(g["y"]) - d.y)) <= 1e-12, c
        assert g["description"] == d.description
        assert (g["function"], g["noise"]) == (d.function, d.noise)


def test_the_random_stream_is_the_cores_bit_for_bit(js):
    cases = [{"seed": s, "count": 500} for s in (0, 1, 2 ** 31 - 1, attention.datasets.SEED_MAX, 123456789)]
    for c, u in zip(cases, js("uniforms", cases)):
        assert u == attention.datasets._uniforms(c["seed"], c["count"]).tolist()


def test_the_generator_refuses_what_the_core_refuses(js):
    bad = [{"fn": "cosine", "n": 10, "noise": 0.3, "seed": 0}, {"fn": "wave", "n": 2001, "noise": 0.3, "seed": 0},
           {"fn": "wave", "n": 1, "noise": 0.3, "seed": 0}, {"fn": "wave", "n": 2.5, "noise": 0.3, "seed": 0},
           {"fn": "wave", "n": 10, "noise": -0.1, "seed": 0}, {"fn": "wave", "n": 10, "noise": 11, "seed": 0},
           {"fn": "wave", "n": 10, "noise": 0.3, "seed": -1}, {"fn": "wave", "n": 10, "noise": 0.3, "seed": 2 ** 32}]
    for c, message in zip(bad, js("badDatasets", bad)):
        with pytest.raises(ValueError) as err:
            attention.make_dataset(c["fn"], c["n"], c["noise"], c["seed"])
        assert message == str(err.value), c


# ---- training ------------------------------------------------------------------------------------------

def _training_datasets():
    """30 datasets with the presets each is trained at: the shipped ones and generated ones up to n = 300 at
    every preset, generated ones from n = 400 to 2000 at two presets each (every preset among them)."""
    presets = list(BANDWIDTH_LR_PRESETS)
    out = [(name, attention.load_dataset(name), presets) for name in attention.list_datasets()]
    fns = sorted(attention.FUNCTIONS)
    small = [2, 3, 5, 8, 12, 16, 24, 30, 40, 50, 60, 90, 120, 160, 200, 250, 275, 300, 150, 80]
    large = [2000, 1500, 1000, 700, 500, 400]
    for i, n in enumerate(small + large):
        d = attention.make_dataset(fns[i % len(fns)], n, [0.0, 0.1, 0.3, 1.0, 2.0][i % 5], 1000 + i)
        k = i - len(small)
        out.append((d.name, d, presets if n <= 300 else [presets[k % 6], presets[(k + 3) % 6]]))
    return out


def _assert_close(js_values, py_values, what, floor=0.0):
    """Within REL relative, or within ``floor`` (absolute) where the value is smaller than that."""
    a, b = np.asarray(js_values, dtype=float), np.asarray(py_values, dtype=float)
    assert a.shape == b.shape, what
    err = np.abs(a - b)
    assert np.all(err <= np.maximum(REL * np.abs(b), floor)), (what, np.max(err / np.maximum(np.abs(b), 1e-300)))


def _assert_path(got, want, what, keys=("h", "loss", "grad"), xy=None, temperature=1.0):
    """Status and message equal; h and loss within REL; the slope within REL, or within 1e-12 of the loss once
    it is flatter than that (a converged path: the slope is rounding noise of about 1e-17 there).

    With ``xy`` (the data), the slope is the core's at the browser's own h at each step: on a path that swings
    (a large rate, a step function) h differs from the core's by up to REL after many steps, and the slope,
    steep in h there, by more; the h path is held to the core above, and the slope function here."""
    assert got["status"] == want["status"], what
    assert got["message"] == want["message"], what
    for key in keys:
        floor = 1e-12 * np.asarray(want["loss"]) if key == "grad" else 0.0
        target = want[key]
        if key == "grad" and xy is not None:
            target = [attention.loo_loss_and_grad(*xy, math.log(h), temperature=temperature)[1] for h in got["h"]]
        _assert_close(got[key], target, (what, key), floor)


def _assert_columns(got, want, what, xy=None):
    _assert_path(got, want, what, xy=xy)


def _column_cases(datasets):
    return [{"x": d.x.tolist(), "y": d.y.tolist(), "lr": lr, "h0": lv.H0, "steps": lv.STEPS,
             "presets": list(BANDWIDTH_LR_PRESETS), "name": name}
            for name, d, presets in datasets for lr in presets]


def test_training_columns_match_the_core_on_30_datasets_at_every_preset(js):
    data = _training_datasets()
    assert len(data) == 30 and max(d.n for _, d, _ in data) == 2000
    assert {lr for _, d, presets in data if d.n > 300 for lr in presets} == set(BANDWIDTH_LR_PRESETS)
    statuses = set()
    for k in range(0, len(data), 5):       # 5 datasets per batch
        cases = _column_cases(data[k:k + 5])
        for c, got in zip(cases, js("columns", cases)):
            want = lv.bandwidth_trajectory_for(np.asarray(c["x"]), np.asarray(c["y"]), c["lr"])
            _assert_columns(got, want, (c["name"], c["lr"]), xy=(np.asarray(c["x"]), np.asarray(c["y"])))
            statuses.add(want["status"][-1])
    assert statuses == {"ok", "diverged"}                  # refused steps are among the cases


def test_the_lowest_leave_one_out_error_over_the_tours_grid_is_the_cores(js):
    """AttnTrain.lowestLoo (the tour's "near the best h", windowed sums) against the full n x n sums of
    ``attention.loo_error`` over the same grid (app/tour/model.py LOO_GRID), within 1e-9 relative: the shipped
    datasets, generated ones up to n = 600, and one with repeated x."""
    from app.tour.model import LOO_GRID

    grid = np.geomspace(*LOO_GRID[:2], LOO_GRID[2])
    data = [(name, attention.load_dataset(name)) for name in attention.list_datasets()]
    data += [(f"{fn} {n}", attention.make_dataset(fn, n, 0.3, 7 + n)) for fn, n in
             (("step", 2), ("wave", 40), ("bump", 300), ("sine", 600))]
    cases = [{"x": d.x.tolist(), "y": d.y.tolist(), "grid": list(LOO_GRID)} for _, d in data]
    cases.append({"x": [0.0, 0.0, 1.0, 1.0, 2.5, 2.5, 4.0], "y": [1.0, 2.0, 0.5, 0.25, 3.0, 3.5, -1.0],
                  "grid": list(LOO_GRID)})
    for c, got in zip(cases, js("lowestLoo", cases)):
        want = float(attention.loo_error(np.asarray(c["x"]), np.asarray(c["y"]), bandwidths=grid).min())
        assert math.isclose(got, want, rel_tol=1e-9), (len(c["x"]), got, want)


def test_the_trainers_exponential_is_within_four_ulps_of_the_exact_one(js):
    """train.js computes exp(-s) over a window's scores (0 <= s <= WINDOW_SCORE) from a table and a polynomial."""
    rng = np.random.default_rng(5)
    s = np.concatenate([rng.uniform(0, attention.learn.WINDOW_SCORE, 20000), np.arange(0, 2359) / 64,
                        np.arange(1, 2359) / 64 - 2.0 ** -40, [0.0, attention.learn.WINDOW_SCORE]])
    got = np.asarray(js("exp", s.tolist()))
    exact = np.exp(-s.astype(np.longdouble))
    assert np.max(np.abs((got - exact) / exact)) <= 4e-16


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
        _assert_path(got, tr, o, keys=("log_h", "h", "loss", "grad"))
        assert (got["learning_rate"], got["temperature"]) == (tr["learning_rate"], tr["temperature"])
        messages.append(tr["message"][-1])
    assert any("would become" in m for m in messages) and any("loss would jump" in m for m in messages)


# ---- the worker ----------------------------------------------------------------------------------------

def _worker_cases():
    d = attention.make_dataset("wave", 2000, 0.3, 0)
    small = attention.load_dataset()
    return _column_cases([("wave 2000", d, ["2"]), ("default", small, ["2", "300"])])


@pytest.mark.parametrize("where", ["file_page", "csp_page"])
def test_the_worker_returns_the_cores_columns(request, where):
    run = request.getfixturevalue(where)
    cases = _worker_cases()
    for c, got in zip(cases, run("inWorker", cases)):
        assert got["ok"], got
        want = lv.bandwidth_trajectory_for(np.asarray(c["x"]), np.asarray(c["y"]), c["lr"])
        _assert_columns(got["value"], want, (where, c["name"], c["lr"]))
    for c, got in zip(cases[1:], run("here", cases[1:])):          # the main thread's run, the same columns
        assert got["ok"], got
        _assert_columns(got["value"], lv.bandwidth_trajectory_for(np.asarray(c["x"]), np.asarray(c["y"]), c["lr"]),
                        (where, "here", c["lr"]))


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
        _assert_columns(r[name]["value"], want, name)


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
    _assert_columns(r["after"]["value"], lv.bandwidth_trajectory_for(d.x, d.y, "2"), "after")


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
        cases = _column_cases([("default", d, ["2"])])
        [got] = run("inWorker", cases)
        assert got["ok"] is False and got["reason"] == "unavailable"
        assert got["message"] == page.evaluate("AttnWorker.MESSAGES.unavailable")
        [here] = run("here", cases)
        _assert_columns(here["value"], lv.bandwidth_trajectory_for(d.x, d.y, "2"), "here")
    finally:
        ctx.close()
        httpd.shutdown()
