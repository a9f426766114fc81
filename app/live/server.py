"""``attention-explorable serve``: the live page and its three endpoints, on tornado (Bokeh's own web server).

    GET /  (and /main, the address of earlier versions)   the page, the same bytes for every visit
    GET /api/dataset?fn=wave&n=50&noise=0.3&seed=0       a seeded dataset          (app/live/api.py)
    GET /api/train?fn=...&lr=medium                      h's path on that dataset
    GET /api/sentence?text=the+bank+by+the+river         a typed sentence's Q, K, V

The page is built once, before the server listens (and before ``--num-procs`` forks, so every worker
shares it), and sent gzipped when the browser accepts it, with an ETag so a reload costs one small
reply.  Endpoints answer JSON; a value they cannot use gives 400 and one sentence.  On an address other
machines can reach, requests that name a host this server was not told about (``--allow-host``) are
refused (403).  Nothing here opens a websocket or keeps state per visit, so any worker behind a load
balancer can answer any request.
"""

from __future__ import annotations

import json
import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor

from tornado import httpserver, ioloop, netutil, process, web

from . import api
from .page import live_page

log = logging.getLogger("app.live")

# Training on a large generated dataset takes a second or two: it runs beside the event loop (numpy releases
# the GIL), so the other students' pages and requests are answered meanwhile.
_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="explorable-api")
SLOW = {"train"}
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    # the page is self-contained: it may only talk to this server (BokehJS evaluates the engines' code)
    "Content-Security-Policy": "default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:; "
                               "connect-src 'self'; img-src 'self' data: blob:; object-src 'none'; base-uri 'none'",
}


class _Base(web.RequestHandler):
    def initialize(self, hosts):
        self.hosts = hosts

    def prepare(self):
        host = (self.request.host or "").lower()
        if self.hosts is not None and host not in self.hosts:
            log.warning("refused a request for host %r (allowed: %s)", host[:80], ", ".join(sorted(self.hosts)))
            raise web.HTTPError(403, reason="Unknown host")

    def set_default_headers(self):
        self.clear_header("Server")
        for k, v in SECURITY_HEADERS.items():
            self.set_header(k, v)

    def write_error(self, status_code, **kwargs):
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(f"{status_code} {self._reason}\n")


class PageHandler(_Base):
    def get(self):
        page = live_page()
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("ETag", page.etag)
        self.set_header("Cache-Control", "no-cache")   # revalidate: a new server version shows at once
        self.set_header("Vary", "Accept-Encoding")
        if self.request.headers.get("If-None-Match") == page.etag:
            self.set_status(304)
            return
        if "gzip" in self.request.headers.get("Accept-Encoding", ""):
            self.set_header("Content-Encoding", "gzip")
            self.write(page.gzipped)
        else:
            self.write(page.html)

    def compute_etag(self):   # the page's ETag is set above; tornado must not hash the body again
        return None

    head = get


class NotFound(_Base):
    def prepare(self):
        super().prepare()
        raise web.HTTPError(404)


class ApiHandler(_Base):
    async def get(self, name):
        endpoint = api.ENDPOINTS.get(name)
        if endpoint is None:
            raise web.HTTPError(404)
        args = {k: v for k, v in self.request.query_arguments.items()}
        start = time.perf_counter()
        try:
            if name in SLOW:
                status, reply = await ioloop.IOLoop.current().run_in_executor(_POOL, endpoint, args)
            else:
                status, reply = endpoint(args)
        except Exception:  # noqa: BLE001 - one failing request never stops the server
            log.exception("api/%s failed", name)
            status, reply = 500, {"error": "the server could not answer that request; try again"}
        log.debug("api/%s %d in %.1f ms", name, status, 1e3 * (time.perf_counter() - start))
        self.set_status(status)
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps(reply, separators=(",", ":")))

    def compute_etag(self):
        return None


LOOPBACK = ("127.0.0.1", "localhost", "::1")


def allowed_hosts(address: str, port: int, hosts) -> set[str] | None:
    """The Host headers a server on ``address`` answers: any (None) on a loopback address, where only this
    machine reaches it (nginx in front passes the students' host name on); else ``hosts``, each with and
    without ``:port``.

    >>> allowed_hosts("127.0.0.1", 5006, []) is None
    True
    >>> sorted(allowed_hosts("0.0.0.0", 5006, ["class.example.org"]))
    ['class.example.org', 'class.example.org:5006']
    """
    if address in LOOPBACK:
        return None
    out = set()
    for h in (h.lower() for h in hosts or []):
        name, sep, given = h.rpartition(":")
        if sep and given.isdigit():   # host:port as given; a browser leaves out :80 and :443
            out |= {h, name} if given in ("80", "443") else {h}
        else:
            out |= {h, f"{h}:{port}"}
    return out


def make_app(hosts=None) -> web.Application:
    """The tornado application: the page and the endpoints (``hosts``: the allowed Host headers, None: any)."""
    kw = dict(hosts=hosts)
    return web.Application([
        (r"/", PageHandler, kw),
        (r"/main/?", PageHandler, kw),
        (r"/api/([a-z]+)", ApiHandler, kw),
    ], compress_response=False, default_handler_class=NotFound, default_handler_args=kw)


def serve(*, port: int, address: str, hosts, num_procs: int = 1, show: bool = False) -> None:
    """Listen on ``address:port``, build the page, fork ``num_procs`` workers, and serve until stopped."""
    sockets = netutil.bind_sockets(port, address=address, reuse_port=False)   # a busy port fails at once
    started = time.perf_counter()
    live_page()   # built once, before forking: every worker shares it (early visitors wait in the backlog)
    log.info("page built in %.1f s", time.perf_counter() - started)
    if num_procs > 1:
        process.fork_processes(num_procs, max_restarts=100)
    server = httpserver.HTTPServer(make_app(allowed_hosts(address, port, hosts)), xheaders=True,
                                   no_keep_alive=False)
    server.add_sockets(sockets)
    if show and (process.task_id() in (None, 0)):
        import webbrowser

        webbrowser.open(f"http://{'localhost' if address in ('127.0.0.1', '::1') else address}:{port}/")
    print(f"attention-explorable: ready on http://{address}:{port}/ (pid {os.getpid()})", flush=True)
    ioloop.IOLoop.current().start()


__all__ = ["make_app", "serve", "allowed_hosts"]
