"""What every section shares on screen: colours, the font, text sizes and the page's CSS.

Fonts.  The page names one font family on purpose: Verdana's design, which
ships as Verdana on Windows, macOS and iOS and as DejaVu Sans (its free
descendant through Bitstream Vera, with nearly the same letter widths) on
Linux.  It is among the widest common screen fonts, so a layout that fits with
it fits with any fallback (Android's Roboto is narrower).  Nothing is
downloaded: no web font, no CDN.  CI installs DejaVu (``fonts-dejavu-core``),
so the tests measure the page with the font it names.

Sizes.  Two sets, ``normal`` (phones and laptops) and ``present`` (a projector,
``?present=1``).  HTML text follows CSS variables set on the document's root
(``root_styles``): every Div's text is ``var(--page-font-size)`` and every
Bokeh widget reads ``--bokeh-font-size``, so presentation mode changes two
variables instead of restyling each part.  Canvas text (titles, ticks, axis
labels, legends) is set per figure by ``style_figure`` here and by
``Theme.apply`` (app/ui/theme.js) when presentation mode changes.
"""

from __future__ import annotations

from bokeh.palettes import Cividis10

# Okabe-Ito: distinguishable with every common colour-vision deficiency
ORANGE, SKY, GREEN, BLUE, VERMILLION, PURPLE, GREY = (
    "#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#555555")
# cividis (blue to yellow) in ten steps, Bokeh's own: readable in greyscale and with colour-vision deficiencies
WEIGHT_PALETTE = list(Cividis10)

FONT = '"DejaVu Sans", Verdana, "Bitstream Vera Sans", sans-serif'
MONO_FONT = '"DejaVu Sans Mono", Menlo, Consolas, monospace'

SIZES = {
    "normal": {"card": "16px", "page": "16px", "widget": "15px", "title": "16px", "axis_label": "15px", "tick": "14px",
               "legend": "14px", "glyph": "13px", "small": "14px", "max_width": "1200px",
               "badge": "0.85em"},
    "present": {"card": "clamp(22px, 2.6vh, 28px)", "page": "24px", "widget": "22px", "title": "24px", "axis_label": "22px", "tick": "20px",
                "legend": "22px", "glyph": "20px", "small": "22px", "max_width": "1800px",
                "badge": "1em"},
}
# ("glyph": words drawn inside a plot, Text glyphs; projected they are present_text_size of the normal size)
# (the projected step card: 28 px on a 1080 px high screen, the same share of a lower one's height, at least 22 px:
#  a 1280 x 720 picture fills the same wall, so its 22 px read as large as 33 px at 1080)
# ("badge": the step card's "optional" mark, a little smaller than the card's words, but projected as large as them)

# The figures that share the query's x axis keep their frames at the same screen x: the same borders,
# wide enough for the widest axis among them (the entropy plot's right axis of effective points).
SHARED_X_BORDERS = {"normal": (80, 64), "present": (116, 100),
                    # a phone: the axis labels of these plots step aside (their titles say what they show),
                    # so the main plot's frame keeps 280 px of a 360 px screen
                    "normal_narrow": (48, 32), "present_narrow": (64, 44)}
# The shared-x plots' top and bottom borders as BokehJS lays them out in the page's font (a title above; the x axis's
# ticks and label below, the label left out on a phone): where their posters draw the frame (app/regression/poster.py)
SHARED_X_TOP_BOTTOM = {"normal": (29, 50), "narrow": (29, 24)}
NARROW_WIDTH = 600   # px: below this width the shared-x plots use their narrow borders
WIDE = 900           # px: from this width on, the figure column and the side column sit side by side (ui/layout.py)
# The plots whose height the page's CSS sets (app/ui/layout.Block.css_height): their height in px in a
# notebook, and the room kept for them before they are drawn.
FIGURE_PX = {"regression-plot": 300, "regression-weights": 150, "regression-spread": 160}
# A projector's larger text needs taller plots: every fixed-height figure grows by this factor.
PRESENT_HEIGHT = 1.5      # a small fixed frame (a head's matrix) grows by this factor on a projector
# A projector's larger text takes about 60 px more of a plot's height (its title, ticks and axis labels), so every
# fixed-height figure grows by PRESENT_GROWTH px, to at least PRESENT_MIN_HEIGHT: projected, no plot's frame is under
# 240 px (tests/browser/test_projector.py).
PRESENT_GROWTH = 110
PRESENT_MIN_HEIGHT = 350
PRESENT_MIN_FRAME = 240   # px: a fixed frame smaller than this grows by PRESENT_HEIGHT


def present_height(height: int) -> int:
    """A fixed-height plot's height in presentation mode (the twin of presentHeight in app/ui/theme.js).

    >>> present_height(300), present_height(220), present_height(120)
    (410, 350, 350)
    """
    return max(height + PRESENT_GROWTH, PRESENT_MIN_HEIGHT)


PRESENT_MARKER_SCALE = 1.6   # the regression's sample markers grow by this much in presentation mode

PAGE_STYLES = {"max-width": "var(--page-max-width, 1200px)", "margin": "0 auto", "padding": "0 8px",
               "box-sizing": "border-box", "width": "100%"}

PAGE_CSS = f"""
:host {{ font-family: {FONT}; color: #222; font-size: var(--page-font-size, 16px); line-height: 1.5; }}
h1 {{ font-size: 1.7em; line-height: 1.2; margin: 0.2em 0; }}
h2 {{ font-size: 1.4em; line-height: 1.25; }}
h3 {{ font-size: 1.15em; margin: 0.7em 0 0.2em; }}
h4 {{ font-size: 1em; margin: 0.4em 0 0.1em; }}
p {{ max-width: 42em; margin: 0.4em 0; }}
table.readouts {{ border-collapse: collapse; font-variant-numeric: tabular-nums; }}
table.readouts th {{ text-align: left; font-weight: normal; color: #333; padding: 2px 12px 2px 0; }}
table.readouts td {{ font-weight: bold; padding: 2px 8px 2px 0; text-align: right; }}
table.readouts td.extra {{ font-weight: normal; color: #555; text-align: left; }}
p.limit {{ background: #FFF3D6; border-left: 4px solid #E69F00; padding: 4px 8px; margin: 4px 0; }}
p.notice {{ background: #FDE8E1; border-left: 4px solid #D55E00; padding: 4px 8px; margin: 4px 0; }}
p.dataset {{ color: #444; margin: 2px 0; }}
p.small {{ color: #444; margin: 2px 0; }}
p.strip {{ margin: 2px 0; font-variant-numeric: tabular-nums; }}
p.strip b {{ font-weight: bold; }}
p.readout-words {{ margin: 0 0 2px; color: #444; font-size: var(--small-font-size, 14px); line-height: 1.35; }}
p.readout-words b {{ font-weight: 700; }}
/* on a wide screen the figure column stays in view and has no height to spare: there the step card and the words
   beside the readouts table explain them (ENTROPY_WORDS) */
@media (min-width: {WIDE}px) {{ p.readout-words {{ display: none; }} }}
/* a phone: the first screen holds the plot, its readouts, what they mean and the step card docked under them, so the
   page's title is smaller, and a sentence the card says too (step 1's Try it) waits for a wider screen */
@media (max-width: 599px) {{ h1 {{ font-size: 1.45em; }} .wide-only {{ display: none; }} }}
p.legend {{ margin: 2px 0; color: #333; line-height: 1.6; }}
p.legend .key {{ display: inline-block; width: 1.6em; height: 0; vertical-align: middle; margin: 0 0.3em 0 0.6em; }}
p.legend > .key:first-child, p.legend > .item:first-child .key {{ margin-left: 0; }}
/* a key and its label's first word stay on one line (legend_item); the label itself wraps as text does */
p.legend .item {{ white-space: nowrap; }}
p.legend .item .label {{ white-space: normal; }}
p.legend .k-samples {{ width: 0.7em; height: 0.7em; border-radius: 50%; background: {WEIGHT_PALETTE[-2]};
                       border: 1px solid #222; }}
p.legend .k-truth {{ border-top: 2px dashed #000; }}
p.legend .k-pred {{ border-top: 3px solid {BLUE}; }}
p.legend .k-nn {{ border-top: 2px solid {ORANGE}; }}
p.legend .k-mean {{ border-top: 2px dotted {PURPLE}; }}
/* the smallest HTML text: 14 px on a laptop, 22 px projected (the browser's 'smaller' gives 13.3) */
sub, sup {{ font-size: max(0.875em, var(--small-font-size, 14px)); }}
details > summary {{ cursor: pointer; color: #1F5F99; }}
details > summary h3 {{ display: inline; }}
"""


VIEWPORT_META = '<meta name="viewport" content="width=device-width, initial-scale=1">'
# The served page's HTML: Panel's own page with the viewport meta added, so a phone lays the page out
# at its own width instead of a zoomed-out 980 px desktop page.
SERVED_TEMPLATE = "{% block preamble %}{{ super() }}" + VIEWPORT_META + "{% endblock %}"


# Bokeh's primary blue (#428bca) under white text misses WCAG AA contrast (3.6 : 1); this one has 6.7 : 1.
PRIMARY_BUTTON_CSS = """
.bk-btn-primary, .bk-btn-primary:hover, .bk-btn-primary:focus { background-color: #1F5F99; border-color: #184C7A;
                                                                 color: #fff; }
.bk-btn-primary:disabled { background-color: #5A7A96; }
"""


# Form controls: browsers draw a <select>'s text and an <input>'s at 13.3 px whatever the page says, and a
# checkbox at 13 px.  Each Select, TextInput and Checkbox gets this sheet (widget_css()), in its own shadow
# root, so they follow the theme's widget size: 15 px on a laptop, 22 px projected.
WIDGET_CSS = (":host { font-size: var(--bokeh-font-size, 15px); } label, select, input, .bk-input { font-size: inherit; } "
              "input[type='checkbox'] { width: 1em; height: 1em; }")


# A slider's value is bold (700): BokehJS sets 600, which a font with no semi-bold face (DejaVu Sans) cannot draw,
# and WebKitGTK then falls back to another family's bold (DejaVu Serif Bold, seen in tests/engines).
# Its handle is 24 x 24 px (BokehJS draws 14 x 18), the least target WCAG 2.2 asks for (2.5.8), still centred on
# the track.
SLIDER_CSS = (".bk-slider-value { font-weight: 700; } "
              ".noUi-horizontal .noUi-handle { width: 24px; height: 24px; right: -12px; top: -8px; }")


def slider_css():
    """A stylesheet model for sliders (SLIDER_CSS)."""
    from bokeh.models import InlineStyleSheet

    return InlineStyleSheet(css=SLIDER_CSS)


def widget_css():
    """A stylesheet model for form controls (WIDGET_CSS); one per section, shared by its widgets."""
    from bokeh.models import InlineStyleSheet

    return InlineStyleSheet(css=WIDGET_CSS)


def root_styles(present: bool = False) -> dict:
    """The CSS variables that size every HTML text of the page; set on the document's root layout."""
    key = "present" if present else "normal"
    s, (left, right) = SIZES[key], SHARED_X_BORDERS[key]
    return {"--page-font-size": s["page"], "--card-font-size": s["card"], "--bokeh-font-size": s["widget"],
            "--bokeh-base-font": FONT, "--card-badge-size": s["badge"],
            "--page-max-width": s["max_width"], "--small-font-size": s["small"],
            "--shared-x-left": f"{left}px", "--shared-x-right": f"{right}px"}


def root_css() -> str:
    """The CSS variables that size the page's text, on the page's <main> (the offline file and the served
    page): normal sizes, presentation sizes (data-present="1"), and the shared-x borders of a phone."""
    decl = lambda d: "; ".join(f"{k}: {v}" for k, v in d.items())  # noqa: E731
    narrow = lambda key: decl({"--shared-x-left": f"{SHARED_X_BORDERS[key][0]}px",  # noqa: E731
                               "--shared-x-right": f"{SHARED_X_BORDERS[key][1]}px"})
    return (f".attn-page {{ {decl(root_styles(False))} }}\n"
            f'.attn-page[data-present="1"] {{ {decl(root_styles(True))} }}\n'
            f"@media (max-width: {NARROW_WIDTH - 1}px) {{ .attn-page {{ {narrow('normal_narrow')} }} "
            f'.attn-page[data-present="1"] {{ {narrow("present_narrow")} }} }}\n')


# Tick labels as plain decimals with the typographic minus: Bokeh's default formatters switch to
# exponent notation ("2.000e\u22123") on a narrow range, which students should never have to read.
PLAIN_TICKS_JS = """
if (tick === 0) return "0";
const a = Math.abs(tick);
let s = a.toFixed(Math.min(20, Math.max(0, 6 - Math.floor(Math.log10(a)))));
if (s.includes(".")) s = s.replace(/0+$/, "").replace(/\\.$/, "");
return (tick < 0 ? "\\u2212" : "") + s;
"""


def plain_ticks():
    """A tick formatter that never writes exponent notation (see PLAIN_TICKS_JS)."""
    from bokeh.models import CustomJSTickFormatter

    return CustomJSTickFormatter(code=PLAIN_TICKS_JS)


def signed_format(digits: int):
    """A slider's value with ``digits`` decimals and the true minus sign (Bokeh's "0.00" writes a hyphen):
    "−0.50", never "−0.00"."""
    from bokeh.models import CustomJSTickFormatter

    return CustomJSTickFormatter(code=f"const s = tick.toFixed({int(digits)});\n"
                                      "return Number(s) === 0 ? s.replace('-', '') : s.replace('-', '\\u2212');")


# An axis whose labels change width when its range changes (a new dataset's loss) makes BokehJS re-lay
# out the whole page, 30-60 ms on a laptop.  These labels are the plain ones, padded on the left to the
# width of STEADY_DIGITS digits: a figure space (U+2007) is as wide as a digit, a punctuation space
# (U+2008) as wide as the decimal point, so every label is equally wide and the axis keeps its width
# (a label with more digits still widens it, once).
STEADY_DIGITS = 4
STEADY_TICKS_JS = ("const plain = (tick) => {" + PLAIN_TICKS_JS + "};\n"
                   "let s = plain(tick);\n"
                   "if (!s.includes(\".\")) s = \"\\u2008\" + s;\n"
                   f"for (let k = s.replace(/[^0-9]/g, \"\").length; k < {STEADY_DIGITS}; k++) s = \"\\u2007\" + s;\n"
                   "return s;\n")


def steady_ticks():
    """Plain tick labels, all as wide as STEADY_DIGITS digits and a point, for an axis whose range follows
    the data (see STEADY_TICKS_JS); a left axis, since the padding is on the left."""
    from bokeh.models import CustomJSTickFormatter

    return CustomJSTickFormatter(code=STEADY_TICKS_JS)


def style_figure(fig, present: bool = False, shared_x: bool = False):
    """The page's look for one figure: no toolbar, the font, the sizes of its canvas text."""
    s = SIZES["present" if present else "normal"]
    fig.toolbar_location = None
    fig.outline_line_color = None
    fig.title.text_font = FONT
    fig.title.text_font_size = s["title"]
    fig.min_border_left = 40
    for ax in fig.axis:
        ax.major_label_text_font = FONT
        ax.axis_label_text_font = FONT
        ax.major_label_text_font_size = s["tick"]
        ax.axis_label_text_font_size = s["axis_label"]
        ax.axis_label_text_font_style = "normal"
        if type(ax.formatter).__name__ in ("BasicTickFormatter", "LogTickFormatter"):  # left as Bokeh made it
            ax.formatter = plain_ticks()
    if shared_x:
        fig.min_border_left, fig.min_border_right = SHARED_X_BORDERS["present" if present else "normal"]
    return fig


def style_legend(legend, present: bool = False):
    s = SIZES["present" if present else "normal"]
    legend.label_text_font = FONT
    legend.label_text_font_size = s["legend"]
    return legend


def name_fonts(root) -> int:
    """Give every text under ``root`` that names no font of its own the page's font (returns how many).

    Bokeh draws canvas text in "helvetica" unless told otherwise (a text glyph's words, a colour bar's labels,
    a legend's title), and a browser finds "helvetica" wherever it can: Liberation Sans on a Linux machine
    that has it, something else on the next machine.  Every text names FONT, so the page measures and looks
    the same on every machine that has the font, and falls back the same way on one that does not.
    """
    return name_fonts_of(root.references())


def name_fonts_of(models) -> int:
    """``name_fonts`` for the given models (a document's, say: ``doc.models``), each walked once."""
    from bokeh.core.property.dataspec import DataSpec
    from bokeh.core.property.vectorization import Value

    changed = 0
    for m in models:
        for name in m.properties():
            if not name.endswith("text_font"):
                continue
            v = getattr(m, name)
            plain = v.value if isinstance(v, Value) else v
            if plain != "helvetica":
                continue
            spec = isinstance(m.lookup(name).property, DataSpec)
            setattr(m, name, Value(FONT) if spec else FONT)
            changed += 1
    return changed


def slim(roots) -> int:
    """Build less for the browser (returns how many models it saved): a glyph renderer draws no selected or
    muted copies of its glyph (the page has no selection and no muting, and BokehJS would build a view for
    each), and equal tick formatters and style sheets are one model each, shared."""
    from bokeh.model.util import collect_models
    from bokeh.models import CustomJSTickFormatter, GlyphRenderer, InlineStyleSheet

    saved, shared = 0, {}
    models = collect_models(*roots)     # one walk of the graph: the roots share sources, figures and engines
    for m in models:
        if isinstance(m, GlyphRenderer):
            for name in ("nonselection_glyph", "muted_glyph"):
                if getattr(m, name) not in (None, "auto"):
                    setattr(m, name, None)
                    saved += 1
    for m in models:
        for name in ("formatter", "stylesheets"):
            if name not in m.properties():
                continue
            v = getattr(m, name)
            if isinstance(v, CustomJSTickFormatter):
                key = ("formatter", v.code, tuple(sorted(v.args.items())) if not v.args else id(v))
                keep = shared.setdefault(key, v)
                if keep is not v:
                    setattr(m, name, keep)
                    saved += 1
            elif isinstance(v, list) and any(isinstance(x, InlineStyleSheet) for x in v):
                new = []
                for x in v:
                    if isinstance(x, InlineStyleSheet):
                        keep = shared.setdefault(("css", x.css), x)
                        saved += keep is not x
                        x = keep
                    new.append(x)
                setattr(m, name, new)
    return saved


PRESENT_TEXT_SCALE = 1.5   # words drawn inside a plot grow by this much on a projector ...
PRESENT_TEXT_MIN = 20      # ... to at least this many px


def present_text_size(size):
    """A text glyph's font size for presentation mode: PRESENT_TEXT_SCALE times larger, at least 20 px (the
    twin of presentTextSize in app/ui/theme.js).  Accepts "13px" or Bokeh's value spec of it."""
    from bokeh.core.property.vectorization import Value

    raw = size.value if isinstance(size, Value) else size
    if not isinstance(raw, str) or not raw.endswith("px"):
        return size
    px = max(PRESENT_TEXT_MIN, round(float(raw[:-2]) * PRESENT_TEXT_SCALE))
    return Value(f"{px}px") if isinstance(size, Value) else f"{px}px"


def legend_html(items) -> str:
    """A plot's legend as HTML under the plot (it wraps on a phone and takes no room from the plot):
    ``items`` are (label, colour, line) with line "solid", "dashed", "dotted" or "dot" (a filled circle)."""
    from html import escape

    out = []
    for label, color, line in items:
        key = (f"width:0.7em;height:0.7em;border-radius:50%;background:{color};border:1px solid #222" if line == "dot"
               else f"border-top:{3 if line == 'solid' else 2}px {line} {color}")
        out.append(legend_item(f'<span class="key" style="{key}" aria-hidden="true"></span>', escape(legend_label(label))))
    return '<p class="legend">' + " ".join(out) + "</p>"


def legend_item(key: str, label: str) -> str:
    """One entry of an HTML legend: its key (a swatch) held on one line with its label's start, so a line never
    ends with a swatch whose label begins the next one (issue 46: the dashed line and "true f(x)").  The entry does
    not wrap where it meets its key; its label wraps as text does (PAGE_CSS: .item, .label).  ``label`` is HTML.

    >>> legend_item("<i></i>", "true f(x)")
    '<span class="item"><i></i><span class="label">true f(x)</span></span>'
    """
    return f'<span class="item">{key}<span class="label">{label}</span></span>'



def legend_label(label: str) -> str:
    """A legend's label as it is written under a plot: a short one (20 characters or fewer) held on one line, so
    "true f(x)" never breaks after "true"; a longer one may wrap.

    >>> legend_label("true f(x)") == "true\u00a0f(x)", legend_label("samples (size and colour: weight)")
    (True, 'samples (size and colour: weight)')
    """
    return label.replace(" ", "\u00a0") if len(label) <= 20 else label


def present_figures(root, present: bool) -> None:
    """Size every figure under ``root`` for ``present`` before the page is sent (the twin of Theme.apply).

    A page that opens in presentation mode is built at its sizes, so the browser lays it out once.
    """
    from bokeh.models import ColorBar, Legend, Plot

    if not present:
        return
    s, (left, right) = SIZES["present"], SHARED_X_BORDERS["present"]
    for fig in root.select({"type": Plot}):
        fig.title.text_font_size = s["title"]
        for r in [*fig.left, *fig.below, *fig.right, *fig.above, *fig.center]:
            if isinstance(r, Legend):
                r.label_text_font_size = s["legend"]
            elif isinstance(r, ColorBar):
                r.major_label_text_font_size = r.title_text_font_size = s["tick"]
            elif hasattr(r, "major_label_text_font_size"):
                r.major_label_text_font_size, r.axis_label_text_font_size = s["tick"], s["axis_label"]
        if fig.height is not None and fig.frame_height is None and fig.sizing_mode != "stretch_both":
            fig.tags = [*fig.tags, {"normal_height": fig.height}]   # theme.js shrinks it back from this
            fig.height = present_height(fig.height)
        if fig.frame_height is not None and fig.frame_width is not None and fig.frame_height < PRESENT_MIN_FRAME:
            # a small fixed frame (a head's matrix) grows by half
            fig.frame_width, fig.frame_height = (round(v * PRESENT_HEIGHT) for v in (fig.frame_width, fig.frame_height))
        for r in fig.renderers:   # words drawn in the plot (a text glyph): at least 20 px on a projector
            size = getattr(getattr(r, "glyph", None), "text_font_size", None)
            if size is not None:
                r.glyph.text_font_size = present_text_size(size)
        if (fig.min_border_left, fig.min_border_right) == SHARED_X_BORDERS["normal"]:
            fig.min_border_left, fig.min_border_right = left, right


def log_format():
    """A slider's label for a log10 value: the value itself, three significant digits (whole from 100 up)."""
    from bokeh.models import CustomJSTickFormatter

    return CustomJSTickFormatter(code="const v = 10 ** tick; return v >= 100 ? v.toFixed(0) : v.toPrecision(3);")


def js_config(built_present: bool = False) -> dict:
    """What app/ui/theme.js needs, from the one definition here (``built_present``: sized by present_figures)."""
    return {"sizes": SIZES, "vars": {k: root_styles(k == "present") for k in SIZES}, "present_height": PRESENT_HEIGHT, "present_growth": PRESENT_GROWTH,
            "present_min_height": PRESENT_MIN_HEIGHT, "present_min_frame": PRESENT_MIN_FRAME,
            "present_marker_scale": PRESENT_MARKER_SCALE, "present_text": [PRESENT_TEXT_SCALE, PRESENT_TEXT_MIN],
            "built_present": bool(built_present), "narrow_width": NARROW_WIDTH,
            "shared_x_borders": {k: list(v) for k, v in SHARED_X_BORDERS.items()}}


__all__ = ["PRIMARY_BUTTON_CSS", "VIEWPORT_META", "SERVED_TEMPLATE", "ORANGE", "SKY", "GREEN", "BLUE", "VERMILLION", "PURPLE", "GREY", "WEIGHT_PALETTE", "FONT", "MONO_FONT",
           "SIZES", "PAGE_STYLES", "PAGE_CSS", "root_styles", "plain_ticks", "steady_ticks", "style_figure", "style_legend", "log_format", "js_config"]
