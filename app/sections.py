"""The page's sections, built in one place for every delivery.

The offline file and the served page (``app/delivery/export.py``) and the notebook component
(``app/delivery/page.py``) all call :func:`build_sections`, so which sections exist, how they are wired to each
other and the order in which a student meets them are written once, in ``CATALOGUE`` (app/contract.py
``Catalogue``: each section's contract, in the page's order), which the tour and the deliveries are handed:

    kernel regression (with the tour's step card) -> learning the kernel -> self-attention
    -> W_Q and W_K learned from a task (routing) -> the ideas

Each section gives its blocks (app/ui/layout.py: the pieces the browser draws on its own) and its engines;
:meth:`Sections.pages` lists them in page order.  No Panel here: the offline file is written without it.

>>> s = build_sections(ExplorableState(), sections=("regression", "learning"))
>>> [p.name for p in s.pages()]
['regression', 'learning']
"""

from __future__ import annotations

from .contract import Catalogue
from .ideas.contract import CONTRACT as IDEAS
from .learning.contract import CONTRACT as LEARNING
from .regression.contract import CONTRACT as REGRESSION
from .regression.text import caption  # the command line's readout (app/delivery/cli.py)
from .regression.data import set_user_data  # the notebook component's data param (app/delivery/page.py)
from .routing.contract import CONTRACT as ROUTING
from .sentence.contract import CONTRACT as SENTENCE
from .state import PageState
from .state import parse_query as _parse_query
from .state import to_query, url_spec as _url_spec  # noqa: F401  (to_query: the page's links, for the deliveries)
from .tour.model import default_tour, show_me_problems
from .tour.view import add_tour
from .ui.engine import one_library
from .ui.layout import SectionBlocks

# The page's sections, in the order a student meets them: the one place the sections are listed.  Learning follows
# the regression it trains; routing (W_Q and W_K learned) follows the hand-made heads of self-attention.
CATALOGUE = Catalogue((REGRESSION, LEARNING, SENTENCE, ROUTING, IDEAS), PageState)
ExplorableState = CATALOGUE.state   # every setting a deep link can carry
SECTIONS = PAGE_ORDER = CATALOGUE.names   # the names --sections takes, in the page's order
CONTRACTS = CATALOGUE.by_name


def url_spec(cls=ExplorableState) -> dict:
    """The page's link keys with their kinds and bounds (app/state.py ``url_spec`` of ``ExplorableState``)."""
    return _url_spec(cls)


def parse_query(query, cls=ExplorableState):
    """A link's settings and notices, read against every section's settings (app/state.py ``parse_query``)."""
    return _parse_query(query, cls)


class Sections:
    """The built views of a page, by section name (``sections.regression``: None for a section left out), in
    the catalogue's order, and the tour's step card in the first of them."""

    def __init__(self, catalogue: Catalogue = CATALOGUE):
        self.catalogue, self.views, self.tour = catalogue, {}, None
        self.library = None   # the JavaScript every engine shares, once (app/ui/engine.py library_model)

    def __getattr__(self, name):
        catalogue = self.__dict__.get("catalogue")
        if catalogue is not None and name in catalogue:
            return self.views.get(name)
        raise AttributeError(f"no section or attribute {name!r}")

    def in_page_order(self) -> list[tuple[str, object]]:
        return [(name, self.views[name]) for name in self.catalogue.names if name in self.views]

    def first(self) -> str:
        """The first section of the page: the tour's card starts there."""
        return self.in_page_order()[0][0]

    def named(self, name: str):
        """The model of that name in any section's view (its ``named`` models), or None."""
        return next((v.named[name] for _, v in self.in_page_order() if name in getattr(v, "named", {})), None)

    def taking(self, page_input: str):
        """The built view of the section whose build takes ``page_input`` (app/contract.py PAGE_INPUTS), or None."""
        return next((v for n, v in self.in_page_order() if page_input in self.catalogue[n].takes), None)

    def engines_of(self, name: str) -> list:
        """A section's engines, in the order they start (the first section's own first, then the tour's and its
        "More controls"); the other sections wait for the first's ``ready`` on the page's bus."""
        view = self.views[name]
        own = list(getattr(view, "engines", None) or [view.engine])
        if self.tour is not None and name == self.first():
            own.insert(1, self.tour.engine)
        return own

    def engines(self) -> list:
        """Every engine, the first section's first."""
        return [e for name, _ in self.in_page_order() for e in self.engines_of(name)]

    def pages(self) -> list[SectionBlocks]:
        """Every section as the page draws it: its blocks and its engines, in page order."""
        out = []
        for name, view in self.in_page_order():
            blocks = list(view.blocks)
            if self.tour is not None and name == self.first():   # the step card starts in the first section
                at = next((i for i, b in enumerate(blocks) if b.place == "side"), None)
                block = self.tour.block
                if at is None:   # a section without a side column: the card opens its body
                    at = next((i for i, b in enumerate(blocks) if b.place == "body"), len(blocks))
                    block.place = "body"
                blocks.insert(at, block)
            out.append(SectionBlocks(name=name, blocks=blocks, engines=self.engines_of(name),
                                     css=getattr(view, "css", ""), label=self.catalogue[name].words))
        return out

    def shared_figures(self) -> list:
        """The plots whose x axes line up (a contract's ``aligned``: the regression's main, weights and spread
        plots)."""
        return [v.named[f] for n, v in self.in_page_order() for f in self.catalogue[n].aligned]


def check_sections(sections) -> tuple[str, ...]:
    """``sections`` as a tuple, or a ValueError that names what is wrong with it."""
    return CATALOGUE.check(sections)


def build_sections(state, *, sections=SECTIONS, tour=None, notices=(), dataset=None,
                   catalogue: Catalogue = CATALOGUE) -> Sections:
    """Build the chosen ``sections`` of ``catalogue`` for ``state``, each from its contract, in the page's order.

    ``tour``: the guided tour whose card the first section shows (default: the shipped one), read against
    ``catalogue``.
    ``notices`` and ``dataset``: what a Python reader of the link found, and your own data, for the section whose
    contract takes them.  A section's borrowings from an earlier one (its contract's ``borrows``) are handed over.
    """
    sections = catalogue.check(sections)
    tour = tour or default_tour(catalogue)
    if set(tour.sections()) - set(sections):   # a page without some sections shows the steps of the others
        from .tour.model import TourError

        try:
            tour = tour.only([x for x in tour.sections() if x in sections])
        except TourError:
            tour = default_tour(catalogue).only(sections)   # the lesson has steps in every section
    s = Sections(catalogue)
    page_inputs = {"notices": notices, "dataset": dataset, "figure_menu": catalogue.figure_menu()}
    with one_library() as s.library:   # every engine of the page shares one library (app/ui/engine.py)
        for name in catalogue.in_page_order(sections):
            s.views[name] = catalogue[name].build(state, **catalogue.wiring(name, s.views, page_inputs))
        glider = catalogue.glider   # the section whose sliders Show me glides (its contract's show_me)
        s.tour = add_tour(s.views.get(glider), state, tour=tour,   # last: it finds the sections' models by name
                          more_keys=catalogue[glider].more if glider in s.views else (),
                          controls=catalogue[glider].controls if glider else ())
    name_figures(s)
    return s


def name_figures(s: Sections) -> None:
    """Every plot tells a screen reader what it is: on its host element (the model's html_attributes, which
    BokehJS keeps on the view's element through every re-render), the role figure and the name its section
    declares for it (a contract's figures), else the name its view gave it, else its title, and the text whose
    words begin its description (a contract's said_with).  Engines add a description that follows the state."""
    from bokeh.model.util import collect_models
    from bokeh.models import Plot

    names, said_with = s.catalogue.figure_names(), s.catalogue.said_with()
    # one walk through every block's models (a walk per block took 1.6 s of the page's 5 s build: the blocks share
    # their data sources)
    blocks = [block.model for _, view in s.in_page_order() for block in view.blocks]
    for m in collect_models(*blocks):
        if isinstance(m, Plot):
            have = dict(m.html_attributes)
            label = names.get(m.name) or have.get("aria-label") or (m.title.text if m.title else "")
            want = {"role": "figure", "aria-label": label}
            if m.name in said_with:   # the text whose words begin its description (app/ui/describe.js)
                want["data-said-with"] = said_with[m.name]
            if any(have.get(k) != v for k, v in want.items()):
                m.html_attributes = {**have, **want}


def synced_controls() -> list[tuple]:
    """(section, control) for every declared control whose notebook parameter follows it both ways
    (app/delivery/page.py), in the page's order."""
    return CATALOGUE.synced_controls()


def figure_menu() -> list[dict]:
    """Every figure the page may have, in the page's order (app/contract.py ``Catalogue.figure_menu``)."""
    return CATALOGUE.figure_menu()


__all__ = ["CATALOGUE", "ExplorableState", "url_spec", "parse_query", "to_query", "SECTIONS", "PAGE_ORDER",
           "CONTRACTS", "Sections", "build_sections", "check_sections", "figure_menu",
           "set_user_data", "caption", "show_me_problems", "synced_controls"]
