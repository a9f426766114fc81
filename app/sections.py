"""The page's sections, built in one place for every delivery.

The served page and the notebook component (``app/page.py``) and the offline file (``app/export.py``)
all call :func:`build_sections`, so which sections exist, how they are wired to each other and the
order in which a student meets them are written once:

    kernel regression (with the tour's step card) -> learning the kernel -> self-attention -> the ideas

Each delivery then adds only what is its own: the served page its Python callbacks and the dataset
generator, the offline file its HTML.  No Panel here: the offline file is written without it.

>>> from app.state import ExplorableState
>>> s = build_sections(ExplorableState(), mode="static", sections=("regression", "learning"))
>>> [name for name, _ in s.in_page_order()]
['regression', 'learning']
"""

from __future__ import annotations

from dataclasses import dataclass

from .ideas.view import build_ideas
from .learning.view import build_learning
from .regression.view import build_regression
from .sentence.view import build_sentence
from .tour.view import add_tour, tour_length

SECTIONS = ("regression", "sentence", "ideas", "learning")   # the names --sections takes
PAGE_ORDER = ("regression", "learning", "sentence", "ideas")  # learning follows the regression it trains


@dataclass
class Sections:
    """The built views (``None`` for a section left out) and the tour's step card in the regression."""

    regression: object = None
    tour: object = None
    learning: object = None
    sentence: object = None
    ideas: object = None

    def in_page_order(self) -> list[tuple[str, object]]:
        return [(name, getattr(self, name)) for name in PAGE_ORDER if getattr(self, name) is not None]

    def engines(self) -> list:
        """Every engine, the regression's first: the others wait for its ``ready`` on the page's bus."""
        views = (self.regression, self.tour, self.sentence, self.ideas, self.learning)
        engines = [v.engine for v in views if v is not None]
        more = getattr(self.regression, "disclosure", None)   # "More controls", after the tour's engine
        if more is not None:
            engines.insert(2 if self.tour is not None else 1, more)
        return engines


def check_sections(sections) -> tuple[str, ...]:
    """``sections`` as a tuple, or a ValueError that names what is wrong with it."""
    sections = tuple(sections)
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown or not sections:
        raise ValueError(f"sections must be a non-empty subset of {', '.join(SECTIONS)}, got {', '.join(sections)}")
    if "learning" in sections and "regression" not in sections:
        raise ValueError("the learning section drives the regression section's bandwidth: export both")
    return sections


def build_sections(state, *, mode: str, sections=SECTIONS, tour=None, notices=(), dataset=None) -> Sections:
    """Build the chosen ``sections`` for ``state`` (``mode``: "served" or "static").

    ``tour``: the guided tour shown in the regression section (default: the shipped one).
    ``notices`` and ``dataset``: what the served page's link asked for (see ``build_regression``).
    """
    from .tour import default_tour

    sections = check_sections(sections)
    tour = tour or default_tour()
    s = Sections()
    if "regression" in sections:
        with tour_length(tour):   # the page's own link parser clamps ?tour=N to this tour's steps
            s.regression = build_regression(state, mode=mode, notices=notices, dataset=dataset)
        s.tour = add_tour(s.regression.layout, state, tour=tour, mode=mode)
    if "sentence" in sections:
        s.sentence = build_sentence(state, mode=mode)
    if "ideas" in sections:   # its dependency graphs follow the sentence section's words
        s.ideas = build_ideas(mode=mode, tokens_src=s.sentence.models.get("tokens_src") if s.sentence else None)
    if "learning" in sections:   # it plays its paths on the regression's bandwidth slider and plots
        s.learning = build_learning(state, mode=mode, regression=s.regression)
    return s


__all__ = ["SECTIONS", "PAGE_ORDER", "Sections", "build_sections", "check_sections"]
