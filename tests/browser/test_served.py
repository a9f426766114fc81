"""The page at / of ``attention-explorable serve`` (app/plugin.py) in Chromium: it arrives gzipped under its
security headers, draws its readouts as the numpy core computes them for its link, and asks nothing of any other
address; behind ``--prefix`` and ``--basic-auth`` it comes after Panel's login form, filled in as a student
does, with the link the student followed.

The headers and the ETag are checked without a browser too (tests/app/test_plugin.py).  Every wait is for a
condition (the readouts drawn, the login form, the page's address), never for a time.
"""

from __future__ import annotations

import pytest

from tests.app.serverutil import LiveServer
from tests.browser.pageutil import check_against_core, wait_ready

PASSWORD, SECRET = "class-of-2026", "a-cookie-secret-for-the-tests-only"


def test_the_served_page_draws_its_readouts_and_asks_only_its_server(served_page, watch):
    page = watch.page
    response = page.goto(served_page + "?query=2.5&bandwidth=0.4")
    assert response.status == 200 and response.headers["content-encoding"] == "gzip"
    assert response.headers["content-security-policy"].startswith("default-src 'self'")
    wait_ready(page)
    state, _ = check_against_core(page)
    assert (state["query"], state["bandwidth"]) == (2.5, 0.4)   # the link's state, read by the browser
    page.wait_for_function("() => AttnPage.allDrawn()", timeout=90000)
    assert watch.console_errors() == []
    assert watch.outside_requests([served_page, "data:", "blob:"]) == []


@pytest.fixture(scope="module")
def guarded():
    """``attention-explorable serve --prefix /course --basic-auth ... --cookie-secret ...``: its page's URL."""
    server = LiveServer(cli_args=("--prefix", "/course", "--basic-auth", PASSWORD, "--cookie-secret", SECRET))
    try:
        yield server.start(timeout=180)   # a server builds its page before it answers: slow on a busy machine
    finally:
        server.cleanup()


def test_behind_a_prefix_and_a_password_the_login_comes_first_then_the_page(guarded, watch):
    page = watch.page
    # Panel's login page shows its logo from Panel's CDN: refused here, as in a classroom without internet
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith((guarded.base, "data:", "blob:"))
               else route.abort())
    page.goto(guarded.url + "?query=1.5")
    page.wait_for_url(f"{guarded.base}/course/login**")
    assert model_count(page) == 0   # no page before the login
    page.fill("input[name=username]", "teacher")
    page.fill("input[name=password]", PASSWORD)
    page.locator("input[name=password]").press("Enter")
    page.wait_for_url(f"{guarded.url}**")
    wait_ready(page)
    state, _ = check_against_core(page)
    assert state["query"] == 1.5   # the link asked for before the login, kept through it
    assert guarded.error_lines() == []
    assert [e for e in watch.console_errors() if "net::ERR_FAILED" not in e] == []   # only the refused logo
    assert [u for u in watch.requests if u.startswith(guarded.base) and not u.startswith(guarded.base + "/course/")] \
        == []   # under the prefix, always


def model_count(page) -> int:
    """How many Bokeh documents the page holds (none on the login page)."""
    return page.evaluate("() => (window.Bokeh && Bokeh.documents) ? Bokeh.documents.length : 0")
