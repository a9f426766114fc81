"""Posters: the first screen's figures and words as plain HTML and SVG, in the page's file, painted before BokehJS
has arrived (issue #49; app/ui/opening.js hands them over to the live blocks).

A plot's poster draws what BokehJS draws at the same place: the frame inside the plot's borders (the plot's
``min_border_*``, in CSS variables, so a phone's narrower borders apply by a media query), grid lines and axes at
the ticks BokehJS's ``BasicTicker`` picks (``nice_ticks``, its twin), tick labels as ``theme.PLAIN_TICKS_JS`` writes
them (``plain_tick``), the y range a ``DataRange1d`` takes (``padded_range``), and the glyphs: lines, circles sized
in pixels, a vertical line.  Positions along the frame are fractions of it (SVG percentages, CSS ``calc``), so one
poster fits any width the page gives the plot; sizes are in pixels, as BokehJS's are.

Words come as the live Divs' own HTML under their own style sheet, scoped to the poster (``scoped_css``).
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass, field

import numpy as np

from . import theme
from .share import TABLE_ICON

MINUS = "\u2212"


# -- twins of what BokehJS computes ----------------------------------------------------------------------------

def nice_ticks(start: float, end: float, desired: int = 6, minor: int = 5) -> tuple[list[float], list[float]]:
    """The major and minor ticks BokehJS's ``BasicTicker`` (mantissas 1, 2, 5; base 10) puts on [start, end].

    Its interval: the ideal one, ``(end - start) / desired``, brought to a mantissa of 0.5, 1, 2, 5 or 10 times
    its power of ten, the one whose tick count is nearest ``desired``; ticks are its multiples inside the range.

    >>> nice_ticks(-0.5, 6.5)[0]
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    >>> nice_ticks(-1.272, 1.212)[0]
    [-1.0, -0.5, 0.0, 0.5, 1.0]
    """
    span = end - start
    ideal = span / desired
    magnitude = 10.0 ** math.floor(math.log10(ideal))
    candidates = (0.5, 1.0, 2.0, 5.0, 10.0)
    errors = [abs(desired - span / (m * magnitude)) for m in candidates]
    interval = candidates[errors.index(min(errors))] * magnitude
    major = [k * interval for k in range(math.floor(start / interval), math.ceil(end / interval) + 1)]
    major = [round(t, 12) + 0.0 for t in major if start <= t <= end]
    step = interval / minor
    lo = math.floor(start / interval) * interval
    minors = [lo + k * step for k in range(int(math.ceil((end - lo) / step)) + 1)]
    minors = [round(t, 12) for t in minors if start <= t <= end and all(abs(t - m) > step / 10 for m in major)]
    return major, minors


def plain_tick(v: float) -> str:
    """A tick label as ``theme.PLAIN_TICKS_JS`` writes it: plain decimals, the typographic minus.

    >>> [plain_tick(v) for v in (-1.0, -0.5, 0.0, 2.0, 0.25)]
    ['−1', '−0.5', '0', '2', '0.25']
    """
    if v == 0:
        return "0"
    a = abs(v)
    s = f"{a:.{min(20, max(0, 6 - math.floor(math.log10(a))))}f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return (MINUS if v < 0 else "") + s


def padded_range(values, padding: float = 0.15) -> tuple[float, float]:
    """The range a ``DataRange1d(range_padding=padding)`` takes over ``values``: their span grown by ``padding``
    of itself, half on each side."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    lo, hi = float(v.min()), float(v.max())
    pad = (hi - lo) * padding / 2 if hi > lo else 0.5
    return lo - pad, hi + pad


# -- style sheets ---------------------------------------------------------------------------------------------

_COMMENT = re.compile(r"/\*.*?\*/", re.S)


def scoped_css(css: str, scope: str) -> str:
    """A shadow root's style sheet for light DOM under ``scope``: ``:host`` becomes the scope, every other
    selector is put under it; an ``@media`` block's rules likewise."""
    def rules(text: str) -> str:
        out = []
        for m in re.finditer(r"([^{}]+)\{([^{}]*)\}", text):
            sels = ", ".join(scope if s.strip() == ":host" else f"{scope} {s.strip()}" for s in m.group(1).split(","))
            out.append(f"{sels} {{{m.group(2)}}}")
        return "\n".join(out)

    css = _COMMENT.sub("", css)
    out, at = [], 0
    for m in re.finditer(r"@media([^{]+)\{((?:[^{}]*\{[^{}]*\})*\s*)\}", css):
        out.append(rules(css[at:m.start()]))
        out.append(f"@media{m.group(1)}{{\n{rules(m.group(2))}\n}}")
        at = m.end()
    out.append(rules(css[at:]))
    return "\n".join(o for o in out if o.strip())


# -- a plot ---------------------------------------------------------------------------------------------------

@dataclass
class PlotPoster:
    """One plot's poster.  ``borders``: look -> (left, right, top, bottom) in px, looks "normal" and "narrow"
    (below ``theme.NARROW_WIDTH``, where the axis labels step aside); ``x_range`` and ``y_range``: the frame's data
    ranges.  Glyphs are added with ``line``, ``circles`` and ``vline``, drawn in that order."""

    title: str
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    borders: dict
    x_label: str = ""
    y_label: str = ""
    y_ticks: tuple = ()     # fixed y ticks (a FixedTicker: no minor ticks); empty: BasicTicker's
    glyphs: list = field(default_factory=list)

    def fx(self, x) -> np.ndarray:
        """x as a percentage of the frame's width."""
        x0, x1 = self.x_range
        return (np.asarray(x, dtype=float) - x0) / (x1 - x0) * 100

    def fy(self, y) -> np.ndarray:
        """y as a percentage of the frame's height, from its top."""
        y0, y1 = self.y_range
        return (y1 - np.asarray(y, dtype=float)) / (y1 - y0) * 100

    def line(self, x, y, color: str, width: float, dash: str = ""):
        pts = " ".join(f"{a * 10:.2f},{b * 10:.2f}" for a, b in zip(self.fx(x), self.fy(y)) if np.isfinite(a + b))
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        self.glyphs.append(("scaled", f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="{width:g}"'
                                      f'{dashed} vector-effect="non-scaling-stroke"/>'))

    def stems(self, x, y0, y1, color: str, width: float):
        """Vertical segments from y0 to y1 at each x (a line broken by NaN between them)."""
        d = " ".join(f"M{a * 10:.2f} {b * 10:.2f}V{c * 10:.2f}" for a, b, c in zip(self.fx(x), self.fy(y0), self.fy(y1)))
        self.glyphs.append(("scaled", f'<path d="{d}" fill="none" stroke="{color}" stroke-width="{width:g}" '
                                      f'vector-effect="non-scaling-stroke"/>'))

    def circles(self, x, y, sizes, fills, line: str, line_width: float, alpha=1.0):
        """Circles of diameter ``sizes`` px (a scatter's ``size``), filled and outlined."""
        alphas = np.broadcast_to(np.asarray(alpha, dtype=float), np.shape(x))
        for a, b, s, f, al in zip(self.fx(x), self.fy(y), sizes, fills, alphas):
            stroke = (f' stroke="{line}" stroke-opacity="{al:g}" stroke-width="{line_width:g}"' if line_width
                      else "")
            self.glyphs.append(("px", f'<circle cx="{a:.3f}%" cy="{b:.3f}%" r="{s / 2:.3f}" fill="{f}" '
                                      f'fill-opacity="{al:g}"{stroke}/>'))

    def vline(self, x: float, color: str, width: float):
        a = float(self.fx(x))
        self.glyphs.append(("px", f'<line x1="{a:.3f}%" x2="{a:.3f}%" y1="0" y2="100%" stroke="{color}" '
                                  f'stroke-width="{width:g}"/>'))

    def _frame_svg(self, xt, yt, xminor) -> str:
        grid = "".join(f'<line x1="{v:.3f}%" x2="{v:.3f}%" y1="0" y2="100%"/>' for v in self.fx(xt))
        grid += "".join(f'<line y1="{v:.3f}%" y2="{v:.3f}%" x1="0" x2="100%"/>' for v in self.fy(yt))
        parts, group = [], None
        for kind, g in self.glyphs:   # consecutive glyphs of one kind share an <svg>: scaled (0..1000) or pixels
            if kind != group:
                if group is not None:
                    parts.append("</svg>")
                parts.append('<svg class="attn-pv-layer attn-pv-glyphs" viewBox="0 0 1000 1000" '
                             'preserveAspectRatio="none">' if kind == "scaled" else
                             '<svg class="attn-pv-layer attn-pv-glyphs">')
                group = kind
            parts.append(g)
        if group is not None:
            parts.append("</svg>")
        x0, x1 = self.x_range
        return (f'<div class="attn-pv-frame" data-x0="{x0:g}" data-x1="{x1:g}" aria-hidden="true">'
                f'<svg class="attn-pv-layer attn-pv-grid attn-poster-plot">{grid}</svg>{"".join(parts)}</div>')

    def html(self, name: str, label: str, description: str, drag: str = "") -> str:
        """The poster's element: a figure with ``label`` as its name and ``description`` as its description.
        ``drag``: the slider whose value a press on the frame sets, once the live page is there (its x)."""
        xt, xminor = nice_ticks(*self.x_range)
        yt, yminor = (list(self.y_ticks), []) if self.y_ticks else nice_ticks(*self.y_range)
        xs = "".join(f'<span class="attn-pv-xt" style="left:{v:.3f}%">{plain_tick(t)}</span>'
                     for t, v in zip(xt, self.fx(xt)))
        ys = "".join(f'<span class="attn-pv-yt" style="top:{v:.3f}%">{plain_tick(t)}</span>'
                     for t, v in zip(yt, self.fy(yt)))
        ticks = "".join(f'<i class="attn-pv-xm" style="left:{v:.3f}%"></i>' for v in self.fx(xt))
        ticks += "".join(f'<i class="attn-pv-xn" style="left:{v:.3f}%"></i>' for v in self.fx(xminor))
        ticks += "".join(f'<i class="attn-pv-ym" style="top:{v:.3f}%"></i>' for v in self.fy(yt))
        ticks += "".join(f'<i class="attn-pv-yn" style="top:{v:.3f}%"></i>' for v in self.fy(yminor))
        n, w = self.borders["normal"], self.borders["narrow"]
        var = lambda k, b: f"--pl-{k}:{b[0]}px;--pr-{k}:{b[1]}px;--pt-{k}:{b[2]}px;--pb-{k}:{b[3]}px"  # noqa: E731
        desc_id = f"attn-pv-desc-{name}"
        return (f'<div class="attn-poster attn-poster-fig" data-poster="{name}" data-poster-drag="{drag}" role="img" '
                f'aria-label="{html.escape(label, quote=True)}" aria-describedby="{desc_id}" '
                f'style="{var("w", n)};{var("n", w)}">'
                f'<span class="attn-pv-corner" aria-hidden="true">{TABLE_ICON}</span>'
                f'<span class="attn-pv-title">{html.escape(self.title)}</span>'
                f'{self._frame_svg(xt, yt, xminor)}'
                f'<div class="attn-pv-axes" aria-hidden="true">{ticks}<div class="attn-pv-x">{xs}</div>'
                f'<div class="attn-pv-y">{ys}</div>'
                f'<span class="attn-pv-xl">{html.escape(self.x_label)}</span>'
                f'<span class="attn-pv-yl">{html.escape(self.y_label)}</span></div>'
                f'<p class="attn-pv-desc" id="{desc_id}">{html.escape(description)}</p></div>')


def words_poster(name: str, inner: str, static: bool = False, after: str = "") -> str:
    """A block's words as the live Div shows them (its HTML, under ``POSTER_CSS``'s copy of its style sheet), and
    ``after`` them (sliders, say).  ``static``: the same words in every state, shown while another state loads too."""
    cls = "attn-poster attn-poster-words" + (" attn-poster-static" if static else "")
    return f'<div class="{cls}" data-poster="{name}"><div class="attn-pv attn-pv-div">{inner}</div>{after}</div>'


def to_precision(v: float, digits: int = 3) -> str:
    """JavaScript's ``v.toPrecision(digits)`` for a positive ``v`` of everyday size (``theme.log_format``'s words).

    >>> [to_precision(v) for v in (0.62, 1.0, 12.34, 0.05)]
    ['0.620', '1.00', '12.3', '0.0500']
    """
    return f"{v:.{max(0, digits - 1 - math.floor(math.log10(abs(v))))}f}"


def slider_poster(slider, value_text: str, style: dict | None = None) -> str:
    """A Bokeh ``Slider`` as it looks before it is live: its title and value, its track filled to the value and
    its handle there (the noUiSlider look BokehJS gives it); ``style``: the slider's own ``styles`` (its padding)."""
    frac = (slider.value - slider.start) / (slider.end - slider.start) * 100
    css = "".join(f"{k}:{v};" for k, v in (style or {}).items())
    return (f'<div class="attn-pv-slider" style="{html.escape(css, quote=True)}">'
            f'<div class="attn-pv-st">{html.escape(slider.title)}: <b>{html.escape(value_text)}</b></div>'
            f'<div class="attn-pv-track"><i style="width:{frac:.3f}%"></i><u style="left:{frac:.3f}%"></u></div></div>')


def waiting_poster(name: str) -> str:
    """What a plot's place shows while a state other than the file's opens (a deep link, your data)."""
    return (f'<div class="attn-poster attn-poster-wait" data-poster="{name}" role="status">'
            f'<p>Loading this state\u2026</p></div>')


NARROW = theme.NARROW_WIDTH - 0.02

POSTER_CSS = f"""
/* posters (app/ui/poster.py): shown before the live page; which ones, app/ui/opening.js decides */
.attn-poster-wait {{ display: none; }}
main[data-opening="loading"] .attn-poster:not(.attn-poster-static):not(.attn-poster-wait),
main[data-opening="failed"] .attn-poster-wait {{ display: none; }}
main[data-opening="loading"] .attn-poster-wait {{ display: flex; }}
.attn-poster-wait {{ height: 100%; align-items: center; justify-content: center; color: #444;
                     font-size: var(--page-font-size, 16px); }}
.attn-poster {{ contain: layout paint style; }}   /* its layout is its own: the live page's does not redo it */
.attn-covered {{ position: relative; }}
/* over the live block drawn under it, on a layer of its own: what BokehJS paints under it does not repaint it */
.attn-covered > .attn-poster {{ position: absolute; left: 0; right: 0; top: 0; z-index: 3; background: #fff;
                                will-change: transform; padding: inherit; box-sizing: border-box; }}
/* (padding: the block's own, which a phone gives the words' blocks: the words stay where they were) */
main[data-opening-press] .attn-poster-fig {{ cursor: progress; }}
.attn-poster-words {{ display: flex; flex-direction: column; }}
.attn-pv-div {{ margin: 5px; }}
.attn-pv-div::before, .attn-pv-div::after {{ content: ""; display: table; }}
/* BokehJS gives a plot whole pixels: a block of 295.4 px holds a plot of 295 */
.attn-poster-fig {{ --pl: var(--pl-w); --pr: var(--pr-w); --pt: var(--pt-w); --pb: var(--pb-w);
                    position: relative; height: 100%; height: round(down, 100%, 1px); overflow: hidden; font-family: {theme.FONT};
                    color: #444444; }}
@media (max-width: {NARROW}px) {{
  /* BokehJS gives a plot whole pixels: a block of 295.4 px holds a plot of 295 */
.attn-poster-fig {{ --pl: var(--pl-n); --pr: var(--pr-n); --pt: var(--pt-n); --pb: var(--pb-n); }}
  .attn-pv-xl, .attn-pv-yl {{ display: none; }}
}}
.attn-pv-frame, .attn-pv-axes {{ position: absolute; left: var(--pl); right: var(--pr); top: var(--pt);
                                 bottom: var(--pb); }}
.attn-pv-layer {{ position: absolute; left: 0; top: 0; width: 100%; height: 100%; overflow: visible; }}
.attn-pv-grid line {{ stroke: #e5e5e5; stroke-width: 1; shape-rendering: crispEdges; }}
/* BokehJS draws its glyphs half a pixel right of and below the frame's coordinates */
.attn-pv-layer.attn-pv-glyphs {{ transform: translate(0.5px, 0.5px); }}
/* the y axis's line is the frame's first column, the x axis's the row under the frame, as BokehJS draws them */
.attn-pv-axes {{ border-left: 1px solid #000; border-bottom: 1px solid #000; margin: 0 0 -1px 0; }}
.attn-pv-axes i {{ position: absolute; background: #000; }}
.attn-pv-xm {{ bottom: -6.5px; height: 8px; width: 1px; margin-left: -0.5px; }}
.attn-pv-xn {{ bottom: -4.5px; height: 4px; width: 1px; margin-left: -0.5px; }}
.attn-pv-ym {{ left: -7.5px; width: 8px; height: 1px; margin-top: -0.5px; }}
.attn-pv-yn {{ left: -5.5px; width: 4px; height: 1px; margin-top: -0.5px; }}
.attn-pv-x, .attn-pv-y {{ position: absolute; font-size: {theme.SIZES["normal"]["tick"]}; line-height: 1; }}
.attn-pv-x {{ left: 0; right: 0; top: calc(100% + 10px); }}
.attn-pv-y {{ top: 0; bottom: 0; right: calc(100% + 12px); }}
.attn-pv-xt {{ position: absolute; transform: translateX(-50%); white-space: nowrap; }}
.attn-pv-yt {{ position: absolute; right: 0; transform: translateY(-50%); white-space: nowrap; }}
.attn-pv-title {{ position: absolute; left: calc(var(--pl) + 0.5px); bottom: calc(100% - var(--pt) + 5px); font-weight: bold;
                  font-size: {theme.SIZES["normal"]["title"]}; line-height: 1; white-space: nowrap; }}
.attn-pv-xl, .attn-pv-yl {{ position: absolute; font-size: {theme.SIZES["normal"]["axis_label"]}; line-height: 1; }}
.attn-pv-xl {{ left: 50%; transform: translateX(-50%); bottom: 0; top: auto; margin-bottom: calc(-1 * var(--pb) + 4px); }}
.attn-pv-yl {{ left: calc(-1 * var(--pl) + 4px); top: 50%; transform: translateY(-50%) rotate(-90deg); }}
/* where the live plot's table button will be (app/ui/share.js numbersButton): its look, not yet a button */
.attn-pv-corner {{ position: absolute; left: 0; top: 0; box-sizing: border-box; width: 26px; height: 26px; display: flex;
                   align-items: center; justify-content: center; color: #1F5F99; background: rgba(255,255,255,0.92);
                   border: 1px solid #1F5F99; border-radius: 4px; }}
/* a slider (slider_poster): the look BokehJS's noUiSlider has (app/ui/theme.py slider_css) */
.attn-pv-slider {{ margin: 5px; font-size: var(--widget-font-size, 15px); line-height: 1.4286; color: #222; }}
.attn-pv-row {{ display: flex; flex-wrap: wrap; gap: 4px 16px; }}
.attn-pv-row > .attn-pv-slider {{ flex: 1 0 0; min-width: 140px; }}
.attn-pv-st b {{ font-weight: 700; }}
.attn-pv-track {{ position: relative; height: 8px; margin: 5px 0; border: 1px solid #d3d3d3; border-radius: 4px;
                  background: #fafafa; box-shadow: inset 0 1px 1px #f0f0f0, 0 3px 6px -5px #bbb; }}
.attn-pv-track i {{ position: absolute; left: 0; top: 0; bottom: 0; background: #e6e6e6; border-radius: 3px 0 0 3px; }}
.attn-pv-track u {{ position: absolute; top: -9px; width: 24px; height: 24px; margin-left: -12px; box-sizing: border-box;
                    background: #fff; border: 1px solid #d9d9d9; border-radius: 3px;
                    box-shadow: inset 0 0 1px #fff, inset 0 1px 7px #ebebeb, 0 3px 6px -3px #bbb; }}
.attn-pv-desc {{ position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); margin: 0; }}
"""


__all__ = ["nice_ticks", "plain_tick", "padded_range", "scoped_css", "PlotPoster", "words_poster", "slider_poster",
           "to_precision", "waiting_poster", "POSTER_CSS"]
