"""The offline file: one self-contained HTML page that works with no server and no network."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from bokeh.document import Document
from bokeh.embed import file_html
from bokeh.resources import INLINE

from .document import build_regression
from .state import ExplorableState

HEAD_EXTRA = ('<meta name="viewport" content="width=device-width, initial-scale=1">\n'
              '<link rel="icon" href="data:,">\n')


def export_html(state: ExplorableState | None = None, *, title: str = "Attention as kernel regression") -> str:
    """The whole page as one HTML string: BokehJS, the engine and the data inline."""
    state = state or ExplorableState()
    view = build_regression(state, mode="static")
    doc = Document()
    doc.add_root(view.layout)
    doc.js_on_event("document_ready", view.engine)
    doc.title = title
    html = file_html(doc, INLINE, title)
    return html.replace("<head>", "<head>\n" + HEAD_EXTRA, 1)


def write_atomic(path: str | os.PathLike, content: str) -> Path:
    """Write to a temporary file beside ``path`` and rename it, so no half-written file is left behind."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(content)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
