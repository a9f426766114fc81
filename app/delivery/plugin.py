"""The page at ``/`` of ``panel serve``: one self-contained document, the same bytes for every visit.

    panel serve app/delivery/main.py --plugins app.delivery.plugin

Panel imports this module for ``--plugins`` and adds its ``ROUTES`` to the server (Panel's how-to "Add custom
endpoints"); every other flag of ``panel serve`` (``--prefix``, ``--num-procs``, ``--basic-auth``,
``--oauth-*``, ``--ssl-*``, ``--admin``) applies as usual.  ``attention-explorable serve`` runs this command.

    GET /  and  /index.html    the offline file's page (``app.delivery.export.export_html``), gzipped when the browser
                               accepts it, a strong ETag (If-None-Match gets 304), ``Cache-Control: no-cache``
    /main                      the Panel app (app/delivery/main.py): a Python session per visit, for Python callbacks

The page computes everything in the browser, so a visit costs the server one reply and nothing after it.  It
holds no absolute URL, so it works under any ``--prefix``.  With ``--basic-auth`` or ``--oauth-*`` the page
asks for a login as Panel's own pages do (the handler is Bokeh's ``AuthRequestHandler`` with tornado's
``authenticated``, like Panel's ``DocHandler``).

The page is built when this module is imported, once per server: ``panel serve`` imports its plugins before it
binds the port and before ``--num-procs`` forks, so every process shares the one build (a few seconds), no
visitor ever waits behind it, and a page that cannot be built stops the server at its start instead of failing
each visit.  A tour file given to ``attention-explorable serve --tour`` arrives in ``app.tour.ENV_TOUR``.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import time
from dataclasses import dataclass

from bokeh.server.views.auth_request_handler import AuthRequestHandler
from panel.io.server import LoginUrlMixin
from tornado.web import addslash, authenticated

log = logging.getLogger(__name__)

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    # the page is self-contained: it may only talk to this server (BokehJS evaluates the engines' code)
    "Content-Security-Policy": "default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:; "
                               "connect-src 'self'; img-src 'self' data: blob:; object-src 'none'; base-uri 'none'",
}


@dataclass(frozen=True)
class Page:
    """One built page: its HTML as bytes, gzipped once, and a strong ETag for each of the two."""

    html: bytes
    gzipped: bytes
    etag: str
    etag_gzip: str


def build_page() -> Page:
    """The offline file's page (``export_html`` with the default state and ``app.tour.active_tour()``), encoded
    once.  The page carries BokehJS alone: the extension models ``panel serve`` registers in this process (and
    their stylesheets) never reach it (app/delivery/export.py ``page_html``)."""
    from app.delivery.export import export_html
    from app.sections import CATALOGUE, ExplorableState
    from app.tour import active_tour

    html = export_html(ExplorableState(), tour=active_tour(CATALOGUE)).encode("utf-8")
    digest = hashlib.sha256(html).hexdigest()[:32]
    # two representations, two strong validators (RFC 9110 8.8.3): a cache never mixes them up
    return Page(html=html, gzipped=gzip.compress(html, 9, mtime=0), etag=f'"{digest}"', etag_gzip=f'"{digest}-gzip"')


class PageHandler(LoginUrlMixin, AuthRequestHandler):
    """GET the page: gzipped if accepted, 304 for a matching If-None-Match (tornado's ``compute_etag`` check).

    ``AuthRequestHandler`` asks Panel's auth provider for the user, ``authenticated`` sends a visitor without
    one to the login page, and ``LoginUrlMixin`` makes that address relative (it works under ``--prefix``).
    """

    def initialize(self, page: Page):
        self.page = page
        self.gzipped = False

    def set_default_headers(self):
        self.clear_header("Server")
        for k, v in SECURITY_HEADERS.items():
            self.set_header(k, v)

    @authenticated
    def get(self):
        self.gzipped = "gzip" in self.request.headers.get("Accept-Encoding", "")   # as tornado's own gzip reads it
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-cache")   # revalidate each time: a new version shows at once
        self.set_header("Vary", "Accept-Encoding")
        if self.gzipped:
            self.set_header("Content-Encoding", "gzip")
        self.write(self.page.gzipped if self.gzipped else self.page.html)   # finish() answers 304 on a match

    head = get

    def compute_etag(self):
        return self.page.etag_gzip if self.gzipped else self.page.etag


class RootPageHandler(PageHandler):
    """The page at the server's root: ``/course`` (under ``--prefix /course``) is sent to ``/course/``, where
    the page's relative addresses (the login page's, and the link the page writes back) resolve under it."""

    @addslash
    def get(self):
        return super().get()

    head = get


def _built() -> Page:
    started = time.perf_counter()
    page = build_page()
    log.info("page built in %.1f s: %d kB, %d kB gzipped", time.perf_counter() - started, len(page.html) // 1000,
             len(page.gzipped) // 1000)
    return page


PAGE = _built()

ROUTES = [
    (r"/?", RootPageHandler, {"page": PAGE}),
    (r"/index\.html", PageHandler, {"page": PAGE}),
]

__all__ = ["PAGE", "Page", "PageHandler", "ROUTES", "RootPageHandler", "SECURITY_HEADERS", "build_page"]
