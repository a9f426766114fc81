"""What several test files of tests/app read and none of them changes: the offline page and the notebook
component, each built once per run.

Building the whole page takes seconds, so the tests that only read it (what the file holds, how the sections
are ordered, which engines start) share one build.  A test that needs another state builds its own.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def offline():
    """``build_document`` of the page at ?query=2.5&bandwidth=0.3, every section (read it, never change it)."""
    import panel  # noqa: F401  (as in a notebook or a server: Panel's extensions are registered with Bokeh)

    from app.delivery.export import build_document
    from app.sections import ExplorableState

    return build_document(ExplorableState(query=2.5, bandwidth=0.3))


@pytest.fixture(scope="session")
def offline_html(offline) -> str:
    """The offline page as the one HTML file ``export`` writes."""
    from app.delivery.export import page_html

    return page_html(offline)


@pytest.fixture(scope="session")
def component():
    """The notebook component at ?query=2.5&bandwidth=0.3, built as a notebook shows it (read it, never change
    its parameters: test_param_sync.py and test_tour.py build their own to drive)."""
    from app.delivery.page import Explorable

    page = Explorable(query=2.5, bandwidth=0.3)
    page.__panel__()
    return page
