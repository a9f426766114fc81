"""Panel's and BokehJS's private names that the Python side of the page uses, behind one door (the JavaScript
side's door is app/ui/bokehjs.js).  Each is here with the reason for it and what the page does without it; any
release may rename one, and ``check()`` says which, naming the versions, instead of letting a page break.

=====================================  ==========================================  ==================================
name                                   why                                         without it
=====================================  ==========================================  ==================================
Panel ``Bokeh._get_model`` (a pane)    a Bokeh pane attaches the page's engines     (Panel's hook for custom panes:
                                       to the document it renders into             present in every release kept)
Panel ``Reactive._models``             a notebook pushes the widgets' new values   nothing is pushed: the page shows
                                       only when the layout is shown somewhere     the change when next drawn
BokehJS ``Document._document_callbacks``  a notebook's output starts the engines   the engines start when BokehJS
                                       (its ``document_ready`` never comes)         sends ``document_ready``
=====================================  ==========================================  ==================================
"""

from __future__ import annotations

import logging

import panel as pn
from panel.reactive import ReactiveHTML

log = logging.getLogger(__name__)


def rendered_models(layout) -> dict:
    """The Bokeh models a Panel layout is rendered as, by the id of their root (empty when it is not shown).
    Panel keeps them in ``_models``; a release without it gets an empty dict, and the page says so once."""
    models = getattr(layout, "_models", None)
    if models is None:
        _say_once("Reactive._models", "a notebook's widgets are not pushed to the page until it is drawn again")
        return {}
    return models


# A notebook output's document never sends ``document_ready`` (one of Panel's roots draws nothing), so the starter
# runs the engines attached to it (EngineStarter, below).  BokehJS keeps a document's event callbacks in
# ``_document_callbacks``; without it the starter says so in the console and leaves the engines to BokehJS.
START_ENGINES_JS = """
      const doc = model.document;
      const callbacks = doc == null ? null : doc._document_callbacks;
      if (!(callbacks instanceof Map)) {
        if (doc != null) console.warn(`attention explorable: BokehJS ${(window.Bokeh && Bokeh.version) || ""} has no ` +
                                      "Document#_document_callbacks; the engines start when BokehJS says the " +
                                      "document is ready.");
        return;
      }
      setTimeout(() => {
        for (const cb of callbacks.get("document_ready") || [])
          if (cb.execute) cb.execute({event_name: "document_ready"}, {});
      }, 0);
"""


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
    """ + START_ENGINES_JS}


def attach_engines(doc, engines) -> None:
    """Run each engine once when ``doc`` is ready in the browser (each attached once, in order)."""
    attached = doc.callbacks.js_event_callbacks.get("document_ready", [])
    for engine in engines:
        if engine not in attached:
            doc.js_on_event("document_ready", engine)
            attached = doc.callbacks.js_event_callbacks.get("document_ready", [])


_SAID: set = set()


def _say_once(name: str, instead: str) -> None:
    if name in _SAID:
        return
    _SAID.add(name)
    import bokeh
    import panel

    log.warning("attention explorable: Panel %s (Bokeh %s) has no %s; %s.", panel.__version__, bokeh.__version__,
                name, instead)


def check() -> list[str]:
    """The private names this side uses that the installed Panel lacks (each said once in the log).

    >>> check()
    []
    """
    missing = []
    if not callable(vars(pn.pane.Bokeh).get("_get_model")):
        missing.append("pane.Bokeh._get_model")
        _say_once("pane.Bokeh._get_model", "the page's engines may not start in a notebook")
    if "_models" not in vars(pn.Column()):
        missing.append("Reactive._models")
        _say_once("Reactive._models", "a notebook's widgets are not pushed to the page until it is drawn again")
    return missing


__all__ = ["EnginePane", "EngineStarter", "attach_engines", "rendered_models", "START_ENGINES_JS", "check"]
