"""The "Copy a link to this state" button: a Bokeh button and status line run by app/ui/share.js.

It works the same in the served page, the offline file and inside a cross-origin iframe, because it
needs no server: the engines keep the address's query string equal to the page's state, and the
button copies that address (with your own data after "#" when the page shows some that fit in a link;
data that do not fit are offered as the page saved with them inside).  ``build_share()`` returns the
models; the regression section puts them in its controls row.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from bokeh.models import Button, CustomJS, Div, InlineStyleSheet

HERE = Path(__file__).resolve().parent

LABEL = "Copy a link to this state"
TEXTS = {
    "copied": "Link copied. Paste it anywhere: it opens the page just as it is now.",
    "fallback": "The browser did not let the page copy. The link is selected below: copy it by hand "
                "(Ctrl+C, or Cmd+C on a Mac, or press and hold on a phone).",
    "field": "link to this state",
    "save": "Download this page with your data",
    "no_save": "Here the page cannot save itself; attention-explorable export --data FILE writes such a page.",
}
CSS = """
p { margin: 2px 0; line-height: 1.4; }
p.share-done { color: #1b5e20; font-weight: bold; }
p.share-shown { color: #555; font-size: 0.9em; overflow-wrap: anywhere; }
p.notice { background: #FDE8E1; border-left: 4px solid #D55E00; padding: 4px 8px; }
button.share-save { font: inherit; padding: 3px 10px; border: 1px solid #1F5F99; border-radius: 4px;
                    background: #1F5F99; color: #fff; cursor: pointer; }
input.share-link { width: 100%; box-sizing: border-box; font: inherit; padding: 4px; }
"""


@lru_cache(maxsize=None)
def share_source() -> str:
    """ui/common.js (the page's bus: whether the data fit in a link), ui/share.js, and the call."""
    return "\n".join((HERE / f).read_text(encoding="utf-8") for f in ("common.js", "share.js")) + \
        "\nAttnShare.handle({status, texts});\n"


@dataclass
class ShareView:
    button: Button
    status: Div
    callback: CustomJS

    def models(self) -> tuple:
        """The models to put on the page, in order."""
        return self.button, self.status


def build_share() -> ShareView:
    button = Button(label=LABEL, button_type="default", name="share_button")
    status = Div(text="", name="share_status", visible=False, sizing_mode="stretch_width", min_width=240,
                 stylesheets=[InlineStyleSheet(css=CSS)])
    status.syncable = False  # only the browser writes it; a served page sends nothing per click
    callback = CustomJS(args=dict(status=status, texts=dict(TEXTS)), code=share_source())
    button.js_on_event("button_click", callback)
    return ShareView(button=button, status=status, callback=callback)
