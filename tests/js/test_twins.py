"""The page's pure JavaScript against its Python twins, without a browser (tests/js/v8.py: an embedded V8).

Every pure JS file that has a Python twin (tests/js/twins.py CHECKS, keyed by path: the core's formulas, the
tokenizer and the heads, your own data's reader, the generator and the trainer, the number formats and the link
parser, the regression's tour readouts, the ideas' numbers, the tour's decisions ...) against the numpy core or
app/*.py over the parity cases (tests/parity), each check once; tests/js/test_mutations.py mutates each file.  The
browser tests keep what only a browser can say (its ICU, its URLSearchParams, the engines on a page).
"""

from __future__ import annotations

import pytest

from tests.js.twins import CHECKS
from tests.js.v8 import Twins


@pytest.fixture(scope="module")
def js():
    twins = Twins()
    yield twins
    twins.close()


@pytest.mark.parametrize("check", list(dict.fromkeys(c for checks in CHECKS.values() for c in checks)),
                         ids=lambda c: c.__name__.removeprefix("check_"))
def test_the_twin_matches_python(js, check):
    check(js)
