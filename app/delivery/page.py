"""The explorable as a Panel component: the notebook's cell and ``panel serve app/delivery/main.py``.

``Explorable(query=2.5, bandwidth=0.3)`` is the page as a Panel component whose parameters are the deep
link's: the same sections as the offline file (``app.sections.build_sections``), drawn inside Bokeh
layouts (``app.ui.layout.bokeh_layout``), with the same engines doing everything in the browser.  Python
keeps only what needs a kernel: the parameters follow the page and the page follows the parameters
(``e.bandwidth = 1.0`` in another cell redraws it; a drag sets ``e.query``).  ``create_page(query)`` is
what ``panel serve app/delivery/main.py`` shows for each session.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from typing import Callable, NamedTuple

import panel as pn
import param

from attention.sentences import tokenize

from ..sections import (CATALOGUE, ExplorableState, build_sections, parse_query, set_user_data, synced_controls,
                        url_spec)
from ..tour import TourError, active_tour, load_tour
from ..tour.model import resolve_step
from ..userdata import as_userdata, from_arrays
from ..ui import private, theme
from ..ui.layout import bokeh_layout
from ..ui.private import EnginePane, EngineStarter, attach_engines, rendered_models

log = logging.getLogger(__name__)

def _in_a_notebook_kernel() -> bool:
    ipython = sys.modules.get("IPython")
    try:
        shell = ipython.get_ipython() if ipython is not None else None
    except Exception:  # noqa: BLE001 - any trouble here means: not a notebook
        return False
    return shell is not None and hasattr(shell, "kernel")


def use_inline_resources_in_notebooks() -> bool:
    """In a Jupyter kernel, make ``pn.extension()`` load BokehJS and Panel's JS inline instead of from a CDN.

    A notebook on a machine with no internet otherwise shows an empty cell.  Importing ``app``
    before ``pn.extension()`` (the README's snippet) is enough; PANEL_INLINE, or
    ``pn.extension(inline=False)`` after the import, still win.  Returns whether it switched.
    """
    if "PANEL_INLINE" in os.environ or not _in_a_notebook_kernel():
        return False
    pn.config.inline = True
    return True


use_inline_resources_in_notebooks()
private.check()   # Panel's private names the component uses: a missing one is said once, with the versions


def _sentence_shown(text) -> str:
    """A typed sentence as ``e.sentence`` takes it from the page: only one the page shows.  The engine refuses what
    the core refuses (too many words, none, longer than a link holds) and keeps its sentence; so does the
    parameter (ValueError, which the syncer logs)."""
    text = str(text)
    limit = url_spec()["sentence"]["max"]
    if len(text) > limit:
        raise ValueError(f"it is longer than {limit} characters")
    tokenize(text)
    return text


# What a setting's value is in Python, by its parameter's class (a widget may hold it as text, a menu's choice).
_KINDS = ((param.Boolean, bool), (param.Integer, int), (param.Number, float))
# A setting whose widget value Python checks beyond its kind (the typed sentence: only one the page shows).
_CHECKS = {"sentence": _sentence_shown}


def _setting_kind(name: str) -> type:
    p = ExplorableState.param[name]
    return next((kind for cls, kind in _KINDS if isinstance(p, cls)), str)


class _Link(NamedTuple):
    """One declared control (app/contract.py ``Control``) that a notebook parameter follows both ways."""
    section: str
    widget: str          # its key in the section view's widgets
    param: str           # the state's parameter
    prop: str            # the widget's property that holds the value
    from_widget: Callable
    to_widget: Callable


def _link(section: str, c) -> _Link:
    kind = _setting_kind(c.key)
    return _Link(section, c.widget, c.key, c.prop,
                 _CHECKS.get(c.key, lambda v, c=c, kind=kind: c.from_widget(v, kind)), c.to_widget)


# Every declared control whose notebook parameter follows it both ways, from the sections' contracts.
_LINKS = [_link(section, c) for section, c in synced_controls()]


class DataParameter(param.Parameter):
    """Your own data: None, or an app.userdata.UserData; a pandas DataFrame or a pair (x, y) of sequences is read
    into one (app.userdata.as_userdata), and anything that cannot give points is refused with the page's sentence."""

    def __set__(self, obj, val):
        super().__set__(obj, as_userdata(val))


class Explorable(pn.viewable.Viewer, ExplorableState):
    """The explorable as a Panel component; its parameters are the deep link's, plus ``data``.

    >>> Explorable(query=2.5, bandwidth=0.3).bandwidth
    0.3
    >>> Explorable(data=([1, 2, 3], [0.5, 0.1, 0.7])).data.n
    3

    In a notebook: ``import app`` and ``pn.extension()``, then ``Explorable(query=2.5)`` in a cell.  The page
    computes everything in the browser; the parameters follow it both ways.

    ``tour_file``: a guided tour of your own (``attention-explorable tour check FILE`` first), checked when it
    is set; a page already shown is built again with it, at its first step.
    """

    tour_file = param.String(default=None, allow_None=True,
                             doc="A guided tour file (JSON) to show instead of the shipped one; checked when set")
    data = DataParameter(default=None, doc=(
        "Your own data, in their units: a pair (x, y) of sequences or a pandas DataFrame (its first two columns "
        "holding numbers; app.userdata.from_dataframe(df, x=..., y=...) picks others); None: the shipped data. "
        "The page opens on them and follows when it changes; data pasted or dropped on the page set it."))

    def __init__(self, notices=(), **params):
        self._tour = None
        super().__init__(**params)
        self._notices = list(notices)
        self._built = None
        self._widgets = {}   # (section, key) -> widget
        self._syncing = False  # a change is on its way between the parameters and the widgets: do not echo it
        self._tour = self._read_tour_file(self.tour_file)
        self.param.watch(self._tour_file_changed, "tour_file")
        self.param.watch(self._to_widgets, sorted({link.param for link in _LINKS}))
        self.param.watch(self._tour_to_card, "tour")
        self.param.watch(self._data_to_page, "data")

    # -- the tour file (e.tour_file = "lecture.json" in a notebook) ----------------------------------------------
    @staticmethod
    def _read_tour_file(path):
        if path is None:
            return None
        try:
            return load_tour(CATALOGUE, path)
        except TourError as e:
            raise ValueError(f"tour_file {path}: {e}") from None

    def _shown_tour(self):
        return self._tour or active_tour(CATALOGUE)

    def _tour_file_changed(self, event):
        try:
            tour = self._read_tour_file(event.new)
        except ValueError:
            self._syncing = True
            try:   # the parameter keeps the file the page shows
                self.tour_file = event.old
            finally:
                self._syncing = False
            raise
        if self._syncing:
            return
        self._tour = tour
        self._syncing = True
        try:
            self.tour = 1   # a new tour opens at its first step
        finally:
            self._syncing = False
        if self._built is not None:   # a page already shown: built again, in the same place
            self._layout.objects = self._build().objects

    # -- the page ---------------------------------------------------------------------------------
    def _build(self):
        built = self._built = build_sections(self, tour=self._shown_tour(), notices=self._notices)
        self._widgets = {}
        for section, key, pname, prop, from_w, _to_w in _LINKS:
            view = built.views.get(section)
            widgets = {**view.widgets, **getattr(view, "generator", {})} if view is not None else {}
            widget = widgets.get(key)
            if widget is None:
                continue
            self._widgets[(section, key)] = widget
            widget.on_change(prop, self._syncer(pname, from_w))
        self._wire_data()
        self._wire_tour()
        starter = []
        if _in_a_notebook_kernel():
            starter = [EngineStarter(width=0, height=0, margin=0)]
            # a notebook's address is JupyterLab's, not a link to this state: no "copy a link" there
            share = built.named("share_button")
            if share is not None:
                share.visible = False
        # figures are saved as PNG through the offline file's and the served page's loader, which this page has not
        png = built.named("figure_png_button")
        if png is not None:
            png.visible = False
        layout = bokeh_layout(built.pages(), present=bool(self.present))
        theme.present_figures(layout, bool(self.present))   # a page opened in presentation mode is built so
        theme.name_fonts(layout)
        return pn.Column(EnginePane(layout, built.engines(), sizing_mode="stretch_width"), *starter,
                         sizing_mode="stretch_width", name="explorable",
                         styles=theme.root_styles(bool(self.present)))  # the text sizes of app/ui/theme.py

    # -- parameters -> widgets (e.query = 4.0 in a notebook, a param widget beside the page) -------------------
    def _to_widgets(self, *events):
        """Set the page's widgets from changed parameters; their JS callbacks run the engines in the browser.

        Every change, wherever it came from, also becomes the engines' starting state for a later rendering
        of this component (``pn.Row(e.param.bandwidth, e)`` after a drag starts where the drag ended).
        """
        from_widget = self._syncing  # the change came from a widget, which already shows it
        links = {}
        for link in _LINKS:
            links.setdefault(link.param, []).append(link)
        self._syncing = True
        try:
            for ev in events:
                for section, key, _pname, prop, _from_w, to_w in links.get(ev.name, []):
                    widget = self._widgets.get((section, key))
                    if widget is None:
                        continue
                    value = to_w(ev.new)
                    options = getattr(widget, "options", None)
                    if prop == "value" and options is not None and value not in [
                            o[0] if isinstance(o, tuple) else o for o in options]:
                        log.warning("%s=%r is not offered by the page; the page keeps %r", ev.name, ev.new,
                                    getattr(widget, prop))
                        continue
                    # a later rendering of this component starts from it (the engine's "initial" config)
                    initial = self._built.views[section].models.get("config", {}).get("initial", {})
                    if ev.name in initial:
                        initial[ev.name] = ev.new
                    if not from_widget and getattr(widget, prop) != value:
                        setattr(widget, prop, value)
        finally:
            self._syncing = from_widget
        if not from_widget:
            self._push()

    # -- your own data (e.data = df in a notebook shows them; a paste or a drop on the page sets e.data) -------------
    def _user_data(self):
        """The source of your own data in the section that takes them (its contract's ``takes``), or None."""
        taker = self._built.taking("dataset") if self._built is not None else None
        return taker.models.get("user_data") if taker is not None else None

    def _wire_data(self):
        src = self._user_data()
        if src is not None:
            src.on_change("data", self._data_from_page)

    def _data_to_page(self, event):
        """Hand ``e.data`` to the page (the user_data source); its engine scales the data and shows them."""
        src = self._user_data()
        if self._syncing or src is None:   # the page loaded them, or is built with them, or has no such section
            return
        set_user_data(src, event.new)
        self._push()

    def _data_from_page(self, _attr, _old, new):
        """Data pasted, dropped or chosen on the page become ``e.data`` (the page writes them in their units)."""
        src = self._user_data()
        try:
            tag = json.loads(src.tags[0] if src.tags else "{}")
            if tag.get("from") != "page" or self._syncing:
                return
            data = from_arrays(new["x"], new["y"], tag.get("x_name"), tag.get("y_name"))
        except (ValueError, TypeError, KeyError) as e:   # a stray value from a client never stops the session
            log.warning("ignored data from the browser: %s", e)
            return
        self._syncing = True
        try:
            self.data = data
        finally:
            self._syncing = False

    # -- the tour's step (e.tour = 3 in a notebook moves the card; Next and Previous set e.tour) -----------------
    def _wire_tour(self):
        tour = self._built.tour
        if tour is None:
            return
        tour.models["stepper"].on_change("value", self._syncer("tour", int))   # the card's own step, a number

    def _tour_to_card(self, event):
        """Move the step card to ``e.tour`` (a step's number or id; 0 hides it): the tour engine in the browser
        hears the synced step.  A value the tour has no step for is refused with the reason."""
        shown = self._shown_tour()
        k, notice = resolve_step(str(event.new), shown)
        if notice is not None and not self._syncing:
            self._syncing = True
            try:   # the parameter keeps the step the card shows
                self.tour = event.old
            finally:
                self._syncing = False
            ids = [st.id for st in shown.steps if st.id]
            example = f", or a step's id such as {ids[0]!r}" if ids else ""
            raise ValueError(f"tour: {str(event.new)[:40]!r} is not a step of this tour (a number from 0 to "
                             f"{len(shown)}{example}); the card stays at step {event.old}")
        tour = self._built.tour if self._built is not None else None
        if tour is None:   # not shown yet: the page is built at this step
            return
        tour.models["config"]["initial_step"] = k   # and a later rendering starts there
        if self._syncing:   # the card itself moved (Next, Previous): it already shows this step
            return
        self._syncing = True
        try:
            tour.models["stepper"].value = k
        finally:
            self._syncing = False
        self._push()

    def _push(self):
        """In a notebook, send the widgets' new values to the browser (a served page sends them by itself)."""
        layout = getattr(self, "_layout", None)
        if layout is not None and rendered_models(layout):
            pn.io.push_notebook(layout)

    def _syncer(self, pname, conv):
        def sync(_attr, _old, new):
            if self._syncing:  # a parameter is setting this widget: the parameter already holds the value
                return
            try:
                value = conv(new)
                p = self.param[pname]
                if getattr(p, "bounds", None):
                    lo, hi = p.bounds
                    value = min(max(value, lo), hi)
                if getattr(p, "objects", None) and value not in p.objects:
                    return
                self._syncing = True
                try:
                    setattr(self, pname, value)
                finally:
                    self._syncing = False
            except (ValueError, TypeError) as e:  # a stray value from a client never stops the session
                log.warning("ignored %s=%r from the browser: %s", pname, new, e)
        return sync

    def __panel__(self):
        if self._built is None:
            self._layout = self._build()
        return self._layout

    @property
    def engines(self):
        """Every section's engine, the first section's first (they start when the page is drawn)."""
        self.__panel__()
        return self._built.engines()


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
    """Build the page for the current server session and start its engines when the document is ready."""
    page = create_page(session_args())
    layout = page.__panel__()
    doc = pn.state.curdoc
    if doc is not None:
        attach_engines(doc, page.engines)  # the panes attach them too when they render into doc
        doc.title = "Attention as kernel regression"
        doc.template = theme.SERVED_TEMPLATE  # Panel's page plus a device-width viewport for phones
    return page, layout


__all__ = ["Explorable", "create_page", "serve_page"]
