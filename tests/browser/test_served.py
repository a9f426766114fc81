"""The page at / of ``attention-explorable serve`` (app/delivery/plugin.py) in Chromium: it arrives gzipped under its
security headers, draws its readouts as the numpy core computes them for its link, and asks nothing of any other
address.  A server as a course may run it, under ``--prefix``, behind ``--basic-auth`` and with its own
``--tour``: the page comes after Panel's login form, filled in as a student does, with the link the student
followed, and shows that tour's steps.

The headers and the ETag are checked without a browser too (tests/app/test_plugin.py).  Every wait is for a
condition (the readouts drawn, the login form, the page's address), never for a time.
"""

from __future__ import annotations

import json

import pytest

from app.tour.model import parse_tour, resolve_step
from app.sections import CATALOGUE
from tests.app.serverutil import LiveServer
from tests.browser.pageutil import check_against_core, model_prop, shown_paragraphs, wait_ready

PASSWORD, SECRET = "class-of-2026", "a-cookie-secret-for-the-tests-only"


@pytest.mark.idle_drawing
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


TOUR_STEP = {"title": "Mine", "text": "My own words.", "do": "Shrink h.", "state": {"bandwidth": 0.05},
             "when": [["max_weight", ">=", 0.95]], "found": "One sample wins."}
MY_TOUR = {"title": "My lecture", "steps": [TOUR_STEP] * 3}


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    """``attention-explorable serve --prefix /course --basic-auth ... --cookie-secret ... --tour mine.json``."""
    mine = tmp_path_factory.mktemp("tour") / "mine.json"
    mine.write_text(json.dumps(MY_TOUR), encoding="utf-8")
    server = LiveServer(cli_args=("--prefix", "/course", "--basic-auth", PASSWORD, "--cookie-secret", SECRET,
                                  "--tour", str(mine)))
    try:
        yield server.start(timeout=180)   # a server builds its page before it answers: slow on a busy machine
    finally:
        server.cleanup()


def test_behind_a_prefix_and_a_password_the_login_comes_first_then_the_page(guarded, watch):
    page = watch.page
    # Panel's login page shows its logo from Panel's CDN: refused here, as in a classroom without internet
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith((guarded.base, "data:", "blob:"))
               else route.abort())
    page.goto(guarded.url + "?query=1.5&tour=5")
    page.wait_for_url(f"{guarded.base}/course/login**")
    assert model_count(page) == 0   # no page before the login
    page.fill("input[name=username]", "teacher")
    page.fill("input[name=password]", PASSWORD)
    page.locator("input[name=password]").press("Enter")
    page.wait_for_url(f"{guarded.url}**")
    wait_ready(page)
    state, _ = check_against_core(page)
    assert state["query"] == 1.5   # the link asked for before the login, kept through it
    # the server's own tour: its steps, and its length for the link's step (app.tour.resolve_step's notice)
    step, notice = resolve_step("5", parse_tour(CATALOGUE, MY_TOUR))
    assert (step, notice) == (1, "There is no step 5 in this tour (it has 3 steps); showing step 1.")
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('tour_card').text.includes('Step 1 of 3')")
    assert f"{TOUR_STEP['title']}</h2>" in model_prop(page, "tour_card", "text")   # (after a phone's "1/3 ")
    page.wait_for_function("(n) => Bokeh.documents[0].get_model_by_name('notices').text.includes(n)",
                           arg=notice.split(";")[0])
    assert shown_paragraphs(page, "notices") == [notice]
    assert guarded.error_lines() == []
    assert [e for e in watch.console_errors() if "net::ERR_FAILED" not in e] == []   # only the refused logo
    assert [u for u in watch.requests if u.startswith(guarded.base) and not u.startswith(guarded.base + "/course/")] \
        == []   # under the prefix, always


def model_count(page) -> int:
    """How many Bokeh documents the page holds (none on the login page)."""
    return page.evaluate("() => (window.Bokeh && Bokeh.documents) ? Bokeh.documents.length : 0")
