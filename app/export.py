"""The offline file: one self-contained HTML page that works with no server and no network."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from bokeh.document import Document
from bokeh.embed import file_html
from bokeh.layouts import column
from bokeh.resources import INLINE

from .sections import SECTIONS, build_sections
from .ui.theme import PAGE_STYLES, VIEWPORT_META, mark_root, present_figures
from .state import ExplorableState

EXTERNAL_SCRIPT = re.compile(r'<script\b[^>]*\ssrc="(?!data:)[^"]*"[^>]*>\s*</script>\s*')
HEAD_EXTRA = f'{VIEWPORT_META}\n<link rel="icon" href="data:,">\n'


def build_document(state: ExplorableState, *, mode: str, sections=SECTIONS, title: str = "Attention as kernel regression",
                   tour=None, extra_engines=None):
    """A Bokeh document of the chosen sections and their engines, with no Python session behind it.

    ``mode``: "static" (the offline file) or "live" (app/live: the same page, answered by a server's endpoints).
    ``extra_engines(built)``: more document-ready callbacks, run after the sections' own.
    Returns the document and the built sections (``app.sections.Sections``).
    """
    built = build_sections(state, mode=mode, sections=sections, tour=tour)
    roots = [view.layout for _, view in built.in_page_order()]
    root = column(*roots, sizing_mode="stretch_width", styles=PAGE_STYLES) if len(roots) > 1 else roots[0]
    present_figures(root, state.present)   # a page opened in presentation mode is built at its sizes
    doc = Document()
    doc.add_root(mark_root(root, state.present))
    for engine in built.engines() + list(extra_engines(built) if extra_engines else []):
        doc.js_on_event("document_ready", engine)
    doc.title = title
    return doc, built


def build_static_document(state: ExplorableState | None = None, *, sections=SECTIONS,
                          title: str = "Attention as kernel regression", tour=None) -> Document:
    """The Bokeh document of the offline file: the chosen sections and their engines, no server needed.

    ``tour``: the guided tour through the regression section (app/tour; default: the shipped one).
    The sections are built by ``app.sections.build_sections``, as for the served page.
    """
    doc, _built = build_document(state or ExplorableState(), mode="static", sections=sections, title=title, tour=tour)
    return doc


def export_document_html(doc: Document) -> str:
    """``doc`` as one HTML page: BokehJS, the engines and the data inline, nothing fetched from elsewhere."""
    html = file_html(doc, INLINE, doc.title)
    # Once Panel is imported in the process (a notebook, the served app), Bokeh's bundler adds
    # Panel's ES-module shim as <script src="static/...">.  The file uses no Panel model, and a
    # file:// page cannot load it: drop every script that would be fetched.
    html = EXTERNAL_SCRIPT.sub("", html)
    return html.replace("<head>", "<head>\n" + HEAD_EXTRA, 1)


def export_html(state: ExplorableState | None = None, *, sections=SECTIONS,
                title: str = "Attention as kernel regression", tour=None) -> str:
    """The whole page as one HTML string: BokehJS, the engines and the data inline."""
    return export_document_html(build_static_document(state, sections=sections, title=title, tour=tour))


def write_atomic(path: str | os.PathLike, content: str) -> Path:
    """Write to a temporary file beside ``path`` and rename it, so no half-written file is left behind."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(content)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; a page is meant to be shared
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
