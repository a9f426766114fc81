"""Moved (issue 11: one folder per section): app/ui/text.py (escape, plain, signed), app/regression/text.py
(the caption, the limit notices, the explanations) and app/learning/text.py (a refused step's words).  This
old name keeps them importable together while the branches that still import it move over."""

from app.learning.text import refusal_text, smaller_preset  # noqa: F401
from app.regression.text import *  # noqa: F401,F403
from app.regression.text import (INTRO, EXPLAIN_BIAS_VARIANCE, EXPLAIN_REGRESSION, STATIC_NOTE,  # noqa: F401
                                 caption, heaviest_sample, limit_notices, similarity_words)
from app.ui.text import MINUS, _signed, escape, plain, signed  # noqa: F401
