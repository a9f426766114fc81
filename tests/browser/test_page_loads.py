"""The page loads, served and offline: the worked example's readouts first, then the rest of the page block by
block (app/ui/loader.js), and nothing from outside.

The first screen's blocks are drawn before any block below them (the order of AttnPage.timings), the loader
goes on by itself until every block is drawn, and the offline file, with every request outside it refused,
asked for nothing but itself (file:, data:, blob:) on the way.
"""

from __future__ import annotations

import pytest

from tests.browser.pageutil import OFFLINE_ORIGINS, readout_text

WORKED_EXAMPLE = ("0.163", "3.35 bits", "10.2", "\u22120.30", "\u22120.43")

# The plan the loader follows (app/delivery/export.py writes it into the page) and the blocks it drew, in order.
PLAN_JS = """() => JSON.parse(Bokeh.require('core/util/string').unescape(
  document.getElementById('attn-plan').textContent)).blocks.map((b) => ({name: b.name, first: b.first}))"""


# At the first screen's end (the loader's "first-screen" event): how many models the document holds, and whether
# the loader says it is whole.  The later sections' models come later (app/delivery/export.py document_parts).
MODELS_AT_FIRST_JS = """addEventListener('attention-explorable:first-screen', () => {
  window.__attnModelsAtFirst = { models: AttnPage.doc._all_models.size, whole: AttnPage.whole }; });"""


@pytest.mark.both_ways   # the served page's smoke test: it loads under the server's headers
@pytest.mark.idle_drawing
def test_the_page_opens_on_the_worked_example_then_draws_the_rest_in_order(open_page):
    open_page.watch.page.add_init_script(MODELS_AT_FIRST_JS)
    page = open_page()
    text = readout_text(page)
    for figure in WORKED_EXAMPLE:
        assert figure in text, (figure, text)
    plan = page.evaluate(PLAN_JS)
    first = [b["name"] for b in plan if b["first"]]
    assert first and len(first) < len(plan)
    # nothing scrolls or clicks: the loader draws every other block by itself
    page.wait_for_function("() => AttnPage.allDrawn()", timeout=90000)
    timings = page.evaluate("() => AttnPage.timings")
    # the first screen was drawn from the first part of the document; the rest arrived after it
    at_first = page.evaluate("() => window.__attnModelsAtFirst")
    whole = page.evaluate("() => ({ models: AttnPage.doc._all_models.size, whole: AttnPage.whole })")
    assert at_first["whole"] is False and whole["whole"] is True
    assert at_first["models"] < whole["models"] / 2, (at_first, whole)
    drawn = [t["block"] for t in timings]
    assert sorted(drawn) == sorted(b["name"] for b in plan)          # each block once
    assert set(drawn[:len(first)]) == set(first), drawn                # the first screen first ...
    first_done = max(t["at"] + t["ms"] for t in timings if t["block"] in first)
    assert all(t["at"] >= first_done for t in timings if t["block"] not in first)   # ... before any other began
    if open_page.where == "offline":   # every request outside the file was refused: none was made
        requests = open_page.watch.requests
        assert requests and all(u.startswith(OFFLINE_ORIGINS) for u in requests), requests
