"""Fixtures for the browser tests: Debian's Chromium driven by Playwright, a real `panel serve app/main.py`
(a Panel session per visit, at /main), `attention-explorable serve` (the page at /, app/plugin.py), the offline
file.

Without Chromium the tests skip with the reason, except in CI (CI=true), where
they fail: a CI run that silently skips the browser does not count.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser.pageutil import (CHROMIUM, LAUNCH_ARGS, ROOT, block_outside, free_port, start_server, stop_server,
                                    wait_ready)


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.browser)


def _need_chromium():
    if Path(CHROMIUM).exists():
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"Chromium not found at {CHROMIUM}; CI must install it (apt-get install chromium)")
    pytest.skip(f"Chromium not found at {CHROMIUM} (apt-get install chromium to run the browser tests)")


@pytest.fixture(scope="session")
def browser():
    _need_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield b
        b.close()


class PageWatch:
    """A page plus what it logged and which hosts it asked for."""

    def __init__(self, page):
        self.page = page
        self.console = []
        self.errors = []
        self.requests = []
        page.on("console", lambda m: self.console.append((m.type, m.text)))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("request", lambda r: self.requests.append(r.url))

    def console_errors(self):
        return [t for kind, t in self.console if kind == "error"] + self.errors

    def outside_requests(self, allowed_prefixes):
        return [u for u in self.requests if not u.startswith(tuple(allowed_prefixes))]


@pytest.fixture
def watch(browser):
    """A fresh page (1280x900) in its own context, watched for console errors and requests."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.set_default_timeout(20000)
    w = PageWatch(page)
    yield w
    ctx.close()


@pytest.fixture(scope="session")
def served_app():
    """Base URL of a real `panel serve app/main.py` started for this test session (…/main)."""
    port = free_port()
    proc = start_server(port)
    yield f"http://127.0.0.1:{port}/main"
    stop_server(proc)


@pytest.fixture(scope="session")
def live_app():
    """URL of the page at / of `attention-explorable serve` (panel serve with app/plugin.py: the offline file's
    page, built once) started once for this test session (…/)."""
    from tests.app.serverutil import LiveServer

    server = LiveServer()
    try:
        server.start(timeout=120)
        yield server.url
    finally:
        server.cleanup()


@pytest.fixture(scope="session")
def static_file(tmp_path_factory):
    """Path of an offline file written by `attention-explorable export` for this test session."""
    out = tmp_path_factory.mktemp("export") / "lecture.html"
    subprocess.run([sys.executable, "-m", "app.cli", "export", str(out)], cwd=ROOT, check=True,
                   capture_output=True, text=True)
    return out


@pytest.fixture(params=["served", "static", "live"])
def open_page(request, watch):
    """The page, served (a Panel session at /main), offline or live (the offline file's page at / of
    `attention-explorable serve`, under its headers), in one fixture for every test that opens it every way.

    open_page(query) opens the page with that query string and waits until it is drawn; open_page.where
    says which ("served", "static" or "live")."""
    if request.param == "served":
        base = request.getfixturevalue("served_app")
        allowed = [base.rsplit("/", 1)[0], "data:", "blob:"]
    elif request.param == "live":
        base = request.getfixturevalue("live_app")
        allowed = [base, "data:", "blob:"]
    else:
        base = request.getfixturevalue("static_file").as_uri()
        block_outside(watch.page)
        allowed = ["file:", "data:", "blob:"]

    def go(query=""):
        watch.page.goto(base + query)
        wait_ready(watch.page)
        return watch.page

    go.where = request.param
    yield go
    assert watch.console_errors() == []
    assert watch.outside_requests(allowed) == []
