"""Moved to app/learning/view.py (issue 11: one folder per section).  This old name stays, as the same module, while
the branches that still import it move over; new code imports app.learning.view."""

import sys

from app.learning import view as _moved

sys.modules[__name__] = _moved
