"""Moved to app/regression/view.py (issue 11: one folder per section).  This old name stays, as the same module, while
the branches that still import it move over; new code imports app.regression.view."""

import sys

from app.regression import view as _moved

sys.modules[__name__] = _moved
