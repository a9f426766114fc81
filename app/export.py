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

from .regression.view import PAGE_STYLES, build_regression
from .ui.theme import VIEWPORT_META, mark_root, present_figures
from .state import ExplorableState

SECTIONS = ("regression", "sentence", "ideas", "learning")
EXTERNAL_SCRIPT = re.compile(r'<script\b[^>]*\ssrc="(?!data:)[^"]*"[^>]*>\s*</script>\s*')
HEAD_EXTRA = f'{VIEWPORT_META}\n<link rel="icon" href="data:,">\n'


def build_static_document(state: ExplorableState | None = None, *, sections=SECTIONS,
                          title: str = "Attention as kernel regression", tour=None) -> Document:
    """The Bokeh document of the offline file: the chosen sections and their engines, no server needed.

    ``tour``: the guided tour through the regression section (app/tour; default: the shipped one).
    """
    from .tour import default_tour
    from .tour.view import add_tour, tour_length

    state = state or ExplorableState()
    tour = tour or default_tour()
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown or not sections:
        raise ValueError(f"sections must be a non-empty subset of {', '.join(SECTIONS)}, got {', '.join(sections)}")
    if "learning" in sections and "regression" not in sections:
        raise ValueError("the learning section drives the regression section's bandwidth: export both")
    doc = Document()
    roots, engines = [], []
    sview = None
    if "regression" in sections:
        with tour_length(tour):   # the file's own link parser clamps ?tour=N to this tour's steps
            view = build_regression(state, mode="static")
        roots.append(view.layout)
        engines.append(view.engine)
        engines.append(add_tour(view.layout, state, tour=tour, mode="static").engine)
    learning_at = len(roots)   # the learning section follows the regression it trains (built last: it needs `view`)
    if "sentence" in sections:
        try:
            from .sentence.view import build_sentence
        except ImportError:  # the section is not built yet
            build_sentence = None
        if build_sentence is not None:
            sview = build_sentence(state, mode="static")
            roots.append(sview.layout)
            engines.append(sview.engine)
    if "ideas" in sections:  # after the self-attention section; its graphs follow that section's words
        from .ideas.view import build_ideas
        iview = build_ideas(mode="static", tokens_src=sview.models.get("tokens_src") if sview else None)
        roots.append(iview.layout)
        engines.append(iview.engine)
    if "learning" in sections:  # after the regression: it plays its paths on the regression's slider and plot
        from .learning.view import build_learning
        lview = build_learning(state, mode="static", regression=view)
        roots.insert(learning_at, lview.layout)
        engines.append(lview.engine)
    root = column(*roots, sizing_mode="stretch_width", styles=PAGE_STYLES) if len(roots) > 1 else roots[0]
    present_figures(root, state.present)   # a page opened in presentation mode is built at its sizes
    doc.add_root(mark_root(root, state.present))
    for engine in engines:
        doc.js_on_event("document_ready", engine)
    doc.title = title
    return doc


def export_html(state: ExplorableState | None = None, *, sections=SECTIONS,
                title: str = "Attention as kernel regression", tour=None) -> str:
    """The whole page as one HTML string: BokehJS, the engines and the data inline."""
    doc = build_static_document(state, sections=sections, title=title, tour=tour)
    html = file_html(doc, INLINE, title)
    # Once Panel is imported in the process (a notebook, the served app), Bokeh's bundler adds
    # Panel's ES-module shim as <script src="static/...">.  The file uses no Panel model, and a
    # file:// page cannot load it: drop every script that would be fetched.
    html = EXTERNAL_SCRIPT.sub("", html)
    return html.replace("<head>", "<head>\n" + HEAD_EXTRA, 1)


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
