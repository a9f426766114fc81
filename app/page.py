"""The served page and the notebook component, around the one document builder.

``create_page(query)`` is what ``panel serve app/main.py`` shows for each
session: it reads the deep link, builds the regression section with
``build_regression`` and adds what only a Python server can do (the seeded
dataset generator).  ``Explorable`` is the same page as a Panel component for
Jupyter: ``Explorable(query=2.5, bandwidth=0.3)``.
"""

from __future__ import annotations

import logging

import panel as pn

import attention

from . import text
from .document import build_regression, dataset_meta
from .state import ExplorableState, parse_query

log = logging.getLogger(__name__)

# (widget name in the document, state parameter, conversion from the widget's value)
_SYNCED = [
    ("query", "query", float),
    ("logh", "bandwidth", lambda v: 10.0 ** v),
    ("logt", "temperature", lambda v: 10.0 ** v),
    ("kernel", "kernel", str),
    ("keynorm", "key_norm", float),
    ("link", "link", bool),
    ("limits", "limits", bool),
    ("present", "present", bool),
]


class Explorable(pn.viewable.Viewer, ExplorableState):
    """The explorable as a Panel component; its parameters are the deep link's.

    >>> Explorable(query=2.5, bandwidth=0.3).bandwidth
    0.3

    In a notebook: ``pn.extension()`` then ``Explorable(query=2.5)`` in a cell.
    """

    def __init__(self, notices=(), **params):
        super().__init__(**params)
        self._notices = list(notices)
        self._view = None
        self._generator = None

    # -- the dataset generator (needs Python) ------------------------------------------------------
    def generated_dataset(self):
        return attention.make_dataset(self.fn, self.n, self.noise, self.seed)

    def _push_generated(self):
        try:
            d = self.generated_dataset()
        except ValueError as e:  # bounds are validated by param; this is a last guard
            self._show_notice(str(e))
            return
        v = self._view
        v.ds.tags = [dataset_meta("generated", d)]
        v.ds.data = {"x": d.x.tolist(), "y": d.y.tolist()}
        if v.widgets["dataset"].value != "generated":
            v.widgets["dataset"].value = "generated"

    def _show_notice(self, message: str):
        self._view.notice_div.text = f'<p class="notice">{text.escape(message)}</p>'
        self._view.notice_div.visible = True

    def _generator_panel(self):
        fn = pn.widgets.Select.from_param(self.param.fn, name="true function", width=140)
        n = pn.widgets.IntInput.from_param(self.param.n, name="samples n", width=110)
        noise = pn.widgets.FloatInput.from_param(self.param.noise, name="noise", step=0.05, width=100)
        seed = pn.widgets.IntInput.from_param(self.param.seed, name="seed", width=110)
        go = pn.widgets.Button(name="Generate", button_type="primary", width=110, align="end")
        go.on_click(lambda _event: self._push_generated())
        note = pn.pane.HTML(
            f'<p style="margin:4px 0;color:#555">Draw fresh noisy samples of a true function (at most '
            f'{attention.datasets.MAX_GENERATED_N}); the same seed always gives the same samples.</p>',
            sizing_mode="stretch_width")
        return pn.Column(note, pn.FlexBox(fn, n, noise, seed, go, gap="8px"), sizing_mode="stretch_width",
                         styles={"max-width": "1200px", "margin": "0 auto", "padding": "0 8px"},
                         name="generator")

    # -- the page ---------------------------------------------------------------------------------
    def _build(self):
        dataset = None
        if self.dataset == "generated":
            try:
                dataset = self.generated_dataset()
            except ValueError as e:
                self._notices.append(str(e))
        self._view = build_regression(self, mode="served", notices=self._notices, dataset=dataset)
        w = self._view.widgets
        for widget_name, pname, conv in _SYNCED:
            prop = "active" if pname in ("link", "limits", "present") else "value"
            w[widget_name].on_change(prop, self._syncer(pname, conv))
        w["dataset"].on_change("value", self._on_dataset)
        parts = self._view.parts
        panes = [pn.pane.Bokeh(m, sizing_mode="stretch_width") for m in parts.values()]
        keys = list(parts)
        panes.insert(keys.index("controls") + 1, self._generator_panel())
        return pn.Column(*panes, sizing_mode="stretch_width", name="explorable")

    def _syncer(self, pname, conv):
        def sync(_attr, _old, new):
            try:
                value = conv(new)
                p = self.param[pname]
                if getattr(p, "bounds", None):
                    lo, hi = p.bounds
                    value = min(max(value, lo), hi)
                setattr(self, pname, value)
            except (ValueError, TypeError) as e:  # a stray value from a client never stops the session
                log.warning("ignored %s=%r from the browser: %s", pname, new, e)
        return sync

    def _on_dataset(self, _attr, _old, new):
        if new == "generated":
            self._push_generated()
        elif new in attention.list_datasets():
            self.dataset = new

    def __panel__(self):
        if self._view is None:
            self._layout = self._build()
        return self._layout

    @property
    def engine(self):
        """The document-ready callback that starts the page (attach it to the document)."""
        self.__panel__()
        return self._view.engine


def create_page(query) -> Explorable:
    """The explorable for one session, from the session's URL arguments (or a raw query string)."""
    values, notices = parse_query(query)
    return Explorable(notices=notices, **values)


def session_args() -> dict:
    """The session's URL arguments with keys decoded as UTF-8 (tornado hands them over as latin-1)."""
    out = {}
    for k, vs in (pn.state.session_args or {}).items():
        try:
            key = k.encode("latin-1").decode("utf-8", "replace")
        except UnicodeEncodeError:
            key = k
        out.setdefault(key, []).extend(vs)
    return out


def serve_page():
    """Build the page for the current server session and start its engine when the document is ready."""
    page = create_page(session_args())
    layout = page.__panel__()
    doc = pn.state.curdoc
    if doc is not None:
        doc.js_on_event("document_ready", page.engine)
        doc.title = "Attention as kernel regression"
    return page, layout


__all__ = ["Explorable", "create_page", "serve_page"]
