"""Words and numbers every section writes: the typographic minus, numbers as students read them, escaping.

``signed`` and ``plain`` are the core's (attention/numbers.py, twin of attention/numbers.js); ``escape`` is the twin of
``esc`` in app/ui/format.js, held to it by tests/browser/test_parity.py.
"""

from __future__ import annotations

import html

from attention.numbers import MINUS, plain, signed  # noqa: F401  (the core's, which every section writes with)

_signed = signed   # the name the sections used before app/ui/ existed


def escape(text: str) -> str:
    """Text for an HTML context: every &, <, >, quote escaped."""
    return html.escape(str(text), quote=True)
