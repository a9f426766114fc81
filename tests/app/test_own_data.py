"""Your own data without a browser: the notebook's ``e.data`` both ways, the file that carries them, the words.

``e.data = (x, y)`` or a DataFrame hands the data to the page through the ``user_data`` source (the page's
engine scales and shows them: tests/browser/test_own_data.py); data the page loaded come back the same way and
set ``e.data``.  Bad data are refused with the page's own sentence, and what was there stays.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from app import userdata as u
from app.delivery.export import build_document, export_html, page_html
from app.ui import theme
from app.delivery.page import Explorable
from app.regression import text
from app.regression.view import build_regression
from app.sections import ExplorableState

pd = pytest.importorskip("pandas")

YEAR = u.read_csv_file(u.__file__.rsplit("/app/", 1)[0] + "/data/examples/temperatures.csv")


def _handed(e):
    """What the page receives: the user_data source's tag and columns."""
    src = e._built.regression.models["user_data"]
    return json.loads(src.tags[0]), src.data


def _built_page() -> Explorable:
    e = Explorable()
    e.__panel__()
    return e


@pytest.fixture
def page():
    return _built_page()


@pytest.fixture(scope="module")
def refusing_page():
    """One built page for the refusals (each sets its data first, and a refusal leaves them as they were): a
    page costs seconds to build."""
    return _built_page()


def test_arrays_and_frames_become_data_and_reach_the_page(page):
    assert page.data is None and _handed(page)[0] == {"key": "none"}
    page.data = (YEAR.x, YEAR.y)
    tag, cols = _handed(page)
    assert cols == {"x": YEAR.x.tolist(), "y": YEAR.y.tolist()}
    assert (tag["x_name"], tag["y_name"], tag["from"]) == ("x", "y", "python")
    page.data = pd.DataFrame({"station": ["A"] * 3, "day": [1, 2, 3], "temp_c": [3.5, None, 4.0]})
    tag, cols = _handed(page)
    assert cols == {"x": [1.0, 3.0], "y": [3.5, 4.0]} and (tag["x_name"], tag["y_name"]) == ("day", "temp_c")
    assert tag["notices"] == list(page.data.notices) and any("missing value" in n for n in tag["notices"])
    page.data = (pd.Series([0.5, 1.5], name="hour"), [2, 3])   # a Series lends its name to the axis
    assert _handed(page)[0]["x_name"] == "hour"
    # each hand-over has its own key, so the page tells a new one from its own echo
    keys = {_handed(page)[0]["key"]}
    page.data = (YEAR.x, YEAR.y)
    assert _handed(page)[0]["key"] not in keys
    page.data = None
    assert _handed(page) == ({"key": "none"}, {"x": [], "y": []})


@pytest.mark.parametrize("bad, sentence", [
    (([1, 1, 1], [1, 2, 3]), "Every x is \u201c1\u201d; x must take at least two different values."),
    (([1], [2]), u.SAY.one_point),
    (([1, 2, float("inf")], [1, 2, 3]), "Point 3: \u201cInfinity\u201d in column \u201cx\u201d is not a finite number."),
    (([1, 2], [1, 2, 3]), "x has 2 values but y has 3; each point needs one of each."),
    (([0.0, 5e-324, 0.0], [1, 2, 3]), u.SAY.x_too_close),                 # h would round to 0 in x's units
    ((pd.Series([1e12, 1e12 + 0.5]), [1, 2]), u.SAY.x_too_close_for_size),
    ("x,y\n1,2\n", "data must be None, a pandas DataFrame or a pair (x, y) of sequences of numbers, got str"),
])
def test_bad_data_are_refused_with_the_pages_sentence_and_the_data_stay(refusing_page, bad, sentence):
    page = refusing_page
    page.data = (YEAR.x, YEAR.y)
    before = _handed(page)
    with pytest.raises(ValueError) as e:
        page.data = bad
    assert str(e.value) == sentence
    assert page.data.x.tolist() == YEAR.x.tolist() and _handed(page) == before


def test_data_the_page_loaded_set_e_data_without_an_echo(page):
    src = page._built.regression.models["user_data"]
    seen = []
    page.param.watch(lambda ev: seen.append(ev.new), "data")
    # the page writes the tag, then the columns (owndata.js handToPython)
    src.tags = [json.dumps({"x_name": "day", "y_name": "temp_c", "key": "page-1", "from": "page"})]
    src.data = {"x": [1.0, 2.0, 4.0], "y": [3.5, 4.0, 5.0]}
    assert page.data.x.tolist() == [1.0, 2.0, 4.0] and (page.data.x_name, page.data.y_name) == ("day", "temp_c")
    assert len(seen) == 1
    # the parameter did not write back: the source still holds the page's own tag
    assert json.loads(src.tags[0])["from"] == "page"
    # a stray value from a client never stops the session, and changes nothing
    src.data = {"x": [1.0, 1.0], "y": [2.0, 3.0]}
    assert page.data.x.tolist() == [1.0, 2.0, 4.0]


def test_data_given_before_the_page_is_built_open_it():
    e = Explorable(data=pd.DataFrame({"day": YEAR.x, "temp_c": YEAR.y}))
    e.__panel__()
    tag, cols = _handed(e)
    assert cols["x"] == YEAR.x.tolist() and (tag["x_name"], tag["y_name"]) == ("day", "temp_c")


def test_the_exported_file_carries_its_data_beside_the_document():
    page = export_html(ExplorableState(), sections=("regression",), data=YEAR)
    carried = re.findall(r'<script type="application/json" id="attn-data">(.*?)</script>', page, re.S)
    assert len(carried) == 1
    assert u.from_embedded(carried[0]).y.tolist() == YEAR.y.tolist()
    # before the document and the loader, so the engine finds it when it starts
    assert page.index('id="attn-data"') < page.index('id="attn-doc"') < page.index("AttnPage.start(")
    assert 'id="attn-data"' not in export_html(ExplorableState(), sections=("regression",))
    with pytest.raises(ValueError, match="regression section"):
        build_document(ExplorableState(), sections=("sentence",), data=YEAR)


def test_embedded_text_is_safe_inside_a_script_element_and_reads_back_exactly():
    d = u.from_arrays([0.1 + 0.2, -1e15, 5e-324], [1, 2, 3], "</script><!--", "a & b \u2028")
    t = u.embed_text(d)
    assert "<" not in t and ">" not in t and "&" not in t and "\u2028" not in t
    back = u.from_embedded(t)
    assert back.x.tolist() == d.x.tolist() and (back.x_name, back.y_name) == (d.x_name, d.y_name)
    for damaged in ["", "{}", '{"format": 2, "x_name": "x", "y_name": "y", "x": [1, 2], "y": [1, 2]}',
                    '{"format": 1, "x_name": "x", "y_name": "y", "x": [1, "2"], "y": [1, 2]}',
                    '{"format": 1, "x_name": "x", "y_name": "y", "x": [1, 2], "y": [1]}']:
        with pytest.raises(ValueError, match="damaged"):
            u.from_embedded(damaged)


def test_the_data_box_and_its_sources_are_on_the_page():
    view = build_regression(ExplorableState())
    named = view.named
    assert "own_data_form" in named and "own_data_status" in named and "bias_note" in named
    form = named["own_data_form"].text
    # fixed HTML: a text box, column pickers, Use, a file chooser, Back and Download
    for part in ('class="own-text"', 'class="own-x"', 'class="own-y"', 'class="own-use"', 'type="file"',
                 'class="own-back" hidden', 'class="own-download" hidden'):
        assert part in form
    assert view.models["user_data"].name == "user_data"
    cfg = view.models["config"]
    assert cfg["userdata"] == u.config() and cfg["own"] == text.OWN_WORDS
    truth = theme.legend_label("true f(x)")   # (held on one line under the plot)
    assert truth not in cfg["legend"]["on_data"] and truth in cfg["legend"]["on"]


# ---- the words in the data's units (twins of unitText and lengthText in text.js: the browser tests compare
# the captions character for character) ----------------------------------------------------------------------

@pytest.mark.parametrize("span, v, want", [
    (364.0, 195.333, "195.3"), (34.0, 2003.4712, "2003.47"), (6.0, -0.1234, "\u22120.12"),
    (1e-6, 1.5e-6, "0.000001500"), (1e12, 5e11, "500000000000"), (600.0, 12.5, "12"),
])
def test_positions_in_the_data_units_have_decimals_for_their_span(span, v, want):
    assert text.unit_text(v, span) == want


@pytest.mark.parametrize("v, want", [(37.6197, "37.6"), (0.15, "0.15"), (1.234e-7, "0.000000123"),
                                     (2.5e7, "25 million"), (1e-4, "0.0001")])
def test_lengths_in_the_data_units_never_use_exponent_notation(v, want):
    assert text.length_text(v) == want and "e" not in want


def test_the_caption_on_your_data_names_the_column_and_the_units():
    import attention

    s = u.scale_for(YEAR.x)
    xs = s.from_units(YEAR.x)
    r = attention.readout(3.2, xs, YEAR.y, bandwidth=0.62)
    words = text.units_words("day", s, 364.0, 3.2, 0.62)
    cap = text.caption(r, kernel="gaussian", bandwidth=0.62, temperature=1.0, units=words)
    assert cap.startswith("A query at day = 195.1 averages the 365 samples") and "(h = 37.6 on the day axis)" in cap
    assert "true value" not in cap
    # the same numbers as the core on the data in their units (h scaled with x)
    r2 = attention.readout(s.to_units(3.2), YEAR.x, YEAR.y, bandwidth=s.h_to_units(0.62))
    assert math.isclose(r.prediction, r2.prediction, abs_tol=1e-12)
    assert np.isclose(r.max_weight, r2.max_weight, atol=1e-12)
