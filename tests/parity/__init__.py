"""The twin checks' cases, made once for both places that run them: tests/js (the pure JS files in an embedded
V8, no browser) and the browser parity tests (tests/browser/test_parity.py, test_words_parity.py,
test_userdata_parity.py and test_compute_parity.py, in Chromium).

One module a family of twins: ``mirror`` (attention/kernels.js and attention/mirror.js), ``words``
(attention/words.js), ``userdata`` (app/ui/userwords.js, userparse.js and userdata.js) and ``compute``
(attention/generator.js and attention/train.js).  Each makes its cases and Python's answers once per process
(``functools.cache``) and holds the JS to them in one of two ways:

* ``check_*(js)`` sends the cases through ``js(name, cases)``, the harness entry of that name (tests/js/harness.js
  and each browser test's harness answer alike), and raises AssertionError at the first difference;
* ``assert_*(cases, got, ...)`` compares answers the caller got, where the two places call different entries.

A browser page takes a large batch slowly: a browser test hands ``batched(js, size)`` to a check.  Nothing here
imports a test module of tests/js or tests/browser, so both import this and neither imports the other.
"""

from __future__ import annotations

from pathlib import Path

from app.ui.engine import LIBRARY_FILES, read_js, unicode_table_js


# The pure files of the tour's engine (app/tour/view.py engine_source), which tests/js runs after the library's
# (their names are unique among the library's: a file is known by its name).
TOUR_FILES = {name: Path(__file__).resolve().parents[2] / "app" / "tour" / name for name in ("steps.js", "dock.js")}
JS_FILES = {**LIBRARY_FILES, **TOUR_FILES}


def library_js(names, folder: Path | None = None) -> str:
    """The library's files ``names`` (or the tour's, ``TOUR_FILES``) joined as an engine joins them
    (app/ui/engine.py): the text ``read_js`` ships, the Unicode table just before words.js.  From where they sit
    (attention/, app/ui/, app/tour/), or from ``folder``, a test's mutated copy of them."""
    def text(name):
        return read_js(Path(folder) / name if folder is not None else JS_FILES[name])
    return "\n".join(unicode_table_js() + text(n) if n == "words.js" else text(n) for n in names)


def batches(items, size):
    for i in range(0, len(items), size):
        yield items[i:i + size]


def batched(js, size):
    """``js`` taking a list of cases in batches of ``size``, the answers joined into one list."""
    return lambda name, cases: [got for batch in batches(cases, size) for got in js(name, batch)]


def answers(js, name, cases) -> list:
    """The JS entry ``name``'s answers to ``cases``: one for each case."""
    got = js(name, cases)
    assert len(got) == len(cases), (name, len(got), len(cases))
    return got
