"""Moved to app/sentence/view.py (issue 11: one folder per section).  This old name stays, as the same module, while
the branches that still import it move over; new code imports app.sentence.view."""

import sys

from app.sentence import view as _moved

sys.modules[__name__] = _moved
