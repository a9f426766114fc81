"""The page at / of ``attention-explorable serve`` (app/plugin.py) in Chromium: it draws its readouts as the
numpy core computes them, asks nothing of any other host, revalidates with its ETag, and behind ``--prefix``
and ``--basic-auth`` it comes after Panel's login form, filled in as a student does.

Every wait is for a condition (the readouts drawn, the login form, the page's address), never for a time.
"""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from tests.app.serverutil import LiveServer
from tests.browser.pageutil import check_against_core, wait_ready

PASSWORD, SECRET = "class-of-2026", "a-cookie-secret-for-the-tests-only"


def test_the_served_page_draws_its_readouts_and_asks_only_its_server(live_app, watch):
    page = watch.page
    response = page.goto(live_app + "?query=2.5&bandwidth=0.4")
    assert response.status == 200 and response.headers["content-encoding"] == "gzip"
    assert response.headers["content-security-policy"].startswith("default-src 'self'")
    wait_ready(page)
    state, _ = check_against_core(page)
    assert (state["query"], state["bandwidth"]) == (2.5, 0.4)   # the link's state, read by the browser
    assert watch.console_errors() == []
    assert watch.outside_requests([live_app, "data:", "blob:"]) == []


def test_a_reload_revalidates_with_the_etag(live_app):
    with urllib.request.urlopen(live_app) as r:
        etag, body = r.headers["ETag"], r.read()
        assert r.status == 200 and etag and r.headers["Cache-Control"] == "no-cache"
    with pytest.raises(urllib.error.HTTPError) as e:   # urllib reports a 304 as an error
        urllib.request.urlopen(urllib.request.Request(live_app, headers={"If-None-Match": etag}))
    assert e.value.code == 304 and e.value.read() == b""
    with urllib.request.urlopen(urllib.request.Request(live_app, headers={"If-None-Match": '"stale"'})) as r:
        assert r.status == 200 and r.read() == body


@pytest.fixture(scope="module")
def guarded():
    """``attention-explorable serve --prefix /course --basic-auth ... --cookie-secret ...``: its page's URL."""
    with LiveServer(cli_args=("--prefix", "/course", "--basic-auth", PASSWORD, "--cookie-secret", SECRET)) as s:
        yield s


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
