"""Moved to app/ideas/view.py (issue 11: one folder per section).  This old name stays, as the same module, while
the branches that still import it move over; new code imports app.ideas.view."""

import sys

from app.ideas import view as _moved

sys.modules[__name__] = _moved
