"""The guided tour: steps as data (every section of the page), a step card in the page.

``model.py`` reads and checks a tour file, resolves ``?tour=`` (a step's number or id), computes every
section's conditions with the numpy core and writes the file format's JSON Schema; ``view.py`` builds the
step card and its browser engine (``tour.js``), which talks to the regression section only through the
document's named widgets and data source.
"""

from .model import (CONDITIONS, ENV_TOUR, MAX_STEPS, NAMES, OPERATORS, READS, SECTION_KEYS, SECTIONS, STATE_KEYS,
                    Step, Tour, TourError, active_tour, check_tour_data, check_tour_file, default_tour,
                    default_tour_path, full_state, holds, lesson_tour, load_tour, parse_tour, readouts, resolve_step,
                    section_readouts, show_me_problems, show_me_settings, step_readouts, tour_schema, tour_sentences)

__all__ = ["active_tour", "ENV_TOUR", "Tour", "Step", "TourError", "parse_tour", "load_tour", "check_tour_data",
           "check_tour_file", "default_tour", "lesson_tour", "default_tour_path", "resolve_step", "readouts",
           "section_readouts", "step_readouts", "holds", "full_state", "show_me_settings", "show_me_problems",
           "tour_sentences", "tour_schema", "CONDITIONS", "NAMES", "OPERATORS", "SECTIONS", "SECTION_KEYS", "READS",
           "STATE_KEYS", "MAX_STEPS"]
