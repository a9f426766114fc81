"""Moved to app/ui/share.py (issue 11: one folder per section).  This old name stays, as the same module, while
the branches that still import it move over; new code imports app.ui.share."""

import sys

from app.ui import share as _moved

sys.modules[__name__] = _moved
