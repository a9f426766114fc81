"""Run the explorable's server as `attention-explorable serve` does, and talk to it the way browsers do.

* ``AppServer`` -- the ``panel serve`` command of ``app.delivery.cli.serve_command`` (app/delivery/main.py, a Panel
  session per visit at /main, and the page at / from app/delivery/plugin.py) on 127.0.0.1; ``url`` is /main.  Its
  log goes to a file (levels printed, so a test can look for ERROR lines) and its RSS is read from /proc.
* ``LiveServer`` -- ``attention-explorable serve`` itself (the CLI, which becomes that ``panel serve``), with
  the same interface; ``url`` is the page at / (under ``--prefix``, if given).
* ``BokehSession`` -- one session over the Bokeh websocket protocol (asyncio + tornado, Bokeh's own message
  classes).  ``open(..., via_page=False)`` opens it as ``bokeh.client.pull_session`` does (a fresh session id,
  the URL arguments on the websocket URL); ``via_page=True`` as a browser does (GET the page, then the
  websocket with the page's token and cookies, which matters behind a load balancer).
* ``Nginx`` -- nginx in front of several servers (``app/delivery/deploy/nginx.conf``), or serving an exported file from
  disk (``static_root``: ``app/delivery/deploy/nginx-static.conf``), rendered into a temp dir.

Only loopback addresses are contacted.  Every wait has a timeout.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NGINX = os.environ.get("NGINX") or shutil.which("nginx") or "/usr/sbin/nginx"
NGINX_TEMPLATE = ROOT / "app" / "delivery" / "deploy" / "nginx.conf"
NGINX_STATIC_TEMPLATE = ROOT / "app" / "delivery" / "deploy" / "nginx-static.conf"
LOG_FORMAT = "%(levelname)s %(name)s %(message)s"
DEFAULT_TIMEOUT = 120.0  # seconds for any one wait: generous, since a busy machine builds pages slowly
# Short cleanup times so that benchmarks and tests finish quickly (the CLI's defaults are 5000 / 15000 ms).
FAST_CLEANUP = ("--check-unused-sessions", "1000", "--unused-session-lifetime", "2000")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_bytes(pid: int) -> int:
    """Resident set size of a process (VmRSS from /proc; psutil is not needed)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def cli_serve_command(port: int, *cli_args: str) -> list[str]:
    """The command ``attention-explorable serve --port PORT *cli_args`` would run."""
    from app.delivery.cli import parse_args, serve_command

    return serve_command(parse_args(["serve", "--port", str(port), *cli_args]))


class AppServer:
    """One ``panel serve`` of the app on 127.0.0.1, started with the CLI's flags plus ``extra``.

    ``script`` serves another app file instead of app/delivery/main.py (its URL path is the file's stem).
    """

    def __init__(self, *, port: int | None = None, cli_args=(), extra=(), script: Path | None = None,
                 env: dict | None = None, log_dir: Path | None = None):
        self.port = port or free_port()
        cmd = cli_serve_command(self.port, *cli_args)
        self.app_name = "main"
        if script is not None:
            script = Path(script).resolve()
            self.app_name = script.stem
            i = cmd.index("serve") + 1
            cmd[i] = str(script)
        self.cmd = cmd + ["--log-format", LOG_FORMAT, "--log-level", "info", *extra]
        self._own_dir = log_dir is None
        self.log_dir = Path(log_dir) if log_dir else Path(tempfile.mkdtemp(prefix="explorable-server-"))
        self.log_path = self.log_dir / f"server-{self.port}.log"
        self.env = dict(os.environ, **(env or {}))
        self.env.setdefault("PYTHONUNBUFFERED", "1")
        self.proc: subprocess.Popen | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base}/{self.app_name}"

    @property
    def pid(self) -> int:
        return self.proc.pid

    def start(self, timeout: float = 60.0) -> "AppServer":
        return self.launch().wait_ready(timeout)

    def launch(self) -> "AppServer":
        """Start the process and return at once (``wait_ready`` waits for it); start several in parallel."""
        self._log = open(self.log_path, "w")
        # its own process group: with --num-procs N the workers are forked children, stopped with it
        self.proc = subprocess.Popen(self.cmd, cwd=ROOT, stdout=self._log, stderr=subprocess.STDOUT, env=self.env,
                                     start_new_session=True)
        return self

    def wait_ready(self, timeout: float = 60.0) -> "AppServer":
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited early:\n{self.log_text()}")
            try:
                # a refused connection fails at once; once the server listens, the first page (the
                # measurements it makes once per process included) can take a while on a busy machine,
                # and giving up on it early only queues another build behind it
                with urllib.request.urlopen(self.url, timeout=max(1.0, min(30.0, deadline - time.time()))) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"the server did not answer within {timeout} s:\n{self.log_text()}")

    def wait_listening(self, timeout: float = 60.0) -> "AppServer":
        """Wait until the server accepts connections.  ``panel serve`` listens before it builds any page, so this
        costs no page build (``wait_ready`` fetches one); the first session builds the first page."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.alive():
                raise RuntimeError(f"the server exited early:\n{self.log_text()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.1)   # polling a port: the server is another process
        self.stop()
        raise RuntimeError(f"the server did not listen within {timeout} s:\n{self.log_text()}")

    def sessions_only(self) -> "AppServer":
        """Serve Panel's sessions of the app without the page at / (``--plugins app.delivery.plugin``): for a user
        of the sessions alone, building the offline page at start would double the server's start.  Before
        ``launch``."""
        if "--plugins" in self.cmd:
            at = self.cmd.index("--plugins")
            del self.cmd[at:at + 2]
        return self

    def stop(self) -> None:
        if self.proc is not None:
            _stop_group(self.proc)
        if getattr(self, "_log", None):
            self._log.close()

    def cleanup(self) -> None:
        self.stop()
        if self._own_dir:
            shutil.rmtree(self.log_dir, ignore_errors=True)

    def __enter__(self):
        return self.start() if self.proc is None else self   # launched already: entered as it is (stopped on exit)

    def __exit__(self, *exc):
        self.cleanup()

    def rss(self) -> int:
        return rss_bytes(self.pid)

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_mark(self) -> int:
        """The log's length now: pass it to ``error_lines``/``tracebacks`` to look only at what follows."""
        return len(self.log_text())

    def error_lines(self, since: int = 0) -> list[str]:
        """Log lines at ERROR or CRITICAL level (Bokeh's, Panel's, tornado's or the app's)."""
        return [ln for ln in self.log_text()[since:].splitlines()
                if ln.startswith(("ERROR", "CRITICAL")) or " ERROR: " in ln or " CRITICAL: " in ln]

    def tracebacks(self, since: int = 0) -> int:
        return self.log_text()[since:].count("Traceback (most recent call last)")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


class LiveServer(AppServer):
    """``attention-explorable serve`` as a class gets it: the page at / (app/delivery/plugin.py) and Panel's app at
    /main.

    Same interface as ``AppServer``; ``url`` is the page.  ``cli_args`` go to the command line (e.g.
    ``"--num-procs", "2"``), ``panel_args`` after its ``--`` (straight to ``panel serve``).
    """

    def __init__(self, *, port: int | None = None, cli_args=(), panel_args=(), env: dict | None = None,
                 log_dir: Path | None = None):
        super().__init__(port=port, env=env, log_dir=log_dir)
        self.cmd = [sys.executable, "-m", "app.delivery.cli", "serve", "--port", str(self.port), "--log-level", "info",
                    *cli_args, "--", "--log-format", LOG_FORMAT, *panel_args]
        args = list(cli_args) + list(panel_args)
        self.prefix = "/" + args[args.index("--prefix") + 1].strip("/") if "--prefix" in args else ""
        self.app_name = ""

    @property
    def url(self) -> str:
        return f"{self.base}{self.prefix}/"

    def workers(self) -> list[int]:
        """The processes answering requests: the forked children under ``--num-procs N``, else the server."""
        children = []
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    with open(f"/proc/{d}/stat") as f:
                        if int(f.read().rsplit(")", 1)[1].split()[1]) == self.pid:
                            children.append(int(d))
                except (OSError, ValueError, IndexError):
                    pass
        return sorted(children) or [self.pid]


def _stop_group(proc: subprocess.Popen, timeout: float = 10.0) -> None:
    """SIGTERM to the process group this helper started (the server and any workers it forked), then SIGKILL."""
    import signal

    def signal_group(sig):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    signal_group(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        signal_group(signal.SIGKILL)
        proc.wait(timeout=timeout)
    deadline = time.time() + timeout  # forked workers may outlive the parent by a moment
    while time.time() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.1)
    signal_group(signal.SIGKILL)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used (from /proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# -- the Bokeh websocket protocol -----------------------------------------------------------------

_ids = itertools.count()
_PREFIX = f"t{os.getpid()}x"


def _msgid() -> str:
    return f"{_PREFIX}{next(_ids)}"


def _walk_objects(node, out: dict):
    """Index every serialized model in a document's JSON by id."""
    if isinstance(node, dict):
        if node.get("type") == "object" and "id" in node:
            out.setdefault(node["id"], node)
        for v in node.values():
            _walk_objects(v, out)
    elif isinstance(node, list):
        for v in node:
            _walk_objects(v, out)


def _plain(value):
    """A Bokeh-serialized value as plain Python (maps and typed arrays are enough here)."""
    if isinstance(value, dict):
        t = value.get("type")
        if t == "map":
            return {k: _plain(v) for k, v in value.get("entries", [])}
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class SessionError(RuntimeError):
    pass


class BokehSession:
    """One session of the app, held over the Bokeh websocket protocol like a browser's page holds it."""

    def __init__(self):
        self.ws = None
        self.session_id = None
        self.models: dict[str, dict] = {}    # id -> {"type", "name", "attributes"} as pulled, then patched
        self.by_name: dict[str, str] = {}    # model name -> id
        self.patches: list[tuple[float, dict]] = []
        self.errors: list[str] = []
        self.closed = False
        self._pending: dict[str, asyncio.Future] = {}
        self._waiters: list[tuple[object, asyncio.Future]] = []
        self._reader = None
        self._conn = None
        self.oks = 0
        self._query_moves = 0

    # -- opening ---------------------------------------------------------------------------------
    @classmethod
    async def open(cls, app_url: str, query: str = "", *, via_page: bool = False, origin: str | None = None,
                   timeout: float = DEFAULT_TIMEOUT) -> "BokehSession":
        self = cls()
        await asyncio.wait_for(self._open(app_url, query, via_page, origin, timeout), timeout)
        return self

    async def _open(self, app_url, query, via_page, origin, timeout):
        from bokeh.protocol import Protocol
        from bokeh.protocol.receiver import Receiver
        from bokeh.util.token import generate_jwt_token, generate_session_id, get_session_id
        from tornado.httpclient import AsyncHTTPClient, HTTPRequest
        from tornado.websocket import websocket_connect

        scheme_host = re.match(r"^(https?://[^/]+)", app_url).group(1)
        origin = origin or scheme_host
        headers = {"Origin": origin}
        q = query.lstrip("?")
        if via_page:
            page = await AsyncHTTPClient().fetch(app_url + (f"?{q}" if q else ""), request_timeout=timeout,
                                                 headers={"Accept": "text/html"})
            m = re.search(r'"token":"([^"]+)"', page.body.decode("utf-8", "replace"))
            if not m:
                raise SessionError("no session token in the page")
            token = m.group(1)
            cookies = [c.split(";", 1)[0] for c in page.headers.get_list("Set-Cookie")]
            if cookies:
                headers["Cookie"] = "; ".join(cookies)
            ws_url = app_url.replace("http", "ws", 1) + "/ws"
        else:
            token = generate_jwt_token(generate_session_id(secret_key=None, signed=False), secret_key=None,
                                       signed=False)
            ws_url = app_url.replace("http", "ws", 1) + "/ws" + (f"?{q}" if q else "")
        self.session_id = get_session_id(token)
        self.protocol = Protocol()
        self.receiver = Receiver(self.protocol)
        self.ws = await websocket_connect(HTTPRequest(ws_url, headers=headers, request_timeout=timeout),
                                          subprotocols=["bokeh", token], max_message_size=50 * 1024 * 1024)
        self.ws.protocol.set_nodelay(True)  # as browsers do: no Nagle delay between a message's three frames
        ack = await self._read_message()
        if ack is None or ack.msgtype != "ACK":
            raise SessionError(f"expected ACK, got {ack!r}")
        loop = asyncio.get_running_loop()
        self._reader = loop.create_task(self._read_loop())
        reply = await self.request("PULL-DOC-REQ", {}, timeout)
        if reply.msgtype != "PULL-DOC-REPLY":
            raise SessionError(f"expected PULL-DOC-REPLY, got {reply.msgtype}: {reply.content}")
        index: dict = {}
        _walk_objects(reply.content.get("doc", {}), index)
        for mid, rep in index.items():
            attrs = {k: _plain(v) for k, v in (rep.get("attributes") or {}).items()}
            self.models[mid] = {"type": rep.get("name"), "attributes": attrs}
            name = attrs.get("name")
            if isinstance(name, str):
                self.by_name.setdefault(name, mid)

    # -- reading ---------------------------------------------------------------------------------
    async def _read_message(self):
        while True:
            fragment = await self.ws.read_message()
            if fragment is None:
                return None
            msg = await self.receiver.consume(fragment)
            if msg is not None:
                return msg

    async def _read_loop(self):
        try:
            while True:
                msg = await self._read_message()
                if msg is None:
                    break
                self._dispatch(msg)
        except Exception as e:  # noqa: BLE001 - a protocol error ends this session, and is recorded
            self.errors.append(f"reader: {e!r}")
        finally:
            self.closed = True
            for fut in list(self._pending.values()) + [f for _, f in self._waiters]:
                if not fut.done():
                    fut.set_exception(SessionError("connection closed"))

    def _dispatch(self, msg):
        now = time.perf_counter()
        reqid = msg.header.get("reqid")
        if msg.msgtype == "PATCH-DOC":
            content = msg.content
            self.patches.append((now, content))
            for ev in content.get("events", []):
                mid = (ev.get("model") or {}).get("id")
                if mid in self.models and ev.get("kind") == "ModelChanged":
                    self.models[mid]["attributes"][ev["attr"]] = _plain(ev.get("new"))
                elif mid in self.models and ev.get("kind") == "ColumnDataChanged":
                    self.models[mid]["attributes"]["data"] = _plain(ev.get("data"))
            for pred, fut in list(self._waiters):
                if not fut.done() and pred(content):
                    fut.set_result(now)
            self._waiters = [(p, f) for p, f in self._waiters if not f.done()]
        elif msg.msgtype == "ERROR":
            self.errors.append(f"server ERROR: {msg.content}")
        elif msg.msgtype == "OK":
            self.oks += 1
        if reqid is not None and reqid in self._pending:
            fut = self._pending.pop(reqid)
            if not fut.done():
                fut.set_result(msg)

    # -- writing ---------------------------------------------------------------------------------
    def _message(self, msgtype: str, content: dict):
        from bokeh.protocol.message import Message

        header = {"msgid": _msgid(), "msgtype": msgtype}
        return Message(header, {}, content)

    async def _send(self, msg):
        if self.closed:
            raise SessionError("connection closed")
        if self._conn is None:
            self._conn = _Conn(self.ws)
        await msg.send(self._conn)

    async def request(self, msgtype: str, content: dict, timeout: float = DEFAULT_TIMEOUT):
        msg = self._message(msgtype, content)
        fut = asyncio.get_running_loop().create_future()
        self._pending[msg.header["msgid"]] = fut
        await self._send(msg)
        return await asyncio.wait_for(fut, timeout)

    async def patch(self, events: list[dict], *, wait: bool = True, timeout: float = DEFAULT_TIMEOUT):
        """Send document changes (as the page's BokehJS would); wait for the server's OK unless ``wait=False``."""
        if not wait:
            await self._send(self._message("PATCH-DOC", {"events": events}))
            return None
        reply = await self.request("PATCH-DOC", {"events": events}, timeout)
        if reply.msgtype != "OK":
            self.errors.append(f"{reply.msgtype}: {reply.content}")
            raise SessionError(f"server answered {reply.msgtype}: {reply.content}")
        return reply

    def change(self, name: str, attr: str, value) -> dict:
        """A ModelChanged event for the model called ``name``."""
        return {"kind": "ModelChanged", "model": {"id": self.by_name[name]}, "attr": attr, "new": value}

    def wait_patch(self, predicate, timeout: float = DEFAULT_TIMEOUT):
        fut = asyncio.get_running_loop().create_future()
        self._waiters.append((predicate, fut))
        return asyncio.wait_for(fut, timeout)

    def touches(self, name: str, attr: str | None = None):
        """A predicate: a PATCH-DOC that changes ``attr`` (or anything) of the model called ``name``."""
        mid = self.by_name[name]

        def pred(content):
            return any((ev.get("model") or {}).get("id") == mid and (attr is None or ev.get("attr") == attr)
                       for ev in content.get("events", []))
        return pred

    def find(self, type_name: str, **attrs) -> str:
        """The id of the one model of this type whose attributes have these values (Panel's widgets have no name)."""
        hits = [mid for mid, m in self.models.items() if m["type"] == type_name
                and all(m["attributes"].get(k) == v for k, v in attrs.items())]
        if len(hits) != 1:
            raise KeyError(f"{len(hits)} models of type {type_name} with {attrs}")
        return hits[0]

    def attr(self, name: str, attr: str):
        return self.models[self.by_name[name]]["attributes"].get(attr)

    # -- a gesture Python hears: the query slider, which sets the session's e.query ----------------------------
    async def sync_roundtrip(self, timeout: float = DEFAULT_TIMEOUT) -> float:
        """Move the query slider as a drag ends, and wait for the server's OK: seconds from sending the change to
        the reply.  The browser computes everything the page shows; what a session still costs the server per
        gesture is this: apply the change to the session's document, run the page's Python callback
        (app/delivery/page.py ``_LINKS``: the slider sets ``e.query``), and answer."""
        self._query_moves += 1
        value = 1.0 + (self._query_moves % 40) * 0.1    # 1.0 ... 4.9: inside the slider's range, a new value each time
        t0 = time.perf_counter()
        await self.patch([self.change("query_slider", "value", value)], timeout=timeout)
        return time.perf_counter() - t0

    async def close(self):
        if self.ws is not None and not self.closed:
            self.ws.close(1000, "done")
        if self._reader is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._reader), 5)
            except (asyncio.TimeoutError, Exception):  # noqa: BLE001
                self._reader.cancel()
        self.closed = True

    def abort(self):
        """Drop the TCP connection without a websocket close (a laptop lid shut mid-update)."""
        stream = getattr(getattr(self.ws, "protocol", None), "stream", None)
        if stream is not None:
            stream.close()
        else:
            self.ws.close()
        self.closed = True


class _Conn:
    """What Bokeh's Message.send writes to: write_message(..., locked=...) and one write_lock per socket."""

    def __init__(self, ws):
        from tornado import locks

        self._ws = ws
        self.write_lock = locks.Lock()

    async def write_message(self, message, binary=False, locked=True):
        await self._ws.write_message(message, binary)


def percentile(values, q: float) -> float:
    import numpy as np

    return float(np.percentile(np.asarray(values, dtype=float), q)) if len(values) else float("nan")


async def open_sessions(app_url: str, n_sessions: int, *, via_page: bool = False, open_concurrency: int = 20,
                        timeout: float = DEFAULT_TIMEOUT) -> dict:
    """Open ``n_sessions`` sessions, ``open_concurrency`` at a time (a class arriving).

    Returns the open sessions, each one's open time (s), the errors and how long the whole arrival took.
    """
    sem = asyncio.Semaphore(open_concurrency)
    sessions: list[BokehSession] = []
    errors: list[str] = []
    open_times: list[float] = []

    async def opener():
        async with sem:
            t0 = time.perf_counter()
            try:
                s = await BokehSession.open(app_url, via_page=via_page, timeout=timeout)
                sessions.append(s)
                open_times.append(time.perf_counter() - t0)
            except Exception as e:  # noqa: BLE001
                errors.append(f"open: {e!r}")

    t_open = time.perf_counter()
    await asyncio.gather(*(opener() for _ in range(n_sessions)))
    return {"sessions": sessions, "open_times": open_times, "errors": errors,
            "open_seconds": time.perf_counter() - t_open}


async def drive(sessions: list, seconds: float, *, rate_hz: float = 1.0, timeout: float = DEFAULT_TIMEOUT,
                seed: int = 0) -> dict:
    """Every session makes one change Python hears per 1/rate_hz s for ``seconds``, spread evenly over each period.

    The change is a move of the query slider (``BokehSession.sync_roundtrip``); the round trip is from sending it
    to the server's OK.  Returns the round trips (s) and the errors.
    """
    import random

    rtts: list[float] = []
    errors: list[str] = []
    period = 1.0 / rate_hz
    rng = random.Random(seed)

    async def student(s: BokehSession):
        await asyncio.sleep(rng.random() * period)
        t_end = time.perf_counter() + seconds
        nxt = time.perf_counter()
        while time.perf_counter() < t_end:
            try:
                rtts.append(await s.sync_roundtrip(timeout))
            except Exception as e:  # noqa: BLE001
                errors.append(f"change: {e!r}")
                if s.closed:
                    return
            nxt += period
            await asyncio.sleep(max(0.0, nxt - time.perf_counter()))

    await asyncio.gather(*(student(s) for s in sessions))
    return {"rtts": rtts, "errors": errors}


async def classroom(app_url: str, n_sessions: int, seconds: float, *, rate_hz: float = 1.0, via_page: bool = False,
                    open_concurrency: int = 20, timeout: float = DEFAULT_TIMEOUT, on_stage=None) -> dict:
    """``n_sessions`` concurrent sessions, each making one server-side change per 1/rate_hz s for ``seconds``.

    Sessions open ``open_concurrency`` at a time (``open_sessions``), then make their changes (``drive``).
    ``on_stage(name)`` is called with "opened" (every session open, before the load) and "loaded" (after the
    load, sessions still open).  Returns round trips and open times (s), errors and counts.
    """
    opened = await open_sessions(app_url, n_sessions, via_page=via_page, open_concurrency=open_concurrency,
                                 timeout=timeout)
    sessions = opened["sessions"]
    if on_stage is not None:
        on_stage("opened")
    load = await drive(sessions, seconds, rate_hz=rate_hz, timeout=timeout)
    if on_stage is not None:
        on_stage("loaded")
    errors = opened["errors"] + load["errors"]
    errors += [e for s in sessions for e in s.errors if e not in errors]
    for s in sessions:
        await s.close()
    return {"rtts": load["rtts"], "errors": errors, "opened": len(sessions), "open_seconds": opened["open_seconds"],
            "open_times": opened["open_times"]}


# -- hostile URLs ------------------------------------------------------------------------------------

_NUMBERS = ["nan", "NaN", "-nan", "inf", "-inf", "+Infinity", "1e999", "-1e999", "1e-999", "5e-324", "-0", "0",
            "-1", "-0.0001", "1e308", "0x10", "1_000", "3,2", "\u0663", "3.2.1", ".", "e5", "1e", "--1", "++1",
            " 2.5 ", "2.5\t", "\u00a02.5", "１２", "9" * 400, "0." + "0" * 300 + "1", "-" + "9" * 50]
_TEXTS = ["", " ", "a" * 5000, "\u65e5\u672c\u8a9e", "\U0001F600" * 20, "\u202eevil", "\x00", "\r\n",
          "<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "</p><h1>x</h1>", "&lt;b&gt;",
          "javascript:alert(1)", "' OR 1=1 --", "{{7*7}}", "${7*7}", "\\", "true", "yes", "2", "on", "gaussian",
          "dot", "default", "generated", "wave", "the bank by the river", "\ufffd", "a" * 501, "x" * 40, "y" * 41]
_JUNK = ["%", "%%", "%zz", "%0", "%FF%FE", "%C3%28", "%E2%82", "%00", "%2", "%%41", "&&&", "==", "=&=", "&=x",
         "%3Cscript%3E", "%253C", "+++", "%20%20"]
_EXTRA_KEYS = ["", "unknown", "Query", "query[]", "<b>k</b>", "\u00e9t\u00e9", "bokeh-session-id", "census2",
               "k" * 300, "__proto__", "constructor", "name", "%"]


def url_cases(n: int, seed: int = 0) -> list[str]:
    """``n`` query strings (without '?') that a hostile or careless link could carry, reproducibly.

    A fixed list of the worst cases comes first (NaN, inf, 1e999, tiny and negative bandwidths, empty values,
    repeated keys, 5000-character strings, unicode, HTML and script fragments, percent junk, unknown keys),
    then random mixtures of them.  Values are percent-encoded as a browser would, except the percent junk.
    """
    import random
    from urllib.parse import quote

    from app.sections import url_spec

    keys = list(url_spec())
    enc = lambda v: quote(v, safe="")  # noqa: E731
    fixed = [
        "query=nan", "query=NaN&bandwidth=inf", "bandwidth=-inf", "bandwidth=1e999", "bandwidth=1e-999",
        "bandwidth=-0.5", "bandwidth=0", "temperature=-1", "temperature=1e-300", "query=&bandwidth=",
        "query=1&query=2&query=3", "query=1e999&query=-1e999", "sentence=" + "a" * 5000, "q" * 5000 + "=1",
        "sentence=" + enc("\u65e5\u672c\u8a9e \U0001F600"), "dataset=" + enc("<script>alert(1)</script>"),
        enc("<script>") + "=1", "kernel=" + enc('"><img src=x onerror=alert(1)>'), "%", "%zz=%zz", "query=%FF%FE",
        "n=5000", "n=-1", "n=1e3", "seed=99999999999999999999", "noise=nan", "fn=" + enc("</p>"), "link=maybe",
        "present=" + enc("\x00"), "token=-1&head=99", "causal=2", "att_temperature=0", "key_norm=-1e999",
        "=&&=", "&", "a=b=c", "unknown=1&other=2&query=3.2", "bokeh-session-id=abc", "query=" + "9" * 400,
        "sentence=" + enc("</p><script>alert(1)</script>"), "dataset=generated&n=2000&seed=1",
        "sentence=" + enc("a" * 501), "fn=" + "x" * 5000,
    ]
    rng = random.Random(seed)
    out = fixed[:n]
    while len(out) < n:
        parts = []
        for _ in range(rng.randint(1, 6)):
            r = rng.random()
            key = rng.choice(keys) if r < 0.75 else rng.choice(_EXTRA_KEYS)
            r = rng.random()
            if r < 0.4:
                value = enc(rng.choice(_NUMBERS))
            elif r < 0.8:
                value = enc(rng.choice(_TEXTS))
            else:
                value = rng.choice(_JUNK)
            parts.append(f"{enc(key)}={value}" if rng.random() < 0.95 else rng.choice(_JUNK))
        out.append("&".join(parts))
    return out


NOTICE_OPEN, NOTICE_CLOSE = '<p class="notice">', "</p>"


def notice_problems(session: "BokehSession", query: str) -> list[str]:
    """What is wrong with the notices a session shows for ``query`` (an empty list: nothing)."""
    from app.sections import parse_query
    from app.ui import text

    from urllib.parse import parse_qsl

    args: dict[str, list[str]] = {}
    for k, v in parse_qsl(query, keep_blank_values=True):
        if k != "bokeh-session-id":  # Bokeh takes this one for itself (it names the session to join)
            args.setdefault(k, []).append(v)
    _values, expected = parse_query(args)
    html = session.attr("notices", "text") or ""
    visible = session.attr("notices", "visible")
    visible = True if visible is None else visible  # Bokeh leaves out values equal to the default (True)
    problems = []
    if expected:
        if not html or not visible:
            problems.append(f"no notice shown, expected {expected!r}")
        for n in expected:
            if text.escape(n) not in html:
                problems.append(f"notice missing: {n!r}")
    inner = html.replace(NOTICE_OPEN, "").replace(NOTICE_CLOSE, "")
    if "<" in inner:
        problems.append(f"unescaped '<' in the notices: {html[:300]!r}")
    return problems


# -- nginx in front of several servers ---------------------------------------------------------------

def render_nginx_conf(upstream_ports, listen_port: int, prefix: Path, template: Path = NGINX_TEMPLATE, *,
                      static_root: Path | None = None) -> Path:
    """Fill app/delivery/deploy/nginx.conf's placeholders for loopback workers, or (``static_root``: the directory of an
    exported index.html) app/delivery/deploy/nginx-static.conf's; write it into ``prefix``."""
    prefix = Path(prefix)
    values = {"@PREFIX@": str(prefix), "@LISTEN@": f"127.0.0.1:{listen_port}", "@SERVER_NAME@": "localhost"}
    if static_root is not None:
        template = NGINX_STATIC_TEMPLATE if template == NGINX_TEMPLATE else template
        values["@ROOT@"] = str(Path(static_root).resolve())
    else:
        values["@SERVERS@"] = " ".join(f"server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;" for p in upstream_ports)
        values["@PINS@"] = " ".join(f'"127.0.0.1:{p}" 127.0.0.1:{p};' for p in upstream_ports)
    text = template.read_text()
    for key, value in values.items():
        text = text.replace(key, value)
    missing = re.findall(r"@[A-Z_]+@", text)
    if missing:
        raise ValueError(f"unfilled placeholders in {template}: {missing}")
    out = prefix / "nginx.conf"
    out.write_text(text)
    return out


class Nginx:
    """nginx on 127.0.0.1 (not a daemon; pid, logs and temp files in its own temp dir), in front of the servers
    on ``upstream_ports``, or serving the files of ``static_root`` (app/delivery/deploy/nginx-static.conf)."""

    def __init__(self, upstream_ports=(), listen_port: int | None = None, *, static_root: Path | None = None):
        self.port = listen_port or free_port()
        self.prefix = Path(tempfile.mkdtemp(prefix="explorable-nginx-"))
        os.chmod(self.prefix, 0o755)  # worker processes (user nobody when started as root) write temp files here
        (self.prefix / "logs").mkdir()
        (self.prefix / "temp").mkdir()
        os.chmod(self.prefix / "temp", 0o755)
        self.conf = render_nginx_conf(upstream_ports, self.port, self.prefix, static_root=static_root)
        # the page, whichever way it is served: a few milliseconds, where /main builds a whole session (seconds on a
        # busy machine, past the probe's own timeout, and each retry builds another)
        self.probe_path = "/"
        self.proc = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, probe_path: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> "Nginx":
        probe_path = probe_path or self.probe_path
        check = subprocess.run([NGINX, "-t", "-c", str(self.conf), "-p", str(self.prefix)], capture_output=True,
                               text=True)
        if check.returncode != 0:
            raise RuntimeError(f"nginx -t refused the config:\n{check.stderr}")
        self._log = open(self.prefix / "logs" / "stderr.log", "w")
        self.proc = subprocess.Popen([NGINX, "-c", str(self.conf), "-p", str(self.prefix), "-g", "daemon off;"],
                                     stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nginx exited early:\n{(self.prefix / 'logs' / 'stderr.log').read_text()}")
            try:
                with urllib.request.urlopen(self.base + probe_path, timeout=5) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("nginx did not answer in time")

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()  # SIGTERM: fast shutdown of master and workers
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        if getattr(self, "_log", None):
            self._log.close()

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.prefix, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.cleanup()

    def access_log(self) -> str:
        p = self.prefix / "logs" / "access.log"
        return p.read_text(errors="replace") if p.exists() else ""

    def error_log(self) -> str:
        p = self.prefix / "logs" / "error.log"
        return p.read_text(errors="replace") if p.exists() else ""


def nginx_available() -> bool:
    return Path(NGINX).exists() and os.access(NGINX, os.X_OK)


def need_nginx() -> None:
    """Skip the calling test without nginx, except in CI (CI=true), where a missing nginx fails it."""
    import pytest

    if nginx_available():
        return
    if os.environ.get("CI") == "true":
        pytest.fail("nginx not found; CI must install it (apt-get install nginx-light)")
    pytest.skip("nginx not found (apt-get install nginx-light to run the nginx test)")


def other_ipv4_addresses() -> list[str]:
    """This machine's non-loopback IPv4 addresses."""
    out = set()
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            out.add(info[4][0])
    except OSError:
        pass
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outgoing interface
            out.add(s.getsockname()[0])
    except OSError:
        pass
    return sorted(a for a in out if not a.startswith("127."))


def assert_loopback_only(port: int) -> None:
    """Nothing answers on ``port`` at this machine's other addresses (pytest skips when it has none)."""
    import pytest

    addresses = other_ipv4_addresses()
    if not addresses:
        pytest.skip("this machine has no non-loopback IPv4 address to try")
    for addr in addresses:
        with socket.socket() as s:
            s.settimeout(2)
            assert s.connect_ex((addr, port)) != 0, f"{addr}:{port} answered"


def run(coro):
    """Run a coroutine on a fresh event loop (tests and benchmarks are synchronous)."""
    return asyncio.run(coro)


__all__ = ["AppServer", "LiveServer", "assert_loopback_only", "need_nginx", "other_ipv4_addresses", "BokehSession", "Nginx", "classroom", "notice_problems", "url_cases", "cli_serve_command", "free_port", "nginx_available",
           "percentile", "render_nginx_conf", "rss_bytes", "run", "FAST_CLEANUP", "ROOT"]
