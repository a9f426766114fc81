"""What every test folder shares: the order files start in, a thread without a running event loop, and the
offline file (``static_file``: tests/export_once.py).

``make test`` runs the tests in three processes (pytest-xdist, ``-n 3 --dist loadfile``: a file's tests stay
together).  A process may run browser tests before a server test: Playwright's sync API keeps its event
loop marked as running in the main thread between its calls, and ``asyncio.run`` or tornado's test loop
then refuse to start.  A test file outside tests/browser has the thread to itself while it runs.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import settings

import app.sections  # noqa: F401  (the composition hands the tour every section's readouts, as each delivery does)
from tests.export_once import static_file, stop_export  # noqa: F401  (static_file: a fixture for every folder)

# Hypothesis draws the same examples on every run: a failure comes back when the run is repeated, and CI meets no
# example that a developer's run did not; no deadline, as a busy machine times one example differently.
settings.register_profile("project", derandomize=True, deadline=None)
settings.load_profile("project")


BROWSER = Path(__file__).resolve().parent / "browser"
# The longest files (a minute to five each in a three-process run, longest first) start first, then the rest of
# the browser tests, then the many short ones: the processes then finish together instead of one waiting on a
# long file at the end (xdist hands out whole files in this order).
LONGEST_FIRST = ("test_in_view.py", "test_plugin.py", "test_lesson.py", "test_own_data.py", "test_sentence.py",
                 "test_screens.py", "test_engines.py", "test_figures_at_scale.py", "test_learning.py", "test_tour.py",
                 "test_parity.py", "test_bench_smoke.py", "test_hardening.py", "test_lecture_notebook.py", "test_jupyterlab.py", "test_routing.py",
                 "test_regression_page.py", "test_words_parity.py", "test_true_sentences.py", "test_compute_parity.py",
                 "test_export.py", "test_page.py")


def pytest_configure(config):
    config.addinivalue_line("markers", "both_ways: a browser test that opens the page served as well as offline "
                                       "(tests/browser/conftest.py)")


def pytest_collection_modifyitems(session, config, items):
    def rank(item):
        path = Path(str(item.path))
        if path.name in LONGEST_FIRST:
            return LONGEST_FIRST.index(path.name)
        return len(LONGEST_FIRST) + (0 if BROWSER in path.resolve().parents else 1)

    items.sort(key=rank)   # stable: each file keeps its own order


@pytest.fixture(scope="module", autouse=True)
def _the_thread_has_no_running_loop(request):
    if BROWSER in Path(str(request.node.path)).resolve().parents:
        yield
        return
    borrowed = asyncio._get_running_loop()
    if borrowed is None:
        yield
        return
    asyncio._set_running_loop(None)
    try:
        yield
    finally:
        asyncio._set_running_loop(borrowed)



def pytest_sessionfinish(session):
    stop_export(session.config)
