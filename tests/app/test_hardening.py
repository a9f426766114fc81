"""``panel serve app/delivery/main.py`` (a Panel session per visit) under hostile links and a failing callback, and the
command line's bad arguments and safe defaults.

Every server here is a real ``panel serve`` on 127.0.0.1 started with the flags ``attention-explorable serve``
uses (tests/app/serverutil.py); the clients speak Bokeh's websocket protocol as a browser's page does.  The
link grammar itself is checked at the parser (tests/app/test_state.py) and in the browser's twin
(tests/browser/test_parity.py), so a handful of the worst links is enough here; load is measured by the
benchmarks (tests/bench/bench_server.py), not asserted.
"""

from __future__ import annotations

import asyncio
import math
import urllib.error
import urllib.request
from urllib.parse import quote

import pytest

from app.delivery.cli import build_parser, main as cli_main, serve_command
from app.sections import PAGE_ORDER
from tests.app.serverutil import (ROOT, AppServer, BokehSession, SessionError, assert_loopback_only, notice_problems,
                                  run)

PROBE_APP = ROOT / "tests" / "app" / "probe_app.py"
OPEN_TIMEOUT = 180  # generous: a shared machine may be busy; no test here asserts a time
enc = lambda v: quote(v, safe="")  # noqa: E731
# A handful of the worst links: HTML and script in values and keys, numbers no parser should take, values out of
# range, repeated and unknown keys, percent junk, a control character.
HOSTILE = [
    "dataset=" + enc("<script>alert(1)</script>") + "&bandwidth=-inf&query=nan&seed=99999999999999999999"
    "&sentence=" + enc("</p><script>alert(1)</script>") + "&token=-1&head=99",
    enc("<script>") + "=1&kernel=" + enc('"><img src=x onerror=alert(1)>') + "&temperature=1e999&noise=nan"
    "&key_norm=-1e999&link=maybe",
    "%zz=%zz&query=1e999&query=-1e999&fn=" + enc("</p>") + "&present=" + enc("\x00") + "&n=5000&tour=" + "9" * 400,
]


@pytest.fixture(scope="module")
def servers():
    """A server of app/delivery/main.py and one of the probe app (its injected fault), started together."""
    # without the page at / (tested in test_plugin.py): these tests are about Panel's sessions of
    # app/delivery/main.py; and waiting for the port only, so no page is built but the sessions' own
    started = [AppServer().sessions_only().launch(),
               AppServer(script=PROBE_APP, env={"PROBE_FAULT": "1"}).sessions_only().launch()]
    try:
        yield [s.wait_listening(OPEN_TIMEOUT) for s in started]
    finally:
        for s in started:
            s.cleanup()


@pytest.fixture(scope="module")
def server(servers):
    return servers[0]


@pytest.fixture(scope="module")
def probe(servers):
    return servers[1]


def _markup_problems(session: BokehSession) -> list[str]:
    """Any text of the page that would run or load something: the link's HTML must arrive escaped."""
    return [f"{m['type']} {m['attributes'].get('name')!r}: {m['attributes']['text'][:120]!r}"
            for m in session.models.values() if isinstance(m["attributes"].get("text"), str)
            and any(tag in m["attributes"]["text"].lower() for tag in ("<script", "<img", "<iframe"))]


# -- hostile links, and what a visit gets ------------------------------------------------------------------

# values out of range beside good ones, and a key of HTML
CLAMPED = "query=9&bandwidth=-1&kernel=dot&tour=3&" + enc("<b>bold</b>") + "=1"


@pytest.fixture(scope="module")
def visits(servers):
    """Every link of HOSTILE and CLAMPED opened as a real session, two at a time, then closed: ({query: (the
    server's index, the session or the reason it did not open)}, each server's log mark from before).

    The hostile links take turns between the two servers (the probe app builds the same page as
    app/delivery/main.py; its fault is only for ?n=1999), so both cores build pages; CLAMPED goes to
    app/delivery/main.py.  One link is opened the browser's way (GET the page, then its websocket), the others as
    bokeh.client does.
    """
    marks = [s.log_mark() for s in servers]
    plan = [(k % 2, q) for k, q in enumerate(HOSTILE)] + [(0, CLAMPED)]
    out = {}

    async def one(k, which, query, sem):
        async with sem:
            try:
                s = await BokehSession.open(servers[which].url, query, via_page=k == 1, timeout=OPEN_TIMEOUT)
            except Exception as e:  # noqa: BLE001
                out[query] = (which, f"did not open: {e!r}")
                return
            await s.close()
            out[query] = (which, s)

    async def all_visits():
        sem = asyncio.Semaphore(2)
        await asyncio.gather(*(one(k, which, q, sem) for k, (which, q) in enumerate(plan)))

    run(all_visits())
    return out, marks


def test_hostile_links_open_sessions_with_escaped_notices(servers, visits):
    """Each link a real session: it opens, says what it ignored, escapes it, and the server logs no error."""
    opened, marks = visits
    failures: list[str] = []
    for query in HOSTILE + [CLAMPED]:
        _which, s = opened[query]
        if isinstance(s, str):
            failures.append(f"{query[:80]!r}: {s}")
            continue
        failures.extend(f"{query[:80]!r}: {p}" for p in notice_problems(s, query) + _markup_problems(s))
        failures.extend(f"{query[:80]!r}: {e}" for e in s.errors)
    assert failures == []
    assert {opened[q][0] for q in HOSTILE} == {0, 1}
    for server, mark in zip(servers, marks):
        assert server.alive()
        assert server.error_lines(mark) == [] and server.tracebacks(mark) == 0


def test_a_session_has_the_pages_sections_and_the_links_values(visits, offline):
    """The served page is the offline page's sections, in the same order, opened at the link's state."""
    which, s = visits[0][CLAMPED]
    assert which == 0 and not isinstance(s, str), s
    assert s.errors == []
    sections = [s.models[k["id"]]["attributes"].get("name") for k in s.attr("explorable_page", "children")]
    assert sections == [f"{name}_section" for name in PAGE_ORDER]
    assert {m.name for m in offline.doc.models if m.name} <= set(s.by_name)
    notices = s.attr("notices", "text")
    assert "query=9 is outside" in notices and "bandwidth=-1 is outside" in notices
    assert "Ignored unknown setting \u201c&lt;b&gt;bold&lt;/b&gt;\u201d." in notices
    assert s.attr("query_slider", "value") == 6.5
    assert s.attr("bandwidth_slider", "value") == pytest.approx(math.log10(0.005))
    assert s.attr("kernel_select", "value") == "dot" and s.attr("tour_step", "value") == 3


# -- a failing callback -------------------------------------------------------------------------------

def test_a_failing_callback_is_logged_and_spares_the_session_and_the_others(probe):
    """An exception in one session's Python callback: the server logs it and answers that change with an
    error; the same session's other changes, and every other session, go on."""
    mark = probe.log_mark()

    async def scenario():
        good = await BokehSession.open(probe.url, timeout=OPEN_TIMEOUT)
        bad = await BokehSession.open(probe.url, "n=1999", timeout=OPEN_TIMEOUT)  # probe_app.py: its callback raises
        try:
            with pytest.raises(SessionError, match="injected fault"):
                await bad.patch([bad.change("bandwidth_slider", "value", -0.5)])
            assert not bad.closed
            await bad.patch([bad.change("query_slider", "value", 1.5)])          # the session goes on
            await bad.patch([bad.change("kernel_select", "value", "dot")])
            await good.patch([good.change("bandwidth_slider", "value", -0.5)])   # the others never noticed
            return good.errors, bad.errors, bad.closed
        finally:
            await good.close()
            await bad.close()

    good_errors, bad_errors, closed = run(scenario())
    assert good_errors == [] and not closed
    # one ERROR reply, recorded as it arrived and by the change that waited for it
    assert len(bad_errors) == 2 and all("injected fault" in e for e in bad_errors)
    errors = probe.error_lines(mark)
    assert len(errors) == 1 and "error handling message" in errors[0]                  # logged once, at ERROR
    assert probe.log_text()[mark:].count("RuntimeError: injected fault (tests/app/probe_app.py)") == 1
    assert probe.alive()


# -- the command line -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["export", "x.html", "--query", "nan"],
    ["export", "x.html", "--query", "1e999"],
    ["export", "x.html", "--bandwidth", "-1"],
    ["export", "x.html", "--bandwidth", "0"],
    ["export", "x.html", "--temperature", "inf"],
    ["export", "x.html", "--query", "99"],
    ["export", "x.html", "--kernel", "<script>"],
    ["export", "x.html", "--sections", "regression,bogus"],
    ["export", "x.html", "--sections", ","],
    ["export", "x.html", "--dataset", "generated"],
    ["export", "x.html", "--dataset", "../../etc/passwd"],
    ["export", "x.html", "--sentence", ""],
    ["export", "x.html", "--sentence", "a " * 5000],
    ["export"],
    ["serve", "--port", "0"],
    ["serve", "--port", "http"],
    ["serve", "--address", "0.0.0.0"],
])
def test_bad_command_line_arguments_exit_2_with_one_line(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    try:
        code = cli_main(argv)
    except SystemExit as e:
        code = e.code
    err = capsys.readouterr().err
    assert code == 2, (argv, err)
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    assert not (tmp_path / "x.html").exists()


# -- safe defaults -------------------------------------------------------------------------------------------

def _origins(cmd):
    return [cmd[i + 1] for i, a in enumerate(cmd) if a == "--allow-websocket-origin"]


def test_serve_listens_on_loopback_unless_told_otherwise():
    cmd = serve_command(build_parser().parse_args(["serve"]))
    assert cmd[cmd.index("--address") + 1] == "127.0.0.1"
    assert sorted(_origins(cmd)) == ["127.0.0.1:5006", "localhost:5006"]
    for flag in ("--admin", "--autoreload", "--dev", "--warm", "--liveness", "--show", "--allow-unsafe"):
        assert flag not in cmd
    assert cmd[cmd.index("--unused-session-lifetime") + 1] == "15000"
    cmd = serve_command(build_parser().parse_args(
        ["serve", "--address", "0.0.0.0", "--port", "8080", "--allow-websocket-origin", "class.example.org:8080"]))
    assert cmd[cmd.index("--address") + 1] == "0.0.0.0"
    assert _origins(cmd) == ["class.example.org:8080"]


def test_the_server_is_not_reachable_from_other_interfaces(server):
    assert_loopback_only(server.port)


def test_websockets_from_other_origins_are_refused(server):
    with pytest.raises(Exception) as info:
        run(BokehSession.open(server.url, origin="http://evil.example", timeout=30))
    assert "403" in str(info.value) or isinstance(info.value, SessionError)
    assert server.alive()


@pytest.mark.parametrize("path", ["/admin", "/admin/", "/debug", "/metrics", "/liveness", "/health", "/status",
                                  "/panel-preview", "/api", "/main/admin", "/../etc/passwd",
                                  "/static/../../app/delivery/cli.py"])
def test_no_admin_or_debug_endpoints(server, path):
    try:
        with urllib.request.urlopen(server.base + path, timeout=10) as r:
            status = r.status
    except urllib.error.HTTPError as e:
        status = e.code
    assert status in (400, 403, 404), (path, status)
