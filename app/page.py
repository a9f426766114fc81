"""The served page and the notebook component, around the one document builder.

``create_page(query)`` is what ``panel serve app/main.py`` shows for each
session: it reads the deep link, builds the sections with
``app.sections.build_sections`` (as the offline file does) and adds what only a
Python server can do (the seeded dataset generator, typed sentences, training on
generated data).  ``Explorable`` is the same page as a Panel component for
Jupyter: ``Explorable(query=2.5, bandwidth=0.3)``.
"""

from __future__ import annotations

import functools
import logging
import math
import os
import sys

import panel as pn
from bokeh.layouts import column
from panel.reactive import ReactiveHTML

import attention

from .regression.view import dataset_meta
from .sections import build_sections
from .state import ExplorableState, parse_query
from .tour import active_tour
from .tour.view import bind_tour_length
from .ui import text, theme

log = logging.getLogger(__name__)

SERVER_TROUBLE = ("Something went wrong on the server with that change; the page keeps working "
                  "(try again, or press Reset).")


def _guarded(method):
    """Decorate a session callback: an unexpected error is logged (a warning, with its traceback) and shown
    to that student as a short notice, so one failing change never freezes a page or stops its session."""
    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        return self._guard(functools.partial(method, self))(*args, **kwargs)
    return guarded

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


class EnginePane(pn.pane.Bokeh):
    """A Bokeh pane that starts the page's engines when its document is ready in the browser.

    The engines are CustomJS callbacks on the document's ``document_ready`` event.  Panel hands the
    pane the document it renders into (a server session's, or a notebook output's), so the engines
    start wherever the component is shown, not only in ``serve_page``.
    """

    def __init__(self, object=None, engines=(), **params):
        super().__init__(object, **params)
        self._engines = list(engines)

    def _get_model(self, doc, root=None, parent=None, comm=None):
        model = super()._get_model(doc, root, parent, comm)
        attach_engines(doc, self._engines)
        return model


class EngineStarter(ReactiveHTML):
    """Starts the engines in a notebook output, where Bokeh's ``document_ready`` never comes.

    BokehJS sends ``document_ready`` once every root of a document has drawn, and in a notebook one
    root of Panel's document (its comm manager) draws nothing, so the engines attached to that event
    (``attach_engines``) would never run.  This invisible element, drawn after the sections, runs them
    instead.  Running them twice is harmless: an engine that has started ignores ``document_ready``.
    It also tells the engines that the page's address belongs to the notebook, so they do not write
    their state into it (``scheduleUrl`` in app/ui/common.js).
    """

    _template = '<div id="starter" style="display:none"></div>'
    _scripts = {"render": """
      globalThis.__attnHostOwnsAddress = true;   // the address is JupyterLab's: the engines leave it alone
      const doc = model.document;
      if (doc == null || doc._document_callbacks == null) return;
      setTimeout(() => {
        for (const cb of doc._document_callbacks.get("document_ready") || [])
          if (cb.execute) cb.execute({event_name: "document_ready"}, {});
      }, 0);
    """}


def attach_engines(doc, engines) -> None:
    """Run each engine once when ``doc`` is ready in the browser (each attached once, in order)."""
    attached = doc.callbacks.js_event_callbacks.get("document_ready", [])
    for engine in engines:
        if engine not in attached:
            doc.js_on_event("document_ready", engine)
            attached = doc.callbacks.js_event_callbacks.get("document_ready", [])


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


# Parameters -> the page: (parameter, section, widget name, widget property, conversion to the widget's value,
# key of the section engine's "initial" config, which a later rendering of the same component starts from).
_TO_WIDGETS = [
    ("query", "regression", "query", "value", float, "query"),
    ("bandwidth", "regression", "logh", "value", math.log10, "bandwidth"),
    ("temperature", "regression", "logt", "value", math.log10, "temperature"),
    ("kernel", "regression", "kernel", "value", str, "kernel"),
    ("key_norm", "regression", "keynorm", "value", float, "key_norm"),
    ("dataset", "regression", "dataset", "value", str, None),
    ("link", "regression", "link", "active", bool, None),
    ("limits", "regression", "limits", "active", bool, None),
    ("present", "regression", "present", "active", bool, None),
    ("token", "sentence", "token", "value", str, "token"),
    ("head", "sentence", "head", "active", int, "head"),
    ("att_temperature", "sentence", "temperature", "value", math.log10, "temperature"),
    ("causal", "sentence", "causal", "active", bool, "causal"),
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
        self._sentence_view = None
        self._generator = None
        self._syncing = False  # a change is on its way between the parameters and the widgets: do not echo it

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
        self._view.notice_div.visible = True  # first: the browser applies the changes in order
        self._view.notice_div.text = f'<p class="notice">{text.escape(message)}</p>'

    def _on_n(self, widget, event):
        lo, hi = self.param.n.bounds
        typed = event.new
        if typed is None:
            widget.value = self.n
            return
        kept = min(max(int(typed), lo), hi)
        self.n = kept
        if kept != typed:
            widget.value = kept
            self._show_notice(f"n = {typed} is outside what the generator draws ({lo} to {hi} samples); "
                              f"it uses n = {kept}.")

    def _generator_panel(self, visible: bool = True):
        form = [theme.WIDGET_CSS]   # the fields' text at the theme's size (browsers use 13.3 px)
        fn = pn.widgets.Select.from_param(self.param.fn, name="true function", width=140, stylesheets=form)
        # not bounded in the browser: a typed n past the limit is clamped here, with a notice that says so
        n = pn.widgets.IntInput(name="samples n", value=self.n, start=None, end=None, width=110, stylesheets=form)
        n.param.watch(self._guard(functools.partial(self._on_n, n)), "value")
        self.param.watch(lambda e: setattr(n, "value", e.new), "n")
        noise = pn.widgets.FloatInput.from_param(self.param.noise, name="noise", step=0.05, width=100,
                                                 stylesheets=form)
        seed = pn.widgets.IntInput.from_param(self.param.seed, name="seed", width=110, stylesheets=form)
        go = pn.widgets.Button(name="Generate", button_type="primary", width=110, align="end",
                               stylesheets=[theme.PRIMARY_BUTTON_CSS])
        go.on_click(self._on_generate)
        note = pn.pane.HTML(
            f'<p style="margin:4px 0;color:#555">Draw fresh noisy samples of a true function (at most '
            f'{attention.datasets.MAX_GENERATED_N}); the same seed always gives the same samples.</p>',
            sizing_mode="stretch_width")
        return pn.Column(note, pn.FlexBox(fn, n, noise, seed, go, gap="8px"), sizing_mode="stretch_width",
                         styles={"max-width": "1200px", "margin": "0 auto", "padding": "0 8px"},
                         name="generator", visible=visible)   # shown with "More controls" (disclosure.js)

    # -- the page ---------------------------------------------------------------------------------
    def _build(self):
        dataset = None
        if self.dataset == "generated":
            try:
                dataset = self.generated_dataset()
            except ValueError as e:
                self._notices.append(str(e))
        # the sections, wired to each other as in the offline file (app/sections.py); then what is the served
        # page's own: Python callbacks on the widgets, and the generator between the figure and the rest
        built = build_sections(self, mode="served", tour=active_tour(), notices=self._notices, dataset=dataset)
        self._view, self._tour, self._learning, self._ideas = built.regression, built.tour, built.learning, built.ideas
        w = self._view.widgets
        for widget_name, pname, conv in _SYNCED:
            prop = "active" if pname in ("link", "limits", "present") else "value"
            w[widget_name].on_change(prop, self._syncer(pname, conv))
        w["dataset"].on_change("value", self._on_dataset)
        self._wire_sentence(built.sentence)
        parts = list(self._view.parts.values())
        cut = list(self._view.parts).index("top") + 1   # the generator follows the figure and its controls
        # Two Bokeh panes around the generator (Panel widgets), not one per part: every pane walks all the
        # models its part reaches (through the engines' arguments, most of the page), so each pane adds
        # to the CPU time of opening a session.
        # The regression's parts keep the page's width and centring (PAGE_STYLES), as its section does offline.
        before = column(*parts[:cut], sizing_mode="stretch_width", styles=theme.PAGE_STYLES)
        rest = column(*parts[cut:], sizing_mode="stretch_width", styles=theme.PAGE_STYLES)
        after = column(rest, *[view.layout for name, view in built.in_page_order() if name != "regression"],
                       sizing_mode="stretch_width")
        for part in (before, after):   # a page opened in presentation mode is built at its sizes
            theme.present_figures(part, bool(self.present))
        self.param.watch(self._to_widgets, [p[0] for p in _TO_WIDGETS])
        self._wire_tour()
        engines = built.engines()
        starter = []
        if _in_a_notebook_kernel():
            starter = [EngineStarter(width=0, height=0, margin=0)]
            # a notebook's address is JupyterLab's, not a link to this state: no "copy a link" there
            for m in self._view.layout.select({"name": "share_button"}):
                m.visible = False
        more_open = bool(self._view.layout.select_one({"name": "more_controls"}).visible)
        return pn.Column(EnginePane(before, engines, sizing_mode="stretch_width"), self._generator_panel(more_open),
                         EnginePane(after, engines, sizing_mode="stretch_width"), *starter,
                         sizing_mode="stretch_width", name="explorable",
                         styles=theme.root_styles(bool(self.present)))  # the text sizes of app/ui/theme.py

    # -- parameters -> widgets (e.query = 4.0 in a notebook, a param widget beside the page) -------------------
    def _to_widgets(self, *events):
        """Set the page's widgets from changed parameters; their JS callbacks run the engines in the browser.

        Every change, wherever it came from, also becomes the engines' starting state for a later rendering
        of this component (``pn.Row(e.param.bandwidth, e)`` after a drag starts where the drag ended).
        """
        from_widget = self._syncing  # the change came from a widget, which already shows it
        table = {p[0]: p[1:] for p in _TO_WIDGETS}
        self._syncing = True
        try:
            for ev in events:
                section, wname, prop, conv, init_key = table[ev.name]
                view = self._view if section == "regression" else self._sentence_view
                if view is None:
                    continue
                widget = view.widgets[wname]
                value = conv(ev.new)
                options = getattr(widget, "options", None)
                if prop == "value" and options is not None and value not in [
                        o[0] if isinstance(o, tuple) else o for o in options]:
                    log.warning("%s=%r is not offered by the page; the page keeps %r", ev.name, ev.new,
                                getattr(widget, prop))
                    continue
                if init_key is not None:
                    view.models["config"]["initial"][init_key] = ev.new
                if not from_widget and getattr(widget, prop) != value:
                    setattr(widget, prop, value)
        finally:
            self._syncing = from_widget
        if not from_widget:
            self._push()

    # -- the tour's step (e.tour = 3 in a notebook moves the card; Next and Previous set e.tour) -----------------
    def _wire_tour(self):
        stepper = self._tour.models["stepper"]
        stepper.on_change("value", self._syncer("tour", int))
        self.param.watch(self._tour_to_card, "tour")

    def _tour_to_card(self, event):
        """Move the step card to ``e.tour`` (0 hides it): the tour engine in the browser hears the synced step."""
        self._tour.models["config"]["initial_step"] = int(event.new)   # and a later rendering starts there
        if self._syncing:   # the card itself moved (Next, Previous): it already shows this step
            return
        self._syncing = True
        try:
            self._tour.models["stepper"].value = int(event.new)
        finally:
            self._syncing = False
        self._push()

    def _push(self):
        """In a notebook, send the widgets' new values to the browser (a served page sends them by itself)."""
        layout = getattr(self, "_layout", None)
        if layout is not None and layout._models:
            pn.io.push_notebook(layout)

    # -- the self-attention section ---------------------------------------------------------------------
    def _wire_sentence(self, sv):
        """The served sentence section's Python side: its widgets follow the parameters, a typed sentence is
        tokenised and embedded here."""
        self._sentence_view = sv
        w = sv.widgets
        w["token"].on_change("value", self._syncer("token", int))
        w["head"].on_change("active", self._syncer("head", int))
        w["temperature"].on_change("value", self._syncer("att_temperature", lambda v: 10.0 ** v))
        w["causal"].on_change("active", self._syncer("causal", bool))
        sv.text_input.on_change("value", self._on_sentence_text)

    def _on_sentence_text(self, _attr, _old, new):
        try:
            if self._sentence_view.set_sentence(new):
                self.sentence = new
        except Exception as e:  # a typed sentence never stops the session
            log.exception("sentence %r failed", new)
            self._sentence_view.show_notice(f"That sentence could not be shown ({type(e).__name__}); "
                                            "the previous sentence stays.")

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
                self._syncing = True
                try:
                    setattr(self, pname, value)
                finally:
                    self._syncing = False
            except (ValueError, TypeError) as e:  # a stray value from a client never stops the session
                log.warning("ignored %s=%r from the browser: %s", pname, new, e)
        return self._guard(sync)

    def _guard(self, fn):
        """``fn`` as a session callback that logs and shows (never raises) an unexpected error."""
        @functools.wraps(fn)
        def guarded(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except Exception:  # noqa: BLE001 - the session outlives any one bad change
                name = getattr(fn, "__name__", None) or getattr(getattr(fn, "func", None), "__name__", "callback")
                log.warning("%s failed in one session; the session keeps running", name, exc_info=True)
                try:
                    self._show_notice(SERVER_TROUBLE)
                except Exception:  # noqa: BLE001
                    log.debug("could not show the notice", exc_info=True)
        return guarded

    @_guarded
    def _on_generate(self, _event=None):
        doc = self._view.ds.document
        if doc is not None and doc.session_context is not None:
            # Panel runs a button's callbacks outside the Bokeh document lock; Bokeh refuses model changes
            # there, so change the data on the next tick, under the lock.
            doc.add_next_tick_callback(self._guard(self._push_generated))
        else:
            self._push_generated()

    @_guarded
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

    @property
    def engines(self):
        """Every section's document-ready callback: the regression's, then the self-attention section's."""
        self.__panel__()
        return [self._view.engine, self._tour.engine, self._view.disclosure, self._sentence_view.engine,
                self._ideas.engine] + (
            [self._learning.engine] if getattr(self, "_learning", None) is not None else [])  # learning section


# ?tour=N is clamped to the steps of the tour this process shows (a no-op for the shipped tour)
bind_tour_length(active_tour())


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
        attach_engines(doc, page.engines)  # the panes attach them too when they render into doc
        doc.title = "Attention as kernel regression"
        doc.template = theme.SERVED_TEMPLATE  # Panel's page plus a device-width viewport for phones
    return page, layout


__all__ = ["Explorable", "create_page", "serve_page"]
