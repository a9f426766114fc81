"""The page at / of ``panel serve`` (app/delivery/plugin.py) and ``attention-explorable serve``, which runs it.

First in-process: the plugin's ROUTES in Bokeh's own tornado application (what ``panel serve`` builds), driven
by tornado's test client.  Then real servers on 127.0.0.1: the README's ``panel serve`` command, the CLI with
``--num-procs 2``, and the CLI under ``--prefix`` with ``--basic-auth``, logged in through Panel's form as a
browser does.  The page's bytes are compared with the offline file's up to the ids Bokeh draws afresh for
every build (``same_page``).  The browser side is in tests/browser/test_live.py.
"""

from __future__ import annotations

import gzip
import http.cookiejar
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from html.parser import HTMLParser
from urllib.parse import urlencode, urljoin

import pytest
from bokeh.server.tornado import BokehTornado
from tornado.testing import AsyncHTTPTestCase

from app.delivery.export import export_html
from app.sections import CATALOGUE, ExplorableState
from app.tour import active_tour
from tests.app.serverutil import ROOT, AppServer, LiveServer, Nginx, free_port, need_nginx


class _Plugin:
    """app.delivery.plugin, imported when a test first reads it: importing it builds the page (seconds of CPU), and
    every pytest-xdist process collects this file, and one of them runs it."""

    NAMES = {"PAGE", "ROUTES", "SECURITY_HEADERS", "build_page"}

    def __getattr__(self, name):
        if name not in self.NAMES:   # pytest looks for its own markers on every object of a test module
            raise AttributeError(name)
        from app.delivery import plugin as module

        return getattr(module, name)


plugin = _Plugin()
TIMEOUT = 120   # any one request or server start on a busy machine; nothing here asserts a time
PASSWORD, SECRET = "class-of-2026", "a-cookie-secret-for-the-tests-only"

# Two builds of the page differ in two ways only: Bokeh draws new ids (uuids for the document and its elements,
# "p1234" for its models), and the ideas section measures the RNN loop against attention on the machine that
# builds the page (app/ideas/view.py sequence_timings: times, and how far the time budget let it go), as the
# sentence section measures dot_product_attention (app/sentence/view.py timing_figure)
_IDS = re.compile(rb'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?<=")p\d+(?=")')
MEASURED = {"sequence_timings", "sequence_timing_plot", "timing_caption", "sequence_counts", "sequence_counts_plot",
            "timing_plot", "timing_note"}
_DOCS = re.compile(rb'(<script type="application/json" (?:id|class)="[^"]+"[^>]*>\s*)(.*?)(\s*</script>)', re.S)


def _unmeasured(node):
    """A document's JSON with every model named in MEASURED replaced by its name."""
    if isinstance(node, dict):
        name = (node.get("attributes") or {}).get("name") if node.get("type") == "object" else None
        if name in MEASURED:
            return {"measured": name}
        return {k: _unmeasured(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_unmeasured(v) for v in node]
    return node


def _comparable(html: bytes) -> bytes:
    """``html`` with the measured models set aside (in the document and its parts, app/delivery/export.py
    document_parts) and every id renamed by its order of first appearance."""
    html = _DOCS.sub(lambda m: m.group(1) + json.dumps(_unmeasured(json.loads(m.group(2))), ensure_ascii=False)
                     .encode("utf-8") + m.group(3), html)   # the document and each of its later parts
    names: dict[bytes, bytes] = {}
    return _IDS.sub(lambda k: names.setdefault(k.group(0), b"id%d" % len(names)), html)


def same_page(a: bytes, b: bytes) -> bool:
    """Whether two builds are the same page: byte for byte, but for their ids and the measured figures."""
    return len(_IDS.findall(a)) > 100 and _comparable(a) == _comparable(b)


def test_same_page_tells_another_page_apart():
    other = export_html(ExplorableState(query=2.5), sections=("regression",), tour=active_tour(CATALOGUE)).encode()
    assert same_page(plugin.PAGE.html, plugin.PAGE.html)
    assert all(b'"name":"%s"' % n.encode() in plugin.PAGE.html for n in MEASURED)   # the set-aside names are real
    assert not same_page(plugin.PAGE.html, other)
    assert not same_page(plugin.PAGE.html, plugin.PAGE.html.replace(b"max weight", b"max wieght", 1))


def test_the_page_is_the_offline_files(static_file):
    """The page is what ``attention-explorable export`` writes (built in the same kind of process: no Panel; the
    file the browser tests open, written once per run by that command: tests/export_once.py)."""
    assert same_page(plugin.PAGE.html, static_file.read_bytes())
    assert gzip.decompress(plugin.PAGE.gzipped) == plugin.PAGE.html


def test_a_tour_named_for_the_server_is_in_its_page(tmp_path, monkeypatch):
    """``serve --tour FILE`` names the file in ENV_TOUR; the process that builds the page reads it."""
    from app.tour import ENV_TOUR, TourError, default_tour_path

    shipped = plugin.PAGE.html   # built (once per process) before the variable is set, whichever test runs first
    tour = json.loads(default_tour_path().read_text(encoding="utf-8"))
    tour["steps"][0]["title"] = "A step of our own"
    mine = tmp_path / "mine.json"
    mine.write_text(json.dumps(tour), encoding="utf-8")
    monkeypatch.setenv(ENV_TOUR, str(mine))
    page = plugin.build_page()
    assert b"A step of our own" in page.html and b"A step of our own" not in shipped
    # the CLI checks the file before the server starts; one gone by then stops the build with the tour's own words
    monkeypatch.setenv(ENV_TOUR, str(tmp_path / "missing.json"))
    with pytest.raises(TourError, match="cannot read the file: No such file or directory"):
        plugin.build_page()


def test_the_page_holds_no_absolute_address_so_any_prefix_works():
    html = plugin.PAGE.html.decode("utf-8")
    # nothing the browser would load or follow by itself starts at the server's root or on another host
    assert re.findall(r"""\s(?:src|href|action)\s*=\s*["']?(?:/|https?:)""", html) == []
    assert re.findall(r"<script\b[^>]*\ssrc=", html) == [] and "<link rel=\"stylesheet\"" not in html


# -- in-process: the plugin's routes in Bokeh's tornado application --------------------------------------------

class PluginTest(AsyncHTTPTestCase):
    prefix = None

    def get_app(self):
        return BokehTornado({}, extra_patterns=list(plugin.ROUTES), prefix=self.prefix)

    def get(self, path, method="GET", **headers):
        return self.fetch(path, method=method, headers=headers, decompress_response=False, follow_redirects=False)


class TestThePage(PluginTest):
    def test_every_visit_gets_the_built_bytes_with_its_headers(self):
        r = self.get("/")
        assert r.code == 200 and r.body == plugin.PAGE.html
        assert r.headers["Content-Type"] == "text/html; charset=utf-8"
        assert r.headers["Cache-Control"] == "no-cache" and r.headers["Vary"] == "Accept-Encoding"
        assert r.headers["ETag"] == plugin.PAGE.etag and not r.headers["ETag"].startswith("W/")
        assert int(r.headers["Content-Length"]) == len(plugin.PAGE.html) and "Content-Encoding" not in r.headers
        for k, v in plugin.SECURITY_HEADERS.items():
            assert r.headers[k] == v
        assert "Server" not in r.headers

    def test_gzip_when_the_browser_accepts_it_and_the_same_page_unzipped(self):
        r = self.get("/", **{"Accept-Encoding": "gzip, deflate, br"})
        assert r.code == 200 and r.headers["Content-Encoding"] == "gzip"
        assert r.body == plugin.PAGE.gzipped and gzip.decompress(r.body) == plugin.PAGE.html
        assert len(r.body) < len(plugin.PAGE.html) / 3
        assert r.headers["ETag"] == plugin.PAGE.etag_gzip != plugin.PAGE.etag   # another representation

    def test_a_reload_with_the_etag_costs_a_304_and_a_stale_one_gets_the_page(self):
        for encoding, etag in (("gzip", plugin.PAGE.etag_gzip), ("identity", plugin.PAGE.etag)):
            r = self.get("/", **{"Accept-Encoding": encoding, "If-None-Match": etag})
            assert r.code == 304 and r.body == b"" and r.headers["ETag"] == etag
            assert r.headers["Content-Security-Policy"] == plugin.SECURITY_HEADERS["Content-Security-Policy"]
        assert self.get("/", **{"If-None-Match": '"stale", W/' + plugin.PAGE.etag}).code == 304   # RFC 9110 lists
        assert self.get("/", **{"If-None-Match": '"stale"'}).body == plugin.PAGE.html
        # the gzipped representation's validator never matches the plain one (a cache cannot mix them up)
        assert self.get("/", **{"If-None-Match": plugin.PAGE.etag_gzip}).code == 200

    def test_index_html_deep_links_and_head_get_the_same_page(self):
        for path in ("/index.html", "/?query=3.2&bandwidth=0.5", "/index.html?dataset=step&present=1"):
            r = self.get(path)
            assert r.code == 200 and r.body == plugin.PAGE.html, path
        r = self.get("/", method="HEAD")
        assert r.code == 200 and r.body == b"" and int(r.headers["Content-Length"]) == len(plugin.PAGE.html)

    def test_other_methods_and_paths_are_not_the_page(self):
        assert self.fetch("/", method="POST", body="x").code == 405
        assert self.get("/index.htm").code == 404 and self.get("/page").code == 404


class TestUnderAPrefix(PluginTest):
    prefix = "/course"

    def test_the_page_moves_under_the_prefix(self):
        assert self.get("/course/").body == plugin.PAGE.html
        assert self.get("/course/index.html").body == plugin.PAGE.html
        r = self.get("/course?query=2")   # without its slash: sent to it, where relative addresses resolve
        assert r.code == 301 and r.headers["Location"] == "/course/?query=2"
        assert self.get("/").code == 404 and self.get("/index.html").code == 404


# -- real servers ------------------------------------------------------------------------------------------------

def _get(url: str, opener=None, **headers):
    req = urllib.request.Request(url, headers=headers)
    try:
        with (opener or urllib.request.build_opener()).open(req, timeout=TIMEOUT) as r:
            return r.status, r.read(), r.headers, r.url
    except urllib.error.HTTPError as e:
        return e.code, e.read(), e.headers, url


def test_the_readme_command_serves_the_page_at_root_and_the_app_at_main():
    """``panel serve app/delivery/main.py --plugins app.delivery.plugin``, as the README says, from the project's
    root."""
    port = free_port()
    server = AppServer(port=port)
    server.cmd = [sys.executable, "-m", "panel", "serve", "app/delivery/main.py", "--plugins", "app.delivery.plugin",
                  "--port", str(port), "--address", "127.0.0.1"]
    # ready once it listens (the plugin builds the page before that): the test's own GET of /main builds the one
    # session it needs (AppServer's readiness check would build another first)
    with server.launch().wait_listening(TIMEOUT):
        status, body, headers, _ = _get(f"{server.base}/", **{"Accept-Encoding": "gzip"})
        assert status == 200 and headers["Content-Encoding"] == "gzip"
        assert same_page(gzip.decompress(body), plugin.PAGE.html)
        status, body, headers, _ = _get(f"{server.base}/main")
        assert status == 200 and b'"token":' in body and not same_page(body, plugin.PAGE.html)   # a Bokeh session
        assert server.error_lines() == []


def _sockets(pid: int) -> int:
    """How many sockets a process holds open (its listening socket and its connections)."""
    n = 0
    try:
        fds = [f"/proc/{pid}/fd/{fd}" for fd in os.listdir(f"/proc/{pid}/fd")]
    except OSError:
        return 0
    for fd in fds:
        try:
            n += os.readlink(fd).startswith("socket:")
        except OSError:
            pass
    return n


def _held_get(host: str, port: int, path: str = "/") -> socket.socket:
    """A connection that asked for the page and read all of it, kept open (as a browser keeps its tab's)."""
    s = socket.create_connection((host, port), timeout=TIMEOUT)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept-Encoding: gzip\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(65536)
    head, _, body = head.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head[:100]
    length = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))
    while len(body) < length:
        body += s.recv(65536)
    assert body == plugin.PAGE.gzipped or gzip.decompress(body).startswith(b"<!DOCTYPE html>")
    return s


def test_the_cli_serves_the_page_from_every_forked_process():
    """``attention-explorable serve --port N --num-procs 2``: the page at / (the offline file's), Panel's app at
    /main, and both forked processes answer the page (each holds connections it answered)."""
    with LiveServer(cli_args=("--num-procs", "2")) as server:
        status, body, headers, _ = _get(server.url)
        assert status == 200 and same_page(body, plugin.PAGE.html)
        assert headers["ETag"].startswith('"') and headers["Cache-Control"] == "no-cache"
        assert _get(f"{server.base}/main")[0] == 200
        deadline = time.time() + 60
        while len(server.workers()) < 2 and time.time() < deadline:
            time.sleep(0.2)   # the workers are forked once the page is built and the port bound
        workers = server.workers()
        assert len(workers) == 2 and server.pid not in workers
        before = {pid: _sockets(pid) for pid in workers}
        held = []
        try:
            # one connection after another until each worker holds one it answered (the kernel picks the worker)
            while len(held) < 100 and not all(_sockets(pid) > before[pid] for pid in workers):
                held.append(_held_get("127.0.0.1", server.port))
            assert all(_sockets(pid) > before[pid] for pid in workers), (before, len(held))
        finally:
            for s in held:
                s.close()
        assert server.error_lines() == [] and server.alive()


class _Form(HTMLParser):
    """The first form of a page: its action and the names of its inputs."""

    def __init__(self):
        super().__init__()
        self.action, self.inputs = None, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and self.action is None:
            self.action = a.get("action", "")
        elif tag == "input" and a.get("name"):
            self.inputs.append(a["name"])


def _browser():
    """An opener that keeps cookies and follows redirects, as a browser does."""
    return urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))


def _log_in(opener, url: str, password: str):
    """Open ``url``, land on Panel's login form, fill it in and send it; return where the browser ends up."""
    status, body, _h, at = _get(url, opener)
    assert status == 200 and "/login" in at, (status, at)
    form = _Form()
    form.feed(body.decode("utf-8"))
    assert {"username", "password"} <= set(form.inputs), form.inputs
    data = urlencode({"username": "teacher", "password": password}).encode()
    with opener.open(urllib.request.Request(urljoin(at, form.action), data=data), timeout=TIMEOUT) as r:
        return r.status, r.read(), r.url


@pytest.fixture(scope="module")
def guarded():
    """``attention-explorable serve --prefix /course --basic-auth ... --cookie-secret ...``."""
    with LiveServer(cli_args=("--prefix", "/course", "--basic-auth", PASSWORD, "--cookie-secret", SECRET)) as s:
        yield s


def test_with_basic_auth_the_page_asks_for_a_login_first(guarded):
    assert guarded.url.endswith("/course/")
    for path in ("/course/", "/course/index.html", "/course/?query=2"):
        status, body, headers, _ = _get(guarded.base + path, urllib.request.build_opener(_NoRedirect()))
        assert status in (302, 401), (path, status)
        assert plugin.PAGE.html[:2000] not in body and b"max weight" not in body
        if status == 302:
            assert headers["Location"].startswith("./login?next="), headers["Location"]
    status, body, _h, at = _get(guarded.url, _browser())   # a browser follows to the login page
    assert status == 200 and at.startswith(f"{guarded.base}/course/login") and b'name="password"' in body
    assert _get(guarded.base + "/")[0] == 404   # nothing outside the prefix


def test_a_wrong_password_stays_on_the_login_page(guarded):
    status, body, at = _log_in(_browser(), guarded.url, "not-the-password")
    assert status == 200 and "/course/login" in at and b"Invalid username or password" in body


def test_after_logging_in_through_the_form_the_page_is_served(guarded):
    browser = _browser()
    status, body, at = _log_in(browser, guarded.url + "?query=2.5", PASSWORD)
    assert status == 200 and at.startswith(guarded.url), at
    assert same_page(body, plugin.PAGE.html)
    status, body, headers, _ = _get(guarded.base + "/course/index.html", browser, **{"Accept-Encoding": "gzip"})
    assert status == 200 and headers["Content-Encoding"] == "gzip"
    assert same_page(gzip.decompress(body), plugin.PAGE.html)
    assert _get(guarded.base + "/course/main", browser)[0] == 200   # Panel's own app behind the same login
    assert guarded.error_lines() == []


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def test_a_login_without_a_cookie_secret_is_refused_before_anything_starts():
    env = {k: v for k, v in os.environ.items() if k not in ("PANEL_COOKIE_SECRET", "BOKEH_COOKIE_SECRET")}
    r = subprocess.run([sys.executable, "-m", "app.delivery.cli", "serve", "--port", str(free_port()),
                        "--basic-auth", "x"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1 and "--cookie-secret" in r.stderr


# -- nginx: the exported file from disk, and several servers behind one address -----------------------------------

@pytest.fixture
def site():
    """A folder nginx's workers can read (user nobody when started as root: not under pytest's private tmp)."""
    import shutil
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.mkdtemp(prefix="explorable-site-"))
    os.chmod(folder, 0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_nginx_serves_the_exported_file_with_gzip_static_and_the_pages_headers(site):
    """app/delivery/deploy/nginx-static.conf as its header says: index.html and index.html.gz (``gzip -9``) in a
    folder."""
    need_nginx()
    html = site / "index.html"
    html.write_bytes(plugin.PAGE.html)
    subprocess.run(["gzip", "-9", "--keep", "--force", str(html)], check=True, timeout=TIMEOUT)
    with Nginx(static_root=site) as nginx:
        status, body, headers, _ = _get(nginx.base + "/?query=2", **{"Accept-Encoding": "gzip"})
        assert status == 200 and headers["Content-Encoding"] == "gzip" and gzip.decompress(body) == plugin.PAGE.html
        assert body == (site / "index.html.gz").read_bytes()   # the prepared file, not compressed again
        assert headers["Content-Type"] == "text/html; charset=utf-8" and headers["Vary"] == "Accept-Encoding"
        assert headers["Cache-Control"] == "no-cache" and headers["Last-Modified"]
        for k, v in plugin.SECURITY_HEADERS.items():   # one policy for the page, served either way
            assert headers[k] == v, k
        etag = headers["ETag"]
        assert etag.startswith('"')   # strong
        status, body, headers, _ = _get(nginx.base + "/", **{"Accept-Encoding": "gzip", "If-None-Match": etag})
        assert status == 304 and body == b""
        status, body, headers, _ = _get(nginx.base + "/index.html")
        assert status == 200 and body == plugin.PAGE.html and "Content-Encoding" not in headers
        assert headers["ETag"] != etag   # another representation, another validator
        assert _get(nginx.base + "/missing.html")[0] == 404


def test_nginx_in_front_of_two_servers_answers_the_page_from_any_and_pins_only_main():
    """app/delivery/deploy/nginx.conf: the page at / from either server, with no cookie; /main pinned by one."""
    need_nginx()
    servers = [LiveServer() for _ in range(2)]
    try:
        for s in servers:
            s.launch()
        for s in servers:
            s.wait_ready(timeout=TIMEOUT * 2)
        with Nginx([s.port for s in servers]) as nginx:
            answered = set()
            for _ in range(6):
                status, body, headers, _ = _get(nginx.base + "/", **{"Accept-Encoding": "gzip"})
                assert status == 200 and same_page(gzip.decompress(body), plugin.PAGE.html)
                assert "Set-Cookie" not in headers and headers["ETag"].endswith('-gzip"')
            for line in nginx.access_log().splitlines():
                if '"GET / HTTP' in line:
                    answered.add(line.split()[-3])   # the upstream address
            assert answered <= {f"127.0.0.1:{s.port}" for s in servers} and answered
            status, body, headers, _ = _get(nginx.base + "/main")
            assert status == 200 and b'"token":' in body
            assert re.match(r"explorable_worker=127\.0\.0\.1:\d+;", headers["Set-Cookie"])
        assert all(s.error_lines() == [] for s in servers)
    finally:
        for s in servers:
            s.cleanup()
