"""Your own data read in the browser (app/ui/userwords.js, userparse.js and userdata.js) against app/userdata/:
the texts, numbers, sizes and x's, and the checks both tests/js and tests/browser/test_userdata_parity.py run on
them.  The corpus of texts is tests/core/test_userdata.py's, whose sentences the Python tests hold.
"""

from __future__ import annotations

import random
import struct
from functools import cache

import numpy as np

from app import userdata as u

from tests.core.test_userdata import CORPUS, REFUSED, random_text
from tests.parity import answers

# Lines holding more than one of tab, semicolon and comma: which separates the columns decides what is read
# (the first of tab, semicolon, comma on every line, else on the first line).
SEPARATOR_TEXTS = [("x\ty;z\n1\t2;3\n2\t3;4\n", {}), ("x;y\tz\n1;2\t3\n2;3\t4\n", {}),
                   ("x;y,z\n1;2,5\n2;3,5\n", {}), ("x,y;z\n1,2;3\n2,3;4\n", {}),
                   ("x;y\tz\n1;2\n2;3\n", {}), ("x,y\tz\n1,2\n2\t3\n", {}), ("a\tb;c,d\n1\t2;3,4\n5\t6;7,8\n", {})]


def py_parse(text, opts):
    try:
        d = u.parse_text(text, **opts)
    except ValueError as e:
        return {"error": str(e)}
    return {"x": d.x.tolist(), "y": d.y.tolist(), "xName": d.x_name, "yName": d.y_name, "notices": list(d.notices)}


@cache
def parse_cases():
    """The corpus's refused texts first, the rest of it, 600 random texts, a text cut to 2000 points, decimal
    commas, and texts whose separator decides what is read."""
    rng = random.Random(28)
    cases = [(t, o) for t, o, _ in REFUSED] + list(CORPUS) + [random_text(rng) for _ in range(600)]
    cases.append(("x,y\n" + "".join(f"{i},{i % 7}\n" for i in range(2500)), {}))      # cut to 2000
    cases.append(("a;b\n" + "".join(f"{i},5;{i}\n" for i in range(30)), {}))          # decimal commas
    cases += SEPARATOR_TEXTS
    return cases, [py_parse(t, o) for t, o in cases]


def assert_parse(got):
    """The answers to parse_cases() are Python's; the corpus's sentences are the ones the Python tests expect, so
    the page says exactly those; the random texts exercise both outcomes."""
    cases, want = parse_cases()
    assert len(got) == len(cases)
    bad = [(t[:80], o, g, w) for (t, o), g, w in zip(cases, got, want) if g != w]
    assert bad == [], bad[:3]
    assert [r.get("error") for r in got[:len(REFUSED)]] == [s for _, _, s in REFUSED]
    refused = sum("error" in r for r in got)
    assert 100 < refused < len(got) - 100


def random_doubles(rng: random.Random, count: int) -> list[float]:
    out = []
    while len(out) < count:
        v = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
        if v == v and abs(v) != float("inf"):
            out.append(v)
    return out


@cache
def number_cases():
    rng = random.Random(7)
    vs = random_doubles(rng, 3000)
    vs += [round(rng.uniform(-1e4, 1e4), rng.randint(0, 6)) for _ in range(2000)]
    vs += [10.0 ** k for k in range(-30, 30)] + [1e-7, 9.99e-7, 1e-6, 1e21, 9.99e20, 5e-324, 2.0 ** 53, 0.1 + 0.2]
    return vs, [u.number_text(v) for v in vs]


def check_number_text(js):
    """A number is written as JavaScript's String writes it."""
    vs, want = number_cases()
    assert js("numbers", vs) == want


SIZES = [0, 1, 2, 999, 1000, 1001, 1023, 1024, 1536, 999_949, 999_950, 999_999, 1_000_000, 16_000_000,
         16_000_001, 5 * 1024 * 1024, 50_000_000, 50 * 1024 * 1024, 1000 ** 3 - 1, 1024 ** 3 - 1, 3 * 1024 ** 3 + 7]


def check_size_text(js):
    assert js("sizes", SIZES) == [u.words._size_text(s) for s in SIZES]


def scale_cases():
    """x's of every spread, each with queries and a bandwidth to take to the sliders and back."""
    rng = np.random.default_rng(2)
    xs = [[0.0, 6.0], [1.0, 4.0], [2.0, 3.0], [-1.0, 4.0], list(range(1, 366)), [1990.0, 2024.0],
          [1e-6, 2e-6], rng.uniform(-1e6, 1e6, 40).tolist()]
    return [{"x": x, "q": [-0.5, 0.0, 1.7, 6.0, 6.5], "h": 0.62} for x in xs]


def check_scale_and_units(js):
    """x scaled onto the sliders, and values and bandwidths taken there and back, as Python does."""
    cases = scale_cases()
    for c, got in zip(cases, answers(js, "scale", cases)):
        s = u.scale_for(c["x"])
        assert got["s"] == {"scaled": s.scaled, "x0": s.x0, "span": s.span, "u0": s.u0, "uspan": s.uspan,
                            "factor": s.factor, "sentence": s.sentence}
        assert got["page"] == [s.from_units(v) for v in c["x"]]
        assert got["back"] == [s.to_units(v) for v in c["q"]]
        assert got["h"] == [s.h_from_units(c["h"]), s.h_to_units(c["h"])]
