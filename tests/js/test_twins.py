"""The page's pure JavaScript against its Python twins, without a browser (tests/js/v8.py: an embedded V8).

attention/kernels.js and attention/mirror.js (the core's formulas), attention/words.js (the tokenizer and the
heads), app/ui/userwords.js, app/ui/userparse.js and app/ui/userdata.js (your own data), attention/generator.js and
attention/train.js, each against the numpy core or app/ui/userdata.py over the browser parity tests' cases
(tests/parity; tests/js/twins.py says which), each check once.  The browser tests keep the end-to-end parity in
Chromium.
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
