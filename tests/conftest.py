"""What every test folder shares.

``make test`` runs the tests in two processes (pytest-xdist, ``-n 2 --dist loadfile``: a file's tests stay
together).  A process may run browser tests before a server test: Playwright's sync API keeps its event
loop marked as running in the main thread between its calls, and ``asyncio.run`` or tornado's test loop
then refuse to start.  A test file outside tests/browser has the thread to itself while it runs.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest


BROWSER = Path(__file__).resolve().parent / "browser"


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
