"""A section's controls built from their declarations (app/contract.py ``Control``), in the page's look.

``build_controls(controls, state)`` gives each declared control its Bokeh widget: the setting's bounds, choices
and default come from the section's param state, the words and the model's name from the declaration, so a
control is written once.  A view passes what only it knows (a menu's options with their labels, a width) as
``extra[key]``.
"""

from __future__ import annotations

import math

import param
from bokeh.models import Checkbox, InlineStyleSheet, NumericInput, RadioButtonGroup, Select, Slider, TextInput

from . import theme

# A slider's title wraps inside its slider (Bokeh keeps it on one line): on a phone "temperature T: 0.00100" and
# "bandwidth h: 0.725 (day)" ran past the screen's edge or into the slider beside them.
SLIDER_TITLE_CSS = ".bk-slider-title { white-space: normal; overflow-wrap: anywhere; }"
TEXT_MAX = 500   # characters a text setting holds (app/state.py url_spec "text")


def _slider(c, p, value, props):
    lo, hi = p.bounds
    if c.kind == "log_slider":
        props = {"step": 0.01, "format": theme.log_format(), **props}
        lo, hi = math.log10(lo), math.log10(hi)
        value = props.pop("value", math.log10(value))
    return Slider(**{"start": lo, "end": hi, "value": value, "title": c.label, "name": c.name,
                     "sizing_mode": "stretch_width",
                     "stylesheets": [InlineStyleSheet(css=SLIDER_TITLE_CSS), theme.slider_css()], **props})


def build_control(c, state, **props):
    """The widget of control ``c`` for ``state`` (any object with the control's parameter); ``props`` add to it
    or replace what the declaration gives."""
    p, value = type(state).param[c.key], getattr(state, c.key)
    form = [theme.widget_css()]   # the selects' and check boxes' text at the theme's size
    if c.kind in ("slider", "log_slider"):
        return _slider(c, p, value, props)
    if c.kind == "toggle":
        return Checkbox(**{"label": c.label, "active": bool(value), "name": c.name, "stylesheets": form, **props})
    if c.kind == "select":
        options = [str(o) for o in getattr(p, "objects", None) or []]
        return Select(**{"title": c.label, "value": str(value), "options": options, "name": c.name,
                         "stylesheets": form, **props})
    if c.kind == "number":
        mode = "int" if isinstance(p, param.Integer) else "float"
        return NumericInput(**{"title": c.label, "mode": mode, "value": value, "name": c.name, "stylesheets": form,
                               **props})
    if c.kind == "radio":
        return RadioButtonGroup(**{"active": int(value), "name": c.name, **props})
    return TextInput(**{"title": c.label, "value": str(value), "max_length": TEXT_MAX, "name": c.name,
                        "stylesheets": form, **props})


def build_controls(controls, state, extra=None) -> dict:
    """Every control of ``controls`` by its widget key (``Control.widget``); ``extra``: key -> props for one."""
    extra = extra or {}
    return {c.widget: build_control(c, state, **extra.get(c.key, {})) for c in controls}


def by_role(controls, role: str) -> tuple:
    """The declared controls of one role (app/contract.py ``ROLES``), in their declared order."""
    return tuple(c for c in controls if c.role == role)


def wire(controls, widgets: dict, callback) -> None:
    """Run ``callback`` (a section's engine) when any declared control's setting changes in its widget."""
    for c in controls:
        widgets[c.widget].js_on_change(c.prop, callback)
