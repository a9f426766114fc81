"""Benchmarks of the served app: Python round trips, a class of sessions, session churn, nginx scale-out.

``run(quick)`` returns rows for tests/bench/__main__.py (section "server").  Everything talks to ``panel
serve`` processes this module starts on 127.0.0.1 with the flags ``attention-explorable serve`` uses
(tests/app/serverutil.py), over Bokeh's websocket protocol as a browser's page does.  Every loop is bounded
in count and time.

* round trip: one session moves the query slider (the browser computes the page; Python's callback sets
  ``e.query``); from sending the change to the server's OK.  Also the same with Nagle's algorithm left on
  (Bokeh's default, which app/delivery/serving.py switches off), and the cost of opening a session.
* class: one server, a class that grows to N = 10, 50, 100 open sessions; at each N every session makes that
  change once a second for 20 s: round trip p50/p95, the server's RSS against N (MB per additional session, a
  least-squares slope), its CPU use, and how long the newcomers took to open.
* churn: 100 sessions opened and closed; RSS after the unused-session cleanup against the warmed-up
  baseline, and how many page objects are still alive (tests/app/probe_app.py's census).
* nginx: app/delivery/deploy/nginx.conf in front of 1 and 2 workers, 30 browsers' sessions (page, then websocket).
* hostile links: 100 query strings, each a session (as the CI test).

These sessions are Panel's app at /main (the notebook component), not the page a class opens at / (that is
bench_live): each costs the server about 2 s of CPU to build, so a full run keeps to the sizes above (about
10 minutes on 2 cores).  The earlier sizes (N up to 200 for 60 s each, 500 sessions of churn, 1, 2 and 4 workers
with 100 browsers, 500 links) made most of the 50 minutes a whole ``make bench`` took.

The load generator runs in this process and shares the machine's cores with the server(s): on 2 cores the
figures for many sessions are pessimistic, and every row says how busy the machine was (load average).
Run directly (``python -m tests.bench.bench_server [--quick]``) to print the rows.
"""

from __future__ import annotations

import asyncio
import json
import os
import time

import numpy as np

from tests.app.serverutil import (FAST_CLEANUP, ROOT, AppServer, BokehSession, Nginx, classroom, cpu_seconds, drive,
                                  free_port, nginx_available, notice_problems, open_sessions, url_cases)
from tests.app.serverutil import run as run_async

SECTION = "server"
PROBE_APP = ROOT / "tests" / "app" / "probe_app.py"
TARGET_ROUNDTRIP_P95_S = 0.100     # one session, a change Python hears
TARGET_CLASS_P95_S = 0.250         # 100 sessions
TARGET_MB_PER_SESSION = 15.0
TARGET_CHURN_FRACTION = 0.10       # RSS back within 10 % of the warmed-up baseline


def _load() -> str:
    try:
        return "load average %.1f %.1f %.1f" % os.getloadavg()
    except OSError:
        return ""


def _row(name, seconds, **kw):
    return seconds_row(SECTION, name, seconds, **kw)


def seconds_row(section, name, seconds, *, target=None, meets=None, note="", **extra):
    """One report row from times in seconds (median and p95 in µs), with the load average in its note."""
    s = np.asarray(list(seconds), dtype=float)
    row = {"section": section, "name": name,
           "median_us": float(np.median(s) * 1e6) if s.size else None,
           "p95_us": float(np.percentile(s, 95) * 1e6) if s.size else None,
           "n_runs": int(s.size)}
    if target is not None:
        row["target"] = target
        row["meets_target"] = meets
    note = "; ".join(x for x in (note, _load()) if x)
    if note:
        row["note"] = note
    row.update(extra)
    return row


def _p95(values) -> float:
    return float(np.percentile(values, 95)) if len(values) else float("nan")


# -- one session ----------------------------------------------------------------------------------------

async def _roundtrips(url: str, k: int, gap: float = 0.02):
    s = await BokehSession.open(url)
    try:
        for _ in range(5):  # warm-up
            await s.sync_roundtrip()
        out = []
        for _ in range(k):
            out.append(await s.sync_roundtrip())
            await asyncio.sleep(gap)
        return out, list(s.errors)
    finally:
        await s.close()


async def _opens(url: str, k: int, pid: int):
    walls, cpus = [], []
    for _ in range(k):
        c0, t0 = cpu_seconds(pid), time.perf_counter()
        s = await BokehSession.open(url)
        walls.append(time.perf_counter() - t0)
        cpus.append(cpu_seconds(pid) - c0)
        n_models = len(s.models)
        await s.close()
    return walls, cpus, n_models


def roundtrip_rows(quick: bool) -> list[dict]:
    k = 30 if quick else 300
    rows = []
    with AppServer(extra=FAST_CLEANUP) as srv:
        rtts, errors = run_async(_roundtrips(srv.url, k))
        p95 = _p95(rtts)
        rows.append(_row("1 session: move the query slider -> Python sets e.query -> server's OK", rtts,
                         target=f"p95 <= {TARGET_ROUNDTRIP_P95_S * 1e3:.0f} ms", meets=p95 <= TARGET_ROUNDTRIP_P95_S,
                         note=f"errors {len(errors)}; TCP_NODELAY on (app/delivery/serving.py)"))
        walls, cpus, n_models = run_async(_opens(srv.url, 5 if quick else 10, srv.pid))
        rows.append(_row(f"open a session: page built in Python and pulled ({n_models} models)", walls,
                         note="wall time, one at a time"))
        rows.append(_row("open a session: server CPU time per session", cpus,
                         note="user+system CPU of the server process (10 ms ticks); this, not the changes, "
                              "limits how fast a class can arrive"))
    if not quick:
        with AppServer(script=PROBE_APP, extra=FAST_CLEANUP, env={"PROBE_NAGLE": "1"}) as srv:
            slow, errors = run_async(_roundtrips(srv.url, 100))
        ratio = float(np.median(slow) / np.median(rtts))
        rows.append(_row("1 session: same change with Nagle's algorithm on (Bokeh's default)", slow,
                         ratio=ratio, note=f"errors {len(errors)}; median {ratio:.0f}x the app's (delayed ACKs "
                                           "hold each reply's later frames ~40 ms)"))
    return rows


# -- a class ----------------------------------------------------------------------------------------------

def class_rows(quick: bool) -> list[dict]:
    """One server, a class that grows: 10 sessions arrive, work for a minute, 40 more arrive, and so on.

    Each stage reports the round trips of every open session under load, the arrival of the new sessions,
    the server's RSS and CPU use, and the load generator's own CPU use (it shares the machine).
    """
    # quick: enough to show the code runs and every row comes out (each session is a whole Panel app: seconds each)
    sizes = (2,) if quick else (10, 50, 100)
    seconds = 1.0 if quick else 20.0
    rows, rss_points, sessions = [], [], []
    srv = AppServer(extra=FAST_CLEANUP)
    if quick:   # the class opens Panel's sessions at /main only: no page at / to build as the server starts, and
        srv.sessions_only().launch().wait_listening(120)   # no page built to see it is ready (half the quick run)
    with srv:
        if not quick:   # (quick: only that the code runs and every row comes out; no warm-up to wait for)
            run_async(_opens(srv.url, 2, srv.pid))  # warm the process (imports, caches)
            # the server discards the warm-up sessions on its own timer (FAST_CLEANUP: unused for 2 s, checked
            # every 1 s) and says nothing when it has: the wait is that timer's, with a second to spare
            time.sleep(4)
        base = srv.rss()

        async def stage(n):
            c0, t0 = cpu_seconds(srv.pid), time.perf_counter()
            opened = await open_sessions(srv.url, n - len(sessions), open_concurrency=10)
            sessions.extend(opened["sessions"])
            c1, t1, rss_opened = cpu_seconds(srv.pid), time.perf_counter(), srv.rss()
            p0 = time.process_time()
            load = await drive(sessions, seconds, seed=n)
            c2, t2 = cpu_seconds(srv.pid), time.perf_counter()
            gen = (time.process_time() - p0) / (t2 - t1)
            errors = opened["errors"] + load["errors"]
            return opened, load, errors, rss_opened, (c1 - c0) / max(t1 - t0, 1e-9), (c2 - c1) / (t2 - t1), gen

        async def grow():
            out = []
            try:
                for n in sizes:
                    out.append((n, *(await stage(n))))
            finally:
                for sess in sessions:
                    await sess.close()
            return out

        stages = run_async(grow())
    prev = 0
    for n, opened, load, errors, rss_opened, busy_open, busy_load, gen in stages:
        rss_points.append((n, rss_opened - base))
        p95 = _p95(load["rtts"])
        target = meets = None
        if n == 100:
            target, meets = f"p95 <= {TARGET_CLASS_P95_S * 1e3:.0f} ms", p95 <= TARGET_CLASS_P95_S
        rows.append(_row(f"class of {n}: each moves the query slider once a second for {seconds:.0f} s", load["rtts"],
                         target=target, meets=meets,
                         note=f"errors {len(errors)}; sessions open {len(opened['sessions']) + prev}/{n}; server "
                              f"CPU {busy_load * 100:.0f} % of one core during the load; load generator "
                              f"{gen * 100:.0f} %; RSS {base / 1e6:.0f} MB before the class, "
                              f"{rss_opened / 1e6:.0f} MB with {n} sessions", errors=len(errors),
                         rss_mb=rss_opened / 1e6, server_cpu=busy_load, generator_cpu=gen))
        rows.append(_row(f"class of {n}: open a session while {n - prev} arrive (10 at a time)",
                         opened["open_times"],
                         note=f"all {n - prev} open after {opened['open_seconds']:.1f} s; server CPU "
                              f"{busy_open * 100:.0f} % of one core meanwhile", arrival_s=opened["open_seconds"]))
        prev = n
    ns = np.array([p[0] for p in rss_points], dtype=float)
    mb = np.array([p[1] for p in rss_points], dtype=float) / 1e6
    slope = float(np.polyfit(ns, mb, 1)[0]) if len(ns) >= 2 else float(mb[0] / ns[0])
    rows.append({"section": SECTION, "name": f"server RSS per additional session: {slope:.1f} MB "
                                            f"(N = {', '.join(str(int(n)) for n in ns)})",
                 "median_us": None, "p95_us": None, "n_runs": len(ns), "target": f"<= {TARGET_MB_PER_SESSION:.0f} MB",
                 "meets_target": slope <= TARGET_MB_PER_SESSION, "mb_per_session": slope,
                 "note": "least-squares slope of (RSS with N sessions open - RSS of the warmed-up server) "
                         "over N; " + ", ".join(f"N={int(n)}: +{m:.0f} MB" for n, m in zip(ns, mb))})
    return rows


# -- churn ---------------------------------------------------------------------------------------------------

async def _census(url: str) -> dict:
    s = await BokehSession.open(url, "census=1")
    try:
        return json.loads(s.attr("census", "text"))
    finally:
        await s.close()


async def _churn(url: str, k: int, concurrency: int = 10):
    sem = asyncio.Semaphore(concurrency)
    times, errors = [], []

    async def one(j):
        async with sem:
            t0 = time.perf_counter()
            try:
                s = await BokehSession.open(url)
                if j % 10 == 0:
                    await s.sync_roundtrip()
                await s.close()
                times.append(time.perf_counter() - t0)
            except Exception as e:  # noqa: BLE001
                errors.append(repr(e))

    await asyncio.gather(*(one(j) for j in range(k)))
    return times, errors


def churn_rows(quick: bool) -> list[dict]:
    """Open and close ``k`` sessions (10 at a time); does the server's memory come back after the cleanup?

    The baseline is taken after a warm-up of the same pattern (20 sessions, 10 at a time): Python's allocators keep the
    memory of the most sessions ever open at once, and reuse it, so a first burst raises the RSS once.  The
    census (tests/app/probe_app.py) counts what Python still holds: pages, documents, objects, memory blocks.
    """
    k = 40 if quick else 100
    warm = 10 if quick else 20
    settle = 5.0  # > lifetime 2 s + check 1 s
    with AppServer(script=PROBE_APP, extra=FAST_CLEANUP) as srv:
        run_async(_churn(srv.url, 2))
        time.sleep(settle)
        cold = srv.rss()
        run_async(_churn(srv.url, warm))
        time.sleep(settle)
        before = run_async(_census(srv.url))
        time.sleep(settle)
        base = srv.rss()
        times, errors = run_async(_churn(srv.url, k // 2))
        time.sleep(settle)
        mid = srv.rss()
        more, more_errors = run_async(_churn(srv.url, k - k // 2))
        times += more
        errors += more_errors
        peak = srv.rss()
        t_end = time.perf_counter()
        waited, final = 0.0, peak
        while waited < 60:
            time.sleep(1)
            waited = time.perf_counter() - t_end
            final = srv.rss()
            if waited >= settle and final <= base * (1 + TARGET_CHURN_FRACTION):
                break
        after = run_async(_census(srv.url))
    frac = final / base - 1
    mb = lambda b: f"{b / 1e6:.0f} MB"  # noqa: E731
    return [_row(f"churn: {k} sessions opened and closed (10 at a time); RSS {mb(base)} -> {mb(final)} after "
                 f"cleanup ({frac * 100:+.0f} %)", times,
                 target="RSS within 10 % of the warmed-up baseline", meets=frac <= TARGET_CHURN_FRACTION,
                 note=f"errors {len(errors)}; --check-unused-sessions 1000 --unused-session-lifetime 2000; "
                      f"RSS after 2 sessions {mb(cold)}, after {warm} warm-up sessions {mb(base)}, after {k // 2} "
                      f"more {mb(mid)}, right after all {k} {mb(peak)}, {waited:.0f} s later {mb(final)}; Python "
                      f"still holds {after['pages']} page(s) and {after['documents']} document(s) (the census "
                      f"page's own), {after['gc_objects']} objects (before: {before['gc_objects']}), "
                      f"{after['allocated_blocks']} memory blocks (before: {before['allocated_blocks']})",
                 rss_cold_mb=cold / 1e6, rss_base_mb=base / 1e6, rss_mid_mb=mid / 1e6, rss_peak_mb=peak / 1e6,
                 rss_final_mb=final / 1e6, pages_alive=after["pages"], gc_objects=[before["gc_objects"],
                 after["gc_objects"]], allocated_blocks=[before["allocated_blocks"], after["allocated_blocks"]])]


# -- nginx ---------------------------------------------------------------------------------------------------

def nginx_rows(quick: bool) -> list[dict]:
    if not nginx_available():
        return [{"section": SECTION, "name": "nginx scale-out: skipped (nginx not installed)", "median_us": None,
                 "p95_us": None, "n_runs": 0}]
    counts = (2,) if quick else (1, 2)
    n, seconds = (10, 5.0) if quick else (30, 20.0)
    rows = []
    for procs in counts:
        # the browsers open the websocket at nginx's address: each worker allows it as an origin, as the header
        # of app/delivery/deploy/nginx.conf tells a deployment to (--allow-host) -- without it every websocket gets
        # a 403
        port = free_port()
        workers = [AppServer(cli_args=("--allow-host", f"127.0.0.1:{port}"), extra=FAST_CLEANUP).launch()
                   for _ in range(procs)]
        try:
            for w in workers:
                w.wait_ready()
            with Nginx([w.port for w in workers], listen_port=port) as nginx:
                result = run_async(classroom(nginx.base + "/main", n, seconds, via_page=True, open_concurrency=10))
            held = [w.log_text().count("WebSocket connection opened") for w in workers]
        finally:
            for w in workers:
                w.cleanup()
        rows.append(_row(f"nginx + {procs} worker(s), {n} browsers: each moves the query slider once a second",
                         result["rtts"],
                         note=f"errors {len(result['errors'])}; sessions held per worker {held}; all open after "
                              f"{result['open_seconds']:.0f} s (open p95 {_p95(result['open_times']):.1f} s)",
                         errors=len(result["errors"]), sessions_per_worker=held))
    return rows


# -- hostile links -------------------------------------------------------------------------------------------

def url_rows(quick: bool) -> list[dict]:
    if quick:
        return []
    cases = url_cases(100, seed=6)
    problems, times = [], []
    with AppServer(extra=FAST_CLEANUP) as srv:
        mark = srv.log_mark()

        async def all_cases():
            sem = asyncio.Semaphore(4)

            async def one(k, q):
                async with sem:
                    t0 = time.perf_counter()
                    try:
                        s = await BokehSession.open(srv.url, q, via_page=k % 5 == 1)
                    except Exception as e:  # noqa: BLE001
                        problems.append(f"{q[:60]!r}: {e!r}")
                        return
                    times.append(time.perf_counter() - t0)
                    problems.extend(notice_problems(s, q))
                    await s.close()

            await asyncio.gather(*(one(k, q) for k, q in enumerate(cases)))

        run_async(all_cases())
        errors = srv.error_lines(mark)
        tracebacks = srv.tracebacks(mark)
    ok = not problems and not errors and not tracebacks
    return [_row(f"{len(cases)} hostile links, each a session: {len(problems)} problems, {len(errors)} ERROR lines",
                 times, target="0 problems, 0 ERROR lines", meets=ok,
                 note="; ".join(problems[:5] + errors[:5]) or "every notice present and escaped")]


def run(quick: bool) -> list[dict]:
    rows = []
    for part in (roundtrip_rows, class_rows, churn_rows, nginx_rows, url_rows):
        rows += part(quick)
    return rows


if __name__ == "__main__":
    import sys

    for r in run("--quick" in sys.argv):
        print(json.dumps(r))
