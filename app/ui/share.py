"""The "Copy a link to this state" button and "Save a figure as PNG": Bokeh buttons and status lines run by
app/ui/share.js.

The link works the same in the served page, the offline file and inside a cross-origin iframe, because it
needs no server: the engines keep the address's query string equal to the page's state, and the
button copies that address (with your own data after "#" when the page shows some that fit in a link;
data that do not fit are offered as the page saved with them inside).  "Save a figure as PNG" offers a menu of
the page's figures by their names (app/sections.py figure_menu, those of the sections the page has) and a button
that saves the one chosen (app/ui/loader.js savePng, which draws its block first if it is not drawn yet), for
slides.  ``build_share()`` returns the models; the regression section puts them in its controls row.
"""

from __future__ import annotations

from dataclasses import dataclass

from bokeh.models import Button, CustomJS, Div, InlineStyleSheet, Toggle

from .engine import LOAD_LIBRARY, engine_callback


LABEL = "Copy a link to this state"
TEXTS = {
    "copied": "Link copied. Paste it anywhere: it opens the page just as it is now.",
    "fallback": "The browser did not let the page copy. The link is selected below: copy it by hand "
                "(Ctrl+C, or Cmd+C on a Mac, or press and hold on a phone).",
    "field": "link to this state",
    "save": "Download this page with your data",
    "no_save": "Here the page cannot save itself; attention-explorable export --data FILE writes such a page.",
}
HEAR_LABEL = "Hear the weights"
# The sound's models (app/ui/audiograph.js): the main plot's samples, their x and weight columns, and the plot whose x
# range the sweep runs over.
HEAR = {"samples": "samples", "x": "x", "w": "w", "plot": "main_plot",
        "unavailable": "This browser cannot play sound"}
PNG_LABEL = "A figure: PNG or numbers"
PNG_TEXTS = {
    "pick": "Figure",
    "save": "Save PNG",
    "saving": "Saving the figure\u2026",
    "saved": "Saved {file}: it is in your downloads.",
    # inside a frame the page cannot know whether the host lets it download (a sandbox without allow-downloads
    # does not, and says nothing): it says what it did, and what to do if nothing came, with a link to this state
    # (and your data, where they fit in a link) that opens outside the frame (share.js savedHtml)
    "saved_framed": "The page handed {file} to your browser. If no file appeared, this frame blocks downloads:",
    "own_tab": "open this state in a tab of its own",
    "failed": "The page could not save that figure.",
    "none": "Here the page cannot save its figures; the offline file and the served page can.",
    # a figure's numbers as a table (app/ui/share.js numbersTables): every row its glyphs draw
    "numbers": "Show its numbers",
    "counting": "Gathering the figure's numbers\u2026",
    "counted": "The numbers of \u201c{figure}\u201d are in the tables below.",
    "caption": "{figure}: {source}, {n} rows",
    "more": "The table shows the first {shown} rows; the CSV has the other {k}.",
    "csv": "Download CSV",
    "empty": "This figure draws no numbers of its own.",
    # the button in each figure's corner, one tap from its numbers (share.js numbersButton), and their dialog
    "open": "Numbers",
    "open_name": "Numbers of \u201c{figure}\u201d",
    "title": "The numbers of \u201c{figure}\u201d",
    "close": "Close",
}
# A figure's table shows at most this many rows of a source (the CSV has them all).
ROWS_SHOWN = 2000
# The tables' column heads: a source's columns in words where the page's sources share a meaning; a column that
# only styles a mark (its size, opacity, colour, text placement) is left out of the table and the CSV.
COLUMN_WORDS = {"x": "x", "y": "y", "w": "weight", "wn": "weight \u00f7 the largest", "pred": "prediction",
                "ent": "entropy (bits)", "eff": "effective points", "nn": "nearest sample's y", "truth": "true f(x)",
                "h": "h", "loo": "leave-one-out error", "bias2": "bias\u00b2", "variance": "variance",
                "error": "error", "loss": "loss", "step": "step", "train": "training accuracy (%)",
                "held": "held-out accuracy (%)", "tok": "word", "q_tok": "query word", "k_tok": "key word"}
# The sources' names in words, where a plain name helps (any other source keeps its model name).
SOURCE_WORDS = {"sample_marks": "the samples", "curve": "along x", "qtrue": "the true value at the query",
                "qpred": "the prediction at the query", "query_line": "the query", "hent": "along h"}
STYLE_COLUMNS = ("size", "alpha", "color", "width", "dash", "align", "baseline", "dx", "dy", "tc", "dw", "dh")
# A figure's tables (share.js tablesHtml), under the figure menu and in a figure's dialog alike.
TABLE_CSS = """
div.numbers-box { max-height: 18em; overflow: auto; max-width: 100%; }
table.figure-numbers { border-collapse: collapse; font-variant-numeric: tabular-nums; }
table.figure-numbers caption { text-align: left; font-weight: bold; }
table.figure-numbers th, table.figure-numbers td { padding: 1px 8px; text-align: right; border-bottom: 1px solid #ddd; }
"""
CSS = """
p { margin: 2px 0; line-height: 1.4; }
p.share-done { color: #1b5e20; font-weight: bold; }
p.share-shown { color: #555; font-size: 0.9em; overflow-wrap: anywhere; }
p.notice { background: #FDE8E1; border-left: 4px solid #D55E00; padding: 4px 8px; }
button.share-save { font: inherit; padding: 3px 10px; border: 1px solid #1F5F99; border-radius: 4px;
                    background: #1F5F99; color: #fff; cursor: pointer; }
input.share-link { width: 100%; box-sizing: border-box; font: inherit; padding: 4px; }
div.png-row { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 8px; margin: 2px 0; }
.bk-clearfix { max-width: 100%; }   /* the menu shrinks to a phone's width, rather than the box growing past it */
select.png-figure { font: inherit; padding: 3px; flex: 1 1 12em; min-width: 0; max-width: 30em; }
""" + TABLE_CSS
# The dialog of a figure's numbers (share.js openNumbers), in the page's own document.
DIALOG_CSS = TABLE_CSS + """
dialog.attn-numbers { max-width: min(92vw, 60em); max-height: 86vh; padding: 12px 16px; border: 1px solid #555;
                      border-radius: 6px; font-size: var(--page-font-size, 16px); overflow: auto; }
dialog.attn-numbers::backdrop { background: rgba(0, 0, 0, 0.35); }
dialog.attn-numbers .attn-numbers-top { display: flex; align-items: flex-start; justify-content: space-between;
                                        gap: 12px; }
dialog.attn-numbers h2 { font-size: 1.1em; margin: 0 0 6px; }
dialog.attn-numbers p { margin: 4px 0; }
dialog.attn-numbers button { font: inherit; padding: 3px 10px; border: 1px solid #1F5F99; border-radius: 4px;
                             background: #1F5F99; color: #fff; cursor: pointer; margin: 4px 0 10px; }
dialog.attn-numbers div.numbers-box { max-height: 50vh; }
"""


# The table button's picture: a frame, a head row and a first column (currentColor: it follows forced colours); a
# plot's poster shows it where the live plot's button will be (app/ui/poster.py)
TABLE_ICON = ('<svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true" focusable="false">'
              '<path d="M1.5 1.5h13v13h-13z M1.5 5.5h13 M1.5 10h13 M6 1.5v13" fill="none" stroke="currentColor" '
              'stroke-width="1.5"/></svg>')


def numbers_texts(figures=None) -> dict:
    """What the figures' tables need (share.js): the words, the cap, the columns' and sources' words, the columns
    left out; with ``figures`` ({model name: its name for a person}), the figures whose corner offers a button."""
    out = dict(PNG_TEXTS, icon=TABLE_ICON, rows_shown=ROWS_SHOWN, columns=COLUMN_WORDS, sources=SOURCE_WORDS, style=list(STYLE_COLUMNS))
    return out if figures is None else dict(out, figures=dict(figures))


def share_source() -> str:
    """The library's loading line (ui/share.js is in it) and the call: one callback for both buttons (the page
    carries its code once), which tells them apart by the click's origin."""
    return (LOAD_LIBRARY +
            "if (cb_obj && cb_obj.origin === png_button) AttnShare.figures({status: png_box, texts: png_texts, figures});"
            "\nelse AttnShare.handle({status, texts});\n")


@dataclass
class ShareView:
    button: Button
    status: Div
    callback: CustomJS
    png_button: Button = None
    png_box: Div = None
    hear: Toggle = None

    def models(self) -> tuple:
        """The models to put on the page, in order."""
        return tuple(m for m in (self.button, self.png_button, self.hear, self.status, self.png_box) if m is not None)


def _status_div(name: str) -> Div:
    div = Div(text="", name=name, visible=False, sizing_mode="stretch_width", min_width=240,
              stylesheets=[InlineStyleSheet(css=CSS)])
    div.syncable = False  # only the browser writes it; a served page sends nothing per click
    return div


def build_share(figures=()) -> ShareView:
    """The two buttons and their one engine; ``figures``: the page's figures for the PNG menu ({name, label,
    group} each, in the page's order), which the composition hands over (app/sections.py ``figure_menu``)."""
    button = Button(label=LABEL, button_type="default", name="share_button")
    status = _status_div("share_status")
    png_button = Button(label=PNG_LABEL, button_type="default", name="figure_png_button")
    png_box = _status_div("figure_png_box")
    png_texts = numbers_texts()
    callback = engine_callback(dict(status=status, texts=dict(TEXTS), png_button=png_button, png_box=png_box,
                                    png_texts=png_texts, figures=list(figures)), share_source())
    callback.name = "share_engine"   # the composition gives it the page's figures
    button.js_on_event("button_click", callback)
    png_button.js_on_event("button_click", callback)
    # an audio graph of the weights (app/ui/audiograph.js): silent until pressed
    hear = Toggle(label=HEAR_LABEL, active=False, button_type="default", name="hear_toggle")
    hear.js_on_change("active", engine_callback(dict(names=dict(HEAR)),
                                                LOAD_LIBRARY + "AttnAudio.toggle(cb_obj, names);\n"))
    return ShareView(button=button, status=status, callback=callback, png_button=png_button, png_box=png_box,
                     hear=hear)
