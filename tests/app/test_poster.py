"""Issue #49: the posters of the first screen (app/ui/poster.py, app/regression/poster.py) hold the core's numbers,
and the page's file carries them before BokehJS, which runs only after a frame (app/delivery/export.py)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import attention
from app.regression import poster as RP
from app.regression.readouts import regression_readouts
from app.regression.text import FIGURES, caption
from app.regression.view import LINES
from app.sections import ExplorableState
from app.ui import poster as P
from app.ui.text import signed
from app.ui.theme import WEIGHT_PALETTE


def _state(**kw):
    return ExplorableState(**kw)


def _sliders(state):
    from app.regression.state import CONTROLS
    from app.ui.controls import build_controls

    return build_controls(CONTROLS, state)


def test_bokehs_ticks_and_labels():
    # BasicTicker's choices on the main plot's ranges and on a few others (interval 0.5, 1, 2, 0.2, 50)
    assert P.nice_ticks(-1.272, 1.212)[0] == [-1.0, -0.5, 0.0, 0.5, 1.0]
    assert P.nice_ticks(-0.5, 6.5)[0] == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert P.nice_ticks(0, 10)[0] == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
    assert P.nice_ticks(0.05, 1.1)[0] == [0.2, 0.4, 0.6, 0.8, 1.0]
    assert P.nice_ticks(-120, 130)[0] == [-100.0, -50.0, 0.0, 50.0, 100.0]
    major, minor = P.nice_ticks(-0.5, 6.5)
    assert minor[:4] == [-0.4, -0.2, 0.2, 0.4] and not set(minor) & set(major)
    assert [P.plain_tick(v) for v in (-1.0, -0.5, 0.0, 0.5, 100.0, 0.001)] == ["\u22121", "\u22120.5", "0", "0.5", "100",
                                                                             "0.001"]


@pytest.mark.parametrize("kw", [{}, {"query": 1.1, "bandwidth": 0.2}, {"kernel": "dot", "key_norm": 0.2},
                                {"dataset": "bump", "temperature": 2.0}])
def test_the_posters_numbers_are_the_cores(kw):
    state = _state(**kw)
    d = attention.load_dataset(state.dataset)
    numbers = RP.opening_numbers(state, d)
    r = regression_readouts({**state.param.values(), **kw}, needs=[], dataset=d)
    assert numbers["readout"].max_weight == r["max_weight"]
    assert numbers["readout"].prediction == r["prediction"]
    w = numbers["weights"]
    assert w.sum() == pytest.approx(1) and w.max() == r["max_weight"]
    # what the engine draws (views.js queryViews): 4 + 18 sqrt(w / max w) px, the palette's bin of w / max w
    np.testing.assert_allclose(RP.marker_sizes(w), 4 + 18 * np.sqrt(w / w.max()))
    assert RP.marker_colours(w)[int(np.argmax(w))] == WEIGHT_PALETTE[-1]
    lo, hi = numbers["y_range"]
    assert lo < min(d.y.min(), numbers["truth"].min()) and hi > max(d.y.max(), numbers["truth"].max())
    page = RP.opening_posters(state, d, intro="<h1>x</h1>", labels=FIGURES, dots_above_n=150, lines=LINES,
                                weight_axis=(1.04, "Weights", 50), sliders=_sliders(state))
    fig = page["regression-plot"]
    radii = [2 * float(v) for v in re.findall(r'<circle [^>]*r="([0-9.]+)"', fig)][:d.n]
    np.testing.assert_allclose(radii, RP.marker_sizes(w), atol=2e-3)
    said = caption(numbers["readout"], kernel=state.kernel, bandwidth=state.bandwidth, temperature=state.temperature,
                   key_norm=state.key_norm)
    assert f">{said.replace('(', '(')}</p>" in fig.replace("&#x27;", "'")
    strip = page["regression-controls"]
    assert f"max weight <b>{r['max_weight']:.3f}</b>" in strip and f"of {d.n}" in strip
    # the sliders' values as the live sliders write them, their handles at the value
    assert f"query x: <b>{signed(state.query, 2)}</b>" in strip
    assert f"bandwidth h: <b>{P.to_precision(state.bandwidth)}</b>" in strip
    frac = (state.query - (-0.5)) / 7 * 100
    assert f'<u style="left:{frac:.3f}%">' in strip


def test_a_state_the_poster_cannot_draw_waits_instead():
    d = attention.load_dataset("default")
    for state in (_state(limits=True), _state(present=True)):
        page = RP.opening_posters(state, d, intro="<h1>x</h1>", labels=FIGURES, dots_above_n=150, lines=LINES,
                                weight_axis=(1.04, "Weights", 50), sliders=_sliders(state))
        assert "attn-poster-fig" not in page["regression-plot"] and "Loading this state" in page["regression-plot"]
        assert "regression-controls" not in page
    big = attention.make_dataset("wave", 400, 0.3, 1)
    assert not RP.drawable(_state(), big, 150)


def test_the_file_paints_its_words_before_bokehjs_runs(offline_html):
    head, body = offline_html.split("<body>", 1)
    assert "<script" not in head                               # nothing blocks the first paint
    main = body[:body.index("</main>")]
    assert 'data-poster="main_plot"' in main and '<p class="strip">max weight <b>' in main
    assert "Attention is a weighted average" in main
    later = re.findall(r'<script type="text/plain" class="attn-later">', body)
    assert len(later) >= 3                                     # BokehJS, its widgets, the page's own script
    runnable = re.findall(r"<script>(.*?)</script>", body, re.S)
    assert len(runnable) == 2 and runnable[1].strip() == "AttnOpening.boot();"
    assert sum(len(s) for s in runnable) < 8000                # what runs before the first paint is small


def test_scoped_css_puts_the_divs_style_under_the_poster():
    css = ":host { color: #222; }\np { margin: 0; }\n/* a note */\n@media (max-width: 599px) { h1 { font-size: 1em; } }"
    out = P.scoped_css(css, ".s")
    assert ".s { color: #222; }" in out and ".s p { margin: 0; }" in out
    assert re.search(r"@media \(max-width: 599px\) \{\s*\.s h1 \{ font-size: 1em; \}\s*\}", out)
