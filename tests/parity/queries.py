"""Query strings a link could carry, nasty ones included: the cases the page's link parser (app/ui/format.js
parseQuery, tests/browser/test_parity.py) and Python's (app.state.parse_query, tests/app/test_state.py) are held to."""

from __future__ import annotations

import random
from urllib.parse import quote

from app.sections import url_spec

SPEC = url_spec()

NASTY_VALUES = [
    "", " ", "%20", "+", "NaN", "nan", "-nan", "inf", "-inf", "Infinity", "-Infinity", "1e999", "-1e999",
    "1e-999", "1e308", "2e308", "1e-320", "-1", "0", "-0", "+0", "0.0", ".5", "5.", "+2.5", "2.5e0", "2.5E+0",
    "0x10", "1_000", "1,5", "1.2.3", "--1", "1e", "e5", "3.2abc", "abc", "\u0663", "\uff13", "\u00b2", "  3.2  ",
    "%0A3.2%0A", "%093%09", "3%C2%A0", "10000000000000000000000000", "0." + "0" * 300 + "1", "1" * 400,
    "9" * 5000, "x" * 5000, "\U0001F600", "caf\u00e9", "\u05e9\u05dc\u05d5\u05dd", "%E2%80%AE3.2",
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "\"'><b>x</b>", "%3Cscript%3Ealert(1)%3C%2Fscript%3E",
    "%zz", "%E2%82", "%C0%80", "%ED%A0%80", "%F0%9F%98", "%FF", "%", "%2", "%25", "%00", "%2B3", "%2B",
    "true", "True", "TRUE", "yes", "Yes", "on", "ON", "1", "false", "False", "no", "NO", "off", "Off", "y", "t",
    "2", "tru", "\u0130", "gaussian", "dot", "Gaussian", " dot ", "dot%00", "default", "step", "bump", "large",
    "generated", "wave", "sine", "sinus", "7", "50", "2000", "2001", "1.5", "2147483647", "2147483648", "-3",
    "00042", "the bank by the river", "w" * 500, "w" * 501, "\U0001F600" * 500, "\U0001F600" * 501,
]


def nasty_queries(seed, count):
    """Query strings a link could carry: every key, unknown keys, repeats, junk, encoded and not."""
    rnd = random.Random(seed)
    keys = list(SPEC) + ["foo", "Query", "query ", "%71uery", "__proto__", "constructor", "toString", "",
                         "<script>alert(1)</script>", "k" * 5000, "\U0001F600", "h\u00e9", "%zz", "%E2%82"]
    out = []
    for _ in range(count):
        parts = []
        for _ in range(rnd.randint(1, 5)):
            k, v = rnd.choice(keys), rnd.choice(NASTY_VALUES)
            if rnd.random() < 0.3:  # as a browser sends it: percent-encoded
                k, v = quote(k, safe="%"), quote(v, safe="%")
            parts.append(rnd.choice([f"{k}={v}", f"{k}={v}", f"{k}={v}", k, f"{k}=", f"{k}={v}={v}"]))
            if rnd.random() < 0.15:
                parts.append(parts[-1])  # repeated key
        sep = rnd.choice(["&", "&", "&&"])
        out.append(rnd.choice(["?", "?", ""]) + sep.join(parts))
    return out


EXPLICIT_QUERIES = [
    "", "?", "?query=2.5&bandwidth=0.3&kernel=dot&temperature=2",
    "?bandwidth=-1&query=abc&foo=<script>alert(1)</script>",
    "?bandwidth=-1&query=abc&foo=%3Cscript%3Ealert(1)%3C/script%3E",
    "?query=NaN&bandwidth=inf&temperature=1e999&key_norm=-1e999", "?query=1e-999&n=1e999&seed=-1",
    "?query=1&query=2&query=3", "?query=&bandwidth=", "?query", "?=3", "?&&&", "??query=2", "?a=1&&b=2",
    "?link=yes&limits=OFF&present=1&causal=maybe", "?sentence=" + "a" * 501, "?sentence=" + "a" * 500,
    "?sentence=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E", "?dataset=generated&fn=bump&n=7&noise=0.5&seed=3",
    "?query=%E2%82&bandwidth=%zz", "?query=" + "9" * 5000, "?" + "x" * 5000 + "=1",
    "?query=\u0663&bandwidth=\uff10.5", "?token=1.5&head=9&att_temperature=0",
    "?query=2.5#frag", "?query=2;bandwidth=3", "?query=+2.5+&kernel=+dot",
]

# The notices a link's parser gives, one phrase each: the queries above must reach every one.
OUTCOMES = ("Ignored unknown setting", "times; using the last value", "Ignored an empty value", "not a number",
            "not a whole number", "is outside", "expected 1 or 0", "expected one of", "longer than 500 characters")


def queries() -> list[str]:
    """The explicit queries and 300 seeded nasty ones, which both parsers (V8's and Chromium's) are held to."""
    return EXPLICIT_QUERIES + nasty_queries(14, 300)


def _same_values(a, b) -> bool:
    """Same keys and equal values, a bool only equal to a bool (JS numbers come back as int or float)."""
    return set(a) == set(b) and all(a[k] == b[k] and isinstance(a[k], bool) == isinstance(b[k], bool) for k in a)


def check_parse_query(qs, got) -> None:
    """The JS parser's answers ``got`` ({values, notices} for each of ``qs``) are app.state.parse_query's, and the
    queries reached every outcome."""
    from app.sections import parse_query

    want = [parse_query(q) for q in qs]
    bad = [(q[:120], g, w) for q, g, w in zip(qs, got, want)
           if not _same_values(g["values"], w[0]) or g["notices"] != w[1]]
    assert bad == [], bad[:3]
    every = " ".join(n for _, notices in want for n in notices)
    assert [p for p in OUTCOMES if p not in every] == []

