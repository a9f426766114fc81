"""Your own data (app/userdata/): text, arrays and tables in, points and plain sentences out.

Every bad input is checked with its whole sentence; the browser's twin (app/ui/userdata.js) is held to
the same corpus, character for character, by tests/browser/test_userdata_parity.py, which imports
CORPUS, REFUSED and FRAGMENTS_REFUSED from here.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import math
import random
import re
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attention
from app import userdata as u
from attention.datasets import X_RANGE
from attention.datasets import MAX_GENERATED_N

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "data" / "examples" / "temperatures.csv"
L, R = "\u201c", "\u201d"   # the quotes around a user's text in a sentence
RANGE = "the page takes values from \u22121000 trillion to 1000 trillion."
X_TOO_CLOSE = ("The x values all lie within a billionth of one another, too close for the page to scale; "
               "write x in finer units (nanoseconds instead of seconds, say).")
X_TOO_CLOSE_FOR_SIZE = ("The x values differ by less than a millionth of a millionth of their size, too little for "
                        "the page to scale; subtract the first x from every x and try again.")

# ---- the corpus: (text, options, expected error sentence) ------------------------------------------

REFUSED = [
    ("", {}, "There is nothing to read: the page needs two columns of numbers, x and y."),
    (" \n\t\r\n  \n", {}, "There is nothing to read: the page needs two columns of numbers, x and y."),
    (";;\n;;\n ; \n", {}, "There is nothing to read: the page needs two columns of numbers, x and y."),
    ("x,y\n1,2\x00\n", {}, "This is not text but a binary file; save the data as CSV and try again."),
    ("x,y\n1,2\n" + "\ufffd" * 12, {},
     "This is not UTF-8 text (12 characters could not be read); save the data as CSV UTF-8 and try again."),
    ('x,y\n1,2\n3,"4\n5,6\n', {}, "Line 3: a quotation mark opens a field that never closes."),
    ("day,temp_c\n", {}, "There is a header row (line 1) but no data below it."),
    ("\n\nday,temp_c\n\n", {}, "There is a header row (line 3) but no data below it."),
    ("1\n2\n3\n", {}, "Found only one column; the page needs two, x and y."),
    ("x,y\n1,2\n", {}, "There is only one point; kernel regression needs at least two."),
    ("x,y\n1,2\n,3\nNA,4\n", {}, "There is only one point; kernel regression needs at least two."),
    ("x,y\n1,\n2,NA\n", {}, "Every line misses an x or a y value, so there are no points."),
    ("x,y\n1,2\n2,NaN\n3,4\n", {},
     f"Line 3: {L}NaN{R} in column {L}y{R} is not a number; to skip the line, leave the cell empty or write NA."),
    ("1;2\n-nan;3\n", {},
     f"Line 2: {L}-nan{R} in column 1 is not a number; to skip the line, leave the cell empty or write NA."),
    ("x,y\n1,2\n\n2,3\n", {}, "Line 3 is empty; take the empty line between the rows out and try again."),
    ("x,y\n\n1,2\n2,3\n", {}, "Line 2 is empty; take the empty line between the rows out and try again."),
    ("x;y\n1;2\n;\n \n2;3\n", {}, "Lines 3 and 4 are empty; take the empty lines between the rows out and try again."),
    ("x,y\n0,1\n5e-324,2\n", {}, X_TOO_CLOSE),
    ("x,y\n0.3,1\n0.30000000000000004,2\n0.3,3\n", {}, X_TOO_CLOSE),
    ("x,y\n1000000000000,1\n1000000000000.5,2\n", {}, X_TOO_CLOSE_FOR_SIZE),
    ("day,temp_c\n1,3.5\n2,warm\n3,4\n", {}, f"Line 3: {L}warm{R} in column {L}temp_c{R} is not a number."),
    ("\ufeffday,temp_c\r\n1,3.5\r\n2,4\r\n3,x\r\n", {}, f"Line 4: {L}x{R} in column {L}temp_c{R} is not a number."),
    ("day,temp_c\r1,3.5\r2,4\r3,x\r", {}, f"Line 4: {L}x{R} in column {L}temp_c{R} is not a number."),
    ("1,2\n3,4\n5,six\n", {}, f"Line 3: {L}six{R} in column 2 is not a number."),
    ("x,y\n1,2\n2,inf\n", {}, f"Line 3: {L}inf{R} in column {L}y{R} is not a finite number."),
    ("x,y\n1,2\n-Infinity,3\n", {}, f"Line 3: {L}-Infinity{R} in column {L}x{R} is not a finite number."),
    ("x,y\n1,2\n2,1e309\n", {}, f"Line 3: {L}1e309{R} in column {L}y{R} is too large; {RANGE}"),
    ("x,y\n1,2\n2,1e308\n", {}, f"Line 3: {L}1e308{R} in column {L}y{R} is too large; {RANGE}"),
    ("x,y\n1,2\n-2000000000000000,3\n", {},
     f"Line 3: {L}-2000000000000000{R} in column {L}x{R} is too large; {RANGE}"),
    ('x,y\n1,2\n2,"1,234.5"\n', {}, f"Line 3: {L}1,234.5{R} in column {L}y{R} is not a number."),
    ('x,y\n1,2\n2,"-1,234"\n', {},       # a quoted comma before three digits: decimals or thousands?
     f"Line 3: {L}-1,234{R} in column {L}y{R} could be a decimal comma or a thousands separator; write -1.234 or -1234."),
    ("x,y\n3,1\n3,2\n3.0,5\n", {}, f"Every x is {L}3{R}; x must take at least two different values."),
    ("a,b,c\n1,2,3\n4,5,6\n", {"x": "temp"},
     f"There is no column {L}temp{R} (the columns are {L}a{R}, {L}b{R} and {L}c{R})."),
    ("a,b,c,d,e,f,g,h\n" + "1,2,3,4,5,6,7,8\n" * 2, {"y": "z"},
     f"There is no column {L}z{R} (the columns are {L}a{R}, {L}b{R}, {L}c{R}, {L}d{R}, {L}e{R}, {L}f{R} and 2 more)."),
    ("1,2,3\n4,5,6\n", {"x": "day"},
     f"There is no column {L}day{R}: the text has no header row, so give a column number from 1 to 3."),
    ("1,2,3\n4,5,6\n", {"y": "7"}, "There is no column 7: the text has 3 columns."),
    ("a,b,c\n1,2,3\n4,5,6\n", {"x": "b", "y": "B"}, f"x and y must be two different columns (both are {L}b{R})."),
    ("month,temp_c,note\nJan,3,cold\nFeb,4,grey\n", {},
     f"Only one column holds numbers ({L}temp_c{R}); the page needs two, x and y."),
    ("month,note,who\nJan,cold,me\nFeb,grey,you\n", {}, "No column holds numbers; the page needs two, x and y."),
    ("month,temp_c,note\nJan,3,cold\nFeb,4,grey\n", {"x": "temp_c"},
     f"No column besides {L}temp_c{R} holds numbers to use for y."),
    ("x,y\n1,2\n2,3\n" + "x" * 80 + ",4\n", {},
     f"Line 4: {L}{'x' * 40}\u2026{R} in column {L}x{R} is not a number."),
]

# (text, options): inputs the browser must read exactly as Python does (points and notices, or the sentence)
CORPUS = [
    ("day;temp_c\n1;3,5\n2;-4,25\n3;\u22121,5\n", {}),
    ("day\ttemp_c\n1\t3,5\n2\t4.25\n", {}),
    ("  1   2.5\n 2\t3.5  \n3 -1e2\n", {}),
    ('"day","temp, in C"\n"1","3.5"\n"2","a ""warm"" 4"\n', {"y": "1"}),
    ('"day","note","temp"\n1,"two\nlines",3.5\n2,"x",4\n3,"y",oops\n', {}),
    ("\ufeffday,temp_c\r\n1,3.5\r\n2,4\r\n", {}),
    ("x,y\n\n1,2\n\n\n2,3\n\n", {}),
    ("x,y\n1,2\n2,\n3,NA\n4,#N/A\n5,null\n6,7\n7\n", {}),
    ("id,day,temp_c,note\na,1,3.5,n\nb,2,4,n\n", {}),
    ("id,day,temp_c\n1,10,3.5\n2,20,4\n", {"y": "TEMP_C"}),
    ("id,day,temp_c\n1,10,3.5\n2,20,4\n", {"x": "3", "y": "2"}),
    ("1,2,3\n4,5,6\n7,8,9\n", {}),
    ("x,y\n1,1\n2,2\n1,3\n2,4\n3,5\n1,6\n", {}),
    ("<b>day</b>,<img src=x onerror=alert(1)>\n1,2\n2,3\n", {}),
    (",day,temp_c\n0,1,3.5\n1,2,4\n", {}),
    ("x,y\n1,1000000000000000\n2,-1000000000000000\n", {}),
    ("x,y\n0.1,.5\n+2,5.\n3e0,1E-3\n", {}),
    ('"","day","temp_c"\n"1",1,3.5\n"2",2,4\n', {}),
    ('"a","b"\n"1","2"\n"",""\n""""," "\n"3","x""y"\n', {}),
    ('"a","b","c"\n"1","2","x""y"\n"",""\n"3","4","z"\n', {}),
    ('"a","b"\n"1","2"\n""""," "\n"3","4"\n', {}),
    ('a,b\n1,"2\n3"\n4,5\n6,7"\n"8",9\n', {}),
    ('a,note,b\n1,"two\nlines",2\n4,x,5\n6,7",8\n"8",y,9\n', {}),
    ('a;b\n"1";"2,5"\n2;3 "x"\n', {}),
    ('a;b\n"1";"2,5"\n2;" 3,25 "\n', {}),
    ('day,temp_c\n1,"3,5"\n2," -4,25 "\n3,"5"\n', {}),            # 25: decimal commas quoted in comma-separated text
    ("\n \n\nx,y\n1,2\n2,3\n\n \n,\n", {}),                       # 26: blank lines before and after the table
    ("x,y\n0,1\n0.000000001,2\n", {}),                             # 27: x spread over a billionth: enough
    ("x,y\n1000000000000,1\n1000000000002,2\n", {}),               # 28: and over a millionth of a millionth
    ("x;y\n1;1,234\n2;2,5\n", {}),                                  # 29: semicolons: "1,234" is a decimal comma
]


# ---- random texts: every separator, quoting, blank and missing cells, bad cells, line ends -------------

CELLS = ["3", "-2.5", "+.5", "1e3", "3,5", '"1,234"', "1,234", "\u22124", " 7 ", '"8"', '"1,5"', "", "NA", "nan", "#N/A", "inf",
         "abc", "1e400", "2e15", "1000000000000000", '"a ""q"" b"', '"two\nlines"', "1.2.3", "0x10",
         "\u0661\u0662", "\uff11\uff12", "3,14,15", "0", "-0", "12", "12.0", "\u00a012\u00a0", "NULL", "None",
         'ab"c', '"x"y', '""', '""""', '"a\r\nb"', '"unclosed']
NAMES = ["day", "temp_c", "Temp_C", "", '"a, b"', "<b>x</b>", "t\u00e9mp\u00e9rature", "x", "y", "1", " pad "]


def random_text(rng: random.Random):
    sep = rng.choice([",", ";", "\t", " ", "  ", ", "])
    ncols = rng.choice([1, 2, 2, 2, 2, 3, 3, 4])
    odd = rng.choice([0.0, 0.0, 0.02, 0.05, 0.3])     # the share of odd cells
    lines = []
    if rng.random() < 0.6:
        lines.append(sep.join(rng.choice(NAMES) for _ in range(ncols)))
    for _ in range(rng.randint(0, 12)):
        if rng.random() < 0.08:
            lines.append(rng.choice(["", "  ", sep.strip() * 2]))
            continue
        k = ncols if rng.random() < 0.85 else rng.randint(1, ncols + 1)
        row = [rng.choice(CELLS) if rng.random() < odd else str(rng.choice([rng.randint(-9, 30),
               round(rng.uniform(-50, 50), rng.randint(0, 3))])) for _ in range(k)]
        lines.append(sep.join(row))
    end = rng.choice(["\n", "\r\n", "\r"])
    text = ("\ufeff" if rng.random() < 0.1 else "") + end.join(lines) + (end if rng.random() < 0.5 else "")
    pick = lambda: None if rng.random() < 0.8 else rng.choice(["day", "TEMP_C", "2", "9", "zz", " x "])  # noqa: E731
    opts = {k: v for k, v in (("x", pick()), ("y", pick())) if v is not None}
    return text, opts



def _result(text, opts):
    d = u.parse_text(text, **opts)
    return {"x": d.x.tolist(), "y": d.y.tolist(), "xName": d.x_name, "yName": d.y_name, "notices": list(d.notices)}


# ---- refused text ----------------------------------------------------------------------------------

@pytest.mark.parametrize("text, opts, sentence", REFUSED)
def test_bad_text_gets_one_sentence(text, opts, sentence):
    with pytest.raises(ValueError) as e:
        u.parse_text(text, **opts)
    assert str(e.value) == sentence


def test_a_few_unreadable_characters_are_not_refused_but_ten_are():
    d = u.parse_text("day,temp_\ufffdC\n1,2\n2,3\n" + "\ufffd" * 8)
    assert d.y_name == "temp_\ufffdC" and d.n == 2
    with pytest.raises(ValueError, match="10 characters could not be read"):
        u.parse_text("day,temp_\ufffdC\n1,2\n2,3\n" + "\ufffd" * 9)


def test_text_must_be_a_string():
    with pytest.raises(ValueError, match="text must be a str, got bytes"):
        u.parse_text(b"x,y\n1,2\n2,3\n")


# ---- accepted text ---------------------------------------------------------------------------------

def test_semicolons_and_decimal_commas_are_read_and_said():
    r = _result(*CORPUS[0])
    assert r["x"] == [1, 2, 3] and r["y"] == [3.5, -4.25, -1.5]
    assert r["notices"] == [f"Commas were read as decimal points ({L}3,5{R} is 3.5)."]


def test_tabs_take_decimal_commas_and_points_alike():
    r = _result(*CORPUS[1])
    assert r["y"] == [3.5, 4.25] and r["xName"] == "day"


def test_runs_of_spaces_separate_when_nothing_else_does():
    r = _result(*CORPUS[2])
    assert r["x"] == [1, 2, 3] and r["y"] == [2.5, 3.5, -100] and r["xName"] == "x" and r["notices"] == []


def test_quoted_fields_follow_rfc_4180():
    with pytest.raises(ValueError) as e:   # the quoted, doubled quotes are one field, and it is text
        u.parse_text(*CORPUS[3][:1], **CORPUS[3][1])
    assert str(e.value) == f'Line 3: {L}a "warm" 4{R} in column {L}temp, in C{R} is not a number.'
    d = u.parse_text('"day","temp, in C"\n"1","3.5"\n"2"," 4 "\n')
    assert d.y.tolist() == [3.5, 4.0] and d.y_name == "temp, in C"


def test_a_quoted_field_may_span_lines_and_the_line_numbers_follow_the_editor():
    with pytest.raises(ValueError) as e:
        u.parse_text(*CORPUS[4][:1], **CORPUS[4][1])
    # the record of line 2 takes lines 2 and 3; the bad cell is on line 5, as an editor shows it
    assert str(e.value) == f"Line 5: {L}oops{R} in column {L}temp{R} is not a number."


def test_quoted_lines_among_plain_ones():
    with pytest.raises(ValueError) as e:   # a record of empty quoted cells is an empty line
        _result(*CORPUS[19])
    assert str(e.value) == "Line 3 is empty; take the empty line between the rows out and try again."
    r = _result(*CORPUS[20])         # a lone quote is a cell that is neither a number nor missing
    assert (r["x"], r["notices"]) == ([1, 3], ["Skipped 1 line with a missing value (line 3)."])
    with pytest.raises(ValueError) as e:
        _result(*CORPUS[21])
    assert str(e.value) == f"Line 2: {L}2 3{R} in column {L}b{R} is not a number."   # a line end shows as a space
    r = _result(*CORPUS[22])         # a field over two lines, then a stray quote inside an unquoted field
    assert (r["x"], r["y"], r["notices"]) == ([1, 4, 6, 8], [2, 5, 8, 9], [f"Used {L}a{R} for x and {L}b{R} for y."])
    with pytest.raises(ValueError) as e:
        _result(*CORPUS[23])
    assert str(e.value) == f'Line 3: {L}3 "x"{R} in column {L}b{R} is not a number.'
    assert _result(*CORPUS[24])["y"] == [2.5, 3.25]


def test_bom_and_crlf():
    r = _result(*CORPUS[5])
    assert r["xName"] == "day" and r["x"] == [1, 2] and r["y"] == [3.5, 4]


def test_empty_lines_between_the_rows_are_refused_but_not_those_around_the_table():
    with pytest.raises(ValueError) as e:
        u.parse_text(*CORPUS[6][:1])
    assert str(e.value) == "Lines 2, 4 and 5 are empty; take the empty lines between the rows out and try again."
    r = _result(*CORPUS[26])         # before the header and after the last row: not data, passed over
    assert (r["x"], r["y"], r["notices"]) == ([1, 2], [2, 3], [])


def test_empty_lines_listed_past_five():
    text = "x,y\n" + "".join(f"{i},{i}\n\n" for i in range(1, 9))
    with pytest.raises(ValueError) as e:
        u.parse_text(text)
    assert str(e.value) == ("Lines 3, 5, 7, 9, 11 and 2 more are empty; take the empty lines between the rows out "
                            "and try again.")


def test_nan_is_refused_in_a_text_but_a_gap_in_arrays():
    for cell in ("NaN", "nan", "-NaN", "+nan"):
        with pytest.raises(ValueError) as e:
            u.parse_text(f"day,temp_c\n1,3.5\n2,{cell}\n3,4\n")
        assert str(e.value) == (f"Line 3: {L}{cell}{R} in column {L}temp_c{R} is not a number; to skip the line, "
                                "leave the cell empty or write NA.")
    # NA and an empty cell are the gaps the sentence names: skipped, and said
    assert u.parse_text("day,temp_c\n1,3.5\n2,NA\n3,\n4,4\n").notices == (
        "Skipped 2 lines with a missing value (lines 3 and 4).",)
    # numpy's and pandas' NaN is their mark of a gap: the point is skipped, and said
    d = u.from_arrays([1, 2, 3], [1.0, math.nan, 3.0])
    assert d.x.tolist() == [1, 3] and d.notices == ("Skipped 1 point with a missing value (point 2).",)


def test_decimal_commas_quoted_in_comma_separated_text_are_read_and_said():
    r = _result(*CORPUS[25])
    assert (r["x"], r["y"]) == ([1, 2, 3], [3.5, -4.25, 5])
    assert r["notices"] == [f"Commas were read as decimal points ({L}3,5{R} is 3.5)."]
    with pytest.raises(ValueError) as e:       # a thousands separator beside a decimal point is not a number
        u.parse_text('x,y\n1,2\n2,"1,234.5"\n')
    assert str(e.value) == f"Line 3: {L}1,234.5{R} in column {L}y{R} is not a number."


def test_x_spread_too_little_to_scale_is_refused():
    assert u.MIN_X_SPREAD == 1e-9 and u.MIN_X_RELATIVE == 1e-12    # the sentences' "billionth", "millionth of a millionth"
    assert _result(*CORPUS[27])["x"] == [0, 1e-9] and _result(*CORPUS[28])["x"] == [1e12, 1e12 + 2]
    for x, sentence in [([0.0, 5e-324], X_TOO_CLOSE), ([2.0, 2.0 + 2 ** -51], X_TOO_CLOSE),
                        ([-3e14, -3e14 + 0.25], X_TOO_CLOSE_FOR_SIZE)]:
        with pytest.raises(ValueError) as e:
            u.from_arrays(x, [1, 2])
        assert str(e.value) == sentence
        assert not re.search(r"\de[-+]?\d", sentence)      # no exponent notation
    # the smallest spread taken still gives bandwidths well above zero in the data's units
    s = u.scale_for([0.0, 1e-9])
    assert s.h_to_units(0.005) > 0 and s.h_to_units(0.005) ** 2 > 0


def test_missing_values_skip_their_line_and_say_so():
    r = _result(*CORPUS[7])
    assert r["x"] == [1, 6] and r["y"] == [2, 7]
    assert r["notices"] == ["Skipped 5 lines with a missing value (lines 3, 4, 5, 6 and 8)."]


def test_default_columns_are_the_first_two_holding_numbers_and_said():
    r = _result(*CORPUS[8])
    assert (r["xName"], r["yName"], r["x"], r["y"]) == ("day", "temp_c", [1, 2], [3.5, 4])
    assert r["notices"] == [f"Used {L}day{R} for x and {L}temp_c{R} for y."]


def test_columns_by_name_ignoring_case_and_by_number():
    r = _result(*CORPUS[9])
    assert (r["xName"], r["yName"], r["y"]) == ("id", "temp_c", [3.5, 4])
    assert r["notices"] == [f"Used {L}id{R} for x and {L}temp_c{R} for y."]
    r = _result(*CORPUS[10])
    assert (r["xName"], r["yName"], r["x"], r["y"]) == ("temp_c", "day", [3.5, 4], [10, 20]) and r["notices"] == []


def test_without_a_header_the_columns_are_numbered():
    r = _result(*CORPUS[11])
    assert (r["xName"], r["yName"], r["x"], r["y"]) == ("x", "y", [1, 4, 7], [2, 5, 8])
    assert r["notices"] == ["Used column 1 for x and column 2 for y."]


def test_repeated_x_values_are_kept_and_said():
    r = _result(*CORPUS[12])
    assert r["x"] == [1, 2, 1, 2, 3, 1]
    assert r["notices"] == [f"The x value {L}1{R} occurs 3 times (lines 2, 4 and 7), "
                            "and 1 other x value repeats too; every point is kept."]


def test_names_are_plain_text_never_markup():
    r = _result(*CORPUS[13])
    assert r["xName"] == "<b>day</b>" and r["yName"] == "<img src=x onerror=alert(1)>"


def test_row_numbers_under_an_empty_header_cell_are_passed_over():
    r = _result(*CORPUS[14])          # pandas' to_csv
    assert r["notices"] == [f"Used {L}day{R} for x and {L}temp_c{R} for y."] and r["x"] == [1, 2]
    r = _result(*CORPUS[17])          # R's write.csv
    assert r["notices"] == [f"Used {L}day{R} for x and {L}temp_c{R} for y."] and r["y"] == [3.5, 4]
    r = _result(",day,note\n0,1,a\n1,2,b\n", {})   # used when nothing else holds numbers
    assert r["notices"] == [f"Used {L}day{R} for x and {L}column 1{R} for y."]


def test_the_magnitude_limit_is_inclusive():
    assert _result(*CORPUS[15])["y"] == [1e15, -1e15]


def test_number_forms():
    assert _result(*CORPUS[16])["x"] == [0.1, 2, 3] and _result(*CORPUS[16])["y"] == [0.5, 5, 0.001]


def test_rows_past_the_maximum_are_cut_and_said():
    text = "x,y\n" + "".join(f"{i},{i % 7}\n" for i in range(2500)) + "oops,1\n"
    d = u.parse_text(text)
    assert d.n == MAX_GENERATED_N == u.MAX_ROWS and d.x[-1] == 1999
    assert d.notices == ("There are 2501 rows of data; the page keeps the first 2000 points.",)


def test_a_column_with_a_few_words_still_holds_numbers():
    with pytest.raises(ValueError) as e:
        u.parse_text("id,day,temp_c\na,1,3\nb,2,oops\nc,3,4\n")
    assert str(e.value) == f"Line 3: {L}oops{R} in column {L}temp_c{R} is not a number."


def test_the_separator_is_the_one_on_every_line():
    # commas in a note column, semicolons on every line: semicolons separate
    d = u.parse_text("day;temp;note\n1;3,5;a, b\n2;4;c\n", y="temp")
    assert d.y.tolist() == [3.5, 4.0]


# ---- arrays and tables -----------------------------------------------------------------------------

def test_from_arrays():
    d = u.from_arrays(np.arange(3.0), [1, 2.5, np.float32(3)], x_name="day")
    assert d.x.tolist() == [0, 1, 2] and d.y.tolist() == [1, 2.5, 3] and (d.x_name, d.y_name) == ("day", "y")
    d = u.from_arrays([1, 2, float("nan"), 4], [1, None, 3, 4])
    assert d.x.tolist() == [1, 4] and d.notices == ("Skipped 2 points with a missing value (points 2 and 3).",)


@pytest.mark.parametrize("x, y, sentence", [
    ([1, 2, 3], [1, 2], "x has 3 values but y has 2; each point needs one of each."),
    ([], [], "There are no points: x and y are empty."),
    ([1], [2], "There is only one point; kernel regression needs at least two."),
    ([1, 2], [1, math.inf], f"Point 2: {L}Infinity{R} in column {L}y{R} is not a finite number."),
    ([1, 2e20], [1, 2], f"Point 2: {L}200000000000000000000{R} in column {L}x{R} is too large; {RANGE}"),
    ([1, "two"], [1, 2], f"Point 2: {L}two{R} in column {L}x{R} is not a number."),
    ([1, True], [1, 2], f"Point 2: {L}True{R} in column {L}x{R} is not a number."),
    ([2, 2], [1, 2], f"Every x is {L}2{R}; x must take at least two different values."),
])
def test_from_arrays_refuses_with_the_sentences(x, y, sentence):
    with pytest.raises(ValueError) as e:
        u.from_arrays(x, y)
    assert str(e.value) == sentence


def test_from_arrays_refuses_what_is_not_one_column():
    with pytest.raises(ValueError, match=r"x must be one-dimensional \(one value per point\), got shape \(2, 2\)"):
        u.from_arrays([[1, 2], [3, 4]], [1, 2])
    with pytest.raises(ValueError, match="y must be a list of numbers, one per point, got a string"):
        u.from_arrays([1, 2], "12")


class StandIn:
    """The little of a DataFrame that from_dataframe uses: .columns and df[name]."""

    def __init__(self, columns: dict):
        self._c = columns
        self.columns = list(columns)

    def __getitem__(self, name):
        return list(self._c[name])


def test_from_dataframe_with_a_stand_in():
    df = StandIn({"date": ["2024-01-01", "2024-01-02", "2024-01-03"], "day": [1, 2, 3],
                  "temp_c": [3.5, float("nan"), 4.0]})
    d = u.from_dataframe(df)
    assert (d.x_name, d.y_name, d.x.tolist(), d.y.tolist()) == ("day", "temp_c", [1, 3], [3.5, 4.0])
    assert d.notices == (f"Used {L}day{R} for x and {L}temp_c{R} for y.",
                         "Skipped 1 row with a missing value (row 2).")
    with pytest.raises(ValueError) as e:
        u.from_dataframe(df, x="date", y="temp_c")
    assert str(e.value) == f"Row 1: {L}2024-01-01{R} in column {L}date{R} is not a number."
    with pytest.raises(ValueError) as e:
        u.from_dataframe(df, x="day", y=4)
    assert str(e.value) == "There is no column 4: the table has 3 columns."
    with pytest.raises(ValueError) as e:
        u.from_dataframe(StandIn({"temp_c": [1, 2]}))
    assert str(e.value) == "Found only one column; the page needs two, x and y."
    with pytest.raises(ValueError, match="df must be a table"):
        u.from_dataframe([[1, 2], [3, 4]])


def test_from_dataframe_with_pandas_if_installed():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"day": [1, 2, 3, 4], "temp_c": [3.5, None, 4.0, 4.0], 0: ["a", "b", "c", "d"]})
    d = u.from_dataframe(df)
    assert d.x.tolist() == [1, 3, 4] and d.y.tolist() == [3.5, 4.0, 4.0]
    d = u.from_dataframe(df.astype({"temp_c": "Float64"}), x=2, y="day")   # pandas' own NA is missing too
    assert (d.x_name, d.y_name) == ("temp_c", "day") and d.x.tolist() == [3.5, 4.0, 4.0]
    with pytest.raises(ValueError) as e:
        u.from_dataframe(df.iloc[:0])
    assert str(e.value) == "There are no points: the table has no rows."


# ---- files -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("size, name, type_, sentence", [
    (50_000_000, "big.csv", "text/csv", "This file is 50 MB; the page reads files up to 16 MB."),
    (50 * 1024 * 1024, "big.csv", "text/csv", "This file is 52.5 MB; the page reads files up to 16 MB."),  # 50 MiB
    (16_000_001, "big.csv", "", "This file is 16.1 MB; the page reads files up to 16 MB."),
    (16 * 1024 * 1024, "big.csv", "", "This file is 16.8 MB; the page reads files up to 16 MB."),      # 16 MiB
    (0, "empty.csv", "text/csv", "This file is empty."),
    (1000, "temps.XLSX", "", f"{L}temps.XLSX{R} is a spreadsheet workbook; save it as CSV first."),
    (1000, "", "application/vnd.oasis.opendocument.spreadsheet",
     "This is a spreadsheet workbook; save it as CSV first."),
])
def test_check_file_refuses_from_name_type_and_size(size, name, type_, sentence):
    with pytest.raises(ValueError) as e:
        u.check_file(size, name, type_)
    assert str(e.value) == sentence


def test_check_file_passes_csv_even_with_excels_type_on_windows():
    assert u.check_file(16_000_000, "temps.csv", "application/vnd.ms-excel") is None


def test_size_text_counts_decimal_units():
    sizes = (0, 1, 999, 1000, 1500, 1024, 999_949, 10_000_000 - 1, 16_000_000, 3 * 1000 ** 3, 1024 ** 3)
    assert [u.words._size_text(b) for b in sizes] == \
        ["0 bytes", "1 byte", "999 bytes", "1 KB", "1.5 KB", "1.1 KB", "1 MB", "10 MB", "16 MB", "3 GB", "1.1 GB"]


def test_read_csv_file_refuses_a_big_file_before_reading_it(tmp_path, monkeypatch):
    big = tmp_path / "big.csv"
    with open(big, "wb") as f:
        f.truncate(50_000_000)                # sparse: 50 MB of NUL bytes, were it read
    opened = []
    real_open = open
    monkeypatch.setattr("builtins.open", lambda *a, **k: opened.append(a) or real_open(*a, **k))
    with pytest.raises(ValueError) as e:
        u.read_csv_file(big)
    assert str(e.value) == "This file is 50 MB; the page reads files up to 16 MB." and opened == []


LONG_HEAD = "time,minute,temp_c,rh,station\r\n"


def long_row(i: int) -> str:
    """Row i of a sensor's log: a timestamp, a minute, a temperature, a humidity, the station (about 60 bytes;
    LONG_ROW_JS writes the same rows in the browser tests' pages)."""
    return f"2024-01-01T00:00:00,{i + 1},{i * 37 % 401 - 200},{i % 97},WEATHER-STATION-NORTH-{i % 7}\r\n"


LONG_ROW_JS = "(i) => `2024-01-01T00:00:00,${i + 1},${i * 37 % 401 - 200},${i % 97},WEATHER-STATION-NORTH-${i % 7}\\r\\n`"


def test_a_file_of_100_000_rows_is_read_and_cut_to_the_pages_maximum(tmp_path):
    p = tmp_path / "long.csv"
    p.write_text(LONG_HEAD + "".join(long_row(i) for i in range(100_000)), encoding="utf-8", newline="")
    assert 5 * 1024 * 1024 < p.stat().st_size < u.MAX_INPUT_BYTES      # (5 MiB was the old limit)
    d = u.read_csv_file(p)
    assert d.n == u.MAX_ROWS and d.x.tolist() == list(range(1, u.MAX_ROWS + 1))
    assert d.notices == (f"Used {L}minute{R} for x and {L}temp_c{R} for y.",
                         "There are 100000 rows of data; the page keeps the first 2000 points.")


def test_a_text_over_the_limit_is_refused_before_it_is_parsed(monkeypatch):
    text = "x,y\n" + "1,2\n" * 12_499_999                     # 50 MB pasted
    for step in ("_check_text", "_normalize", "_separator", "_text_rows"):
        monkeypatch.setattr(u.parse, step, lambda *a: pytest.fail("the text was parsed"))
    with pytest.raises(ValueError) as e:
        u.parse_text(text)
    assert str(e.value) == "This text is 50 MB; the page reads texts up to 16 MB."
    with pytest.raises(ValueError) as e:                       # measured in UTF-8: 6 million 3-byte characters
        u.parse_text("\u20ac" * 6_000_000)
    assert str(e.value) == "This text is 18 MB; the page reads texts up to 16 MB."


def test_a_text_at_the_limit_is_read():
    text = "x,y\n1,2\n2,3\n"
    text += " " * (u.MAX_INPUT_BYTES - len(text))               # spaces after the last row: passed over
    assert len(text.encode()) == u.MAX_INPUT_BYTES and u.parse_text(text).n == 2
    with pytest.raises(ValueError, match="This text is 16.1 MB"):
        u.parse_text(text + " ")


def test_read_csv_file_reads_a_pipe_up_to_the_limit(tmp_path):
    import os
    import threading

    def through_a_pipe(data: bytes, **kw):
        r, w = os.pipe()
        feeder = threading.Thread(target=lambda: (_write_all(w, data), os.close(w)))
        feeder.start()
        try:
            return u.read_csv_file(f"/dev/fd/{r}", **kw)
        finally:
            os.close(r)          # (a writer still blocked on a full pipe gets a broken pipe)
            feeder.join()

    def _write_all(fd, data):
        try:
            while data:
                data = data[os.write(fd, data[:65536]):]
        except BrokenPipeError:      # the reader stopped at the limit
            pass

    d = through_a_pipe(EXAMPLE.read_bytes(), y="temp_c")
    assert (d.n, d.x_name, d.y_name) == (365, "day", "temp_c")
    with pytest.raises(ValueError) as e:
        through_a_pipe(b"")
    assert str(e.value) == "This file is empty."
    with pytest.raises(ValueError) as e:
        through_a_pipe(b"x,y\n" + b"1,2\n" * 4_100_000)      # 16.4 MB: read up to the limit, then refused
    assert str(e.value) == "This holds more than 16 MB; the page reads files up to 16 MB."


def test_read_csv_file_decodes_utf8_utf16_and_refuses_binary(tmp_path):
    p = tmp_path / "t.csv"
    p.write_bytes("\ufeffday;temp_\u00b0C\r\n1;3,5\r\n2;4\r\n".encode("utf-8"))
    assert u.read_csv_file(p).y_name == "temp_\u00b0C"
    p.write_bytes(b"\xff\xfe" + "day\ttemp\n1\t3.5\n2\t4\n".encode("utf-16-le"))
    assert u.read_csv_file(p).y.tolist() == [3.5, 4.0]
    p.write_bytes(b"\xfe\xff" + "day\ttemp\n1\t3.5\n2\t4\n".encode("utf-16-be"))
    assert u.read_csv_file(p).x.tolist() == [1.0, 2.0]
    p.write_bytes(b"PK\x03\x04\x14\x00\x06\x00" + bytes(range(256)))
    with pytest.raises(ValueError, match="^This is not text but a binary file"):
        u.read_csv_file(p)
    p.write_bytes(b"day,temp\n" + b"\xe9" * 11 + b"\n1,2\n2,3\n")   # Latin-1 bytes: not UTF-8
    with pytest.raises(ValueError, match=r"^This is not UTF-8 text \(11 characters could not be read\)"):
        u.read_csv_file(p)


def test_the_example_file_parses_and_is_what_its_script_writes():
    d = u.read_csv_file(EXAMPLE)
    assert (d.n, d.x_name, d.y_name, d.notices) == (365, "day", "temp_c", ())
    assert d.x.tolist() == list(range(1, 366))
    # a temperate year: cold in winter, warm in summer, in degrees Celsius
    assert -15 < d.y.min() < 5 < 20 < d.y.max() < 35 and 150 < d.x[np.argmax(d.y)] < 250
    spec = importlib.util.spec_from_file_location("make_temperatures", EXAMPLE.with_name("make_temperatures.py"))
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.csv_text() == EXAMPLE.read_text(encoding="utf-8")
    assert script.csv_text(seed=1) != script.csv_text()


# ---- scaling ---------------------------------------------------------------------------------------

def test_data_range_is_the_pages_x_range_without_its_margins():
    assert u.DATA_RANGE == (0.0, 6.0) and X_RANGE == (u.DATA_RANGE[0] - 0.5, u.DATA_RANGE[1] + 0.5)


@pytest.mark.parametrize("x, scaled", [
    ([0.0, 6.0], False), ([1.0, 4.0], False), ([0.3, 2.0, 5.9], False),   # within 0 ... 6, spread >= 3
    ([2.0, 3.0], True), ([-1.0, 4.0], True), ([0.0, 6.5], True), (list(range(1, 366)), True),
    ([1990.0, 2024.0], True), ([1e-6, 2e-6], True),
])
def test_scale_rule(x, scaled):
    s = u.scale_for(x)
    assert s.scaled is scaled
    page = s.from_units(np.asarray(x))
    if scaled:
        assert page.min() == 0.0 and page.max() == 6.0
        assert s.sentence == "x was scaled to 0\u20136 for the sliders; the axis shows your units."
    else:
        assert np.array_equal(page, x) and s.sentence is None and s.factor == 1.0


def test_units_round_trip_and_bandwidths_scale_by_the_same_factor():
    d = u.read_csv_file(EXAMPLE)
    s = u.scale_for(d.x)
    assert s.factor == 6.0 / 364.0
    assert np.allclose(s.to_units(s.from_units(d.x)), d.x, rtol=0, atol=1e-12)
    assert math.isclose(s.h_to_units(s.h_from_units(15.0)), 15.0, rel_tol=1e-15)
    # kernel regression on the page's x with h equals kernel regression in the data's units with h_units
    h_page, q_page = 0.25, np.array([0.0, 1.7, 3.2, 6.0])
    on_page = attention.predict(q_page, s.from_units(d.x), d.y, bandwidth=h_page)
    in_units = attention.predict(s.to_units(q_page), d.x, d.y, bandwidth=s.h_to_units(h_page))
    assert np.allclose(on_page, in_units, rtol=0, atol=1e-9)


def test_scale_for_needs_two_different_finite_values():
    for bad in ([1.0], [2.0, 2.0], [1.0, math.nan]):
        with pytest.raises(ValueError, match="x must hold at least two different finite values"):
            u.scale_for(bad)


# ---- numbers as a link writes them -----------------------------------------------------------------

@pytest.mark.parametrize("v, text", [
    (0.0, "0"), (-0.0, "0"), (1.0, "1"), (-3.5, "-3.5"), (0.1, "0.1"), (1e21, "1e+21"), (1e20, "100000000000000000000"),
    (1e-6, "0.000001"), (1e-7, "1e-7"), (1.5e-10, "1.5e-10"), (123456789.125, "123456789.125"),
    (2 ** 53, "9007199254740992"), (0.1 + 0.2, "0.30000000000000004"), (5e-324, "5e-324"),
    (1.7976931348623157e308, "1.7976931348623157e+308"),
])
def test_number_text_writes_what_javascript_writes(v, text):
    assert u.number_text(v) == text


@settings(max_examples=400, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_number_text_reads_back_exactly(v):
    assert float(u.number_text(v)) == v


# ---- the link's fragment ---------------------------------------------------------------------------

def _year_200():
    d = u.read_csv_file(EXAMPLE)
    idx = np.round(np.linspace(0, 364, 200)).astype(int)
    return u.from_arrays(d.x[idx], d.y[idx], d.x_name, d.y_name)


def test_fragment_round_trip_is_exact():
    rng = np.random.default_rng(3)
    d = u.from_arrays(rng.uniform(-1e3, 1e3, 50), rng.normal(size=50) * 10 ** rng.uniform(-8, 8, 50),
                      "t\u00e9mp\u00e9rature", "y\tvalue")
    s = u.encode_fragment(d)
    assert s.startswith("data1.") and all(c.isalnum() or c in "-_." for c in s)
    back = u.decode_fragment("#" + s)
    assert np.array_equal(back.x, d.x) and np.array_equal(back.y, d.y)
    assert (back.x_name, back.y_name) == ("t\u00e9mp\u00e9rature", "y value")


def test_200_points_of_a_year_of_temperatures_fit_in_a_link():
    s = u.encode_fragment(_year_200())
    assert len(s) <= u.MAX_FRAGMENT_CHARS
    assert len(u.encode_fragment(u.read_csv_file(EXAMPLE))) <= u.MAX_FRAGMENT_CHARS   # the whole year too


def test_data_too_long_for_a_link_is_said():
    rng = np.random.default_rng(0)
    d = u.from_arrays(np.sort(rng.uniform(0, 6, 400)), rng.normal(size=400))
    with pytest.raises(ValueError) as e:
        u.encode_fragment(d)
    assert str(e.value) == ("These 400 points do not fit in a link (up to 2000 characters); "
                            "download the page with the data inside instead.")


def _deflated(payload: bytes) -> str:
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return base64.urlsafe_b64encode(c.compress(payload) + c.flush()).rstrip(b"=").decode()


DAMAGED = ("The data in this link is damaged, perhaps cut short when it was copied; copy the whole link again.")
FOREIGN = f"The part of this link after {L}#{R} does not hold data for this page."
GOOD = u.encode_fragment(u.from_arrays([1, 2, 3], [4, 5, 6.5], "day", "temp_c"))

# (fragment, sentence): the browser's decodeFragment must say the same
FRAGMENTS_REFUSED = [
    ("", FOREIGN), ("#", FOREIGN), ("#tour=3", FOREIGN), ("data1", FOREIGN), ("Data1.abc", FOREIGN),
    ("data2.AAAA", "This link holds data in format 2, which this page does not read (it reads format 1)."),
    ("data01.AAAA", "This link holds data in format 01, which this page does not read (it reads format 1)."),
    (GOOD[:-6], DAMAGED), (GOOD + "AAAA", DAMAGED), (GOOD[:10] + "!" + GOOD[11:], DAMAGED), (GOOD + "A", DAMAGED),
    ("data1.", DAMAGED), ("data1." + "A" * 200, DAMAGED),
    ("data1." + _deflated(b"day\ttemp_c\n1\t2\t3\n2\t3\t4"), DAMAGED),
    ("data1." + _deflated(b"day\ttemp_c\n1\tNaN\n2\t3"), DAMAGED),
    ("data1." + _deflated(b"day\ttemp_c"), DAMAGED),
    ("data1." + _deflated(b"day\ttemp_c\n1\t2\n\xff\t3"), DAMAGED),
    ("data1." + _deflated(b"x\ty\n1\t2\n" + b"3\t4\n" * 40000), DAMAGED),     # inflates past the cap
    ("data1." + _deflated(b"x\ty\n1\t2\n2\t1e300"), f"Point 2: {L}1e+300{R} in column {L}y{R} is too large; {RANGE}"),
    ("data1." + _deflated(b"x\ty\n1\t2\n1\t3"), f"Every x is {L}1{R}; x must take at least two different values."),
    ("data1." + _deflated(b"x\ty\n1\t2"), "There is only one point; kernel regression needs at least two."),
]


@pytest.mark.parametrize("fragment, sentence", FRAGMENTS_REFUSED)
def test_damaged_or_foreign_fragments_get_one_sentence(fragment, sentence):
    with pytest.raises(ValueError) as e:
        u.decode_fragment(fragment)
    assert str(e.value) == sentence


def test_a_decoded_fragment_says_what_a_pasted_table_would():
    d = u.decode_fragment("data1." + _deflated(b"day\ttemp\n1\t2\n1\t3\n2\t4"))
    assert d.notices == (f"The x value {L}1{R} occurs 2 times (points 1 and 2); every point is kept.",)


def test_config_is_json_and_holds_the_one_definitions():
    cfg = json.loads(json.dumps(u.config()))
    assert cfg["max_rows"] == MAX_GENERATED_N and cfg["data_range"] == [0.0, 6.0]
    assert cfg["magnitude_text"] == "1000 trillion" and cfg["max_fragment_chars"] == u.MAX_FRAGMENT_CHARS
    assert cfg["max_input_bytes"] == u.MAX_INPUT_BYTES == 16_000_000 and "nan" in cfg["nan_words"]


def test_random_tables_survive_the_text_round_trip():
    """Tables written out as CSV, TSV or semicolon text (quoted or not) read back to the same numbers."""
    rng = random.Random(5)
    for _ in range(100):
        n = rng.randint(2, 30)
        x = sorted(rng.sample(range(-500, 500), n))
        y = [round(rng.uniform(-1e4, 1e4), rng.randint(0, 4)) for _ in range(n)]
        sep = rng.choice([",", ";", "\t"])
        quote = rng.random() < 0.5
        cell = (lambda v: f'"{v}"') if quote else str
        end = rng.choice(["\n", "\r\n"])
        text = f"a{sep}b{end}" + "".join(f"{cell(a)}{sep}{cell(b)}{end}" for a, b in zip(x, y))
        d = u.parse_text(text)
        assert d.x.tolist() == x and d.y.tolist() == y and d.notices == ()


def _tokenized(text, sep):
    """The records of the whole text, read one after another by the tokenizer (the reference)."""
    field, out, pos, line = u.parse._field_pattern(sep), [], 0, 1
    while True:
        cells, end, last = u.parse._record_at(text, pos, line, sep, field)
        out.append((line, cells))
        if end >= len(text):
            return out
        pos, line = end + 1, last + 1


def test_lines_read_lazily_are_the_records_the_tokenizer_reads():
    rng = random.Random(6)
    for _ in range(1500):
        text = u.parse._normalize(random_text(rng)[0])
        sep = u.parse._separator(text)
        try:
            expected = _tokenized(text, sep)
        except ValueError as e:
            with pytest.raises(ValueError, match=re.escape(str(e))):
                u.parse._text_rows(text, sep)
            continue
        filled, blank, cells_of = u.parse._text_rows(text, sep)
        assert sorted(filled + blank) == [p for p, _ in expected]
        assert filled == [p for p, cells in expected if any(cells)]
        assert all(cells_of(p) == cells for p, cells in expected if p in filled)
