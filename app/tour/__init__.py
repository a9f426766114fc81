"""The guided tour: steps as data (every section of the page), a step card in the page.

``terms.py`` is what the tour takes from the page's catalogue of sections (app/contract.py ``Catalogue``, which
the composition hands to every function that needs one) and the names a step compares; ``model.py`` reads and
checks a tour file against it, resolves ``?tour=`` (a step's number or id) and computes every section's
conditions with the numpy core; ``schema.py`` writes the file format's JSON Schema; ``view.py`` builds the step
card and its browser engine (``tour.js``), which talks to the sections only through the document's named widgets
and the page's bus.
"""

from .model import (ENV_TOUR, LESSON, MAX_STEPS, OPERATORS, Step, Tour, TourError, active_tour, check_tour_data,
                    check_tour_file, default_tour, default_tour_path, full_state, holds, lesson_tour, load_tour,
                    parse_tour, readouts, resolve_step, section_readouts, show_me_problems, show_me_settings,
                    step_readouts)
from .schema import tour_schema
from .terms import Terms, terms

__all__ = ["active_tour", "ENV_TOUR", "LESSON", "Tour", "Step", "TourError", "parse_tour", "load_tour",
           "check_tour_data", "check_tour_file", "default_tour", "lesson_tour", "default_tour_path", "resolve_step",
           "readouts", "section_readouts", "step_readouts", "holds", "full_state", "show_me_settings",
           "show_me_problems", "tour_schema", "Terms", "terms", "OPERATORS", "MAX_STEPS"]
