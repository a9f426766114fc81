"""The page's sections, built in one place for every delivery.

The offline file and the served page (``app/delivery/export.py``) and the notebook component
(``app/delivery/page.py``) all call :func:`build_sections`, so which sections exist, how they are wired to each
other and the order in which a student meets them are written once:

    kernel regression (with the tour's step card) -> learning the kernel -> self-attention
    -> W_Q and W_K learned from a task (routing) -> the ideas

Each section gives its blocks (app/ui/layout.py: the pieces the browser draws on its own) and its engines;
:meth:`Sections.pages` lists them in page order.  No Panel here: the offline file is written without it.

>>> from app.state import ExplorableState
>>> s = build_sections(ExplorableState(), sections=("regression", "learning"))
>>> [p.name for p in s.pages()]
['regression', 'learning']
"""

from __future__ import annotations

from dataclasses import dataclass

from .ideas.contract import CONTRACT as IDEAS
from .learning.contract import CONTRACT as LEARNING
from .regression.contract import CONTRACT as REGRESSION
from .regression.text import caption  # the command line's readout (app/delivery/cli.py)
from .regression.view import set_user_data  # the notebook component's data param (app/delivery/page.py)
from .routing.contract import CONTRACT as ROUTING
from .sentence.contract import CONTRACT as SENTENCE
from .tour.model import show_me_problems, use_sections
from .tour.view import add_tour
from .ui.engine import one_library
from .ui.layout import SectionBlocks

# Every section's contract (app/contract.py), by name: the one place the page's sections are imported.
CONTRACTS = {c.name: c for c in (REGRESSION, SENTENCE, IDEAS, LEARNING, ROUTING)}
use_sections(CONTRACTS.values())   # the tour's keys, conditions, look names, figures and readouts

SECTIONS = ("regression", "sentence", "ideas", "learning", "routing")   # the names --sections takes
# learning follows the regression it trains; routing (W_Q and W_K learned) follows the hand-made heads
PAGE_ORDER = ("regression", "learning", "sentence", "routing", "ideas")


@dataclass
class Sections:
    """The built views (``None`` for a section left out) and the tour's step card in the regression."""

    regression: object = None
    tour: object = None
    learning: object = None
    sentence: object = None
    routing: object = None
    ideas: object = None
    library: object = None   # the JavaScript every engine shares, once (app/ui/engine.py library_model)

    def in_page_order(self) -> list[tuple[str, object]]:
        return [(name, getattr(self, name)) for name in PAGE_ORDER if getattr(self, name) is not None]

    def first(self) -> str:
        """The first section of the page: the tour's card starts there."""
        return self.in_page_order()[0][0]

    def engines_of(self, name: str) -> list:
        """A section's engines, in the order they start (the regression's own first, then the tour's and its
        "More controls"); the other sections wait for the regression's ``ready`` on the page's bus."""
        view = getattr(self, name)
        own = list(getattr(view, "engines", None) or [view.engine])
        if self.tour is not None and name == self.first():
            own.insert(1, self.tour.engine)
        return own

    def engines(self) -> list:
        """Every engine, the regression's first."""
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
                                     css=getattr(view, "css", ""), label=CONTRACTS[name].words))
        return out

    def shared_figures(self) -> list:
        """The plots whose x axes line up (the regression's main, weights and spread plots)."""
        if self.regression is None:
            return []
        f = self.regression.figures
        return [f["main"], f["weights"], f["entropy_x"]]


def check_sections(sections) -> tuple[str, ...]:
    """``sections`` as a tuple, or a ValueError that names what is wrong with it."""
    sections = tuple(sections)
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown or not sections:
        raise ValueError(f"sections must be a non-empty subset of {', '.join(SECTIONS)}, got {', '.join(sections)}")
    if "learning" in sections and "regression" not in sections:
        raise ValueError("the learning section drives the regression section's bandwidth: export both")
    return sections


def build_sections(state, *, sections=SECTIONS, tour=None, notices=(), dataset=None) -> Sections:
    """Build the chosen ``sections`` for ``state``.

    ``tour``: the guided tour shown in the regression section (default: the shipped one).
    ``notices`` and ``dataset``: what a Python reader of the link found (see ``build_regression``).
    """
    from .tour import default_tour

    sections = check_sections(sections)
    tour = tour or default_tour()
    if set(tour.sections()) - set(sections):   # a page without some sections shows the steps of the others
        from .tour.model import TourError

        try:
            tour = tour.only([x for x in tour.sections() if x in sections])
        except TourError:
            tour = default_tour().only(sections)   # the lesson has steps in every section
    s = Sections()
    with one_library() as s.library:   # every engine of the page shares one library (app/ui/engine.py)
        build = {name: CONTRACTS[name].build for name in sections}
        if "regression" in sections:
            s.regression = build["regression"](state, notices=notices, dataset=dataset)
            s.regression.named["share_engine"].args["figures"] = figure_menu()
        if "sentence" in sections:
            s.sentence = build["sentence"](state)
        if "ideas" in sections:   # its dependency graphs follow the sentence section's words
            s.ideas = build["ideas"](state, tokens_src=s.sentence.models.get("tokens_src") if s.sentence else None)
        if "learning" in sections:   # it plays its paths on the regression's bandwidth slider and plots
            s.learning = build["learning"](state, regression=s.regression)
        if "routing" in sections:
            s.routing = build["routing"](state)
        s.tour = add_tour(s.regression, state, tour=tour,   # last: it finds the sections' models by name
                          more_keys=CONTRACTS["regression"].more if s.regression is not None else (),
                          controls=CONTRACTS["regression"].controls)
    name_figures(s)
    return s


def name_figures(s: Sections) -> None:
    """Every plot tells a screen reader what it is: on its host element (the model's html_attributes, which
    BokehJS keeps on the view's element through every re-render), the role figure and the name its section
    declares for it (a contract's figures), else the name its view gave it, else its title, and the text whose
    words begin its description (a contract's said_with).  Engines add a description that follows the state."""
    from bokeh.model.util import collect_models
    from bokeh.models import Plot

    names = {n: words for c in CONTRACTS.values() for n, words in c.figures.items()}
    said_with = {n: text for c in CONTRACTS.values() for n, text in c.said_with.items()}
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
    return [(name, c) for name in PAGE_ORDER for c in CONTRACTS[name].controls if c.synced]


def figure_menu() -> list[dict]:
    """Every figure the page may have, in the page's order: its model's name, its name for a person, and its
    section's (the menu's groups, app/ui/share.py).  The browser keeps those of the sections the page has."""
    return [{"name": n, "label": words, "group": CONTRACTS[s].words} for s in PAGE_ORDER
            for n, words in CONTRACTS[s].figures.items()]


__all__ = ["SECTIONS", "PAGE_ORDER", "CONTRACTS", "Sections", "build_sections", "check_sections", "figure_menu",
           "set_user_data", "caption", "show_me_problems", "synced_controls"]
