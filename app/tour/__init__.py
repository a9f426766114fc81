"""The guided tour through the regression section: steps as data, a step card in the page.

``model.py`` reads and checks a tour file and computes its conditions with the
numpy core; ``view.py`` builds the step card and its browser engine
(``tour.js``), which talks to the regression section only through the
document's named widgets and data source.
"""

from .model import (ENV_TOUR, MAX_STEPS, NAMES, OPERATORS, STATE_KEYS, Step, Tour, TourError, active_tour, default_tour,
                    default_tour_path, full_state, holds, load_tour, parse_tour, readouts)

__all__ = ["active_tour", "ENV_TOUR", "Tour", "Step", "TourError", "parse_tour", "load_tour", "default_tour", "default_tour_path",
           "readouts", "holds", "full_state", "NAMES", "OPERATORS", "STATE_KEYS", "MAX_STEPS"]
