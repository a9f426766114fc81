"""The step card of the guided tour, and its browser engine.

``add_tour(regression, state, tour)`` builds the card as a block at the top of the
regression section's side column (beside the figure on a wide screen, under the
figure on a phone) and returns a ``TourView`` whose ``engine`` the page starts
after the regression engine.  The card finds
the regression section's widgets and data source by their model names, so it
does not depend on how that section is built.

Every text of the card is escaped here, once; a step's text may use
``*emphasis*``, which becomes <em> after escaping.
"""

from __future__ import annotations

import html
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from bokeh.layouts import column, row
from bokeh.models import Button, CustomJS, Div, InlineStyleSheet, NumericInput

from app.ui.engine import by_name
from app.ui.layout import Block

from app.regression.text import SHARP_WEIGHT
from app.regression.view import GRID_N
from app.state import X_RANGE

from .model import EQUAL_TOLERANCE, LOO_GRID, Tour, default_tour, full_state

HERE = Path(__file__).resolve().parent
APP = HERE.parent
TWEEN_MS = 500    # "show me" moves the numbers over half a second ...
MIN_FRAMES = 6    # ... in at least this many frames
# The regression section's models the tour reads and moves, by their names in the document.
WIDGET_NAMES = {"query": "query_slider", "logh": "bandwidth_slider", "logt": "temperature_slider",
                "kernel": "kernel_select", "keynorm": "keynorm_slider", "dataset": "dataset_select",
                "link": "link_toggle", "limits": "limits_toggle", "present": "present_toggle"}
WORDS = {"prev": "\u2190 Previous", "next": "Next \u2192", "show": "Show me", "hide": "Free exploration",
         "open": "Guided tour", "found": "Found it.", "try": "Try it:", "step": "Step {k} of {n}",
         # a step with needs_shipped_data, while your own data are shown
         "shipped": "This step is written for the shipped data, not for yours: its numbers and its goal are "
                    "theirs. Show me switches to them; your data stay in the dataset menu.",
         "switch": "Switch to the shipped data"}
# The card's look, in the page's own sizes (app/theme.py's PAGE_CSS sets the font and h3).
CARD_CSS = """
.tour-card { border: 1px solid #c8d3dc; border-left: 4px solid #0072B2; border-radius: 4px; background: #F4F8FB;
             padding: 4px 12px 6px; }
.tour-card h2 { font-size: 1.15em; margin: 0.2em 0 0.3em; }   /* the size of the page's h3 */
p.tour-count { color: #444; margin: 0.3em 0 0; }
p.tour-found { color: #1b5e20; font-weight: bold; }
p.tour-shown { color: #333; }
"""


@dataclass
class TourView:
    layout: object
    engine: CustomJS
    models: dict = field(default_factory=dict)

    @property
    def block(self) -> Block:
        """The card as a block of the page: first in the regression's side column, on the first screen."""
        return Block("tour", self.layout, "side", height=300, first=True)


def bind_tour_length(tour: Tour) -> None:
    """Let links say ``?tour=N`` up to this tour's number of steps (``tour=0`` hides the tour).

    The bound lives on the state class, so the served page's parser and the offline file's
    (which reads app/state.py's url_spec from the engine's config) clamp ``tour`` alike.
    """
    from app.state import ExplorableState

    ExplorableState.param.tour.bounds = (0, len(tour))


@contextmanager
def tour_length(tour: Tour):
    """``bind_tour_length(tour)`` while building one page, then the bound as it was."""
    from app.state import ExplorableState

    before = ExplorableState.param.tour.bounds
    bind_tour_length(tour)
    try:
        yield
    finally:
        ExplorableState.param.tour.bounds = before


def _markup(text: str) -> str:
    return re.sub(r"\*([^*\n]+)\*", r"<em>\1</em>", html.escape(text, quote=True))


def card_html(tour: Tour, k: int) -> str:
    """The card's HTML for step ``k`` (from 1), every text escaped; open, for a status line and ``</div>``."""
    s, n = tour.steps[k - 1], len(tour)
    count = WORDS["step"].format(k=k, n=n)
    return (f'<div class="tour-card" role="region" aria-label="guided tour, {count.lower()}">'
            f'<p class="tour-count">{count} \u00b7 {html.escape(tour.title)}</p>'
            f"<h2>{_markup(s.title)}</h2><p>{_markup(s.text)}</p>"
            f'<p class="tour-do"><b>{WORDS["try"]}</b> {_markup(s.do)}</p>')


def _status(s, found: bool) -> str:
    if found:
        return (f'<p class="tour-found" aria-live="polite"><span aria-hidden="true">\u2713</span> '
                f'{WORDS["found"]} {_markup(s.found)}</p>')
    return f'<p class="tour-shown" aria-live="polite">{_markup(s.found)}</p>'


def _mirror_path() -> Path:
    for p in (APP / "ui" / "mirror.js", APP / "mirror.js"):
        if p.is_file():
            return p
    raise FileNotFoundError("mirror.js (the core's formulas in JS) is not in app/ui/ or app/")


@lru_cache(maxsize=None)
def engine_source() -> str:
    mirror = _mirror_path().read_text(encoding="utf-8")
    tour = (HERE / "tour.js").read_text(encoding="utf-8")
    return (f"{mirror}\n{tour}\n"
            "AttnTour.handle(cb_obj, {config, card, box, prev, next, show, hide, open, w, ds, more, main, "
            "stepper, shipped_note});\n")


# A step's "look" names the page's models by name; "readouts" is the line under the main plot, which stays
# in view with it on every screen.
LOOK_MODELS = {"readouts": "readout_strip"}

# The settings whose controls sit behind the regression section's "More controls" (app/regression/view.py
# MORE_KEYS): a step whose state sets one away from its default opens that disclosure.
MORE_KEYS = ("kernel", "key_norm", "dataset", "link", "limits", "present")


def needs_more(state: dict) -> bool:
    """Whether a step's state needs a control behind "More controls" (one of them away from its default)."""
    defaults = full_state({})
    return any(k in state and state[k] != defaults.get(k, state[k]) for k in MORE_KEYS)


def tour_config(tour: Tour, *, step: int) -> dict:
    """What tour.js needs: the steps' states and conditions, and the card texts (already HTML)."""
    return {
        "initial_step": int(step), "tween_ms": TWEEN_MS, "min_frames": MIN_FRAMES, "tolerance": EQUAL_TOLERANCE,
        "loo_grid": list(LOO_GRID), "defaults": full_state({}),
        "x_grid": [*X_RANGE, GRID_N], "sharp_weight": SHARP_WEIGHT,
        "steps": [{"state": dict(s.state), "when": [list(c) for c in s.when], "more": needs_more(s.state),
                   "look": [LOOK_MODELS.get(n, n) for n in s.looks_at], "shipped": bool(s.needs_shipped_data)}
                  for s in tour.steps],
        "cards": [card_html(tour, k) for k in range(1, len(tour) + 1)],
        "found": [_status(s, True) for s in tour.steps],
        "shown": [_status(s, False) for s in tour.steps],
        "words": {"open": WORDS["open"]},
    }


def _find(named: dict, name):
    m = named.get(name)
    if m is None:
        raise ValueError(f"the regression section has no model named {name!r}; the tour needs it")
    return m


def build_tour(layout=None, *, tour: Tour | None = None, step: int = 1, named: dict | None = None) -> TourView:
    """The step card for the regression section, whose widgets are found by name in ``named`` (or in ``layout``)."""
    tour = tour or default_tour()
    step = min(max(int(step), 0), len(tour))
    shown = max(step, 1)
    css = [InlineStyleSheet(css=_page_css() + CARD_CSS)]
    card = Div(text=card_html(tour, shown) + "</div>", name="tour_card", stylesheets=css,
               sizing_mode="stretch_width", min_width=260)
    card.syncable = False   # only the browser writes it
    prev = Button(label=WORDS["prev"], name="tour_prev", disabled=shown <= 1)
    show = Button(label=WORDS["show"], name="tour_show", button_type="primary",
                  stylesheets=[InlineStyleSheet(css=_primary_css())])
    nxt = Button(label=WORDS["next"], name="tour_next", disabled=shown >= len(tour))
    hide = Button(label=WORDS["hide"], name="tour_hide")
    wrap = {"flex-wrap": "wrap", "gap": "4px 8px"}
    named = named if named is not None else by_name(layout)
    shipped_note = _shipped_note(css, named)
    box = column(card, shipped_note, row(prev, show, nxt, hide, sizing_mode="stretch_width", styles=wrap),
                 sizing_mode="stretch_width", name="tour_box", visible=step > 0)
    opener = Button(label=f"{WORDS['open']} (step {shown} of {len(tour)})", name="tour_open", visible=step == 0)
    w = {key: _find(named, name) for key, name in WIDGET_NAMES.items()}
    ds = _find(named, "dataset")
    config = tour_config(tour, step=step)
    # The step shown (0: the card is hidden), both ways between Python and the card: a notebook's
    # e.tour = 3 sets it and the card moves; Next, Previous and Free exploration write it back.  Never on
    # the page (not in a layout): a synced value only.
    stepper = NumericInput(value=step, mode="int", low=0, high=len(tour), name="tour_step", visible=False)
    # the "More controls" column (None where a section has none) and the main plot, whose drag stops a tween
    more = named.get("more_controls")
    main = named.get("main_plot")
    engine = CustomJS(args=dict(config=config, card=card, box=box, prev=prev, next=nxt, show=show, hide=hide,
                                open=opener, w=w, ds=ds, more=more, main=main, stepper=stepper,
                                shipped_note=shipped_note),
                      code=engine_source())
    stepper.js_on_change("value", engine)
    for b in (prev, show, nxt, hide, opener):
        b.js_on_event("button_click", engine)
    for key in ("query", "logh", "logt", "kernel", "keynorm", "dataset"):
        w[key].js_on_change("value", engine)
    for key in ("link", "limits"):   # a click during "Show me" stops it
        w[key].js_on_change("active", engine)
    if main is not None:   # a drag on the plot during "Show me" stops it, and the drag wins
        for event in ("panstart", "pan", "tap"):
            main.js_on_event(event, engine)
    ds.js_on_change("data", engine)
    section = column(box, opener, sizing_mode="stretch_width", name="tour")
    return TourView(layout=section, engine=engine,
                    models=dict(card=card, box=box, prev=prev, next=nxt, show=show, hide=hide, open=opener,
                                stepper=stepper, config=config))


def _shipped_note(css, named: dict):
    """Under the card while your own data are shown and the step needs the shipped data (tour.js yourData): one
    sentence and a button that puts the dataset menu back on the shipped data (the regression engine swaps)."""
    dataset = _find(named, WIDGET_NAMES["dataset"])
    switch = Button(label=WORDS["switch"], name="tour_shipped_switch")
    switch.js_on_event("button_click", CustomJS(args=dict(menu=dataset, name=full_state({})["dataset"]),
                                                code="menu.value = name;"))
    return column(Div(text=f'<p class="limit">{html.escape(WORDS["shipped"])}</p>', stylesheets=css,
                      sizing_mode="stretch_width"), switch, sizing_mode="stretch_width", name="tour_shipped_note",
                  visible=False)


def add_tour(regression, state, *, tour: Tour | None = None) -> TourView:
    """Build the card for ``state.tour`` for the regression section (a RegressionView); its ``block`` goes
    first in that section's side column (app/sections.py)."""
    return build_tour(tour=tour or default_tour(), step=getattr(state, "tour", 1), named=regression.named)


def _theme():
    from app.ui import theme   # the shared look (the old alias app.theme is gone)
    return theme


def _page_css() -> str:
    return _theme().PAGE_CSS


def _primary_css() -> str:
    return _theme().PRIMARY_BUTTON_CSS


__all__ = ["TourView", "build_tour", "add_tour", "bind_tour_length", "tour_length", "card_html", "tour_config"]
