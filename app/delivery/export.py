"""The page as one self-contained HTML file: the offline file, and what the served page sends.

The file holds BokehJS, one Bokeh document whose roots are the page's blocks (app/ui/layout.py; the first
screen's in the document itself, each later section's in a part decoded when the page gets to it), the plan
that says where each block goes and which engines start with which section, and the loader
(app/ui/loader.js) that draws the first screen first and the rest as the student scrolls near it.  Nothing
is fetched from anywhere: it works from a USB stick with the network off, and any static host can serve it.
"""

from __future__ import annotations

import html
import json
import os
import re
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from bokeh.document import Document
from bokeh.embed.bundle import bundle_for_objs_and_resources
from bokeh.util.serialization import make_globally_unique_id
from bokeh.resources import INLINE

from ..contract import Catalogue
from ..sections import CATALOGUE, SECTIONS, build_sections  # noqa: F401  (SECTIONS: the names --sections takes)
from ..ui import theme
from ..ui.engine import library_source, read_js
from ..ui.share import DIALOG_CSS, PNG_TEXTS, numbers_texts
from ..ui.layout import SKELETON_CSS, element_id, layout_names, section_html
from ..ui.poster import POSTER_CSS, scoped_css

UI = Path(__file__).resolve().parents[1] / "ui"
EXTERNAL_SCRIPT = re.compile(r'<script\b[^>]*\ssrc="(?!data:)[^"]*"[^>]*>\s*</script>\s*')
DEFAULT_TITLE = "Attention as kernel regression"


def look_names(catalogue: Catalogue) -> set:
    """What a step may look at, and the models the card keeps on screen for some of them (the matrix's box ...)."""
    return {n for c in catalogue for n in c.lookable} | {m for c in catalogue for m in c.look_models.values()}


@dataclass
class BuiltPage:
    """A built page: its Bokeh document, the plan the loader follows, the sections and the page's CSS."""

    doc: Document
    plan: dict
    built: object
    css: str
    present: bool
    data: object = None   # your own data (app.userdata.UserData), the page's opening dataset


def build_document(state=None, *, sections=None, title: str = DEFAULT_TITLE, tour=None, data=None,
                   embed: str | None = None, catalogue: Catalogue = CATALOGUE) -> BuiltPage:
    """The page's document: one root per block, in page order, and the plan for app/ui/loader.js.

    ``data``: your own data (app.userdata.UserData) to open the page on; the page carries them beside the
    document (``page_html``), where a page saved from the browser puts them too (app/ui/share.js).  ``embed``: the
    section the page opens alone in a short frame ("1": the first offered; app/ui/embed.js), unless a link says.
    ``catalogue``: the sections the page may have (app/contract.py ``Catalogue``; the page's by default), of which
    ``sections`` names those it has (all by default) and ``state`` is an instance of its ``state``.
    """
    sections = catalogue.names if sections is None else sections
    taker = next((c.name for c in catalogue if "dataset" in c.takes), None)   # the section that shows your data
    if data is not None and taker not in sections:
        raise ValueError(f"your own data go into the {taker} section: build it too")
    state = state or catalogue.state()
    built = build_sections(state, sections=sections, tour=tour, catalogue=catalogue)
    contracts, names = catalogue.by_name, look_names(catalogue)
    pages = built.pages()
    theme.slim([b.model for p in pages for b in p.blocks] + [e for p in pages for e in p.engines])
    doc = Document()
    blocks, engines, css = [], {}, [SKELETON_CSS, SKIP_CSS, DIALOG_CSS, OPENING_CSS, POSTER_CSS,
                                    scoped_css(theme.PAGE_CSS, ".attn-pv")]
    with doc.models.freeze():   # the document walks its models once, not once per root added (27 roots: 10 s)
        for p in pages:
            engines[p.name] = [e.id for e in p.engines]
            css.append(p.css)
            for b in p.blocks:
                doc.add_root(b.model)
                looks = sorted(n for n in layout_names(b.model) if n in names)
                framed = b.name in contracts[p.name].embed
                blocks.append({"name": b.name, "root": b.model.id, "el": element_id(b), "section": p.name,
                               "place": b.place, "first": b.first, **({"looks": looks} if looks else {}),
                               **({"embed": True, "fill": b.css_height} if framed else {})})
    shared = built.shared_figures()
    # a page opened in presentation mode is built at its sizes, each figure once (a block's engine refers to
    # the other blocks' figures, so sizing block by block grew a figure once per block that reaches it)
    theme.present_figures(doc, state.present)
    theme.name_fonts_of(list(doc.models))   # every text names the font (the document's models, each once)
    doc.title = title
    plan = {"blocks": blocks, "engines": engines, "shared": [f.id for f in shared],
            "theme": theme.js_config(state.present), "present": bool(state.present),
            # a short frame (?embed=, app/ui/embed.js): the figure each section's Save PNG saves, and its words
            "embed_figures": _embed_figures(pages, contracts),
            "embed_leaves_out": {p.name: list(contracts[p.name].embed_leaves_out) for p in pages
                                 if contracts[p.name].embed_leaves_out},
            "needs": {p.name: [n for n in contracts[p.name].needs if n in engines] for p in pages
                      if contracts[p.name].needs},
            "png_texts": {k: PNG_TEXTS[k] for k in ("saved", "saved_framed", "own_tab")},
            # each figure's corner button and the dialog of its numbers (app/ui/share.js numbersButton)
            "numbers": numbers_texts({n: words for p in pages for n, words in contracts[p.name].figures.items()}),
            **({"embed": embed} if embed else {})}
    page_css = theme.root_css() + "\n".join(css)
    return BuiltPage(doc=doc, plan=plan, built=built, css=page_css, present=bool(state.present), data=data)


def _embed_figures(pages, contracts) -> dict:
    """Each section's figure that Save PNG saves in a short frame: its first declared figure that a frame block holds."""
    out = {}
    for p in pages:
        framed = set().union(*(layout_names(b.model) for b in p.blocks if b.name in contracts[p.name].embed))
        first = next((f for f in contracts[p.name].figures if f in framed), None)
        if first:
            out[p.name] = first
    return out


# The first Tab stop, seen only while it has the focus: it takes a keyboard to the guided tour's step card (the
# lesson), past the figure's and the sections' many controls.
SKIP_LINK = '<a class="attn-skip" href="#attn-b-tour">Skip to the lesson: the step card of the guided tour</a>\n'
SKIP_CSS = """
.attn-skip { position: absolute; left: -10000px; top: 0; font-size: var(--page-font-size, 16px); }
.attn-skip:focus { position: fixed; left: 8px; top: 8px; z-index: 1000; padding: 6px 10px; background: #fff;
                   color: #1F5F99; border: 2px solid #1F5F99; border-radius: 4px; font-weight: bold; }
"""


@lru_cache(maxsize=None)
def loader_source() -> str:
    """The page's own script: the library every engine shares (app/ui/engine.py library_source: the theme,
    BokehJS's door, the helpers and the page's bus, ...), once, then the loader (ui/reveal.js, which brings what
    a step talks about on screen, and ui/loader.js)."""
    return library_source() + read_js(UI / "reveal.js") + read_js(UI / "embed.js") + read_js(UI / "loader.js")


# BokehJS and the page's own script come as text after the page's skeleton, and run once a frame has painted the
# skeleton's posters and words (app/ui/opening.js): a script element's text cannot be deferred otherwise.
INLINE_SCRIPT = re.compile(r'<script(?:\s+type="text/javascript")?>')
LATER = '<script type="text/plain" class="attn-later">'
OPENING_FAILED = ('<p id="attn-opening-failed" class="attn-opening-failed" role="alert" hidden>The interactive page '
                  'could not start in this browser: what you see is a picture of its opening state. Try a newer '
                  'browser, or reload the page.</p>\n')
NO_SCRIPT = ('<noscript><p class="attn-opening-failed">The page needs JavaScript to move: what you see is a picture '
             'of its opening state, drawn with JavaScript off.</p></noscript>\n')
OPENING_CSS = """
.attn-opening-failed { margin: 8px 0; padding: 8px 12px; border-left: 4px solid #D55E00; background: #FDE8E1;
                       color: #222; font-size: var(--page-font-size, 16px); }
"""


# The library model's code in the offline file and the served page, whose own script has run the library: the
# engines find it run (LOAD_LIBRARY), and the page carries its text once.
LIBRARY_IN_THE_PAGE = "/* the page's own script runs the library (app/delivery/export.py loader_source) */"


def _script_json(value: str, element: str) -> str:
    return f'<script type="application/json" id="{element}">{value}</script>'


def _used_types(node, out: set) -> set:
    """The names of the model types a serialized document refers to."""
    if isinstance(node, dict):
        if node.get("type") == "object" and isinstance(node.get("name"), str):
            out.add(node["name"])
        for v in node.values():
            _used_types(v, out)
    elif isinstance(node, list):
        for v in node:
            _used_types(v, out)
    return out


def _only_used_defs(doc_json: dict, also=()) -> dict:
    """A document's JSON without the definitions of data models it does not use.  Bokeh lists every data model
    the process has registered; once Panel is imported (a notebook, ``panel serve``) that is a dozen of Panel's,
    which differ with what the process imported: the page would not be the same from one process to the next.
    ``also``: the document's other parts (``document_parts``), whose types count as used too."""
    defs = doc_json.get("defs")
    if defs:
        used = _used_types([{k: v for k, v in doc_json.items() if k != "defs"}, list(also)], set())
        kept = [d for d in defs if d.get("name") in used]
        doc_json = {k: v for k, v in doc_json.items() if k != "defs"} | ({"defs": kept} if kept else {})
    return doc_json


def document_parts(page: BuiltPage) -> tuple[dict, list[tuple[str, list]]]:
    """The document as the page decodes it: the first screen's roots, then each later section's, in page order.

    Returns ``(doc_json, parts)``: ``doc_json`` is what ``Document.to_json`` gives, holding only the roots of
    the blocks marked ``first`` (and every model they refer to); ``parts`` is ``[(section, roots), ...]`` for
    the other roots.  One serializer encodes them in that order, so a model is defined where it is first met
    and referred to by its id after that: the loader decodes the parts in the same order, each into the
    document the earlier ones built (app/ui/loader.js), and a phone decodes 374 of the page's 1222 models
    before its first readouts instead of all of them.
    """
    from bokeh.core.has_props import is_DataModel
    from bokeh.core.serialization import Serializer
    from bokeh.model import Model
    from bokeh.util.version import __version__

    doc = page.doc
    first_ids = {b["root"] for b in page.plan["blocks"] if b["first"]}
    section_of = {b["root"]: b["section"] for b in page.plan["blocks"]}
    first = [r for r in doc.roots if r.id in first_ids]
    ser = Serializer(deferred=False)
    data_models = [m for m in Model.model_class_reverse_map.values() if is_DataModel(m)]
    defs = ser.encode(data_models)
    doc_json = {"version": __version__, "title": doc.title, "config": ser.encode(doc.config),
                "roots": ser.encode(first)}
    if doc.callbacks.js_event_callbacks:
        doc_json["callbacks"] = ser.encode(doc.callbacks.js_event_callbacks)
    parts: list[tuple[str, list]] = []
    for root in doc.roots:
        if root.id in first_ids:
            continue
        section = section_of.get(root.id, "")
        if not parts or parts[-1][0] != section:
            parts.append((section, []))
        parts[-1][1].append(root)
    parts = [(section, ser.encode(roots)) for section, roots in parts]
    if data_models:
        doc_json["defs"] = defs
    return _only_used_defs(doc_json, also=[r for _, r in parts]), parts


def page_html(page: BuiltPage) -> str:
    """``page`` as one HTML document: BokehJS, the blocks' skeleton, the document in parts (``document_parts``),
    the plan and the loader."""
    doc = page.doc
    if getattr(page.built, "library", None) is not None:
        page.built.library.code = LIBRARY_IN_THE_PAGE
    doc_json, parts = document_parts(page)
    docs_json = {make_globally_unique_id(): doc_json}
    from bokeh.core.json_encoder import serialize_json

    bokeh_js, _bokeh_css = bundle_for_objs_and_resources([doc], INLINE)
    # Once Panel is imported in the process (a notebook, `panel serve`), Bokeh's bundler adds Panel's
    # ES-module shim as <script src="static/...">.  The page uses no Panel model, and a file:// page
    # cannot load it: drop every script that would be fetched.
    bokeh_js = INLINE_SCRIPT.sub(LATER, EXTERNAL_SCRIPT.sub("", bokeh_js))
    body = "".join(section_html(s) for s in page.built.pages())
    present = "1" if page.present else "0"
    plan = html.escape(json.dumps(page.plan, separators=(",", ":")), quote=False)
    from ..userdata import embed_text

    # each later section's roots in a script of its own, decoded when the loader gets to it
    rest = "\n".join(f'<script type="application/json" class="attn-part" data-section="{html.escape(section)}">'
                     f'{html.escape(serialize_json({"roots": roots}), quote=False)}</script>' for section, roots in parts)
    carried = "" if page.data is None else _script_json(embed_text(page.data), "attn-data") + "\n"
    skip = SKIP_LINK if page.built.tour is not None else ""
    carries = "" if page.data is None else " data-carries-data"   # the posters show no such data (ui/opening.js)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{html.escape(doc.title)}</title>
{theme.VIEWPORT_META}
<link rel="icon" href="data:,">
<style>
{page.css}
</style>
</head>
<body>
<main class="attn-page" data-present="{present}"{carries}>
<script>
{read_js(UI / "opening.js")}AttnOpening.decide(document.currentScript.parentNode);
</script>
{skip}{OPENING_FAILED}{NO_SCRIPT}{body}
</main>
{carried}{_script_json(html.escape(serialize_json(docs_json), quote=False), "attn-doc")}
{rest}
{_script_json(plan, "attn-plan")}
{bokeh_js}
{LATER}
{loader_source()}
AttnOpening.started(AttnPage.start(document.getElementById("attn-doc").textContent,
                    JSON.parse(AttnPage.unescape(document.getElementById("attn-plan").textContent))));
</script>
<script>AttnOpening.boot();</script>
</body>
</html>
"""


def export_html(state=None, *, sections=None, title: str = DEFAULT_TITLE, tour=None, data=None,
                embed: str | None = None, catalogue: Catalogue = CATALOGUE) -> str:
    """The whole page as one HTML string: BokehJS, the engines and the data inline (``data``: your own, which
    the page opens on: app.userdata.UserData; ``embed``: the section it opens alone in a short frame;
    ``sections`` and ``catalogue``: as ``build_document``'s)."""
    return page_html(build_document(state, sections=sections, title=title, tour=tour, data=data, embed=embed,
                                    catalogue=catalogue))


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


__all__ = ["BuiltPage", "build_document", "page_html", "export_html", "write_atomic", "SECTIONS"]
