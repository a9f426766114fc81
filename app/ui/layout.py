"""How the page is cut into blocks and laid out: one Bokeh root per block, arranged by plain HTML and CSS.

A section gives the page a list of :class:`Block` s, each one Bokeh root (a figure, a few widgets, a Div)
with a *place* in the section's skeleton::

    <section class="attn-sec" data-section="regression">
      <div class="attn-head">   head blocks: the section's title and words                  </div>
      <div class="attn-grid">
        <div class="attn-fig">  the figure and what acts on it, kept in view (position: sticky)
          <div class="attn-stage">  stage blocks: the plot and its controls              </div>
          <div class="attn-xplots"> xplots blocks: the plots that share its x axis        </div>
        </div>
        <div class="attn-side"> side blocks: the step card, readouts, more controls, texts, </div>
      </div>                    more plots; they scroll beside the figure
      <div class="attn-body">   body blocks: everything else, one under the other           </div>
    </section>

On a wide screen (900 px and up) the grid has two columns and the figure column stays in view while the
side column scrolls past it, as in MLU-Explain's articles; on a phone there is one column and only the
stage (the main plot and its sliders) stays at the top.  Because every block is its own root, the browser
draws each one on its own: the first screen first, the rest as the student scrolls near it or when the
browser is idle (app/ui/loader.js), and a block that changes never lays out the others again.

The offline file and the served page write this skeleton as HTML (app/delivery/export.py); a notebook shows the same
blocks inside Bokeh layouts (:func:`bokeh_layout`).
"""

from __future__ import annotations

import html

from dataclasses import dataclass, field

from . import theme

PLACES = ("head", "stage", "xplots", "side", "body")
GRID_PLACES = ("stage", "xplots", "side")
WIDE = theme.WIDE   # px: from this width on, the figure column and the side column sit side by side


@dataclass
class Block:
    """One piece of a section that the browser draws on its own.

    ``model``: the Bokeh root.  ``place``: where it goes in the section's skeleton (``PLACES``).
    ``height``: the px it is expected to take, reserved before it is drawn so the page does not jump
    (0 for a block drawn hidden).  ``first``: part of the first screen, drawn before anything else.
    ``css_height``: the block's height is set by the page's CSS (a plot that fills it, sizing_mode
    "stretch_both"); the notebook gives it ``height`` px instead.  ``poster``: HTML its placeholder holds until
    the block is drawn, painted before BokehJS arrives (app/ui/poster.py; the page's file only).
    """

    name: str
    model: object
    place: str = "body"
    height: int = 0
    first: bool = False
    css_height: bool = False
    poster: str = ""

    def __post_init__(self):
        if self.place not in PLACES:
            raise ValueError(f"place must be one of {', '.join(PLACES)}, got {self.place!r}")
        if not self.name.replace("-", "").isalnum():
            raise ValueError(f"a block's name is letters, digits and '-', got {self.name!r}")


@dataclass
class SectionBlocks:
    """A section as the page draws it: its blocks in order, and the engines to start once its first block
    is drawn (each a Bokeh CustomJS that takes a ``document_ready`` event as its start)."""

    name: str
    blocks: list = field(default_factory=list)
    engines: list = field(default_factory=list)
    css: str = ""       # the section's own page CSS (its plots' heights), added to SKELETON_CSS
    label: str = ""     # what a screen reader calls the section's landmark (its contract's words)

    def placed(self, *places) -> list:
        return [b for b in self.blocks if b.place in places]


def layout_names(model) -> list[str]:
    """The names of the models a block shows: the layout tree under ``model`` (children of rows and columns),
    not everything it refers to (a figure refers to its engine, and the engine to every widget)."""
    out, stack = [], [model]
    while stack:
        m = stack.pop()
        if getattr(m, "name", None):
            out.append(m.name)
        kids = getattr(m, "children", None)
        if kids:
            stack.extend(k[0] if isinstance(k, tuple) else k for k in kids)
    return out


def element_id(block: Block) -> str:
    return f"attn-b-{block.name}"


def _div(cls: str, inner: str, **attrs) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return f'<div class="{cls}"{extra}>{inner}</div>'


def placeholder(block: Block) -> str:
    """The element a block is drawn into: it holds the block's height until then (a hidden block: none), and the
    block's poster."""
    style = "" if block.css_height or not block.height else f' style="min-height:{block.height}px"'
    return f'<div class="attn-block b-{block.name}" id="{element_id(block)}"{style}>{block.poster}</div>'


def card_slot(section: SectionBlocks, where: str) -> str:
    """Where the tour's step card stands while it shows a step of this section (app/tour/tour.js moves it):
    at the top of the side column ("side"), above the figure when one column holds everything and the figure
    does not stay in view ("top"), or at the top of the body in a section without a side column ("body")."""
    return f'<div class="attn-card-slot" data-section="{section.name}" data-where="{where}"></div>'


def section_html(section: SectionBlocks) -> str:
    """The skeleton of one section, with a placeholder for each of its blocks (and a slot for the step card)."""
    blocks = lambda *places: "".join(placeholder(b) for b in section.placed(*places))  # noqa: E731
    parts, grid = [], bool(section.placed(*GRID_PLACES))
    if section.placed("head"):
        parts.append(_div("attn-head", blocks("head")))
    if grid:
        fig = _div("attn-fig", _div("attn-stage", blocks("stage")) + _div("attn-xplots", blocks("xplots")))
        parts.append(card_slot(section, "top"))
        parts.append(_div("attn-grid", fig + _div("attn-side", card_slot(section, "side") + blocks("side"))))
    if section.placed("body") or not grid:
        parts.append(_div("attn-body", ("" if grid else card_slot(section, "body")) + blocks("body")))
    label = f' aria-label="{html.escape(section.label, quote=True)}"' if section.label else ""
    return (f'<section class="attn-sec attn-sec-{section.name}" id="attn-sec-{section.name}" '
            f'data-section="{section.name}"{label}>{"".join(parts)}</section>')


# The page's own CSS, in the light DOM around Bokeh's roots (each root draws inside its own shadow root,
# whose text follows the CSS variables set on :root by theme.root_css).
SKELETON_CSS = f"""
html {{ -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }}
body {{ margin: 0; background: #fff; color: #222; font-family: {theme.FONT}; }}
.attn-page {{ max-width: var(--page-max-width, 1200px); margin: 0 auto; padding: 0 8px 24px; box-sizing: border-box; }}
.attn-sec {{ margin: 0 0 28px; }}
.attn-block {{ min-width: 0; }}
.attn-card-slot > .attn-block {{ margin: 0 0 8px; }}
.attn-grid {{ display: block; }}
.attn-fig {{ display: contents; }}
.attn-stage {{ position: sticky; top: 0; z-index: 3; background: #fff; box-shadow: 0 6px 6px -6px rgba(0,0,0,0.25); }}
.attn-side > .attn-block, .attn-body > .attn-block, .attn-head > .attn-block {{ margin: 0 0 8px; }}
.attn-xplots > .attn-block {{ margin: 4px 0 0; }}
/* a phone: the plots take the screen's whole width (their frames keep 280 px of 360), the words keep a margin */
@media (max-width: 599px) {{ .attn-page {{ padding: 0 4px 24px; }}
  .attn-stage, .attn-xplots {{ margin-left: -4px; margin-right: -4px; }}
  .attn-stage > .attn-block:not([class*="-plot"]), .attn-xplots > .attn-block:not([class*="-weights"]):not([class*="-spread"]) {{
    padding: 0 4px; }} }}
/* a short screen (a phone turned sideways) keeps nothing in view: the stage would fill it */
@media (max-height: 560px) and (max-width: {WIDE - 1}px) {{ .attn-stage {{ position: static; box-shadow: none; }} }}
@media (min-width: {WIDE}px) {{
  .attn-grid {{ display: grid; grid-template-columns: minmax(0, 3fr) minmax(320px, 2fr); gap: 0 24px;
               align-items: start; }}
  .attn-fig {{ display: block; position: sticky; top: 0; z-index: 1; background: #fff; }}
  .attn-stage {{ position: static; box-shadow: none; }}
}}
@media (prefers-reduced-motion: reduce) {{ html {{ scroll-behavior: auto !important; }} }}
/* The tour's step card, docked at the foot of the screen while it shows a step (app/tour/tour.js dock): above
   everything, so its title, Try it line and buttons stay on screen and a tap on them reaches them; the page keeps
   its height free at its end (--dock-h, the card's height, set by tour.js). */
#attn-b-tour.attn-docked {{ position: fixed; left: 0; right: 0; bottom: 0; z-index: 20; margin: 0;
  --tour-card-max: 25vh; max-height: 80vh; overflow-y: auto; overscroll-behavior: contain; background: #fff; box-sizing: border-box;
  padding: 4px max(4px, calc((100% - var(--page-max-width, 1200px)) / 2 + 8px)) calc(4px + env(safe-area-inset-bottom, 0px));
  border-top: 1px solid #c8d3dc; box-shadow: 0 -4px 12px rgba(0, 0, 0, 0.18); }}
/* on a wide screen, at the foot of the side column (tour.js sets its left and width), the figure column beside it */
#attn-b-tour.attn-docked-side {{ right: auto; padding: 6px 0 calc(6px + env(safe-area-inset-bottom, 0px));
  --tour-card-max: 40vh;
  box-shadow: 0 -6px 8px -4px rgba(0, 0, 0, 0.18); border-top: 0; }}
/* a presenter's card (its words 22 px) keeps its title, its Try it line and the keys' hint whole on a projector of
   1280 x 720 or 1024 x 768 (tour.js leaves the line about what is shown for "More" there) */
.attn-page[data-present="1"] #attn-b-tour.attn-docked {{ --tour-card-max: 30vh; }}
.attn-page[data-present="1"] #attn-b-tour.attn-docked-side {{ --tour-card-max: 48vh; }}
/* a phone: the card's words take at most a fifth of the screen (the rest of them scroll inside it) */
@media (max-width: 599px) {{ #attn-b-tour.attn-docked {{ --tour-card-max: 21vh; }} }}
.attn-page {{ padding-bottom: calc(24px + var(--dock-h, 0px)); }}
/* what the keyboard's focus scrolls into view lands above the docked card, not under it (WCAG 2.4.11) */
html {{ scroll-padding-bottom: calc(8px + var(--dock-h, 0px)); }}
/* a wide screen's figure column, when the card docks across it, keeps to the room above the card and scrolls
   inside itself if it is taller */
@media (min-width: {WIDE}px) {{ .attn-fig {{ max-height: calc(100vh - var(--dock-fig, 0px)); overflow-x: hidden;
  overflow-y: auto; }} }}
/* a short frame (?embed=, app/ui/embed.js): one section's frame blocks under a bar, the plots sharing the frame's
   height left (--embed-rest: the bar's and the other blocks' height; --embed-fills: how many plots share it) */
.attn-page[data-embed] {{ max-width: none; padding: 0 6px; }}
.attn-page[data-embed] > :not(.attn-embed-bar):not(.attn-embedded),
.attn-page[data-embed] .attn-block:not(.attn-embed-block), .attn-page[data-embed] .attn-card-slot {{ display: none; }}
.attn-page[data-embed] .attn-sec {{ margin: 0; }}
.attn-page[data-embed] .attn-grid {{ display: block; }}
.attn-page[data-embed] .attn-fig, .attn-page[data-embed] .attn-stage {{ position: static; box-shadow: none;
  max-height: none; overflow: visible; }}
.attn-page[data-embed] .attn-embed-block {{ margin: 0; }}
.attn-page[data-embed] .attn-embed-fill {{
  height: max(160px, calc((100vh - var(--embed-rest, 220px)) / var(--embed-fills, 1))); }}
.attn-embed-bar {{ display: flex; flex-wrap: wrap; align-items: center; gap: 2px 12px; padding: 3px 0; }}
.attn-embed-bar a {{ color: #1F5F99; }}
.attn-embed-bar button {{ font: inherit; padding: 1px 8px; border: 1px solid #1F5F99; border-radius: 4px;
  background: #fff; color: #1F5F99; cursor: pointer; min-height: 24px; }}
.attn-embed-said {{ color: #1b5e20; }}
.attn-embed-said input {{ width: min(40ch, 90vw); font: inherit; }}
"""


def bokeh_layout(sections, *, present: bool = False):
    """The same blocks in Bokeh layouts, for a notebook or a Panel session, where there is no page to write:
    one column per section, the grid's two columns side by side when the output is wide enough."""
    from bokeh.layouts import column
    from bokeh.models import InlineStyleSheet

    grid_css = InlineStyleSheet(css=f"""
:host {{ display: grid !important; gap: 0 24px; grid-template-columns: minmax(0, 1fr); align-items: start; }}
@media (min-width: {WIDE}px) {{ :host {{ grid-template-columns: minmax(0, 3fr) minmax(320px, 2fr); }} }}
""")
    def sized(b):
        if not b.css_height:
            return b.model
        return column(b.model, sizing_mode="stretch_width",
                      height=theme.present_height(b.height) if present else b.height)

    out = []
    for s in sections:
        col = lambda *places: [sized(b) for b in s.placed(*places)]  # noqa: E731
        children = col("head")
        if s.placed(*GRID_PLACES):
            fig = column(*col("stage", "xplots"), sizing_mode="stretch_width")
            side = column(*col("side"), sizing_mode="stretch_width")
            from bokeh.layouts import row
            children.append(row(fig, side, sizing_mode="stretch_width", stylesheets=[grid_css]))
        children += col("body")
        out.append(column(*children, sizing_mode="stretch_width", name=f"{s.name}_section"))
    return column(*out, sizing_mode="stretch_width", styles=theme.PAGE_STYLES, name="explorable_page")


__all__ = ["Block", "SectionBlocks", "PLACES", "WIDE", "SKELETON_CSS", "section_html", "placeholder", "element_id",
           "layout_names",
           "bokeh_layout"]
