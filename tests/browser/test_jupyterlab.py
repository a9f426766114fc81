"""The notebook component in a real JupyterLab, in headless Chromium, with no request leaving the machine.

One JupyterLab server for the module: 127.0.0.1, a token set here, no browser launched, a temporary
root dir, its own JUPYTER_* dirs and config, the kernel from this project's Python.  The notebook is the
README's snippet; the test runs it, drags the query in the rendered output, changes a parameter from a
new cell, and shows ``pn.Row(e.param.bandwidth, e)``, whose slider must drive the page.
"""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
import urllib.request

import pytest

import attention
from tests.browser.pageutil import ROOT, free_port

CELLS = [
    "import panel as pn\nfrom app import Explorable\npn.extension()",
    "e = Explorable(query=2.5, bandwidth=0.3)\ne",
]
LOCAL = ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "about:")
TIMEOUT = 120_000  # ms: a kernel importing Panel and a first rendering on a busy 2-core machine


def _need(module):
    if importlib.util.find_spec(module) is not None:
        return
    msg = f"{module} is not installed (pip install -e '.[test]')"
    if os.environ.get("CI") == "true":
        pytest.fail(msg + "; CI must run the JupyterLab test")
    pytest.skip(msg)


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory):
    """(base URL, token, root dir) of a JupyterLab server started for this module."""
    for module in ("jupyterlab", "ipykernel", "nbformat"):
        _need(module)
    import nbformat

    base = tmp_path_factory.mktemp("jupyterlab")
    root, config, settings = base / "root", base / "config", base / "settings"
    for d in (root, config / "labconfig", settings / "@jupyterlab" / "notebook-extension"):
        d.mkdir(parents=True)
    # Nothing asks the internet: no news, no update check, no extension manager (it lists PyPI).
    (config / "jupyter_server_config.json").write_text(json.dumps({
        "LabApp": {"news_url": None, "check_for_updates_class": "jupyterlab.NeverCheckForUpdate",
                   "expose_app_in_browser": True, "extension_manager": "readonly"},
        "ServerApp": {"open_browser": False}}), encoding="utf-8")
    (config / "labconfig" / "page_config.json").write_text(json.dumps({"disabledExtensions": {
        "@jupyterlab/extensionmanager-extension": True, "@jupyterlab/apputils-extension:announcements": True}}),
        encoding="utf-8")
    # Every cell stays in the page (JupyterLab otherwise detaches cells scrolled out of view).
    (settings / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings").write_text(
        json.dumps({"windowingMode": "none"}), encoding="utf-8")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / "explorable.ipynb")

    token, port = secrets.token_hex(16), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "PANEL_", "BOKEH_"))}
    env.update(JUPYTER_CONFIG_DIR=str(config), JUPYTER_DATA_DIR=str(base / "data"),
               JUPYTER_RUNTIME_DIR=str(base / "runtime"), JUPYTERLAB_SETTINGS_DIR=str(settings),
               JUPYTERLAB_WORKSPACES_DIR=str(base / "workspaces"), IPYTHONDIR=str(base / "ipython"),
               JUPYTER_PREFER_ENV_PATH="1", PYTHONPATH=str(ROOT))
    # sys.executable: the server, and so the native "python3" kernel, run on this project's venv
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={root}", "--allow-root"]  # CI runs as root
    log = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"

    def server_log():
        log.flush()
        log.seek(0)
        return log.read()[-4000:]

    deadline = time.time() + 90
    while True:
        if proc.poll() is not None:
            pytest.fail(f"JupyterLab exited early:\n{server_log()}")
        try:
            with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=5) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if time.time() > deadline:
            proc.kill()
            pytest.fail(f"JupyterLab did not answer within 90 s:\n{server_log()}")
        time.sleep(0.3)  # polling a starting server, not waiting for a result
    yield url, token, root, server_log
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)
    log.close()


# The explorable's main-plot views that are on the page now (JupyterLab may draw an output again, and
# Bokeh.index keeps the views of every drawing), newest last; DOC is the newest one's document.
PLOTS = """(() => { const out = [];
  const walk = (v) => { if (v.model && v.model.name === 'main_plot' && v.el.isConnected) out.push(v);
                        for (const c of (v.child_views || [])) walk(c); };
  Object.values((window.Bokeh && Bokeh.index) || {}).forEach(walk); return out; })()"""
DOC = f"(() => {{ const v = {PLOTS}.slice(-1)[0]; return v ? v.model.document : null; }})()"
NB = "jupyterapp.shell.currentWidget"


def _wait_docs(page, count):
    """Wait until ``count`` outputs show the explorable and the newest has drawn its readouts."""
    page.wait_for_function(f"""(n) => {{ const views = {PLOTS};
        const docs = new Set(views.map((v) => v.model.document));
        if (docs.size < n) return false;
        const m = views[views.length - 1].model.document.get_model_by_name('readouts');
        return !!m && m.text.includes('max weight'); }}""", arg=count, timeout=TIMEOUT)


def _prop(page, name, prop):
    return page.evaluate(f"([n, p]) => {DOC}.get_model_by_name(n)[p]", [name, prop])


def _wait_prop(page, name, prop, js_test, timeout=TIMEOUT):
    page.wait_for_function(f"([n, p]) => {{ const d = {DOC}; return !!d && ({js_test})(d.get_model_by_name(n)[p]); }}",
                           arg=[name, prop], timeout=timeout)


def _max_weight(query, bandwidth):
    d = attention.load_dataset()
    return f"{attention.readout(query, d.x, d.y, bandwidth=bandwidth).max_weight:.3f}"


def _run_new_cell(page, code):
    """Add a cell at the end of the notebook, type ``code`` into it and run it; returns the cell's index."""
    return page.evaluate(f"""async (code) => {{
        const nb = {NB}, content = nb.content;
        content.activeCellIndex = content.widgets.length - 1;
        await jupyterapp.commands.execute('notebook:insert-cell-below');
        content.activeCell.model.sharedModel.setSource(code);
        await jupyterapp.commands.execute('notebook:run-cell');
        return content.activeCellIndex; }}""", code)


def _wait_kernel_prints(page, code, needle):
    """Run ``code`` in a new cell until its output holds ``needle``.

    What the page changes reaches the kernel through Panel's comm manager, which debounces and holds
    each message until the kernel acknowledges the last one, so a cell run right after a drag may still
    see the old value. The cell is run again (once its last run has finished) until the kernel has the
    new one, or the timeout says it never arrived."""
    i = _run_new_cell(page, code)
    page.wait_for_function(f"""([i, s]) => {{ const content = {NB}.content, cell = content.widgets[i];
        if (!cell) return false;
        if (cell.node.innerText.includes(s)) return true;
        const running = cell.model.executionCount == null || cell.promptNode.innerText.includes('*');
        if (!running) {{ content.activeCellIndex = i; jupyterapp.commands.execute('notebook:run-cell'); }}
        return false; }}""", arg=[i, needle], polling=1000, timeout=TIMEOUT)


def _drag_query(page, x0, x1):
    """A real mouse drag on the newest output's main plot, from data x0 to x1."""
    # the plot's frame in the viewport, once it has stopped moving (the output lays itself out as it draws)
    g = page.wait_for_function(f"""() => {{ const view = {PLOTS}.slice(-1)[0];
        if (!view) return null;
        const plot = view.model, r0 = view.el.getBoundingClientRect();
        if (r0.top < 0 || r0.bottom > innerHeight) view.el.scrollIntoView({{block: 'center'}});
        const host = view.el.getBoundingClientRect(), bb = view.frame.bbox;
        const g = {{left: host.left + bb.left, top: host.top + bb.top, width: bb.width, height: bb.height,
                   x0: plot.x_range.start, x1: plot.x_range.end}};
        const key = JSON.stringify(g), same = window.__attnLastFrame === key;
        window.__attnLastFrame = key;
        return same ? g : null; }}""", polling=300, timeout=TIMEOUT).json_value()
    to_px = lambda x: g["left"] + (x - g["x0"]) / (g["x1"] - g["x0"]) * g["width"]
    y = g["top"] + g["height"] / 2
    # at a hand's pace: the page gets a frame between pointer events, as it would from a person
    frame = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
    page.mouse.move(to_px(x0), y)
    page.evaluate(frame)
    page.mouse.down()
    page.evaluate(frame)
    for i in range(1, 11):
        page.mouse.move(to_px(x0 + (x1 - x0) * i / 10), y, steps=2)
        page.evaluate(frame)
    page.mouse.up()


def test_the_readme_notebook_runs_offline_in_jupyterlab(jupyterlab, browser):
    url, token, _root, server_log = jupyterlab
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    outside, errors = [], []
    # the engines report their errors as "attention explorable: ..." (JupyterLab's own noise is not ours)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" and "attention" in m.text else None)

    def only_local(route):
        if route.request.url.startswith(LOCAL):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_local)
    try:
        page.goto(f"{url}/lab/tree/explorable.ipynb?token={token}", timeout=TIMEOUT)
        page.wait_for_function(f"""() => {{ const w = window.jupyterapp && {NB};
            const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
            return !!k && k.status === 'idle'; }}""", timeout=TIMEOUT)
        page.evaluate("() => jupyterapp.commands.execute('notebook:run-all-cells')")

        # the README's two cells: the engine runs in the output and draws the readouts of the deep link's state
        _wait_docs(page, 1)
        assert _max_weight(2.5, 0.3) in _prop(page, "readouts", "text")
        assert len(page.evaluate(f"() => Array.from({DOC}.get_model_by_name('curve').data.pred)")) > 100
        assert _prop(page, "share_button", "visible") is False  # the address here is JupyterLab's

        # a real drag in the rendered output: the readouts follow, and Python learns the query
        page.evaluate("""() => { window.__ev = []; for (const t of ['pointerdown', 'pointerup'])
            document.addEventListener(t, (e) => window.__ev.push([t, e.clientX, e.clientY,
              (e.composedPath()[0].className || '') + ''].join(' ')), true); }""")
        _drag_query(page, 2.5, 4.0)
        try:
            _wait_prop(page, "query_slider", "value", "(v) => Math.abs(v - 4.0) < 0.05", timeout=30000)
        except Exception:
            print("DIAG", page.evaluate(f"""() => ({{ev: window.__ev, docs: Bokeh.documents.length,
                views: {PLOTS}.length, all: Object.keys(Bokeh.index).length,
                rects: {PLOTS}.map((v) => {{ const r = v.el.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; }}),
                span: {DOC}.get_model_by_name('query_span').location}})"""))
            raise
        q = _prop(page, "query_slider", "value")
        assert _max_weight(q, 0.3) in _prop(page, "readouts", "text")
        _wait_kernel_prints(page, "print(f'query is {e.query:.1f}')", "query is 4.0")

        # a parameter set from Python moves the page
        _run_new_cell(page, "e.bandwidth = 1.0")
        _wait_prop(page, "bandwidth_slider", "value", "(v) => Math.abs(v) < 1e-9")
        _wait_prop(page, "readouts", "text", f"(t) => t.includes('{_max_weight(q, 1.0)}')")
        # ... and so does the tour's step: the card moves to it
        _run_new_cell(page, "e.tour = 3")
        _wait_prop(page, "tour_card", "text", "(t) => t.includes('Step 3 of')")

        # a param widget beside the component: a second output, whose slider drives the page
        _run_new_cell(page, "pn.Row(e.param.bandwidth, e)")
        _wait_docs(page, 2)
        assert _max_weight(q, 1.0) in _prop(page, "readouts", "text")  # it starts from the current state
        page.evaluate(f"""() => {{ const s = {DOC}.all_models;
            const slider = Array.from(s).find((m) => m.type === 'Slider' && m.title === 'Bandwidth');
            slider.value = 0.5; }}""")
        _wait_prop(page, "bandwidth_slider", "value", "(v) => Math.abs(v - Math.log10(0.5)) < 1e-9")
        _wait_prop(page, "readouts", "text", f"(t) => t.includes('{_max_weight(q, 0.5)}')")
        _wait_kernel_prints(page, "print(f'bandwidth is {e.bandwidth}')", "bandwidth is 0.5")

        assert outside == [], f"the notebook asked hosts outside this machine: {outside[:5]}"
        # the address is JupyterLab's: after a drag and three changes, none of the state was written into it
        assert not any(k in page.url for k in ("query=", "bandwidth=", "tour=")), page.url
        assert errors == []
        assert _prop(page, "notices", "visible") is False
    except Exception:
        page.screenshot(path=str(_root / "failure.png"), full_page=False)
        print(server_log())
        raise
    finally:
        ctx.close()
