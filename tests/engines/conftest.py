"""The smoke suite in Firefox ESR and WebKitGTK (tests/engines/drivers.py): one page per engine, which every test
of the suite walks on in turn (tests/engines/test_engines.py).

Every test here is marked ``engines`` (``make test-fast`` leaves them out).  Without an engine, its tests skip with
the reason, except in CI (CI=true), where they fail: .ci/run installs both.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.engines.drivers import FirefoxPage, WebKitPage, Xvfb, missing, recorded_copy

HERE = Path(__file__).resolve().parent
WIDTH, HEIGHT = 1366, 768   # a laptop


def pytest_collection_modifyitems(config, items):
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.engines)


def need(engine: str):
    why = missing(engine)
    if why is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{engine}: {why}; CI must install it (.ci/run)")
    pytest.skip(f"{engine}: {why}")


READY_JS = """() => { const d = window.Bokeh && Bokeh.documents && Bokeh.documents[0];
  if (!d) return false; const m = d.get_model_by_name('readouts');
  return !!(m && m.text.includes('max weight')); }"""


@pytest.fixture(scope="module", params=["firefox", "webkit"])
def page(request, tmp_path_factory):
    """The offline file (with the error recorder, drivers.py) open in one engine at 1366x768, its readouts drawn;
    the module's tests walk on in this one page.  ``page.timings`` collects how long each part took."""
    engine = request.param
    need(engine)
    tmp = tmp_path_factory.mktemp(f"engine-{engine}")
    url = recorded_copy(request.getfixturevalue("static_file"), tmp / "page.html").as_uri()
    t0 = time.monotonic()
    xvfb = None
    if engine == "firefox":
        p = FirefoxPage(url, WIDTH, HEIGHT)
    else:
        xvfb = Xvfb()
        try:
            p = WebKitPage(url, WIDTH, HEIGHT, xvfb.display, tmp / "config")
        except BaseException:
            xvfb.stop()
            raise
    try:
        p.wait_for_function(READY_JS, timeout=90000)
        p.timings = {"open": time.monotonic() - t0}
        p.errors_seen = Counter()
        yield p
    finally:
        p.close()
        if xvfb is not None:
            xvfb.stop()
        print(f"\n{engine} {p.version}: " + ", ".join(f"{k} {v:.1f} s" for k, v in getattr(p, "timings", {}).items()))


@pytest.fixture
def walk(page, request):
    """The page, and after the test: no console error, uncaught exception or request outside the file since the
    test before; the test's time noted in ``page.timings``."""
    t0 = time.monotonic()
    yield page
    page.timings[request.node.originalname.removeprefix("test_")] = time.monotonic() - t0
    errors = Counter(page.console_errors())
    new, page.errors_seen = sorted((errors - page.errors_seen).elements()), errors
    assert new == [], f"{page.engine}: {new}"
    assert page.outside_requests() == []
