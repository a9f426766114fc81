"""What a section offers the page, declared in one place: its contract.

Each section's package declares ``CONTRACT`` in its ``contract.py``; the composition (app/sections.py) is the
one module that imports them, builds the page from them and hands each layer what it needs: the tour gets the
sections' readouts (``use_section_readouts`` in app/tour/model.py), the share menu the page's figures.  So the
tour, the shared layer (app/ui/) and the deliveries (export, plugin, notebook component, command line) import
no section, and no section imports another (tests/app/test_imports.py holds that).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class SectionContract:
    """A section's declarations.

    Parameters
    ----------
    name : str
        The section's name in links, tours and ``--sections`` (one of app/sections.py ``SECTIONS``).
    build : callable
        ``build(state, **wiring) -> view``: the section's blocks and engine for an ``ExplorableState``.
    readouts : callable
        ``readouts(state, needs=None, dataset=None) -> dict``: every name the tour's conditions may compare,
        for a full state (every setting of the section given), computed with the numpy core (attention/).
    more : tuple of str, optional
        The settings whose controls sit behind the section's "More controls" disclosure: a tour step that sets
        one away from its default opens it.
    """

    name: str
    build: Callable
    readouts: Callable
    more: tuple = ()

    def __post_init__(self):
        if not (self.name and self.name.isidentifier()):
            raise ValueError(f"a section's name is a plain word, got {self.name!r}")
        for role in ("build", "readouts"):
            if not callable(getattr(self, role)):
                raise TypeError(f"the {self.name} section's {role} must be a function")
