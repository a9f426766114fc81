"""Benchmarks of the page at / of ``panel serve`` (app/delivery/plugin.py, what ``attention-explorable serve`` runs)
and of the same file on nginx: what a class of visits costs the server, one row each.

``run(quick)`` returns rows for tests/bench/__main__.py (section "live server").  The page is built once per
server and every visit gets the same bytes; the browser computes everything, so a visit costs the server one
reply.  Servers run on 127.0.0.1 (tests/app/serverutil.py) at the CLI's default log level.

1. server CPU per visit (target <= 10 ms): real Chromium visits to ``attention-explorable serve`` (which
   becomes ``panel serve app/delivery/main.py --plugins app.delivery.plugin``), each a fresh browser context that
   waits until the readouts are on screen (tests/bench/pages.py's open probe); the CPU time of the server's process
   group (per thread from /proc/PID/task/*/schedstat, ns resolution) from one visit's start to the next visit's
   start on the same server.  The same visits give load -> interactive, interleaved with the offline file's.
2. a class arriving together: 100 clients at once (asyncio, raw HTTP/1.1), each GET / with
   Accept-Encoding: gzip, whole body read; the time until the last one is served (7 runs).  (a) one
   ``attention-explorable serve`` process, (b) nginx serving the exported file from disk
   (app/delivery/deploy/nginx-static.conf, gzip_static), and not in quick runs ``--num-procs 2``.  Protocol level:
   each browser's own parsing and drawing (row 1) happens on each student's device, not on the server.
3. a class reloading: N clients, each on its own keep-alive connection, GET / with the page's ETag once a
   second (a reload of an open tab: 304).  Latency p50/p95 and server CPU.
4. memory: RSS after a warm-up and after 500 visits (10 at a time); nothing is kept per visit.
5. hostile links: serverutil.url_cases(500) as GET /?<case>: each must be 200 with the page; no ERROR line
   or traceback in the server log.

The load generator runs in this process and shares the 2 cores with the servers (and Chromium with them in
1): figures under load are pessimistic, and every row says how busy the machine was.  Every wait is bounded.
Run directly (``python -m tests.bench.bench_live [--quick]``) to print the rows.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tests.app.serverutil import ROOT, LiveServer, Nginx, nginx_available, url_cases
from tests.app.serverutil import run as run_async
from tests.bench import pages as P
from tests.bench.bench_server import seconds_row

SECTION = "live server"
TARGET_CPU_PER_VISIT_S = 0.010
TARGET_ARRIVAL_S = 20.0
TARGET_RELOAD_P95_S = 0.100         # 100 clients revalidating once a second, one process
TARGET_MB_PER_VISIT = 0.1
TARGET_CHURN_FRACTION = 0.10
TIMEOUT = 60.0                      # any one HTTP exchange
SERVER_ARGS = ("--log-level", "warning")   # the CLI's default: no access log line per request


def _row(name, seconds, *, target=None, meets=None, note="", **extra):
    """bench_server's row, from the finite times only (a request that failed counts as an error, not a time)."""
    finite = [x for x in seconds if x is not None and np.isfinite(x)]
    return seconds_row(SECTION, name, finite, target=target, meets=bool(meets) if target is not None else meets,
                       note=note, **extra)


def _p95(values) -> float:
    return float(np.percentile(values, 95)) if len(values) else float("inf")


# -- CPU and memory of a server's process group ---------------------------------------------------------

def _stat_fields(pid) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def group_pids(pgid: int) -> list[int]:
    """The processes of a process group (a server started by serverutil and the workers it forked)."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            f = _stat_fields(d)
            if f is not None and int(f[2]) == pgid:
                out.append(int(d))
    return out


def group_cpu(pgid: int) -> tuple[float, float]:
    """CPU seconds used so far by a process group: (sum of its threads' schedstat, ns resolution;
    utime + stime from /proc/PID/stat, 10 ms ticks but including threads that have exited)."""
    sched, ticks = 0, 0
    hz = os.sysconf("SC_CLK_TCK")
    for pid in group_pids(pgid):
        f = _stat_fields(pid)
        if f is None:
            continue
        ticks += int(f[11]) + int(f[12])
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat") as fh:
                    sched += int(fh.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
    return sched / 1e9, ticks / hz


def _nginx_cpu(nginx: Nginx) -> float:
    """CPU seconds of nginx's master and workers (they share the benchmark's process group, so by parent)."""
    master = nginx.proc.pid
    total, hz = 0.0, os.sysconf("SC_CLK_TCK")
    for d in os.listdir("/proc"):
        if d.isdigit():
            f = _stat_fields(d)
            if f is not None and (int(d) == master or int(f[1]) == master):
                total += (int(f[11]) + int(f[12])) / hz
    return total


# -- a small HTTP/1.1 client (asyncio streams): one connection per simulated browser ------------------------

class HttpError(RuntimeError):
    pass


class Client:
    """One keep-alive connection, as a browser tab holds one; GETs one after another on it."""

    def __init__(self, host: str, port: int, *, timeout: float = TIMEOUT):
        self.host, self.port, self.timeout = host, port, timeout
        self.reader = self.writer = None

    async def _connect(self):
        self.reader, self.writer = await asyncio.wait_for(asyncio.open_connection(self.host, self.port),
                                                          self.timeout)

    async def get(self, path: str, *, gzip: bool = True, etag: str | None = None) -> tuple[int, dict, bytes]:
        return await asyncio.wait_for(self._get(path, gzip, etag), self.timeout)

    async def _get(self, path, gzip, etag):
        if self.writer is None:
            await self._connect()
        extra = ("Accept-Encoding: gzip, deflate\r\n" if gzip else "") + (f"If-None-Match: {etag}\r\n" if etag else "")
        req = (f"GET {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nUser-Agent: bench-live\r\n"
               f"Accept: */*\r\n{extra}Connection: keep-alive\r\n\r\n")
        self.writer.write(req.encode("latin-1"))
        await self.writer.drain()
        line = await self.reader.readline()
        if not line:
            raise HttpError("connection closed before the reply")
        parts = line.decode("latin-1").split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
            raise HttpError(f"bad status line {line[:80]!r}")
        status = int(parts[1])
        headers: dict[str, str] = {}
        while True:
            h = await self.reader.readline()
            if h in (b"\r\n", b"\n", b""):
                break
            k, _, v = h.decode("latin-1").partition(":")
            headers[k.strip().lower()] = v.strip()
        if status in (204, 304) or 100 <= status < 200:
            body = b""
        elif "content-length" in headers:
            body = await self.reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int((await self.reader.readline()).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while (await self.reader.readline()) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(await self.reader.readexactly(size))
                await self.reader.readexactly(2)
            body = b"".join(chunks)
        else:
            body = await self.reader.read()
            headers["connection"] = "close"
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return status, headers, body

    async def close(self):
        if self.writer is not None:
            w, self.writer, self.reader = self.writer, None, None
            w.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(w.wait_closed(), 5)


def _split(base: str) -> tuple[str, int]:
    m = re.match(r"^http://([^:/]+):(\d+)", base)
    return m.group(1), int(m.group(2))


def _page(base: str) -> tuple[int, str]:
    """The gzipped page's length and its ETag, as the server answers them."""
    async def get():
        c = Client(*_split(base))
        try:
            status, headers, body = await c.get("/")
        finally:
            await c.close()
        if status != 200 or headers.get("content-encoding") != "gzip" or not gzip.decompress(body).startswith(
                b"<!DOCTYPE html>"):
            raise HttpError(f"the page: {status}, {headers.get('content-encoding')}")
        return len(body), headers["etag"]

    return run_async(get())


async def _visit(base: str, page_len: int, path: str = "/", timeout: float = TIMEOUT) -> list[str]:
    """One student opening the page: GET it gzipped and read it to the end on a new connection.  Problems."""
    c = Client(*_split(base), timeout=timeout)
    try:
        status, headers, body = await c.get(path)
        if status != 200 or headers.get("content-encoding") != "gzip" or len(body) != page_len:
            return [f"page: {status}, {headers.get('content-encoding')}, {len(body)} bytes"]
        return []
    except Exception as e:  # noqa: BLE001 - counted, reported
        return [f"{type(e).__name__}: {e}"]
    finally:
        await c.close()


@contextlib.contextmanager
def _live(srv: LiveServer | None = None, cli_args=()):
    """The given server, or a new ``attention-explorable serve`` stopped on leaving."""
    if srv is not None:
        yield srv
        return
    own = LiveServer(cli_args=(*SERVER_ARGS, *cli_args))
    try:
        yield own.start(timeout=300)
    finally:
        own.cleanup()


@contextlib.contextmanager
def _exported():
    """A directory holding the offline file as index.html and index.html.gz (``gzip -9``), as the README says."""
    tmp = Path(tempfile.mkdtemp(prefix="explorable-bench-static-"))
    try:
        html = tmp / "index.html"
        subprocess.run([sys.executable, "-m", "app.delivery.cli", "export", str(html)], cwd=ROOT, check=True,
                       capture_output=True, text=True, timeout=600)
        subprocess.run(["gzip", "-9", "--keep", "--force", str(html)], check=True, timeout=120)
        os.chmod(tmp, 0o755)   # nginx's workers (user nobody when started as root) read it
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# -- 1: Chromium visits ----------------------------------------------------------------------------------------

def _visit_first_readouts(browser, url: str, *, block: bool) -> float:
    """One visit in a fresh context at 1280 x 900: ms from the navigation's start to the first readouts on screen."""
    return P.visit(browser, url, {"viewport": {"width": 1280, "height": 900}}, block=block)["readouts_ms"]


def browser_rows(quick: bool) -> list[dict]:
    """Server CPU per Chromium visit to ``attention-explorable serve``, and load -> interactive against the file."""
    if not P.chromium_available():
        return [_row(f"browser rows skipped: Chromium not found at {P.CHROMIUM}", [])]
    visits = 5 if quick else 12
    tti = {"served": [], "offline": []}
    starts = []   # (schedstat s, tick s) of the server's group at each visit's start
    offline = P.exported_page().as_uri()
    with _live() as server, P.chromium() as browser:
        targets = [("served", server.url), ("offline", offline)]
        # round 0 warms up (Chromium's caches); the last round only closes the CPU interval of the one before
        for rnd in range(visits + 2):
            for key, url in targets:
                if key == "served":
                    starts.append(group_cpu(server.pid))
                if rnd == visits + 1:
                    break
                t = _visit_first_readouts(browser, url, block=key == "offline")
                if 1 <= rnd <= visits:
                    tti[key].append(t / 1e3)
        errors = server.error_lines()
        command = "attention-explorable " + " ".join(server.cmd[3:server.cmd.index("--")])
    s = starts[1:]   # from the start of visit 1 to the start of the closing round
    sched = [b[0] - a[0] for a, b in zip(s, s[1:])]
    ticks = [b[1] - a[1] for a, b in zip(s, s[1:])]
    med, p95 = float(np.median(sched)), _p95(sched)
    ratio = float(np.median(tti["served"]) / np.median(tti["offline"]))
    return [_row("attention-explorable serve: server CPU per Chromium visit to / (page until readouts shown)", sched,
                 target=f"p95 <= {TARGET_CPU_PER_VISIT_S * 1e3:.0f} ms",
                 meets=not errors and p95 <= TARGET_CPU_PER_VISIT_S,
                 note=f"`{command}` (Panel's server with app/delivery/plugin.py); a fresh browser context each; "
                      f"CPU of the "
                      f"server's process group (per-thread schedstat, ns) from one visit's start to the next one's, "
                      f"the offline file's visit in between; {np.mean(ticks) * 1e3:.0f} ms by utime+stime ticks; "
                      f"errors logged {len(errors)}",
                 cpu_per_visit_s=med, errors=len(errors)),
            _row("the page at /: load -> interactive (navigation start to readouts shown), 1280x900", tti["served"],
                 ratio=ratio, note=f"{ratio:.2f}x the offline file's median (the row below; visits interleaved)"),
            _row("offline file: load -> interactive, 1280x900", tti["offline"])]


# -- 2: a class arriving together ----------------------------------------------------------------------------

async def _arrival(base: str, n: int, page_len: int):
    t0 = time.perf_counter()
    done, problems = [], []

    async def student():
        p = await _visit(base, page_len)
        done.append(time.perf_counter() - t0)
        problems.extend(p)

    await asyncio.gather(*(student() for _ in range(n)))
    return done, problems


async def _rss_with_open_pages(base: str, n: int, rss) -> int:
    """``rss()`` while ``n`` clients that got the page keep their connections open (idle tabs)."""
    clients = [Client(*_split(base)) for _ in range(n)]
    sem = asyncio.Semaphore(10)

    async def one(c):
        async with sem:
            await c.get("/")

    try:
        await asyncio.gather(*(one(c) for c in clients))
        return rss()
    finally:
        for c in clients:
            await c.close()


def _arrival_row(label, base, *, pids=(), nginx=None, n=100, runs=1, note=""):
    """``runs`` arrivals of ``n`` students; the row's times are every student's (from the common start), its
    ``last_s`` the median over the runs of when the last student was served."""
    page_len, _etag = _page(base)
    run_async(_arrival(base, 5, page_len))   # warm-up: a few visits
    done, problems, lasts = [], [], []
    c0 = sum(group_cpu(p)[1] for p in pids)
    g0 = nginx and _nginx_cpu(nginx)
    p0, t0 = time.process_time(), time.perf_counter()
    for _ in range(runs):
        d, p = run_async(_arrival(base, n, page_len))
        done += d
        problems += p
        lasts.append(max(d) if d else float("inf"))
    wall = time.perf_counter() - t0
    gen = (time.process_time() - p0) / wall
    last = float(np.median(lasts))
    if nginx:
        cpu = f"nginx CPU {(_nginx_cpu(nginx) - g0) / runs:.2f} s a run"
    else:
        cpu = f"server CPU {(sum(group_cpu(p)[1] for p in pids) - c0) / runs:.2f} s a run"
    each = ", ".join(f"{x:.2f}" for x in lasts)
    return _row(f"{label}: {n} students arrive together (the page, gzipped){f', {runs} runs' if runs > 1 else ''}",
                done, target=f"all within {TARGET_ARRIVAL_S:.0f} s", meets=not problems and max(lasts) <= TARGET_ARRIVAL_S,
                note=f"the last one served after {last:.2f} s (median of the runs; each run: {each} s); every "
                     f"student's time from the run's common start; errors {len(problems)}"
                     f"{': ' + problems[0] if problems else ''}; {cpu} (10 ms ticks); load generator "
                     f"{gen * 100:.0f} % of a core; page {page_len / 1e3:.0f} kB gzipped{note}",
                errors=len(problems), last_s=last, last_p95_s=_p95(lasts), last_each_s=lasts)


def arrival_rows(quick: bool, srv: LiveServer | None = None) -> list[dict]:
    """100 arriving: one ``attention-explorable serve`` process; nginx serving the exported file (not quick runs
    without nginx: skipped); not quick, also ``--num-procs 2``."""
    n, runs = 100, (1 if quick else 7)
    with _live(srv) as live:
        base_rss = live.rss()
        rows = [_arrival_row("one attention-explorable serve process", live.base, pids=[live.pid], n=n, runs=runs)]
        held = run_async(_rss_with_open_pages(live.base, n, live.rss))
        rows[-1]["note"] += (f"; RSS {base_rss / 1e6:.0f} MB before, {held / 1e6:.0f} MB with {n} connections held "
                             f"open ({(held - base_rss) / n / 1e3:.0f} kB each)")
        rows[-1]["rss_per_open_page_kb"] = (held - base_rss) / n / 1e3
    if quick:
        return rows
    with _live(cli_args=("--num-procs", "2")) as two:
        rows.append(_arrival_row("attention-explorable serve --num-procs 2", two.base, pids=[two.pid], n=n, runs=runs))
    if not nginx_available():
        rows.append(_row("nginx row skipped: nginx not installed", []))
        return rows
    with _exported() as folder, Nginx(static_root=folder) as nginx:
        rows.append(_arrival_row("nginx serving the exported file (app/delivery/deploy/nginx-static.conf, gzip_static)",
                                 nginx.base, nginx=nginx, n=n, runs=runs))
    return rows


# -- 3: a class reloading once a second ------------------------------------------------------------------------

async def _reload(base: str, n: int, seconds: float, etag: str, seed: int = 0):
    rng = random.Random(seed)
    lat, problems = [], []

    async def student():
        c = Client(*_split(base))
        await asyncio.sleep(rng.random())
        t_end = time.perf_counter() + seconds
        nxt = time.perf_counter()
        try:
            while time.perf_counter() < t_end:
                t0 = time.perf_counter()
                try:
                    status, _h, body = await c.get("/", etag=etag)
                    if status != 304 or body:
                        problems.append(f"status {status}")
                    else:
                        lat.append(time.perf_counter() - t0)
                except Exception as e:  # noqa: BLE001
                    problems.append(f"{type(e).__name__}: {e}")
                    await c.close()
                nxt += 1.0
                await asyncio.sleep(max(0.0, nxt - time.perf_counter()))
        finally:
            await c.close()

    await asyncio.gather(*(student() for _ in range(n)))
    return lat, problems


def reload_rows(quick: bool, srv: LiveServer | None = None) -> list[dict]:
    sizes, seconds = ((10,), 2.0) if quick else ((10, 100, 200), 20.0)
    rows = []
    with _live(srv) as live:
        _len, etag = _page(live.base)
        for n in sizes:
            c0 = group_cpu(live.pid)[0]
            p0, t0 = time.process_time(), time.perf_counter()
            lat, problems = run_async(_reload(live.base, n, seconds, etag, seed=n))
            wall = time.perf_counter() - t0
            busy = (group_cpu(live.pid)[0] - c0) / wall
            gen = (time.process_time() - p0) / wall
            target = meets = None
            if n == 100:
                target, meets = f"p95 <= {TARGET_RELOAD_P95_S * 1e3:.0f} ms", not problems and _p95(lat) <= TARGET_RELOAD_P95_S
            rows.append(_row(f"one process: {n} open tabs each reload once a second for {seconds:.0f} s (304)", lat,
                             target=target, meets=meets,
                             note=f"errors {len(problems)}{': ' + problems[0] if problems else ''}; "
                                  f"{len(lat) / wall:.0f} requests/s; server CPU {busy * 100:.1f} % of one core; load "
                                  f"generator {gen * 100:.0f} %; a keep-alive connection per client, If-None-Match "
                                  f"with the page's ETag, start jittered over the first second",
                             errors=len(problems), server_cpu=busy, generator_cpu=gen))
    return rows


# -- 4: memory over many visits -------------------------------------------------------------------------------

async def _visits(base: str, k: int, page_len: int, concurrency: int = 10):
    sem = asyncio.Semaphore(concurrency)
    times, problems = [], []

    async def one():
        async with sem:
            t0 = time.perf_counter()
            problems.extend(await _visit(base, page_len))
            times.append(time.perf_counter() - t0)

    await asyncio.gather(*(one() for _ in range(k)))
    return times, problems


def churn_rows(quick: bool, srv: LiveServer | None = None) -> list[dict]:
    k, warm = (40, 10) if quick else (500, 50)
    with _live(srv) as live:
        page_len, _etag = _page(live.base)
        cold = live.rss()
        _t, problems = run_async(_visits(live.base, warm, page_len))
        base = live.rss()
        times, more = run_async(_visits(live.base, k, page_len))
        final = live.rss()
    problems += more
    frac = final / base - 1
    per_visit_mb = max(0.0, final - base) / k / 1e6
    mb = lambda b: f"{b / 1e6:.0f} MB"  # noqa: E731
    return [_row(f"{k} visits (the page, 10 at a time): RSS {mb(base)} -> {mb(final)} ({frac * 100:+.1f} %)", times,
                 target=f"<= {TARGET_MB_PER_VISIT * 1e3:.0f} kB per visit and within 10 % of the warmed-up RSS",
                 meets=not problems and per_visit_mb <= TARGET_MB_PER_VISIT and frac <= TARGET_CHURN_FRACTION,
                 note=f"times are whole visits; errors {len(problems)}; nothing is kept per visit; RSS {mb(cold)} "
                      f"before, {mb(base)} after {warm} warm-up visits, {mb(final)} after {k} more",
                 rss_base_mb=base / 1e6, rss_final_mb=final / 1e6, mb_per_visit=per_visit_mb, errors=len(problems))]


# -- 5: hostile links ------------------------------------------------------------------------------------------

def hostile_rows(quick: bool, srv: LiveServer | None = None) -> list[dict]:
    cases = url_cases(100 if quick else 500, seed=6)
    problems, times, counts = [], [], {"page": 0}
    with _live(srv) as live:
        page_len, _etag = _page(live.base)
        mark = live.log_mark()

        async def all_cases():
            sem = asyncio.Semaphore(4)

            async def one(q):
                async with sem:
                    t0 = time.perf_counter()
                    p = await _visit(live.base, page_len, "/?" + q)
                    times.append(time.perf_counter() - t0)
                    problems.extend(f"/?{q[:50]}: {x}" for x in p)
                    counts["page"] += not p

            await asyncio.gather(*(one(q) for q in cases))

        run_async(all_cases())
        errors = live.error_lines(mark)
        tracebacks = live.tracebacks(mark)
        alive = live.alive()
    ok = not problems and not errors and not tracebacks and alive
    return [_row(f"{len(cases)} hostile links (GET /?<case>): {len(problems)} problems, {len(errors)} ERROR lines, "
                 f"{tracebacks} tracebacks", times,
                 target="0 problems (each 200 with the page), 0 ERROR lines", meets=ok,
                 note="; ".join(problems[:3] + errors[:3]) or "the browser reads the link; the server never does",
                 problems=len(problems), error_lines=len(errors), tracebacks=tracebacks, counts=counts)]


# -- all ---------------------------------------------------------------------------------------------------------

def protocol_rows(quick: bool) -> list[dict]:
    """Arrival, reload and hostile rows on one server (no browser, no nginx): the CI smoke test's part."""
    with _live() as live:
        return arrival_rows(True, live)[:1] + reload_rows(True, live) + hostile_rows(quick, live)


def run(quick: bool) -> list[dict]:
    rows = browser_rows(quick)
    with _live() as live:
        rows += arrival_rows(quick, live)
        rows += reload_rows(quick, live)
        rows += churn_rows(quick, live)
        rows += hostile_rows(quick, live)
    return rows


if __name__ == "__main__":
    for r in run("--quick" in sys.argv):
        print(json.dumps(r))
