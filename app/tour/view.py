"""The step card of the guided tour, and its browser engine.

``add_tour(view, state, tour)`` builds the card as a block at the top of the
first section's side column (beside the figure on a wide screen, under the
figure on a phone) and returns a ``TourView`` whose ``engine`` the page starts
after the first section's engine.  Everything it knows of a section comes from the
tour's catalogue (app/tour/terms.py): its words, its settings, how Show me reaches them
(a contract's ``show_me``), whether its readouts are published or asked for.  The
card finds the widgets of the section whose sliders Show me glides (``view``) by their
model names, so it does not depend on how that section is built.

Every text of the card is escaped here, once; a step's text may use
``*emphasis*``, which becomes <em> after escaping.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from bokeh.layouts import column, row
from bokeh.models import Button, CustomJS, Div, InlineStyleSheet, NumericInput

from app.state import PageState, url_spec
from app.ui.engine import by_name, engine_callback, engine_code, url_rules
from app.ui.layout import Block
from app.ui.share import PNG_TEXTS

from .model import MAX_ID, Tour, ready_settings, resolve_step, show_me_settings
from .terms import EQUAL_TOLERANCE, terms

HERE = Path(__file__).resolve().parent
APP = HERE.parent
TWEEN_MS = 500    # "show me" moves the numbers over half a second ...
MIN_FRAMES = 6    # ... in at least this many frames
WORDS = {"prev": "\u2190 Previous", "next": "Next \u2192", "show": "Show me", "hide": "Free exploration",
         "open": "Guided tour", "found": "Found it.", "try": "Try it:", "step": "Step {k} of {n}",
         "skip": "Skip to {section} \u2192", "optional": "optional", "png": "Save the figure as PNG",
         # the card's own small buttons: its words open and close, and the card goes away (Free exploration)
         "more": "More \u25be", "less": "Less \u25b4", "more_name": "Read more", "less_name": "Read less",
         "close": "Close the guide",
         # the card after the last step
         "end": "The end \u00b7 {n} steps", "again": "Start again", "explore": "Explore on your own",
         "closing_title": "That is the whole tour",
         "closing_text": "Every control stays where the last step left it: explore on your own, or start again.",
         # a step with needs_shipped_data, while your own data are shown
         "shipped": "This step is written for the shipped data, not for yours: its numbers and its goal are "
                    "theirs. Show me switches to them; your data stay in the dataset menu.",
         "switch": "Switch to the shipped data"}
# The keys that turn the steps in presentation mode (app/tour/dock.js keyTurn takes them from here, and the card's
# hint says each): the KeyboardEvent key names, whether Shift is held, the words the hint says, and the way they turn.
TURN_KEYS = ((("ArrowRight",), False, "\u2192", 1), (("PageDown",), False, "Page Down", 1),
             ((" ", "Spacebar"), False, "Space", 1),
             (("ArrowLeft",), False, "\u2190", -1), (("PageUp",), False, "Page Up", -1),
             ((" ", "Spacebar"), True, "Shift+Space", -1))


def _either(words) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def keys_hint(table=TURN_KEYS) -> str:
    """What the keys do, for the card in presentation mode (tour.js turns the steps and shows each one)."""
    forward, back = ([w for _, _, w, by in table if by == way] for way in (1, -1))
    return (f"Keys: {_either(forward)} turns to the next step and shows it; {_either(back)} goes back.")


# presentation mode: what the keys do
WORDS["keys"] = keys_hint()
# in a frame (a slide of a deck), the deck's keys are the deck's (app/ui/frame.js): the card says so instead
WORDS["keys_framed"] = ("In this slide the deck's keys turn the slides; the card's buttons turn the steps, and "
                        "Escape gives the keys back to the deck.")
# The card's look, in the page's own sizes (app/ui/theme.py's PAGE_CSS sets the font and h3).
CARD_CSS = """
.tour-card { border: 1px solid #c8d3dc; border-left: 4px solid #0072B2; border-radius: 4px; background: #F4F8FB;
             padding: 2px 10px 4px; font-size: var(--card-font-size, 1em); line-height: 1.4;
             max-height: var(--tour-card-max, none); overflow-y: auto; }   /* docked: its words scroll inside */
.tour-card p { max-width: none; margin: 0.25em 0; }
.tour-card.tour-closing { max-height: none; }   /* the closing card shows all it says and its two ways on */
/* words that go on below the card's foot fade out there: there is more, one scroll of the card away */
.tour-card.tour-more-below { -webkit-mask-image: linear-gradient(to bottom, #000 calc(100% - 1.6em), transparent);
                             mask-image: linear-gradient(to bottom, #000 calc(100% - 1.6em), transparent); }
span.tour-optional { font-size: var(--card-badge-size, 0.85em); color: #444; border: 1px solid #aaa; border-radius: 3px; padding: 0 4px;
                     margin-left: 6px; }
/* the count line with the card's small buttons at its right, the title under them across the card, then the rest;
   on a phone the count goes into the title's line ("7/21"), beside the buttons, and the section's own title says
   which section it is */
.tour-card { display: grid; grid-template-columns: minmax(0, 1fr) auto; column-gap: 8px; align-items: start; }
.tour-card > * { grid-column: 1 / -1; }
.tour-card > p.tour-count { grid-column: 1; grid-row: 1; }
.tour-card > .tour-tools { grid-column: 2; grid-row: 1; }
.tour-card > h2 { grid-row: 2; }
.tour-card h2 { font-size: 1.15em; line-height: 1.3; margin: 0.15em 0; }   /* the page's h3 size */
p.tour-count { color: #444; margin: 0.2em 0 0; align-self: center; }
span.tour-section { display: var(--tour-section-display, inline); }   /* a narrow docked card leaves it out */
span.tour-num { display: none; color: #444; font-weight: normal; }
span.tour-check { color: #1b5e20; }
p.tour-keys { color: #444; }
@media (max-width: 599px) { p.tour-count { display: none; } span.tour-num { display: inline; }
  .tour-card > h2 { grid-column: 1; grid-row: 1; } }
.tour-tools { display: flex; gap: 2px; flex: 0 0 auto; }
.tour-card button { font: inherit; color: #1F5F99; background: none; border: 1px solid transparent; border-radius: 3px;
                    padding: 0 6px; cursor: pointer; min-height: 32px; min-width: 32px; }
@media (pointer: coarse) { .tour-card button { min-height: 40px; min-width: 40px; } }   /* a finger's size */
.tour-card button:hover, .tour-card button:focus-visible { border-color: #1F5F99; }
.tour-card button.tour-close { font-size: 1.3em; line-height: 1; color: #444; }
.tour-card p.tour-actions button { border-color: #1F5F99; margin: 0 8px 4px 0; }
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
        """The card as a block of the page: first in the first section's side column, on the first screen."""
        return Block("tour", self.layout, "side", height=300, first=True)


def _plain(text: str) -> str:
    """A card's words as plain text: the emphasis marks of ``_markup`` left out."""
    return re.sub(r"\*([^*\n]+)\*", r"\1", text)


def _markup(text: str) -> str:
    return re.sub(r"\*([^*\n]+)\*", r"<em>\1</em>", html.escape(text, quote=True))


def card_parts(tour: Tour, k: int) -> dict:
    """Step ``k``'s card (from 1) in parts, every text escaped: the region's label, the count line (a phone shows
    the short count in the title instead), the title's words, the step's words (which a docked card folds away,
    "Read more") and the Try it line.  tour.js puts them together with the card's small buttons (``tools``)."""
    s, n = tour.steps[k - 1], len(tour)
    count = WORDS["step"].format(k=k, n=n)
    optional = f'<span class="tour-optional">{WORDS["optional"]}</span>' if s.optional else ""
    return {"label": f"guided tour, {count.lower()}",
            "count": f'<p class="tour-count">{count}<span class="tour-section"> \u00b7 '
                     f'{html.escape(terms(tour.catalogue).section_words[s.section])}</span>{optional}',
            "num": f'<span class="tour-num" aria-hidden="true">{k}/{n} </span>',
            "title": _markup(s.title), "text": f'<p class="tour-text">{_markup(s.text)}</p>',
            "do": f'<p class="tour-do"><b>{WORDS["try"]}</b> {_markup(s.do)}</p>',
            # what a screen reader hears when the step opens (plain text: tour.js sets it as text)
            "said": f"{count}: {_plain(s.title)}"}


CLOSE_BUTTON = (f'<button type="button" class="tour-close" data-tour-act="hide" aria-label="{WORDS["close"]}" '
                f'title="{WORDS["close"]}">\u00d7</button>')


def tools(expanded: bool) -> str:
    """The card's own small buttons: its words open and close ("Read more"), and the card goes away (as Free
    exploration does).  tour.js hears their clicks by ``data-tour-act``."""
    label, name = (WORDS["less"], WORDS["less_name"]) if expanded else (WORDS["more"], WORDS["more_name"])
    return (f'<span class="tour-tools"><button type="button" class="tour-toggle" data-tour-act="more" '
            f'aria-label="{name}" aria-expanded="{"true" if expanded else "false"}">{label}</button>'
            f'{CLOSE_BUTTON}</span>')


def card_html(tour: Tour, k: int, expanded: bool = True) -> str:
    """The card's HTML for step ``k`` (from 1), every text escaped; open, for a status line and ``</div>``."""
    p = card_parts(tour, k)
    return (f'<div class="tour-card" role="region" aria-label="{p["label"]}">{p["count"]}</p>'
            f'<h2>{p["num"]}{p["title"]}</h2>{tools(expanded)}'
            f'{p["text"] if expanded else ""}{p["do"]}')


def closing_html(tour: Tour) -> str:
    """The card after the last step, whole: what the tour adds up to (the tour file's "closing", else the page's
    own words) and two ways on: start again, or explore on one's own."""
    title, text = tour.closing or (WORDS["closing_title"], WORDS["closing_text"])
    end = WORDS["end"].format(n=len(tour))
    return (f'<div class="tour-card tour-closing" role="region" aria-label="guided tour, the end">'
            f'<p class="tour-count">{end}</p><h2>{_markup(title)}</h2><span class="tour-tools">{CLOSE_BUTTON}</span>'
            f"<p>{_markup(text)}</p>"
            f'<p class="tour-actions"><button type="button" data-tour-act="restart">{WORDS["again"]}</button>'
            f'<button type="button" data-tour-act="hide">{WORDS["explore"]}</button></p></div>')


def _status(s, found: bool) -> str:
    """The card's status line (a screen reader hears it through the page's live region: ``_said``)."""
    if found:
        return (f'<p class="tour-found"><span aria-hidden="true">\u2713</span> '
                f'{WORDS["found"]} {_markup(s.found)}</p>')
    return f'<p class="tour-shown">{_markup(s.found)}</p>'


def _said(s, found: bool) -> str:
    """The status line as plain text, for the page's live region (tour.js)."""
    return f'{WORDS["found"]} {_plain(s.found)}' if found else _plain(s.found)


ENGINE_ARGS = ["config", "card", "box", "prev", "next", "show", "hide", "open", "skip", "png", "more_buttons", "w",
               "ds", "more", "main", "stepper", "notice_div", "shipped_note"]


@lru_cache(maxsize=None)
def engine_source() -> str:
    """On the page's library: steps.js (a step's readouts and goal, the link's step), dock.js (where the card
    stands, the presenter's keys), tour.js (the card)."""
    return engine_code([HERE / "steps.js", HERE / "dock.js", HERE / "tour.js"], "AttnTour.handle", ENGINE_ARGS)



def needs_more(T, state: dict, more_keys) -> bool:
    """Whether a step's state needs a control behind its section's "More controls": one of ``more_keys`` (the
    settings whose controls sit there, which the section's contract declares and the composition hands over)
    away from its default."""
    defaults = T.full_state({}, T.glider)
    return any(k in state and state[k] != defaults.get(k, state[k]) for k in more_keys)


def _applies(T, step) -> dict:
    """What a step's Show me asks of each section's engine, by the section that owns each setting (a learning
    step may set the regression's dataset, an ideas step the self-attention section's sentence); nothing for a
    step whose sliders Show me glides itself."""
    if step.section == T.glider:
        return {}
    out: dict = {}
    for key, value in show_me_settings(step).items():
        out.setdefault(T.settings_owner(key, step.section), {})[key] = value
    return out


def control_table(T, controls) -> list[dict]:
    """The gliding section's declared controls (app/contract.py ``Control``) whose settings a step sets, as
    tour.js moves them: by their widget key, the widget's property, whether it holds log10 of the setting, and
    whether Show me glides it (a slider) or sets it at once (a menu, a check box)."""
    keys = T.section_keys.get(T.glider, ())
    return [{"key": c.key, "name": c.name, "widget": c.widget, "prop": c.prop, "log": c.kind == "log_slider",
             "glide": c.kind in ("slider", "log_slider")} for c in controls if c.key in keys]


def tour_config(tour: Tour, *, step, more_keys=(), controls=(), keys: str = "deck") -> dict:
    """What tour.js needs: the steps (their sections, states, conditions and what they look at), the card texts
    (already HTML), and the link's rule (``step``: the raw ``tour`` value, resolved in the browser by the twin of
    ``app.tour.model.resolve_step``); ``more_keys``: the settings behind "More controls" (``needs_more``)."""
    T = terms(tour.catalogue)
    sections = [st.section for st in tour.steps]
    nexts = {}
    for k, sec in enumerate(sections):   # "skip to ...": the first step of the next section, if any
        later = next((j for j in range(k + 1, len(sections)) if sections[j] != sec), None)
        nexts[k] = None if later is None else [later + 1,
                                               WORDS["skip"].format(section=T.section_words[sections[later]])]
    return {
        "initial_step": step, "tween_ms": TWEEN_MS, "min_frames": MIN_FRAMES, "tolerance": EQUAL_TOLERANCE,
        "defaults": T.full_state({}, T.glider), "how_shown": list(HOW_SHOWN), "controls": control_table(T, controls),
        # the section whose sliders Show me glides (its settings go through the card's widgets, not its engine)
        "glider": T.glider,
        "steps": [{"id": st.id, "section": st.section,
                   # glide: Show me moves the section's widgets itself; asked: the section works its readouts
                   # out when asked (app/ui/common.js askReadouts), the others publish theirs on the page's bus
                   "glide": st.section == T.glider, "asked": not T.contract(st.section).readouts_on_bus,
                   "state": dict(st.state) if st.section == T.glider else show_me_settings(st),
                   "when": [list(c) for c in st.when],
                   "more": st.section == T.glider and needs_more(T, st.state, more_keys),
                   "look": [T.look_models.get(n, n) for n in st.looks_at], "optional": st.optional,
                   "skip": nexts[k], "apply": _applies(T, st), "ready": ready_settings(st), "png": st.figure,
                   "shipped": bool(st.needs_shipped_data)}
                  for k, st in enumerate(tour.steps)],
        "cards": [card_parts(tour, k) for k in range(1, len(tour) + 1)],
        "tools": {"open": tools(True), "folded": tools(False)},
        "closing": closing_html(tour),
        "keys": f'<p class="tour-keys">{html.escape(WORDS["keys"])}</p>',
        "keys_framed": f'<p class="tour-keys">{html.escape(WORDS["keys_framed"])}</p>',
        "turn_keys": [{"keys": list(ks), "shift": shift, "by": by} for ks, shift, _, by in TURN_KEYS],
        # whose the presenter's keys are in a frame: this page's setting, which the link's keys= overrides (dock.js)
        "keys_setting": {"initial": keys, "spec": {"keys": url_spec(PageState)["keys"]}, "url_rules": url_rules()},
        "check": '<span class="tour-check" aria-hidden="true">\u2713 </span>',
        "found": [_status(st, True) for st in tour.steps],
        "shown": [_status(st, False) for st in tour.steps],
        "said": {"found": [_said(st, True) for st in tour.steps], "shown": [_said(st, False) for st in tour.steps]},
        "words": {"open": WORDS["open"]},
        # what the card's PNG button says once it has handed the figure to the browser (dock.js savePng)
        "png_texts": {k: PNG_TEXTS[k] for k in ("saved", "saved_framed", "own_tab", "failed")},
        "link": {"max_id": MAX_ID, "shown_max": 40, "first_id": tour.steps[0].id},
    }


def _find(named: dict, name, section):
    m = named.get(name)
    if m is None:
        raise ValueError(f"the {section} section has no model named {name!r}; the tour needs it")
    return m


def _card_models(tour: Tour, k: int) -> dict:
    """The card's own models for step ``k`` (0: hidden, showing step 1's words): its words and its buttons."""
    shown = max(k, 1)
    css = [InlineStyleSheet(css=_page_css() + CARD_CSS)]
    card = Div(text=card_html(tour, shown) + "</div>", name="tour_card", stylesheets=css,
               sizing_mode="stretch_width", min_width=260)
    card.syncable = False   # only the browser writes it
    return dict(css=css, card=card,
                prev=Button(label=WORDS["prev"], name="tour_prev", disabled=shown <= 1),
                show=Button(label=WORDS["show"], name="tour_show", button_type="primary",
                            stylesheets=[InlineStyleSheet(css=_primary_css())]),
                next=Button(label=WORDS["next"], name="tour_next", disabled=shown >= len(tour)),
                hide=Button(label=WORDS["hide"], name="tour_hide"),
                skip=Button(label=WORDS["skip"].format(section=""), name="tour_skip", visible=False),
                png=Button(label=WORDS["png"], name="tour_png", visible=tour.steps[shown - 1].figure is not None),
                open=Button(label=f"{WORDS['open']} (step {shown} of {len(tour)})", name="tour_open",
                            visible=k == 0),
                # The step shown (0: the card is hidden), both ways between Python and the card: a notebook's
                # e.tour = 3 sets it and the card moves; Next, Previous and Free exploration write it back.  Never
                # on the page (not in a layout): a synced value only.
                stepper=NumericInput(value=k, mode="int", low=0, high=len(tour), name="tour_step", visible=False))


def _card_layout(m: dict, shipped_note, visible: bool):
    """The card's words and its buttons side by side where the card is wide (docked at the foot of a wide screen:
    the words wrap in their column, the buttons keep theirs), one under the other on a phone: the row wraps."""
    wrap = {"flex-wrap": "wrap", "gap": "4px 8px"}
    words = column(m["card"], *([shipped_note] if shipped_note is not None else []), sizing_mode="stretch_width",
                   styles={"flex": "1 1 24em", "min-width": "0"}, name="tour_words")
    m["more_buttons"] = row(m["hide"], m["skip"], m["png"], styles=wrap, name="tour_more_buttons")
    buttons = column(row(m["prev"], m["show"], m["next"], styles=wrap), m["more_buttons"],
                     styles={"flex": "0 1 auto", "gap": "4px"}, name="tour_buttons")
    m["box"] = row(words, buttons, sizing_mode="stretch_width", name="tour_box", visible=visible,
                   styles={"flex-wrap": "wrap", "gap": "4px 16px", "align-items": "flex-end"})
    return column(m["box"], m["open"], sizing_mode="stretch_width", name="tour")


def _listen(engine, m: dict, w: dict, ds, main, table) -> None:
    """What the card's engine hears: its own buttons and step, and the regression's widgets, data and plot (a
    student's move during Show me stops it, and the student's value wins)."""
    m["stepper"].js_on_change("value", engine)
    for b in (m["prev"], m["show"], m["next"], m["hide"], m["open"], m["skip"], m["png"]):
        b.js_on_event("button_click", engine)
    for c in table:   # a slider, a menu or a check box moved during "Show me" stops it
        if w[c["widget"]] is not None:
            w[c["widget"]].js_on_change(c["prop"], engine)
    if main is not None:   # a drag on the plot during "Show me" stops it, and the drag wins
        for event in ("panstart", "pan", "tap", "press"):   # (press: a button held still before it moves)
            main.js_on_event(event, engine)
    if ds is not None:
        ds.js_on_change("data", engine)


def build_tour(layout=None, *, tour: Tour, step=1, named: dict | None = None, more_keys=(),
               controls=(), prepared: bool = False, keys: str = "deck") -> TourView:
    """The step card, whose gliding section's widgets (``controls``, the section's declared ones) are found by name
    in ``named`` (or in ``layout``); ``step`` is the raw ``tour`` setting (a number or an id), resolved here for the
    card the page is built with."""
    T = terms(tour.catalogue)
    k, _notice = resolve_step(str(step), tour)
    m = _card_models(tour, k)
    named = named if named is not None else (by_name(layout) if layout is not None else {})
    glides = any(st.section == T.glider for st in tour.steps)
    config = dict(tour_config(tour, step=step, more_keys=more_keys, controls=controls, keys=keys), prepared=prepared)
    wanted = {c["widget"]: c["name"] for c in config["controls"]}
    # the controls the card hears beyond the settings a step sets (presentation mode: its keys turn the steps)
    heard = T.contract(T.glider).tour_hears if T.glider else ()
    wanted.update({c.widget: c.name for c in controls if c.key in heard})
    w = {key: _find(named, name, T.glider) if glides else named.get(name) for key, name in wanted.items()}
    # the gliding section's models the card works with, by their roles (its contract's card_models)
    roles = T.contract(T.glider).card_models if T.glider else {}
    ds = _find(named, roles["data"], T.glider) if glides and "data" in roles else named.get(roles.get("data"))
    menu = named.get(roles.get("data_menu"))
    shipped_note = _shipped_note(m["css"], menu, T.spec[T.control_keys[menu.name]]["default"] if menu else None)
    section = _card_layout(m, shipped_note, visible=k > 0)
    # the "More controls" column (None where a section has none) and the plot whose drag stops a tween
    more, main = named.get(roles.get("more")), named.get(roles.get("drag"))
    engine = engine_callback(dict(config=config, w=w, ds=ds, more=more, main=main,
                                  notice_div=named.get(roles.get("notices")), shipped_note=shipped_note,
                                  **{n: m[n] for n in ("card", "box", "prev", "next", "show", "hide", "open", "skip",
                                                       "png", "more_buttons", "stepper")}),
                             engine_source())
    _listen(engine, m, w, ds, main, config["controls"])
    return TourView(layout=section, engine=engine,
                    models=dict(config=config, **{n: m[n] for n in ("card", "box", "prev", "next", "show", "hide",
                                                                    "open", "skip", "png", "more_buttons",
                                                                    "stepper")}))


def _shipped_note(css, menu, shipped: str | None):
    """Under the card while your own data are shown and the step needs the shipped data (tour.js yourData): one
    sentence and a button that puts the dataset menu back on the shipped data (``shipped``, its default; the
    section's engine swaps)."""
    if menu is None:   # a page without the section that shows your data shows none
        return None
    switch = Button(label=WORDS["switch"], name="tour_shipped_switch")
    switch.js_on_event("button_click", CustomJS(args=dict(menu=menu, name=shipped),
                                                code="menu.value = name;"))
    return column(Div(text=f'<p class="limit">{html.escape(WORDS["shipped"])}</p>', stylesheets=css,
                      sizing_mode="stretch_width"), switch, sizing_mode="stretch_width", name="tour_shipped_note",
                  visible=False)


def add_tour(view, state, *, tour: Tour, more_keys=(), controls=()) -> TourView:
    """Build the card for ``state.tour``; ``view`` (the built view of the section whose sliders Show me glides, or
    None on a page without it) lends its widgets to that section's steps.  The card's ``block`` starts in the
    page's first section (app/sections.py); in the browser it moves to the section of the step it shows (tour.js)."""
    named = view.named if view is not None else {}
    return build_tour(tour=tour, step=getattr(state, "tour", 1), named=named, more_keys=more_keys,
                      controls=controls, prepared=prepared(state), keys=getattr(state, "keys", "deck"))


# The settings of a link that say how the page is shown, not what it shows: presentation mode, the tour's step, and
# whose keys turn what in a frame.  A link with only these opens in the lesson's state (steps.js stepFromUrl).
HOW_SHOWN = ("present", "tour", "keys", "embed")


def prepared(state) -> bool:
    """Whether the page is built in a state of its own (an export's ``--query 2.5``), which presentation mode keeps
    when it opens on an unnamed first step (steps.js opening)."""
    skip = {"name", *HOW_SHOWN}
    return any(getattr(state, k) != p.default for k, p in state.param.objects("existing").items() if k not in skip)


def _theme():
    from app.ui import theme   # (imported when asked: the tour's model is used without Bokeh's look)
    return theme


def _page_css() -> str:
    return _theme().PAGE_CSS


def _primary_css() -> str:
    return _theme().PRIMARY_BUTTON_CSS


__all__ = ["TourView", "build_tour", "add_tour", "card_html", "tour_config"]
