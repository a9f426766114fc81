"""The live page: the offline file's page, built once per server process, plus the bridge to the server.

Every visit gets the same bytes (``live_page()``): the browser reads the link, runs the engines and
writes the link back, as the offline file does.  What needs Python goes through ``bridge.js`` to the
endpoints of ``app/live/api.py``.  No Panel: the page is a Bokeh document written out as HTML.
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from bokeh.models import CustomJS

from ..export import build_document, export_document_html
from ..state import ExplorableState, url_spec
from ..ui.engine import engine_code, url_rules

HERE = Path(__file__).resolve().parent
API = "api/"   # relative: the endpoints sit beside the page, under any prefix a proxy gives it


def bridge(built) -> CustomJS:
    """The bridge's CustomJS (app/live/bridge.js), wired to the widgets whose changes need the server."""
    reg, learning, sent = built.regression, built.learning, built.sentence
    fields = reg.generator
    args = dict(config={"api": API, "spec": url_spec(), "url_rules": url_rules()},
                ds=reg.ds, w_dataset=reg.widgets["dataset"], fields=fields, notice_div=reg.notice_div,
                gen=learning.models["gen"] if learning else None, w_lr=learning.widgets["lr"] if learning else None,
                holder=sent.holder if sent else None, w_input=sent.text_input if sent else None,
                tokens=sent.models["tokens_src"] if sent else None,
                sentence_notice=sent.notice_div if sent else None)
    cb = CustomJS(args=args, code=engine_code(HERE / "bridge.js", "AttnLive.handle", list(args), mirror=False))
    reg.widgets["dataset"].js_on_change("value", cb)
    fields["go"].js_on_event("button_click", cb)
    if learning:
        learning.widgets["lr"].js_on_change("value", cb)
    if sent:
        sent.text_input.js_on_change("value", cb)
    return cb


@dataclass(frozen=True)
class Page:
    """One built page: its HTML as bytes, gzipped once, and an ETag for both."""

    html: bytes
    gzipped: bytes
    etag: str


def build_live_html(state: ExplorableState | None = None, *, tour=None) -> str:
    """The live page's HTML (BokehJS inline, as in the offline file, so a proxy's prefix never matters)."""
    state = state or ExplorableState()
    doc, built = build_document(state, mode="live", tour=tour, extra_engines=lambda b: [bridge(b)])
    return export_document_html(doc)


@lru_cache(maxsize=1)
def live_page() -> Page:
    """This process's page, built at its first call (the server calls it before it listens)."""
    from ..tour import active_tour

    html = build_live_html(tour=active_tour()).encode("utf-8")
    return Page(html=html, gzipped=gzip.compress(html, 6, mtime=0),
                etag='"' + hashlib.sha256(html).hexdigest()[:32] + '"')


__all__ = ["API", "Page", "bridge", "build_live_html", "live_page"]
