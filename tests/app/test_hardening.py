"""The served app under hostile links, failing callbacks, dropped and flooding clients, a class, and nginx.

Every server here is a real ``panel serve`` on 127.0.0.1 started with the flags ``attention-explorable serve``
uses (tests/app/serverutil.py); the clients speak Bokeh's websocket protocol as a browser's page does.  These
tests assert behaviour only (zero errors, notices shown, the server still answering); the timings live in
tests/bench/bench_server.py.
"""

from __future__ import annotations

import asyncio
import os
import time
import urllib.error
import urllib.request

import pytest

import attention
from app.ui import text
from app.cli import build_parser, main as cli_main, serve_command
from app.page import SERVER_TROUBLE
from tests.app.serverutil import (FAST_CLEANUP, ROOT, AppServer, BokehSession, Nginx, SessionError, classroom,
                                  assert_loopback_only, free_port, need_nginx, notice_problems, run, url_cases)

PROBE_APP = ROOT / "tests" / "app" / "probe_app.py"
# Each session builds the whole page in Python (about a second of CPU); the benchmark runs 500 links.
URL_CASES = int(os.environ.get("HARDENING_URL_CASES", "100"))
OPEN_TIMEOUT = 180  # generous: a shared CI machine may be busy; no test here asserts a time


@pytest.fixture(scope="module")
def servers():
    """Two servers of the app and one of the probe app (its injected fault), started together.

    The two app servers are separate processes on their own ports: the hostile links are shared between them
    (both cores), and nginx puts them behind one address.
    """
    started = [AppServer(extra=FAST_CLEANUP).launch(), AppServer(extra=FAST_CLEANUP).launch(),
               AppServer(script=PROBE_APP, extra=FAST_CLEANUP, env={"PROBE_FAULT": "1"}).launch()]
    try:
        yield [s.wait_ready() for s in started]
    finally:
        for s in started:
            s.cleanup()


@pytest.fixture(scope="module")
def server(servers):
    return servers[0]


@pytest.fixture(scope="module")
def workers(servers):
    return servers[:2]


@pytest.fixture(scope="module")
def probe(servers):
    return servers[2]


async def _still_serving(app_url: str):
    """A fresh session opens and gets its generated dataset back from Python."""
    s = await BokehSession.open(app_url)
    try:
        rtt = await s.generated_roundtrip(timeout=30)
        assert rtt > 0 and s.errors == []
        assert len(s.attr("dataset", "data")["x"]) == 50
    finally:
        await s.close()


# -- hostile links ------------------------------------------------------------------------------------

def test_hostile_links_open_sessions_with_escaped_notices(workers):
    """100 hostile query strings, each a real session: it opens, says what it ignored, escapes it, logs nothing."""
    marks = [w.log_mark() for w in workers]
    cases = url_cases(URL_CASES, seed=6)
    failures: list[str] = []

    async def one(k, query, sem):
        async with sem:
            w = workers[k % len(workers)]
            try:
                # one in five the browser's way (GET the page, then its websocket), the others bokeh.client's
                s = await BokehSession.open(w.url, query, via_page=k % 5 == 1, timeout=OPEN_TIMEOUT)
            except Exception as e:  # noqa: BLE001
                failures.append(f"{query[:80]!r}: did not open: {e!r}")
                return
            try:
                failures.extend(f"{query[:80]!r}: {p}" for p in notice_problems(s, query))
                failures.extend(f"{query[:80]!r}: {e}" for e in s.errors)
            finally:
                await s.close()

    async def all_cases():
        sem = asyncio.Semaphore(4)
        await asyncio.gather(*(one(k, q, sem) for k, q in enumerate(cases)))
        for w in workers:
            await _still_serving(w.url)

    run(all_cases())
    assert failures == []
    for w, mark in zip(workers, marks):
        assert w.alive()
        assert w.error_lines(mark) == []
        assert w.tracebacks(mark) == 0


def test_bokeh_client_pull_session_passes_url_arguments(server):
    """bokeh.client.pull_session's ``arguments`` reach the page's parser (clamped, with its notice)."""
    from bokeh.client import pull_session

    with pull_session(url=server.url, arguments={"query": "9", "bandwidth": "-1"}) as session:
        notices = session.document.get_model_by_name("notices")
        slider = session.document.get_model_by_name("query_slider")
        assert "query=9 is outside" in notices.text and "bandwidth=-1 is outside" in notices.text
        assert slider.value == 6.5


# -- a failing callback -------------------------------------------------------------------------------

def test_a_failing_callback_shows_a_notice_and_spares_the_others(probe):
    """An exception in one session's callback: that student sees a short notice; every other session works."""
    mark = probe.log_mark()

    async def scenario():
        good = await BokehSession.open(probe.url)
        bad = await BokehSession.open(probe.url, "n=1999")  # probe_app.py makes this page's generator raise
        try:
            await bad.show_default()
            notice = bad.wait_patch(bad.touches("notices", "text"), 30)
            await bad.patch([bad.change("dataset_select", "value", "generated")])
            await notice
            assert bad.attr("notices", "text") == f'<p class="notice">{text.escape(SERVER_TROUBLE)}</p>'
            assert bad.attr("notices", "visible") in (None, True)
            # the failing page is not frozen: it still syncs, and the others still generate
            await bad.patch([bad.change("bandwidth_slider", "value", -0.5)])
            await good.generated_roundtrip()
            assert good.errors == [] and bad.errors == []
        finally:
            await good.close()
            await bad.close()
        await _still_serving(probe.url)

    run(scenario())
    log = probe.log_text()[mark:]
    assert "WARNING app.page _on_dataset failed in one session" in log
    assert "injected fault" in log
    assert probe.error_lines(mark) == []


def test_sessions_are_freed_after_their_browsers_leave(probe):
    """Closed sessions are discarded after --unused-session-lifetime: no page objects outlive them.

    The test waits for that to happen (lifetime 2 s, checked every 1 s: FAST_CLEANUP), asking a bare census
    (tests/app/probe_app.py: a session that builds no page of its own) how many pages are alive until none
    is, for at most 60 s.
    """
    import json

    async def pages_alive():
        census = await BokehSession.open(probe.url, "census=bare")
        try:
            return json.loads(census.attr("census", "text"))["pages"]
        finally:
            await census.close()

    async def scenario():
        sessions = [await BokehSession.open(probe.url) for _ in range(4)]
        assert await pages_alive() >= 4
        for s in sessions:
            await s.close()
        deadline = time.monotonic() + 60
        alive = await pages_alive()
        while alive > 0 and time.monotonic() < deadline:
            await asyncio.sleep(0.25)
            alive = await pages_alive()
        return alive

    # every page is freed: these four, and any other session of this server that has ended (the probe's
    # tests close theirs; a page fetched without a websocket is discarded the same way)
    assert run(scenario()) == 0


# -- dropped and flooding clients --------------------------------------------------------------------------

def test_clients_that_vanish_mid_update_leave_the_server_serving(server):
    mark = server.log_mark()

    async def scenario():
        # 1. half a message (header and metadata of a PATCH-DOC), then the TCP connection drops
        a = await BokehSession.open(server.url)
        msg = a._message("PATCH-DOC", {"events": [a.change("dataset_select", "value", "generated")]})
        await a.ws.write_message(msg.header_json)
        await a.ws.write_message(msg.metadata_json)
        a.abort()
        # 2. a whole change that needs Python, and the connection drops before the reply
        b = await BokehSession.open(server.url)
        await b.show_default()
        await b.patch([b.change("dataset_select", "value", "generated")], wait=False)
        b.abort()
        # 3. a clean close in the middle of a burst of changes
        c = await BokehSession.open(server.url)
        for k in range(50):
            await c.patch([c.change("bandwidth_slider", "value", -1 + k / 100)], wait=False)
        await c.close()
        await asyncio.sleep(0.5)
        await _still_serving(server.url)

    run(scenario())
    assert server.alive()
    assert server.error_lines(mark) == []


def test_a_flood_from_one_session_leaves_the_others_served(server):
    """1000 changes in about a second from one page; another page's changes still get their replies."""
    mark = server.log_mark()

    async def scenario():
        flood = await BokehSession.open(server.url)
        other = await BokehSession.open(server.url)
        done = asyncio.Event()
        rtts = []

        async def flooding():
            t0 = time.perf_counter()
            for k in range(1000):
                await flood.patch([flood.change("bandwidth_slider", "value", -1 + (k % 200) / 100)], wait=False)
                if k % 10 == 9:
                    await asyncio.sleep(max(0.0, t0 + (k + 1) / 1000 - time.perf_counter()))
            deadline = time.perf_counter() + 120
            while flood.oks < 1000 and time.perf_counter() < deadline and not flood.closed:
                await asyncio.sleep(0.05)
            done.set()

        async def measuring():
            while not done.is_set() or not rtts:
                rtts.append(await other.generated_roundtrip(timeout=120))

        await asyncio.gather(flooding(), measuring())
        try:
            assert flood.oks == 1000 and flood.errors == []
            assert len(rtts) >= 1 and other.errors == []
        finally:
            await flood.close()
            await other.close()

    run(scenario())
    assert server.alive()
    assert server.error_lines(mark) == []


# -- a class ------------------------------------------------------------------------------------------------

def test_twenty_sessions_at_once(server):
    """20 concurrent sessions, each a change that needs Python every second for 3 s: zero errors."""
    mark = server.log_mark()
    result = run(classroom(server.url, 20, 3.0, open_concurrency=10, timeout=OPEN_TIMEOUT))
    assert result["errors"] == []
    assert result["opened"] == 20
    assert len(result["rtts"]) >= 20  # at least one change each (more when the machine is not busy)
    assert server.error_lines(mark) == []


# -- input caps ---------------------------------------------------------------------------------------------

def test_generated_dataset_size_is_capped():
    import panel as pn

    from app.page import Explorable

    page = Explorable()
    widget = pn.widgets.IntInput.from_param(page.param.n)
    with pytest.raises(ValueError):
        widget.value = 5000
    assert page.n == 50
    with pytest.raises(ValueError, match="2000"):
        attention.make_dataset("wave", 5000, 0.3, 0)


def test_a_client_cannot_raise_the_cap(server):
    """A client that sends n = 5000 to the generator gets it put back; the session goes on."""
    async def scenario():
        s = await BokehSession.open(server.url)
        try:
            spinner = s.find("Spinner", title="samples n")
            back = s.wait_patch(lambda c: any((e.get("model") or {}).get("id") == spinner for e in c["events"]), 30)
            await s.patch([{"kind": "ModelChanged", "model": {"id": spinner}, "attr": "value", "new": 5000}])
            await back
            assert s.models[spinner]["attributes"]["value"] <= 2000
            await s.generated_roundtrip()
            assert len(s.attr("dataset", "data")["x"]) <= 2000
        finally:
            await s.close()

    run(scenario())
    assert server.alive()


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
    run(_still_serving(server.url))


@pytest.mark.parametrize("path", ["/admin", "/admin/", "/debug", "/metrics", "/liveness", "/health", "/status",
                                  "/panel-preview", "/api", "/main/admin", "/../etc/passwd", "/static/../../app/cli.py"])
def test_no_admin_or_debug_endpoints(server, path):
    try:
        with urllib.request.urlopen(server.base + path, timeout=10) as r:
            status = r.status
    except urllib.error.HTTPError as e:
        status = e.code
    assert status in (400, 403, 404), (path, status)


# -- nginx in front of two workers -----------------------------------------------------------------------------

def test_two_workers_behind_nginx(workers):
    """app/deploy/nginx.conf with two workers: 10 browsers' sessions, each a change and its reply, zero errors;
    each page's websocket reaches the worker that made its session; both workers get sessions; a browser pinned
    to a worker that is gone is served by another."""
    need_nginx()
    marks = [w.log_mark() for w in workers]
    gone = free_port()  # listed in the config, nothing listening: a worker that crashed
    with Nginx([w.port for w in workers] + [gone]) as nginx:
        result = run(classroom(nginx.base + "/main", 10, 2.0, via_page=True, open_concurrency=5,
                               timeout=OPEN_TIMEOUT))
        assert result["errors"] == [] and result["opened"] == 10
        assert len(result["rtts"]) >= 10
        deadline = time.time() + 30  # nginx logs a websocket when it closes
        while True:
            lines = [ln for ln in nginx.access_log().splitlines() if '"GET /main/ws ' in ln]
            if len(lines) >= 10 or time.time() > deadline:
                break
            time.sleep(0.2)
        assert len(lines) == 10
        live = {f"127.0.0.1:{w.port}" for w in workers}
        for ln in lines:
            upstream, pinned = ln.split('" 101 ', 1)[1].split()[:2]
            assert pinned.strip('"') == upstream, ln  # the websocket went where the page was made
        assert {ln.split('" 101 ', 1)[1].split()[0] for ln in lines} == live

        req = urllib.request.Request(nginx.base + "/main", headers={"Cookie": f"explorable_worker=127.0.0.1:{gone}"})
        with urllib.request.urlopen(req, timeout=OPEN_TIMEOUT) as r:
            assert r.status == 200
            cookie = r.headers.get("Set-Cookie", "")
        assert cookie.split(";")[0].split("=", 1)[1] in live, cookie
    logged = [ln for w, m in zip(workers, marks) for ln in w.error_lines(m)]
    assert logged == [], "\n".join(logged)
