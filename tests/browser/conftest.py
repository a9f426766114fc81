"""Fixtures for the browser tests: Debian's Chromium driven by Playwright and the page's three deliveries.

* ``static_file`` (tests/conftest.py): the offline file, written once per test run by ``attention-explorable
  export`` (the xdist processes share it);
* ``served_page``: the page at / of one ``attention-explorable serve`` per test run, shared by the xdist
  processes (Panel's server with app/delivery/plugin.py: the offline file's page, under the server's headers);
* ``session_app``: the notebook component per session (app/delivery/page.py, what
  ``panel serve app/delivery/main.py`` shows at /main), served from this process so a test can reach each
  session's ``Explorable`` and set its parameters as a notebook cell does;
* ``open_page``: the page offline, and served too for a test marked ``both_ways``; console errors and requests
  outside the page's own origin fail the test.

Which tests run served: the served page sends exactly the offline file's bytes (tests/app/test_plugin.py
test_the_page_is_the_offline_files), so a served copy of an offline test checks only what serving changes: the
server's headers (the Content-Security-Policy: Web Workers, fonts), an http address instead of a file (copying
the link, the address bar following the widgets, a long link reaching the server), a prefix and a login
(test_served.py), and that the page loads.  Tests run offline by default; the served ones are those, plus one
representative in each file that had served copies.

Without Chromium the tests skip with the reason, except in CI (CI=true), where they fail: a CI run that
silently skips the browser does not count.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.export_once import SharedServer, shared_export
from tests.browser.pageutil import (CHROMIUM, LAUNCH_ARGS, OFFLINE_ORIGINS, ROOT, block_outside, free_port,
                                    wait_frames, wait_ready)


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


# The loader draws the blocks below the first screen when the browser is idle (app/ui/loader.js).  A test that
# looks at one section does not need the other ten drawn: that is two thirds of a page's opening work, and the
# tests open about 450 pages.  So the pages the tests open hold the idle drawing (AttnLoaderOptions): a block is
# drawn when it comes near the screen or when the page asks for it (the tour, a deep link, ``draw``), as before.
# A test that watches the page draw itself asks for a context with ``idle_drawing=True`` (or, through the
# ``watch`` and ``open_page`` fixtures, is marked ``idle_drawing``) and gets the page as a student does.
HOLD_IDLE_JS = "globalThis.AttnLoaderOptions = Object.assign({}, globalThis.AttnLoaderOptions, {idle: false});"


# A page opened in a fresh context gets a fresh renderer process, which compiles BokehJS and the page's 2.5 MB of
# inline scripts again: 0.9-1.1 s to the first readouts, against 0.54 s for a new page in a context whose renderer
# is warm (V8 keeps what it compiled per process; --process-per-site gives a context's file:// pages one process,
# kept alive between tests by an idle "keeper" page).  So the contexts the tests ask for are lent from a pool, one
# real context per kind (idle drawing, touch, mobile, pixel ratio...); the viewport and reduced motion, which a
# page can set for itself, are set on each new page.  Each test still gets new pages, closed when it closes its
# context.  A test that does anything else to its context (an init script, permissions, a route, a listener)
# closes that real context at the end instead of giving it back.
PAGE_OPTIONS = ("viewport", "reduced_motion")
LENT = ("new_page", "pages", "close", "set_default_timeout", "set_default_navigation_timeout", "new_cdp_session",
        "expect_page")


class LentContext:
    """A context of the pool, lent to one test until it calls ``close()``."""

    def __init__(self, pool, key, ctx, page_options):
        self._pool, self._key, self._ctx, self._page_options = pool, key, ctx, page_options
        self._pages, self._timeouts, self._dirty, self._closed = [], {}, False, False

    def new_page(self):
        page = self._ctx.new_page()
        if "viewport" in self._page_options:
            page.set_viewport_size(self._page_options["viewport"])
        if "reduced_motion" in self._page_options:
            page.emulate_media(reduced_motion=self._page_options["reduced_motion"])
        for name, ms in self._timeouts.items():
            getattr(page, name)(ms)
        self._pages.append(page)
        return page

    @property
    def pages(self):
        return [p for p in self._pages if not p.is_closed()]

    def set_default_timeout(self, ms):
        self._timeouts["set_default_timeout"] = ms
        for p in self.pages:
            p.set_default_timeout(ms)

    def set_default_navigation_timeout(self, ms):
        self._timeouts["set_default_navigation_timeout"] = ms
        for p in self.pages:
            p.set_default_navigation_timeout(ms)

    def new_cdp_session(self, page):
        return self._ctx.new_cdp_session(page)

    def expect_page(self, *a, **kw):
        return self._ctx.expect_page(*a, **kw)

    def close(self):
        if self._closed:
            return
        self._closed = True
        for p in self.pages:
            p.close()
        self._pool.give_back(self._key, self._ctx, keep=not self._dirty)

    def __getattr__(self, name):   # anything else changes the real context: it is not lent again
        self._dirty = True
        return getattr(self._ctx, name)


class ContextPool:
    """The real contexts, by kind, each with its keeper page; one lent at a time."""

    def __init__(self, browser, keeper_url):
        self._browser, self._keeper_url, self._free = browser, keeper_url, {}

    def lend(self, idle_drawing, kw):
        page_options = {k: kw.pop(k) for k in PAGE_OPTIONS if k in kw}
        key = (idle_drawing, repr(sorted(kw.items())))
        free = self._free.get(key) or []
        ctx = free.pop() if free else self._new(idle_drawing, kw)
        return LentContext(self, key, ctx, page_options)

    def _new(self, idle_drawing, kw):
        ctx = self._browser.new_context(**kw)
        if not idle_drawing:
            ctx.add_init_script(HOLD_IDLE_JS)
        ctx.new_page().goto(self._keeper_url)   # keeps the context's file:// renderer (and what it compiled) alive
        return ctx

    def give_back(self, key, ctx, keep):
        if keep and len(ctx.pages) == 1:
            ctx.clear_cookies()
            self._free.setdefault(key, []).append(ctx)
        else:
            ctx.close()


class HeldBrowser:
    """The session's Browser, whose new contexts (and pages) hold the loader's idle drawing unless they are
    asked for with ``idle_drawing=True``; contexts are lent from a pool (ContextPool)."""

    def __init__(self, browser, pool=None):
        self._browser, self._pool = browser, pool

    def __getattr__(self, name):
        return getattr(self._browser, name)

    def new_context(self, idle_drawing=False, **kw):
        if self._pool is not None:
            return self._pool.lend(idle_drawing, dict(kw))
        ctx = self._browser.new_context(**kw)
        if not idle_drawing:
            ctx.add_init_script(HOLD_IDLE_JS)
        return ctx

    def new_page(self, idle_drawing=False, **kw):
        page = self._browser.new_page(**kw)   # its own context, closed with it
        if not idle_drawing:
            page.context.add_init_script(HOLD_IDLE_JS)   # before its first navigation
        return page


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    _need_chromium()
    from playwright.sync_api import sync_playwright

    keeper = tmp_path_factory.mktemp("keeper") / "keeper.html"
    keeper.write_text("<!doctype html><title>keeper</title>", encoding="utf-8")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS + ["--process-per-site"])
        yield HeldBrowser(b, ContextPool(b, keeper.as_uri()))
        b.close()


class PageWatch:
    """A page plus what it logged and which addresses it asked for."""

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
def watch(request, browser):
    """A fresh page (1280x900) in its own context, watched for console errors and requests (the loader's idle
    drawing held unless the test is marked ``idle_drawing``)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900},
                              idle_drawing=request.node.get_closest_marker("idle_drawing") is not None)
    page = ctx.new_page()
    page.set_default_timeout(30000)
    w = PageWatch(page)
    yield w
    ctx.close()


# The page is built twice per test run, by the server and by the export command (each once, shared by the xdist
# processes: tests/export_once.py): when the first browser test starts, both start in the background (when a
# collected test needs them and Chromium is there) while the first tests run; the fixtures then wait for them.
EARLY = pytest.StashKey[dict]()


def pytest_collection_finish(session):
    names = set()
    for item in session.items:
        names.update(getattr(item, "fixturenames", ()))
    if "open_page" in names:   # it asks for one of the two while the test runs
        names |= {"served_page", "static_file"}
    session.config.stash[EARLY] = {"wanted": names}


def pytest_runtest_setup(item):   # called for the tests of this folder only
    early = item.config.stash.get(EARLY, None)
    if early is None or early.get("started") or not Path(CHROMIUM).exists():
        return
    early["started"] = True
    if "static_file" in early["wanted"]:
        shared_export(item.config)
    if "served_page" in early["wanted"]:
        early["server"] = SharedServer(item.config)


def pytest_sessionfinish(session):
    early = session.config.stash.get(EARLY, {})
    if "server" in early:
        early["server"].finish()


@pytest.fixture(scope="session")
def served_page(request):
    """URL of the page at / of ``attention-explorable serve`` (one server for the test run, shared by the xdist
    processes and stopped by the last one: tests/export_once.py; its /main is the per-session app)."""
    early = request.config.stash[EARLY]
    if "server" not in early:
        early["server"] = SharedServer(request.config)
    return early["server"].wait_ready(timeout=180)


class SessionApp:
    """The notebook component served per session from this process, as ``panel serve app/delivery/main.py`` serves it:
    ``url`` is /main; ``pages`` holds each session's ``Explorable`` and document, newest last."""

    def __init__(self):
        import panel as pn

        from app.delivery.page import serve_page

        pn.extension(design=None, notifications=False)   # app/delivery/main.py's
        self.pages = []

        def session():
            page, layout = serve_page()
            self.pages.append((page, pn.state.curdoc))
            return layout

        self.port = free_port()
        self.server = pn.serve({"main": session}, port=self.port, address="127.0.0.1",
                               websocket_origin=[f"127.0.0.1:{self.port}"], show=False, threaded=True,
                               verbose=False, title="Attention as kernel regression")
        self.url = f"http://127.0.0.1:{self.port}/main"

    @property
    def explorable(self):
        """The newest session's Explorable."""
        return self.pages[-1][0]

    def set(self, **params):
        """Set parameters of the newest session's Explorable on its document's thread, as a notebook cell does."""
        e, doc = self.pages[-1]
        doc.add_next_tick_callback(lambda: e.param.update(**params))

    def wait_param(self, page, name, test, frames=600):
        """Wait (``frames`` browser frames at most) until ``test(value)`` holds for the newest Explorable's
        parameter ``name``: a change in the browser reaches Python over the websocket."""
        for _ in range(frames):
            value = getattr(self.explorable, name)
            if test(value):
                return value
            wait_frames(page, 1)
        raise AssertionError(f"{name} is still {getattr(self.explorable, name)!r}")

    def stop(self):
        self.server.stop()


@pytest.fixture(scope="session")
def session_app():
    """The per-session Panel app (/main): only for the tests that need Python callbacks."""
    app = SessionApp()
    try:
        yield app
    finally:
        app.stop()


def pytest_generate_tests(metafunc):
    """``open_page`` is offline; a test marked ``both_ways`` runs served too (the rule in this module's docstring)."""
    if "open_page" in metafunc.fixturenames:
        ways = ["served", "offline"] if metafunc.definition.get_closest_marker("both_ways") else ["offline"]
        metafunc.parametrize("open_page", ways, indirect=True)


@pytest.fixture
def open_page(request, watch):
    """The page offline (the file, with every request outside it refused) or, for a test marked ``both_ways``,
    also served (the page at / of ``attention-explorable serve``).

    open_page(query) opens the page with that query string and waits until its readouts are drawn;
    open_page.where says which ("served" or "offline"), open_page.base is its address without a query."""
    if request.param == "served":
        base = request.getfixturevalue("served_page")
        allowed = [base, "data:", "blob:"]
    else:
        base = request.getfixturevalue("static_file").as_uri()
        block_outside(watch.page)
        allowed = list(OFFLINE_ORIGINS)

    def go(query=""):
        watch.page.goto(base + query)
        wait_ready(watch.page)
        return watch.page

    go.where, go.base, go.watch = request.param, base, watch
    yield go
    assert watch.console_errors() == []
    assert watch.outside_requests(allowed) == []
