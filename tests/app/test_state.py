"""app/state.py without a browser: every path of parse_query, to_query's round trip and url_spec's bounds."""

from __future__ import annotations

import math

import param
import pytest

from app.sections import ExplorableState, parse_query, to_query, url_spec
from app.regression.state import RegressionState
from app.sentence.state import SentenceState
from attention.datasets import X_RANGE

SPEC = url_spec()
FLOATS = [k for k, s in SPEC.items() if s["kind"] == "float"]
INTS = [k for k, s in SPEC.items() if s["kind"] == "int"]
BOOLS = [k for k, s in SPEC.items() if s["kind"] == "bool"]
CHOICES = [k for k, s in SPEC.items() if s["kind"] == "choice"]
TEXTS = [k for k, s in SPEC.items() if s["kind"] == "text"]


# ---- url_spec ---------------------------------------------------------------------------------------

def test_url_spec_covers_every_parameter_with_its_bounds():
    params = {n: p for n, p in ExplorableState.param.objects("existing").items() if n != "name"}
    assert set(SPEC) == set(params)
    for name, p in params.items():
        s = SPEC[name]
        assert s["default"] == p.default, name
        if s["kind"] in ("float", "int"):
            assert (s["lo"], s["hi"]) == tuple(p.bounds), name
            # the bounds as sentences write them: a negative one with the true minus (U+2212)
            assert float(s["lo_text"].replace("\u2212", "-")) == s["lo"]
            assert float(s["hi_text"].replace("\u2212", "-")) == s["hi"]
            assert "-" not in s["lo_text"] + s["hi_text"]
        elif s["kind"] == "choice":
            assert s["choices"] == list(p.objects)
        elif s["kind"] == "bool":
            assert isinstance(p, param.Boolean)
        elif name == "tour":   # a step's number or id, resolved by the tour (app.tour.model.resolve_step)
            assert s["kind"] == "tour" and s["max"] > 0
        else:
            assert s["kind"] == "text" and s["max"] > 0
    assert (SPEC["query"]["lo"], SPEC["query"]["hi"]) == X_RANGE
    assert {"query", "bandwidth", "temperature", "kernel", "key_norm", "dataset", "link", "limits", "present"} \
        <= set(SPEC)


def test_url_spec_of_a_section_class_holds_only_its_parameters():
    assert set(url_spec(SentenceState)) == set(SentenceState.param) - {"name"}
    assert "sentence" not in url_spec(RegressionState)


# ---- parse_query: numbers ---------------------------------------------------------------------------------

@pytest.mark.parametrize("key", FLOATS)
def test_float_in_range_is_taken_as_is(key):
    s = SPEC[key]
    mid = (s["lo"] + s["hi"]) / 2
    assert parse_query(f"{key}={mid!r}") == ({key: mid}, [])
    assert parse_query(f"?{key}={s['lo']!r}") == ({key: float(s["lo"])}, [])


@pytest.mark.parametrize("key", FLOATS)
def test_floats_out_of_range_are_clamped_with_a_notice(key):
    s = SPEC[key]
    values, notices = parse_query(f"{key}=1e999")
    assert values == {key: s["hi"]}
    assert notices == [f"{key}=1e999 is outside {s['lo_text']} to {s['hi_text']}; using {s['hi_text']}."]
    values, notices = parse_query(f"{key}=-1e999")
    assert values == {key: s["lo"]}
    assert notices == [f"{key}=-1e999 is outside {s['lo_text']} to {s['hi_text']}; using {s['lo_text']}."]


@pytest.mark.parametrize("key", INTS)
def test_whole_numbers_out_of_range_are_clamped_with_a_notice(key):
    s = SPEC[key]
    big = "9" * 30
    values, notices = parse_query(f"{key}={big}")
    assert values == {key: s["hi"]} and type(values[key]) is int
    assert notices == [f"{key}={big} is outside {s['lo_text']} to {s['hi_text']}; using {s['hi_text']}."]
    if s["lo"] > 0:
        values, notices = parse_query(f"{key}={s['lo'] - 1}")
        assert values == {key: s["lo"]}
        assert notices == [f"{key}={s['lo'] - 1} is outside {s['lo_text']} to {s['hi_text']}; "
                           f"using {s['lo_text']}."]


def test_clamped_bandwidth_from_a_negative_value():
    assert parse_query("bandwidth=-1") == ({"bandwidth": 0.005},
                                           ["bandwidth=-1 is outside 0.005 to 50; using 0.005."])
    assert parse_query("query=7") == ({"query": 6.5}, ["query=7 is outside \u22120.5 to 6.5; using 6.5."])


def test_a_clamp_notice_writes_a_negative_bound_with_the_true_minus_and_the_link_keeps_ascii():
    """Issue 46: the notice is a sentence the student reads ("\u22120.25"); the link stays ASCII ("-0.25")."""
    values, notices = parse_query("key_norm=-7")
    assert values == {"key_norm": -0.25}
    assert notices == ["key_norm=-7 is outside \u22120.25 to 0.25; using \u22120.25."]
    assert parse_query("key_norm=7")[1] == ["key_norm=7 is outside \u22120.25 to 0.25; using 0.25."]
    q = to_query(ExplorableState(**values))
    assert q == "key_norm=-0.25" and q.isascii()
    assert parse_query(q) == (values, [])


@pytest.mark.parametrize("raw", ["abc", "NaN", "nan", "inf", "-inf", "Infinity", "0x10", "1_000", "1,5", "1.2.3",
                                 "e5", "3.2abc", "\u0663", "\uff13", "--1"])
def test_not_a_number_is_ignored_with_a_notice(raw):
    values, notices = parse_query({"query": [raw]})
    assert values == {}
    assert notices == [f"Ignored query=\u201c{raw}\u201d: not a number."]


@pytest.mark.parametrize("raw", ["1.5", "-3", "1e2", "abc", "\u0663"])
def test_whole_numbers_refuse_anything_but_digits(raw):
    assert parse_query({"seed": [raw]}) == ({}, [f"Ignored seed=\u201c{raw}\u201d: not a whole number."])


def test_whole_numbers_accept_digits_and_clamp():
    assert parse_query("n=00042") == ({"n": 42}, [])
    assert parse_query("n=1") == ({"n": 2}, ["n=1 is outside 2 to 2000; using 2."])
    values, _ = parse_query("seed=" + "9" * 5000)  # 5000 digits: clamped, not an error
    assert values == {"seed": 2**31 - 1} and type(values["seed"]) is int


@pytest.mark.parametrize("raw", [".5", "5.", "+2.5", "2.5e0", "2.5E+0", "  3.2  ", "3.2\t", "1e-999"])
def test_number_spellings_python_and_the_browser_both_read(raw):
    values, notices = parse_query({"query": [raw]})
    assert notices == [] and values["query"] == float(raw.strip())


def test_a_long_bad_value_is_cut_in_the_notice():
    _, notices = parse_query("query=" + "x" * 5000)
    assert notices == [f"Ignored query=\u201c{'x' * 40}\u2026\u201d: not a number."]


# ---- parse_query: empty, repeated, unknown -------------------------------------------------------------------

@pytest.mark.parametrize("query", ["query=", "query", "query=%20", "query=+", "query=%09"])
def test_empty_values_are_ignored_with_a_notice(query):
    assert parse_query(query) == ({}, ["Ignored an empty value for \u201cquery\u201d."])


def test_repeated_keys_use_the_last_value():
    assert parse_query("query=1&query=2&query=3") == (
        {"query": 3.0}, ["\u201cquery\u201d was given 3 times; using the last value."])


@pytest.mark.parametrize("key", ["foo", "Query", "query ", "__proto__", "", "<script>alert(1)</script>"])
def test_unknown_keys_are_named(key):
    assert parse_query({key: ["1"]}) == ({}, [f"Ignored unknown setting \u201c{key}\u201d."])


def test_a_long_unknown_key_is_cut():
    assert parse_query("k" * 5000 + "=1")[1] == [f"Ignored unknown setting \u201c{'k' * 40}\u2026\u201d."]


def test_only_one_question_mark_is_stripped_as_in_a_browser():
    assert parse_query("?query=2") == ({"query": 2.0}, [])
    assert parse_query("??query=2") == ({}, ["Ignored unknown setting \u201c?query\u201d."])


def test_percent_encoding_and_junk():
    assert parse_query("query=%32.5") == ({"query": 2.5}, [])
    assert parse_query("kernel=%zz") == ({}, ["Ignored kernel=\u201c%zz\u201d: expected one of gaussian, dot."])
    assert parse_query("kernel=%E2%82")[1] == ["Ignored kernel=\u201c\ufffd\u201d: expected one of gaussian, dot."]


# ---- parse_query: booleans, choices, text ------------------------------------------------------------------

@pytest.mark.parametrize("raw, want", [("1", True), ("true", True), ("True", True), ("YES", True), ("on", True),
                                       ("0", False), ("false", False), ("No", False), ("OFF", False)])
@pytest.mark.parametrize("key", BOOLS)
def test_bool_spellings(key, raw, want):
    assert parse_query({key: [raw]}) == ({key: want}, [])


@pytest.mark.parametrize("raw", ["2", "y", "t", "tru", "maybe", "\u0130"])
def test_bad_bools_are_ignored(raw):
    assert parse_query({"link": [raw]}) == ({}, [f"Ignored link=\u201c{raw}\u201d: expected 1 or 0."])


@pytest.mark.parametrize("key", CHOICES)
def test_every_choice_is_accepted_and_others_refused(key):
    for choice in SPEC[key]["choices"]:
        assert parse_query({key: [choice]}) == ({key: choice}, [])
    bad = SPEC[key]["choices"][0].upper() + "!"
    assert parse_query({key: [bad]}) == (
        {}, [f"Ignored {key}=\u201c{bad}\u201d: expected one of {', '.join(SPEC[key]['choices'])}."])


@pytest.mark.parametrize("key", TEXTS)
def test_text_up_to_its_limit(key):
    limit = SPEC[key]["max"]
    assert parse_query({key: ["\U0001F600" * limit]}) == ({key: "\U0001F600" * limit}, [])  # counts characters
    assert parse_query({key: ["a" * (limit + 1)]}) == ({}, [f"Ignored {key}: longer than {limit} characters."])
    html = "<img src=x onerror=alert(1)>"
    assert parse_query({key: [html]}) == ({key: html}, [])  # kept as text; the page escapes it


def test_session_args_form_with_bytes_values():
    args = {"query": [b"2.5"], "bandwidth": [b"0.3"], "kernel": [b"dot"], "sentence": ["caf\u00e9".encode()],
            "link": [b"1"], "temperature": [b"\xff\xfe"], "n": [b"3", b"4"]}
    values, notices = parse_query(args)
    assert values == {"query": 2.5, "bandwidth": 0.3, "kernel": "dot", "sentence": "caf\u00e9", "link": True,
                      "n": 4}
    assert notices == ["Ignored temperature=\u201c\ufffd\ufffd\u201d: not a number.",
                       "\u201cn\u201d was given 2 times; using the last value."]


def test_every_returned_value_is_accepted_by_the_state():
    queries = ["bandwidth=-1&query=abc&foo=1", "query=1e999&temperature=0&n=1e9&seed=-5&noise=9",
               "token=99&head=-1&att_temperature=0", "key_norm=-7&dataset=generated&fn=sine"]
    for q in queries:
        values, _ = parse_query(q)
        state = ExplorableState(**values)
        for k, v in values.items():
            assert getattr(state, k) == v


# ---- to_query ------------------------------------------------------------------------------------------

def test_to_query_of_the_defaults_is_empty():
    assert to_query(ExplorableState()) == ""


@pytest.mark.parametrize("params", [
    {"query": 2.5, "bandwidth": 0.3, "kernel": "dot", "temperature": 2.0},
    {"key_norm": -0.2, "dataset": "step", "link": True, "limits": True, "present": True},
    {"dataset": "generated", "fn": "sine", "n": 37, "noise": 0.5, "seed": 12345},
    {"sentence": "the <b>bank</b> & river", "token": 3, "causal": True, "att_temperature": 0.5},
    {"bandwidth": 0.005, "temperature": 1000.0, "query": -0.5},
])
def test_to_query_round_trips_through_parse_query(params):
    state = ExplorableState(**params)
    q = to_query(state)
    values, notices = parse_query(q)
    assert notices == []
    assert values == params
    again = ExplorableState(**values)
    assert all(getattr(again, k) == getattr(state, k) for k in SPEC)


def test_to_query_leaves_out_defaults_and_writes_bools_as_digits():
    q = to_query(ExplorableState(link=True, query=3.2))
    assert q == "link=1"
    assert "query" not in to_query(ExplorableState(query=3.2))


def test_bounds_are_finite_where_the_link_clamps():
    for k in FLOATS + INTS:
        assert math.isfinite(SPEC[k]["lo"]) and math.isfinite(SPEC[k]["hi"]) and SPEC[k]["lo"] < SPEC[k]["hi"]


def test_parsed_values_are_within_bounds_and_accepted_by_the_state():
    from tests.parity.queries import EXPLICIT_QUERIES, nasty_queries

    for q in EXPLICIT_QUERIES + nasty_queries(15, 100):
        values, _ = parse_query(q)
        ExplorableState(**values)  # raises if anything is out of bounds
