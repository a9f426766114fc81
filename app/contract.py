"""What a section offers the page, declared in one place: its contract.

Each section declares its settings and the controls that show them in its ``state.py`` (``STATE``, a param
class whose parameters are the deep link's keys with their bounds, and ``CONTROLS``), and the rest in its
``contract.py``: its builder, the readouts it publishes (with what each means), the figures and other names its
steps may look at, and what the page calls it.  The composition (app/sections.py) is the one module that imports
the contracts: it builds the page from them and hands each layer what it needs (the tour its keys, conditions,
look lists and readouts; the notebook component its two-way links; the share menu the figures).  So the tour,
the shared layer (app/ui/) and the deliveries (export, plugin, notebook component, command line) import no
section, and no section imports another (tests/app/test_imports.py holds that).

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
READOUT_KINDS = ("number", "bool", "choice", "word", "sentence")
# The nouns a step card names a figure or a control by ("the sense plot", "the bandwidth slider"): a look name that
# ends in one of them is called by its name in words as well as by its declared ``look_words``.
LOOK_NOUNS = ("plot", "matrix", "slider", "bar")


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
        One of ``READOUT_KINDS``: a number, true/false, a choice among names, a word or a sentence.
    description : str
        What it is, for the tour file's author (the README and the JSON Schema list it).
    units : str
        Its units, in words.
    runtime : bool, optional
        Whether it changes only in the browser while Play runs: "Show me" stops Play and never presses it, so
        the core reads it as false in the state Show me reaches.
    """

    kind: str
    description: str
    units: str
    runtime: bool = False

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
        regression's curves): started with it, even where none of their blocks is drawn (a short frame).
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
