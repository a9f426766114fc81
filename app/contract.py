"""What a section offers the page, declared in one place: its contract.

Each section declares its settings and the controls that show them in its ``state.py`` (``STATE``, a param
class whose parameters are the deep link's keys with their bounds, and ``CONTROLS``), and the rest in its
``contract.py``: its builder, the readouts it publishes (with what each means), the figures and other names its
steps may look at, what the page calls it, and what it lends or borrows of another section.  The composition
(app/sections.py) is the one module that imports the contracts: it lists them once, in a ``Catalogue`` (below),
builds the page from it and hands it to the tour (its keys, conditions, look lists and readouts) and the deliveries
(the notebook component's two-way links, the share menu's figures).  So the tour, the shared layer (app/ui/) and the
deliveries import no section, and no section imports another (tests/app/test_imports.py holds that).

Adding a control is one ``Control`` in the section's ``CONTROLS`` (with its parameter in ``STATE``) and the
engine code that makes it do something; the page's links, the share state, the notebook's parameters, the tour's
settings and look names and "More controls" follow from the declaration.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

# A control's kind: the Bokeh widget that shows it and the widget's property that holds the setting.
KINDS = {"slider": "value", "log_slider": "value", "select": "value", "toggle": "active", "radio": "active",
         "text": "value", "number": "value"}
# Where a section's view puts a control: always in view, behind its "More controls", or in the dataset generator.
ROLES = ("main", "more", "generator")
READOUT_KINDS = ("number", "bool", "choice", "word", "words")
# The nouns a step card names a figure or a control by ("the sense plot", "the bandwidth slider"): a look name that
# ends in one of them is called by its name in words as well as by its declared ``look_words``.
LOOK_NOUNS = ("plot", "matrix", "slider", "bar")
# What the composition may hand a section's build besides the state (a contract's ``takes``): the notices a Python
# reader of the link found, your own data (app/userdata/), and every figure the page may have (the figure menu).
PAGE_INPUTS = ("notices", "dataset", "figure_menu")
SHOW_ME = ("apply", "glide")


@dataclass(frozen=True)
class Control:
    """One setting as the page shows it.

    Parameters
    ----------
    key : str
        The setting it shows: a parameter of the section's ``STATE``, by its deep-link name.
    name : str
        Its model's name in the page's document: what a tour step's ``look`` names, and what the tour, the
        tests and the page's loader find it by.
    kind : str
        One of ``KINDS``: ``log_slider`` holds log10 of the setting; ``select`` holds its text.
    label : str
        Its words on the page (a slider's title, a check box's label).
    role : str, optional
        One of ``ROLES``: "main" (always in view), "more" (behind "More controls": a tour step that sets it away
        from its default opens that disclosure) or "generator" (the dataset generator's form).
    widget : str, optional
        Its key in the section view's widgets and engine (``w_<widget>``); by default ``key``.
    synced : bool, optional
        Whether the notebook component's parameter follows it both ways (app/delivery/page.py); False where the
        section's engine does not yet take the setting from Python.
    """

    key: str
    name: str
    kind: str
    label: str
    role: str = "main"
    widget: str = ""
    synced: bool = True

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"control {self.key!r}: kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.role not in ROLES:
            raise ValueError(f"control {self.key!r}: role {self.role!r} is not one of {', '.join(ROLES)}")
        if not self.widget:
            object.__setattr__(self, "widget", self.key)

    @property
    def prop(self) -> str:
        """The widget's property that holds the setting."""
        return KINDS[self.kind]

    def to_widget(self, value):
        """The setting's value as the widget holds it."""
        if self.kind == "log_slider":
            return math.log10(value)
        if self.kind == "select":
            return str(value)
        return value

    def from_widget(self, value, kind_of_setting: type):
        """The widget's value as the setting holds it (``kind_of_setting``: int, float, bool or str)."""
        if self.kind == "log_slider":
            return 10.0 ** float(value)
        return kind_of_setting(value)


@dataclass(frozen=True)
class Readout:
    """One name a tour step's ``when`` may compare: what the section publishes under it.

    Parameters
    ----------
    kind : str
        One of ``READOUT_KINDS``: a number, true/false, a choice among names, a word or several (a sentence, as the
        page splits it into words).
    description : str
        What it is, for the tour file's author (the README and the JSON Schema list it).
    units : str
        Its units, in words.
    runtime : bool, optional
        Whether it changes only in the browser while Play runs: "Show me" stops Play and never presses it, so
        the core reads it as false in the state Show me reaches.
    choices : tuple of str, or a function giving them, optional
        A "choice" readout's values; by default those of the setting of the same name.
    """

    kind: str
    description: str
    units: str
    runtime: bool = False
    choices: object = ()

    def __post_init__(self):
        if self.kind not in READOUT_KINDS:
            raise ValueError(f"a readout's kind is one of {', '.join(READOUT_KINDS)}, got {self.kind!r}")


@dataclass(frozen=True)
class SectionContract:
    """A section's declarations.

    Parameters
    ----------
    name : str
        The section's name in links, tours and ``--sections`` (one of app/sections.py ``SECTIONS``).
    words : str
        What the page calls it (the tour card's count line and "skip to", the figure menu's groups).
    state : param.Parameterized subclass
        Its settings: each parameter a deep-link key with its bounds and default (the section's ``state.py``).
    controls : tuple of Control
        The controls that show its settings, in the order its view lays them out (the section's ``state.py``).
    build : callable
        ``build(state, **wiring) -> view``: the section's blocks and engine for an ``ExplorableState``.
    readouts : callable
        ``readouts(state, needs=None, dataset=None) -> dict``: every name of ``conditions`` for a full state
        (every setting of the section given), computed with the numpy core (attention/).
    conditions : dict of str to Readout
        The names its readouts publish, which a tour step's ``when`` may compare, in the order the README lists.
    figures : dict of str to str
        Its plots by model name, with the words a person calls each (the figure menu, a step's PNG), in the
        page's order.
    look : tuple of str, optional
        Other names a tour step may keep in view (readouts, boxes of controls); the figures and the controls'
        names are lookable already.  A step that names nothing looks at ``look_first`` (default: the first figure).
    reads : tuple of str, optional
        Settings of another section that its picture reads (a tour step of this section may set them).
    setting_units : dict of str to str, optional
        The units of a setting a step may set whose readout of the same name says otherwise (or is missing; a
        true-or-false setting needs none).
    untoured : tuple of str, optional
        Settings a tour step may not set (``step_keys`` leaves them out).
    look_first : str, optional
        What a step that names nothing to look at keeps in view; by default the first figure.
    look_models : dict of str to str, optional
        A look name whose model is not the one the page keeps in view: the model to keep instead (a figure in a
        box that scrolls sideways keeps its box in view).
    look_words : dict of str to tuple of str, optional
        The words a step card uses for a look name ("sense plot", "plot of the deciding word"), lower case; a
        card that uses them looks at that name (tests/app/test_look_words.py).  A name ending in ``_plot``,
        ``_slider``, ``_matrix`` or ``_bar`` is called by its name in words too (``called``).
    said_with : dict of str to str, optional
        A figure whose description, for a screen reader, begins with the words of a text the section's engine
        writes from the state (its readouts), by that text's model name: the figure says its state in the
        sentences the page shows (app/ui/describe.js).
    embed : tuple of str, optional
        The blocks a short frame shows (``?embed=<section>``, app/ui/embed.js): the section's figure, its sliders and
        its one-line readout, by block name, in page order; a block whose height the page's CSS sets fills the
        frame's height left.  Empty: the section is not offered alone in a frame.
    embed_leaves_out : tuple of str, optional
        Plots in those blocks that a short frame does not show, by model name, so that the section's figure gets
        the frame's height (the learning section's loss at each step, whose numbers its readout line says).
    needs : tuple of str, optional
        The sections whose engines compute what this one's figures draw (the learning section draws the
        regression's curves): started with it, even where none of their blocks is drawn (a short frame), and
        exported with it.
    lends : dict of str to str, optional
        What its built view offers other sections (the view's ``lent``: models, figures, widgets, functions), by
        name, with what each is.
    borrows : dict of str to tuple of str, optional
        What it reads or draws on from another section's view, by that section's name: names that section
        ``lends``.  The composition builds the lender first and hands ``build`` one keyword per lender (its name),
        a dict of the borrowed names, or None on a page without that section.
    takes : tuple of str, optional
        What the page hands its ``build`` besides the state, by keyword (``PAGE_INPUTS``): the notices a reader
        of the link found, your own data, the page's figure menu.
    aligned : tuple of str, optional
        Its figures whose x axes line up on the page (the loader gives them one width of frame), by model name.
    step_check : callable, optional
        ``step_check(state) -> list of str``: what a tour step's state (the section's settings, defaults filled in)
        gets wrong that no setting's bounds can say (a selected word past the sentence's end), one sentence each.
    step_rule : str, optional
        What ``step_check`` checks, in words (the tour schema's description lists it).
    untoured_choices : dict of str to tuple of str, optional
        Values of a choice setting that a tour step may not set (the regression's "generated" dataset: a step's
        data are a shipped dataset).
    readouts_on_bus : bool, optional
        Whether its engine publishes its readouts on the page's bus at every change (``readouts:<name>``, which the
        tour's card hears); False: it works them out when the card asks (app/ui/common.js ``askReadouts``), as
        the regression does, whose numbers cost too much at every drag.
    tour_hears : tuple of str, optional
        Settings whose controls the tour's card hears though no step sets them, by key (presentation mode: its
        keys turn the steps).  Only the gliding section's (``show_me``).
    card_models : dict of str to str, optional
        The gliding section's models the tour's card works with, by role and model name: "data" (the data
        source: new data stop Show me), "data_menu" (the menu whose shipped choice the card's note puts back),
        "more" (the "More controls" column it opens), "drag" (the plot whose drag stops Show me), "notices"
        (where the link's notices are written).
    show_me : str, optional
        How a tour step's "Show me" reaches the section's state (``SHOW_ME``): "apply" hands the settings to the
        section's engine, which sets them at once; "glide" moves the section's sliders to them over half a second
        (the tour's engine holds its declared controls; one section of a page at most) and opens its "More
        controls" when a setting behind them leaves its default.
    """

    name: str
    words: str
    state: type
    controls: tuple
    build: Callable
    readouts: Callable
    conditions: dict
    figures: dict
    look: tuple = ()
    reads: tuple = ()
    setting_units: dict = field(default_factory=dict)
    untoured: tuple = ()
    look_first: str = ""
    look_models: dict = field(default_factory=dict)
    look_words: dict = field(default_factory=dict)
    said_with: dict = field(default_factory=dict)
    embed: tuple = ()
    embed_leaves_out: tuple = ()
    needs: tuple = ()
    lends: dict = field(default_factory=dict)
    borrows: dict = field(default_factory=dict)
    takes: tuple = ()
    aligned: tuple = ()
    step_check: Callable | None = None
    step_rule: str = ""
    untoured_choices: dict = field(default_factory=dict)
    readouts_on_bus: bool = True
    tour_hears: tuple = ()
    card_models: dict = field(default_factory=dict)
    show_me: str = "apply"

    def __post_init__(self):
        if not (self.name and self.name.isidentifier()):
            raise ValueError(f"a section's name is a plain word, got {self.name!r}")
        for role in ("build", "readouts"):
            if not callable(getattr(self, role)):
                raise TypeError(f"the {self.name} section's {role} must be a function")
        keys = self.keys
        for c in self.controls:
            if c.key not in keys:
                raise ValueError(f"the {self.name} section's control {c.name!r} shows {c.key!r}, which is not one of "
                                 f"its settings ({', '.join(keys)})")
        names = [c.name for c in self.controls] + list(self.figures) + list(self.look)
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"the {self.name} section names {', '.join(twice)} more than once")
        unknown = sorted(set(self.look_words) - set(names))
        if unknown:
            raise ValueError(f"the {self.name} section gives words for {', '.join(unknown)}, which it cannot look at")
        if set(self.said_with) - set(self.figures):
            raise ValueError(f"the {self.name} section describes {', '.join(sorted(set(self.said_with) - set(self.figures)))}, "
                             "which are not its figures")
        if set(self.takes) - set(PAGE_INPUTS):
            raise ValueError(f"the {self.name} section takes {', '.join(sorted(set(self.takes) - set(PAGE_INPUTS)))}: "
                             f"the page hands over only {', '.join(PAGE_INPUTS)}")
        if self.show_me not in SHOW_ME:
            raise ValueError(f"the {self.name} section's show_me is one of {', '.join(SHOW_ME)}, got {self.show_me!r}")
        if set(self.aligned) - set(self.figures):
            stray = ", ".join(sorted(set(self.aligned) - set(self.figures)))
            raise ValueError(f"the {self.name} section aligns {stray}, which are not its figures")
        said = [w for ws in self.look_words.values() for w in ws]
        if any(w != w.lower() or not w.strip() for w in said) or len(said) != len(set(said)):
            raise ValueError(f"the {self.name} section's look words are lower case, each for one name: {said}")

    @property
    def keys(self) -> tuple[str, ...]:
        """Its settings' deep-link keys, in their declared order."""
        return tuple(n for n in self.state.param.objects("existing") if n != "name")

    @property
    def step_keys(self) -> tuple[str, ...]:
        """The settings a tour step of this section may set (its own; ``reads`` adds other sections')."""
        return tuple(k for k in self.keys if k not in self.untoured)

    @property
    def more(self) -> tuple[str, ...]:
        """The settings whose controls sit behind "More controls"."""
        return tuple(c.key for c in self.controls if c.role == "more")

    @property
    def lookable(self) -> tuple[str, ...]:
        """Every name a step of this section may look at: its first look, figures, controls, then the others."""
        names = list(self.figures) + [c.name for c in self.controls] + list(self.look)
        first = self.look_first or names[0]
        return (first,) + tuple(n for n in names if n != first)

    @property
    def called(self) -> dict[str, str]:
        """What step cards call its looks: each phrase (lower case) with the look name it stands for."""
        out = {n.replace("_", " "): n for n in self.lookable if n.rsplit("_", 1)[-1] in LOOK_NOUNS}
        out.update({w: n for n, words in self.look_words.items() for w in words})
        return out

    def control(self, key: str) -> Control:
        return next(c for c in self.controls if c.key == key)


class Catalogue:
    """The page's sections as their contracts declare them, in the order a student meets them, and what follows
    from the declarations: the page's settings (one param class), the link's keys, the controls, the figures.

    The composition (app/sections.py) builds the page's one catalogue and hands it on; a test builds its own with
    a section of its own (tests/app/toy/).  ``page_state``: the param class of the settings no section owns
    (app/state.py ``PageState``), which come last in a link.
    """

    def __init__(self, contracts, page_state):
        self.contracts = tuple(contracts)
        names = [c.name for c in self.contracts]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice or not names:
            raise ValueError(f"a catalogue lists each section once, and at least one: {', '.join(names)}")
        self.names = tuple(names)
        self.by_name = {c.name: c for c in self.contracts}
        for i, c in enumerate(self.contracts):
            missing = [n for n in dict.fromkeys((*c.needs, *c.borrows)) if n not in self.by_name]
            if missing:
                raise ValueError(f"the {c.name} section needs {', '.join(missing)}, which the catalogue does not list")
            for lender, wanted in c.borrows.items():
                if self.names.index(lender) > i:
                    raise ValueError(f"the {c.name} section borrows from {lender}, which comes after it")
                unlent = [n for n in wanted if n not in self.by_name[lender].lends]
                if unlent:
                    raise ValueError(f"the {c.name} section borrows {', '.join(unlent)} from {lender}, which does not "
                                     f"lend {'it' if len(unlent) == 1 else 'them'}")
        gliders = [c.name for c in self.contracts if c.show_me == "glide"]
        if len(gliders) > 1:
            raise ValueError(f"Show me glides one section's sliders at most, not {', '.join(gliders)}")
        self.glider = gliders[0] if gliders else None
        # param lists a class's parameters from its last base to its first: the page's order, then the page's own
        bases = (page_state,) + tuple(reversed([c.state for c in self.contracts]))
        self.state = type("ExplorableState", bases, {
            "__module__": "app.sections",
            "__doc__": "Every setting a deep link can carry: each section's declared settings (app/<section>/state.py, "
                       "in the page's order), then the page's own (app/state.py PageState)."})

    def __iter__(self):
        return iter(self.contracts)

    def __contains__(self, name) -> bool:
        return name in self.by_name

    def __getitem__(self, name: str) -> SectionContract:
        return self.by_name[name]

    @property
    def first(self) -> str:
        """The first section of the page: the tour's card starts there, and a step that names none is its."""
        return self.names[0]

    def check(self, sections) -> tuple[str, ...]:
        """``sections`` (names, any order) as a tuple, or a ValueError that names what is wrong with it: an
        unknown name, none, or a section left out that a chosen one needs (its contract's ``needs``)."""
        sections = tuple(sections)
        unknown = [s for s in sections if s not in self.by_name]
        if unknown or not sections:
            raise ValueError(f"sections must be a non-empty subset of {', '.join(self.names)}, "
                             f"got {', '.join(map(str, sections))}")
        for s in sections:
            missing = [n for n in self.by_name[s].needs if n not in sections]
            if missing:
                raise ValueError(f"the {s} section draws on the {' and '.join(missing)} section: export both")
        return sections

    def in_page_order(self, sections) -> tuple[str, ...]:
        return tuple(n for n in self.names if n in sections)

    def wiring(self, name: str, views: dict, page_inputs: dict) -> dict:
        """The keywords the composition hands section ``name``'s build: what it ``takes`` of ``page_inputs``, and
        for each section it ``borrows`` from, the names it borrows from that section's built view (``views``: name
        to view), or None where that section is not built."""
        c = self.by_name[name]
        out = {k: page_inputs[k] for k in c.takes}
        for lender, wanted in c.borrows.items():
            view = views.get(lender)
            out[lender] = None if view is None else {n: view.lent[n] for n in wanted}
        return out

    def controls(self) -> list[tuple[str, Control]]:
        """(section, control) for every declared control, in the page's order."""
        return [(c.name, ctl) for c in self.contracts for ctl in c.controls]

    def synced_controls(self) -> list[tuple[str, Control]]:
        """(section, control) for every control whose notebook parameter follows it both ways
        (app/delivery/page.py), in the page's order."""
        return [(s, ctl) for s, ctl in self.controls() if ctl.synced]

    def figure_menu(self) -> list[dict]:
        """Every figure the page may have, in the page's order: its model's name, its name for a person, and its
        section's (the menu's groups, app/ui/share.py).  The browser keeps those of the sections the page has."""
        return [{"name": n, "label": words, "group": c.words} for c in self.contracts for n, words in c.figures.items()]

    def figure_names(self) -> dict[str, str]:
        """Every figure's model name and the words a person calls it."""
        return {n: words for c in self.contracts for n, words in c.figures.items()}

    def said_with(self) -> dict[str, str]:
        """A figure's model name and the text whose words begin its description (a contract's ``said_with``)."""
        return {n: text for c in self.contracts for n, text in c.said_with.items()}
