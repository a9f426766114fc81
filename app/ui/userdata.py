"""Your own data: x, y pairs pasted, dropped, read from a file or handed over in a notebook.

The page reads an instructor's data in the browser with ``AttnUserData`` (app/ui/userdata.js); this module
is its Python twin, for the CLI (``export --data temps.csv``) and the notebook (``e.data = (x, y)`` or a
DataFrame).  Both give the same numbers and the same sentences (tests/browser/test_userdata_parity.py), and
both take every limit from ``config()``, the one definition.

The rules
---------
Text
    Comma, tab or semicolon separated (the first of tab, semicolon, comma found on every one of the first
    ten non-blank lines; else the first found on the first line; else runs of spaces), with or without a
    header row (the first row is a header when none of its cells is a number).  Quoted fields follow
    RFC 4180 (``"a ""b"", c"``; a quoted field may span lines).  A UTF-8 byte-order mark is dropped, CRLF
    and CR line ends count as one line end, cells are trimmed.  A decimal comma (``3,14``, or ``"3,14"``
    quoted where commas separate, as spreadsheets in a European language write it) is read as 3.14, and
    said.  A text (pasted, or a file's) of more than MAX_INPUT_BYTES bytes in UTF-8 is refused before it
    is parsed, as a file of more is refused before it is read.
Columns
    The columns are those of the header row and of the first MAX_ROWS data rows (a row shorter than
    that has empty cells at its end).  Two columns are x and y.  With more, ``x`` and ``y`` name a
    column by its header (exact, then ignoring case) or by its number from 1; the default is the first
    two columns that hold numbers (at least one cell, and at least as many cells as hold other text, is
    a number), named ones before those whose header is empty (the row numbers R and pandas write), and
    the page says which were used.
Missing and bad values
    An empty line between the first row and the last is refused, naming it (a table has none: it is a
    gap left by an edit, or two tables in one text); blank lines before the first row and after the last
    are not data, and are passed over.  A line whose x or y is missing (an empty cell, NA, N/A, #N/A,
    null, None) is skipped and said: gaps are ordinary in measured series, and kernel regression needs no
    value there.  A cell that is NaN, text, infinite, or larger than MAX_MAGNITUDE in size is refused with
    one sentence naming its line (a NaN is a result gone wrong, not a gap; its sentence says how to mark a
    gap; a double is exact up to 2**53, about 9000 trillion, so every whole number the page takes is
    exact).  In arrays and tables (the notebook's), NaN is pandas' and numpy's mark of a gap: skipped, and
    said.
Points
    At least two points with two different x values; repeated x values are kept (kernel regression
    averages them) and said; more than MAX_ROWS points are cut to the first MAX_ROWS, and said.  x must
    spread over at least MIN_X_SPREAD and over at least MIN_X_RELATIVE of its size: closer x values
    cannot be mapped onto the sliders' 0 ... 6 (a bandwidth in their units would round to 0, or the
    points to a few places), and are refused.

Every sentence is plain text: the page escapes it, and nothing from a file is ever taken as markup.
"""

from __future__ import annotations

import base64
import json
import numbers
import os
import re
import stat
import zlib
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from attention.datasets import DATA_RANGE, MAX_GENERATED_N

from app.state import MAX_SHOWN, NUMBER
from app.ui.text import plain

MAX_ROWS = MAX_GENERATED_N              # points the page takes (the generator's bound, 2000)
# Files are refused from their size before they are read, and texts from theirs (in UTF-8) before they are
# parsed, at one limit: 16 MB, decimal megabytes of a million bytes (as file managers count them).  100 000
# rows of a two-to-four-column table (10 to 60 bytes a row) stay far under it, so they are read and cut to
# MAX_ROWS with a notice; a 50 MB file would be held in memory twice (bytes, text) before a single
# sentence could be shown, and is refused.
MAX_INPUT_BYTES = 16_000_000
MAX_MAGNITUDE = 1e15                    # |value| at most a thousand trillion (see "Missing and bad values")
UNREADABLE_LIMIT = 10                   # this many U+FFFD (bytes that were not UTF-8): not text
# The page's data lie in DATA_RANGE, 0 ... 6, as every shipped dataset does (attention/datasets.py).
MIN_SPREAD = (DATA_RANGE[1] - DATA_RANGE[0]) / 2   # x within 0 ... 6 but spanning less than 3: rescaled
# x spanning less than this, in its own units, is refused: positions a six-hundredth of the span apart need
# twelve decimals then (the texts' most), and a bandwidth in those units nears the doubles' smallest.
MIN_X_SPREAD = 1e-9
# ... or less than this share of its size: a double holds about 16 digits, so x = 1000000000000 + (0 ... 0.5)
# would take a few thousand places along the sliders, and rounding would show.
MIN_X_RELATIVE = 1e-12
FRAGMENT_FORMAT = 1                     # the link's data format; the fragment starts "data1."
# About 200 points of ordinary data fit (200 days of the example's temperatures, a tenth of a degree each:
# 1012 characters; its whole year: 1761), and the whole address stays a little over 2000 characters.
MAX_FRAGMENT_CHARS = 2000
MAX_PAYLOAD_BYTES = 128 * 1024          # a link's data, inflated (2000 points of 17-digit numbers: ~85 KB)

TRIM = " \t\n\r\f\v\u00a0\u2007\u2009\u202f\ufeff"
MISSING_WORDS = ("", "na", "n/a", "#n/a", "null", "none")
NAN_WORDS = ("nan", "-nan", "+nan")
NONFINITE_WORDS = ("inf", "+inf", "-inf", "infinity", "+infinity", "-infinity")
WORKBOOK_EXTENSIONS = (".xlsx", ".xlsm", ".xlsb", ".xls", ".ods", ".numbers")
# (not "application/vnd.ms-excel": Windows gives that type to every .csv file when Excel is installed)
WORKBOOK_TYPES = ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                  "application/vnd.ms-excel.sheet.macroenabled.12",
                  "application/vnd.oasis.opendocument.spreadsheet",
                  "application/x-iwork-numbers-sffnumbers", "application/vnd.apple.numbers")

_CONTROL = re.compile("[\x00-\x1f\x7f]")
SCALED = "x was scaled to {lo}\u2013{hi} for the sliders; the axis shows your units."
_SEPARATORS = ("\t", ";", ",")
# a quoted cell of comma-separated text that reads as a decimal comma and as thousands alike: "1,234", "-12,500"
THOUSANDS = re.compile(r"^[+-]?\d{1,3},\d{3}$", re.ASCII)


def config() -> dict:
    """Every limit and word list, for the browser's AttnUserData (one definition, read by both)."""
    return {"max_rows": MAX_ROWS, "max_input_bytes": MAX_INPUT_BYTES, "max_magnitude": MAX_MAGNITUDE,
            "magnitude_text": plain(MAX_MAGNITUDE), "unreadable_limit": UNREADABLE_LIMIT, "max_shown": MAX_SHOWN,
            "number": NUMBER.pattern, "thousands": THOUSANDS.pattern, "trim": TRIM, "missing_words": list(MISSING_WORDS),
            "nan_words": list(NAN_WORDS), "nonfinite_words": list(NONFINITE_WORDS),
            "workbook_extensions": list(WORKBOOK_EXTENSIONS), "workbook_types": list(WORKBOOK_TYPES),
            "data_range": list(DATA_RANGE), "min_spread": MIN_SPREAD, "min_x_spread": MIN_X_SPREAD,
            "min_x_relative": MIN_X_RELATIVE,
            "fragment_format": FRAGMENT_FORMAT, "max_fragment_chars": MAX_FRAGMENT_CHARS,
            "max_payload_bytes": MAX_PAYLOAD_BYTES}


@dataclass(frozen=True)
class UserData:
    """Points read from a user: x and y (float arrays, in the file's order), the columns' names, notices.

    ``notices`` are plain sentences about what was done (columns picked, lines skipped, points cut).
    """

    x: np.ndarray
    y: np.ndarray
    x_name: str
    y_name: str
    notices: tuple[str, ...] = ()

    @property
    def n(self) -> int:
        return int(self.x.shape[0])


# ---- words -----------------------------------------------------------------------------------------

def _shown(text: str) -> str:
    """A user's text repeated back: at most MAX_SHOWN characters, then an ellipsis."""
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "\u2026"


def _q(text: str) -> str:
    """A user's text in quotes, on one line (a line end or a tab inside it shows as a space)."""
    return f"\u201c{_shown(re.sub(_CONTROL, ' ', text))}\u201d"


def _and_list(items: list[str], limit: int) -> str:
    """ "a", "a and b", "a, b and c"; past ``limit`` items: "a, b, c and 4 more"."""
    if len(items) > limit:
        return ", ".join(items[:limit]) + f" and {len(items) - limit} more"
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


@dataclass(frozen=True)
class _Words:
    """How a kind of input names its places: lines of a text, points of arrays, rows of a table."""

    one: str
    many: str
    rows: str
    whole: str

    def places(self, locs: list[int]) -> str:
        return f"{self.one if len(locs) == 1 else self.many} {_and_list([str(i) for i in locs], 5)}"


LINES = _Words("line", "lines", "rows of data", "text")
POINTS = _Words("point", "points", "points", "data")
ROWS = _Words("row", "rows", "rows", "table")


def _size_text(size: int) -> str:
    """A size in bytes in words, in decimal units (1 KB = 1000 bytes, 1 MB = a million, as file managers count
    them), rounded up to a tenth (a file just over a limit reads as over it)."""
    if size < 1000:
        return f"{size} byte" + ("" if size == 1 else "s")
    unit, base = ("KB", 1000) if size < 1000 ** 2 else ("MB", 1000 ** 2) if size < 1000 ** 3 else ("GB", 1000 ** 3)
    whole, tenth = divmod(-(-size * 10 // base), 10)
    if whole == 1000 and unit != "GB":      # 999 950 bytes and up read as 1 MB, not 1000 KB
        return _size_text(base * 1000)
    return f"{whole}.{tenth} {unit}" if tenth else f"{whole} {unit}"


def number_text(v: float) -> str:
    """The shortest text that reads back as exactly ``v``, written as JavaScript's String(v) writes it.

    Both languages find the same shortest digits (Python's repr, ECMAScript's Number::toString); this
    places the point the way ECMAScript does, so a link's data is the same text from either.

    >>> [number_text(v) for v in (3.0, -0.5, 1e21, 1.5e-7, 123456.789, 0.0)]
    ['3', '-0.5', '1e+21', '1.5e-7', '123456.789', '0']
    """
    v = float(v)
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "Infinity" if v > 0 else "-Infinity"
    if v == 0:
        return "0"
    _, digits, exp = Decimal(repr(abs(v))).normalize().as_tuple()
    s = "".join(map(str, digits))
    k, n = len(s), exp + len(s)        # v = 0.s x 10^n
    if k <= n <= 21:
        out = s + "0" * (n - k)
    elif 0 < n <= 21:
        out = s[:n] + "." + s[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * -n + s
    else:
        out = s[0] + ("." + s[1:] if k > 1 else "") + "e" + ("+" if n - 1 >= 0 else "-") + str(abs(n - 1))
    return ("-" if v < 0 else "") + out


class _Say:
    """Every sentence, once (twins in app/ui/userwords.js: SAY)."""

    empty = "There is nothing to read: the page needs two columns of numbers, x and y."
    binary = "This is not text but a binary file; save the data as CSV and try again."
    one_column = "Found only one column; the page needs two, x and y."
    no_numbers = "No column holds numbers; the page needs two, x and y."
    one_point = "There is only one point; kernel regression needs at least two."
    no_arrays = "There are no points: x and y are empty."
    no_rows = "There are no points: the table has no rows."
    file_empty = "This file is empty."
    damaged = ("The data in this link is damaged, perhaps cut short when it was copied; "
               "copy the whole link again.")
    foreign = "The part of this link after \u201c#\u201d does not hold data for this page."
    damaged_page = "The data this page carries are damaged; export it again with your data."

    @staticmethod
    def unreadable(count):
        return (f"This is not UTF-8 text ({count} characters could not be read); "
                "save the data as CSV UTF-8 and try again.")

    @staticmethod
    def open_quote(line):
        return f"Line {line}: a quotation mark opens a field that never closes."

    @staticmethod
    def header_only(line):
        return f"There is a header row (line {line}) but no data below it."

    @staticmethod
    def one_number_column(label):
        return f"Only one column holds numbers ({label}); the page needs two, x and y."

    @staticmethod
    def no_other_column(label, which):
        return f"No column besides {label} holds numbers to use for {which}."

    @staticmethod
    def no_such_name(name, labels):
        return f"There is no column {_q(name)} (the columns are {_and_list(labels, 6)})."

    @staticmethod
    def no_header(name, ncols):
        return (f"There is no column {_q(name)}: the text has no header row, "
                f"so give a column number from 1 to {ncols}.")

    @staticmethod
    def no_such_number(number, ncols, words):
        return f"There is no column {number}: the {words.whole} has {ncols} columns."

    @staticmethod
    def same_column(label):
        return f"x and y must be two different columns (both are {label})."

    @staticmethod
    def not_number(where, cell, column):
        return f"{where}: {_q(cell)} in {column} is not a number."

    @staticmethod
    def nan(where, cell, column, words):
        return (f"{where}: {_q(cell)} in {column} is not a number; to skip the {words.one}, leave the cell "
                "empty or write NA.")

    @staticmethod
    def grouped(where, cell, column):
        return (f"{where}: {_q(cell)} in {column} could be a decimal comma or a thousands separator; write "
                f"{cell.replace(',', '.')} or {cell.replace(',', '')}.")

    @staticmethod
    def not_finite(where, cell, column):
        return f"{where}: {_q(cell)} in {column} is not a finite number."

    @staticmethod
    def too_large(where, cell, column, magnitude):
        return (f"{where}: {_q(cell)} in {column} is too large; the page takes values from "
                f"\u2212{magnitude} to {magnitude}.")

    @staticmethod
    def no_points(words):
        return f"Every {words.one} misses an x or a y value, so there are no points."

    @staticmethod
    def all_x_equal(shown):
        return f"Every x is {_q(shown)}; x must take at least two different values."

    x_too_close = ("The x values all lie within a billionth of one another, too close for the page to scale; "
                   "write x in finer units (nanoseconds instead of seconds, say).")
    x_too_close_for_size = ("The x values differ by less than a millionth of a millionth of their size, too "
                            "little for the page to scale; subtract the first x from every x and try again.")

    @staticmethod
    def used(xlabel, ylabel):
        return f"Used {xlabel} for x and {ylabel} for y."

    @staticmethod
    def decimal_commas(cell):
        return f"Commas were read as decimal points ({_q(cell)} is {_shown(cell.replace(',', '.'))})."

    @staticmethod
    def empty_lines(lines):
        return (f"{LINES.places(lines).capitalize()} {'is' if len(lines) == 1 else 'are'} empty; take the empty "
                f"{'line' if len(lines) == 1 else 'lines'} between the rows out and try again.")

    @staticmethod
    def skipped_missing(locs, words):
        return (f"Skipped {len(locs)} {words.one if len(locs) == 1 else words.many} with a missing value "
                f"({words.places(locs)}).")

    @staticmethod
    def clamped(total, words, kept):
        return f"There are {total} {words.rows}; the page keeps the first {kept} points."

    @staticmethod
    def repeated(shown, locs, words, others):
        more = "" if not others else f", and {others} other x {'value repeats' if others == 1 else 'values repeat'} too"
        return (f"The x value {_q(shown)} occurs {len(locs)} times ({words.places(locs)}){more}; "
                "every point is kept.")

    @staticmethod
    def file_too_big(size, limit):
        return f"This file is {_size_text(size)}; the page reads files up to {_size_text(limit)}."

    @staticmethod
    def text_too_big(size, limit):
        return f"This text is {_size_text(size)}; the page reads texts up to {_size_text(limit)}."

    @staticmethod
    def stream_too_big(limit):
        return f"This holds more than {_size_text(limit)}; the page reads files up to {_size_text(limit)}."

    @staticmethod
    def workbook(name):
        return f"{_q(name) if name else 'This'} is a spreadsheet workbook; save it as CSV first."

    @staticmethod
    def too_long_for_link(n, limit):
        return (f"These {n} points do not fit in a link (up to {limit} characters); "
                "download the page with the data inside instead.")

    @staticmethod
    def other_format(version):
        return (f"This link holds data in format {_shown(version)}, which this page does not read "
                f"(it reads format {FRAGMENT_FORMAT}).")


SAY = _Say


# ---- cells -----------------------------------------------------------------------------------------

def _classify_text(cell: str, commas: bool, grouped: bool = False) -> tuple[str, float | None, bool]:
    """(kind, value, read with a decimal comma) of a trimmed cell; kind is number, missing, nan, nonfinite,
    grouped or text.  ``grouped``: the text is comma-separated, so a quoted "1,234" may be a thousands separator
    as well as a decimal comma (kind "grouped", refused: the page cannot tell which)."""
    low = cell.lower()
    if low in MISSING_WORDS:
        return "missing", None, False
    if low in NAN_WORDS:
        return "nan", None, False
    if low in NONFINITE_WORDS:
        return "nonfinite", None, False
    t = "-" + cell[1:] if cell.startswith("\u2212") else cell
    if NUMBER.fullmatch(t):
        return "number", float(t), False
    if grouped and THOUSANDS.fullmatch(t):
        return "grouped", None, False
    if commas and t.count(",") == 1 and "." not in t and NUMBER.fullmatch(t.replace(",", ".")):
        return "number", float(t.replace(",", ".")), True
    return "text", None, False


def _classify_value(v) -> tuple[str, float | None, bool, str]:
    """(kind, value, False, text shown) of a value from an array or a table."""
    if v is None or type(v).__name__ in ("NAType", "NaTType"):
        return "missing", None, False, ""
    if isinstance(v, str):
        cell = v.strip(TRIM)
        return (*_classify_text(cell, commas=False), cell)
    if isinstance(v, (bool, np.bool_)):
        return "text", None, False, str(v)
    if isinstance(v, numbers.Real) or hasattr(v, "__float__"):
        f = float(v)
        if f != f:
            return "missing", None, False, ""
        return ("nonfinite" if f in (float("inf"), float("-inf")) else "number"), f, False, number_text(f)
    return "text", None, False, str(v)


def _value(kind: str, value, shown: str, where: str, column: str, words: _Words) -> float:
    """The cell's number, or the sentence that refuses it."""
    if kind == "nan":
        raise ValueError(SAY.nan(where, shown, column, words))
    if kind == "nonfinite":
        raise ValueError(SAY.not_finite(where, shown, column))
    if kind == "grouped":
        raise ValueError(SAY.grouped(where, shown, column))
    if kind != "number":
        raise ValueError(SAY.not_number(where, shown, column))
    if abs(value) > MAX_MAGNITUDE:
        raise ValueError(SAY.too_large(where, shown, column, plain(MAX_MAGNITUDE)))
    return value


# ---- text: lines, separator, records ---------------------------------------------------------------

def _check_text_size(text: str) -> None:
    """Refuse a text of more than MAX_INPUT_BYTES in UTF-8, before anything reads it (a code point is at most
    4 bytes: a short text is not measured)."""
    if 4 * len(text) <= MAX_INPUT_BYTES:
        return
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_INPUT_BYTES:
        raise ValueError(SAY.text_too_big(size, MAX_INPUT_BYTES))


def _check_text(text: str) -> None:
    if "\x00" in text:
        raise ValueError(SAY.binary)
    bad = text.count("\ufffd")
    if bad >= UNREADABLE_LIMIT:
        raise ValueError(SAY.unreadable(bad))


def _normalize(text: str) -> str:
    """Without a leading byte-order mark, every line end as "\\n"."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _separator(text: str) -> str:
    """Tab, semicolon or comma: the first found on every one of the first ten non-blank lines, else the
    first found on the first; " " (runs of spaces and tabs) when the first line has none."""
    lines = []
    for line in text.split("\n"):
        if line.strip(TRIM):
            lines.append(line)
            if len(lines) == 10:
                break
    for sep in _SEPARATORS:
        if lines and all(sep in line for line in lines):
            return sep
    for sep in _SEPARATORS:
        if lines and sep in lines[0]:
            return sep
    return " "


def _field_pattern(sep: str) -> re.Pattern:
    """One field: quoted (RFC 4180, "" inside is one quote, text after the closing quote is kept) or not."""
    lead = "[ ]*" if sep == "\t" else "[ \t]*"
    stop = "[^ \t\n]" if sep == " " else f"[^{re.escape(sep)}\n]"
    return re.compile(f'{lead}"([^"]*(?:""[^"]*)*)"({stop}*)|({stop}*)')


def _one_line_pattern(sep: str) -> re.Pattern | None:
    """A whole line that is a record by itself: each field unquoted, or quoted and closed on the line
    with no quotation mark after it (the tokenizer reads such a line exactly so)."""
    if sep == " ":
        return None
    lead, bare = "[ ]*" if sep == "\t" else "[ \t]*", f'[^{re.escape(sep)}\n"]*'
    field = f'(?:{lead}"(?:[^"\n]|"")*"{bare}|{bare})'
    return re.compile(f"{field}(?:{re.escape(sep)}{field})*")


_SPACES = re.compile("[ \t]*")
_SPACE_RUN = re.compile("[ \t]+")


def _record_at(text: str, pos: int, line: int, sep: str, field: re.Pattern) -> tuple[list[str], int, int]:
    """The record of normalized text starting at ``pos`` (a line's start, line number ``line``):
    (trimmed cells, the position of its end, the line it ends on)."""
    cells, n = [], len(text)
    if sep == " ":
        pos = _SPACES.match(text, pos).end()
    while True:
        m = field.match(text, pos)
        if m.group(1) is not None:
            cell = m.group(1).replace('""', '"') + m.group(2)
            line += m.group(1).count("\n")
        else:
            cell = m.group(3)
            if cell.lstrip(" \t").startswith('"'):
                raise ValueError(SAY.open_quote(line))
        cells.append(cell.strip(TRIM))
        pos = m.end()
        if pos >= n or text[pos] == "\n":
            return cells, pos, line
        pos = _SPACES.match(text, pos).end() if sep == " " else pos + 1    # past the separator
        if sep == " " and (pos >= n or text[pos] == "\n"):
            return cells, pos, line                                        # spaces before the line's end


def _text_rows(text: str, sep: str):
    """(lines where non-blank records start, lines of blank records, cells_of(line)) of normalized text.

    A record is blank when all its cells are empty.  A line without a quotation mark, or quoted only on
    itself (_one_line_pattern), is a record, split into cells only when read: a big file costs one pass.
    Any other line starts a record read at once by the RFC 4180 tokenizer, which may span lines.
    """
    lines, field, one_line = text.split("\n"), _field_pattern(sep), _one_line_pattern(sep)
    strip = TRIM + ("" if sep == " " else sep)
    filled, blank, read = [], [], {}
    i, pos = 0, 0
    while i < len(lines):
        line = lines[i]
        if '"' not in line:
            (filled if line.strip(strip) else blank).append(i + 1)
        elif one_line is not None and line.strip(strip + '"') and one_line.fullmatch(line):
            filled.append(i + 1)
        else:
            cells, end, last = _record_at(text, pos, i + 1, sep, field)
            read[i + 1] = cells
            (filled if any(cells) else blank).append(i + 1)
            i, pos = last, end + 1
            continue
        i, pos = i + 1, pos + len(line) + 1

    def cells_of(p: int) -> list[str]:
        if p in read:
            return read[p]
        line = lines[p - 1]
        if '"' in line:
            return _record_at(line, 0, p, sep, field)[0]
        parts = _SPACE_RUN.split(line.strip(" \t")) if sep == " " else line.split(sep)
        return [c.strip(TRIM) for c in parts]

    return filled, blank, cells_of


class _TextRows:
    """The data rows of a text as (line, cells), each line split only when read."""

    def __init__(self, places: list[int], cells_of):
        self.places, self.cells_of = places, cells_of

    def __len__(self):
        return len(self.places)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return _TextRows(self.places[k], self.cells_of)
        return self.places[k], self.cells_of(self.places[k])

    def __iter__(self):
        return ((p, self.cells_of(p)) for p in self.places)


# ---- tables: columns, points -----------------------------------------------------------------------

def _clean_name(name: str) -> str:
    """A column name as the page shows it: no control characters, trimmed, at most MAX_SHOWN characters."""
    return _shown(re.sub(_CONTROL, " ", name).strip(TRIM))


@dataclass
class _Table:
    """Cells by row, with everything that reads them: kinds, names, words."""

    rows: list | _TextRows            # (place, cells)
    names: list[str]                  # shown names, one per column
    keys: list                        # what x= and y= are matched against (header cells, frame labels)
    header: bool                      # whether the columns have names
    classify: object                  # cell -> (kind, value, comma, shown)
    words: _Words
    unnamed: frozenset = frozenset()  # columns whose header cell is empty (row numbers of R or pandas)

    def label(self, j: int) -> str:
        return _q(self.names[j]) if self.header else f"column {j + 1}"

    def cell(self, row: list, j: int):
        return row[j] if j < len(row) else ""

    def holds_numbers(self, j: int) -> bool:
        numbers_, texts = 0, 0
        for _, cells in self.rows[:MAX_ROWS]:
            kind = self.classify(self.cell(cells, j))[0]
            numbers_ += kind in ("number", "nonfinite")
            texts += kind == "text"
        return numbers_ >= 1 and numbers_ >= texts


def _find(t: _Table, wanted) -> int:
    """The column named (or numbered from 1) by ``wanted``, or the sentence that says there is none."""
    ncols = len(t.names)
    if t.header:
        for j, key in enumerate(t.keys):
            if key == wanted:
                return j
    text = str(wanted).strip(TRIM)
    if t.header:
        for same in (lambda a, b: a == b, lambda a, b: a.lower() == b.lower()):
            for j, key in enumerate(t.keys):
                if same(str(key).strip(TRIM), text):
                    return j
    if re.fullmatch(r"[0-9]+", text):
        if 1 <= int(text) <= ncols:
            return int(text) - 1
        raise ValueError(SAY.no_such_number(_shown(text), ncols, t.words))
    if not t.header:
        raise ValueError(SAY.no_header(text, ncols))
    raise ValueError(SAY.no_such_name(text, [_q(nm) for nm in t.names]))


def _choose(t: _Table, x, y) -> tuple[int, int, list[str]]:
    """The x and y columns (given, or the first columns holding numbers) and the notice saying so."""
    given = {"x": None if x is None or str(x).strip(TRIM) == "" else _find(t, x),
             "y": None if y is None or str(y).strip(TRIM) == "" else _find(t, y)}
    if given["x"] is not None and given["x"] == given["y"]:
        raise ValueError(SAY.same_column(t.label(given["x"])))
    need = [w for w in ("x", "y") if given[w] is None]
    if not need:
        return given["x"], given["y"], []
    taken = [j for j in given.values() if j is not None]
    ncols = len(t.names)
    pool = [j for j in range(ncols) if j not in taken and (ncols == 2 or t.holds_numbers(j))]
    pool.sort(key=lambda j: j in t.unnamed)       # named columns first
    if len(pool) < len(need):
        if taken:
            raise ValueError(SAY.no_other_column(t.label(taken[0]), need[0]))
        raise ValueError(SAY.one_number_column(t.label(pool[0])) if pool else SAY.no_numbers)
    for w, j in zip(need, pool):
        given[w] = j
    notices = [SAY.used(t.label(given["x"]), t.label(given["y"]))] if ncols > 2 else []
    return given["x"], given["y"], notices


def _points(t: _Table, xi: int, yi: int, notices: list[str]) -> UserData:
    """Read the chosen columns row by row, then check the points as a whole."""
    where = t.words.one.capitalize()
    points, missing, comma, clamped = [], [], None, False
    for place, cells in t.rows:
        if len(points) == MAX_ROWS:
            clamped = True
            break
        cx, cy = (t.classify(t.cell(cells, j)) for j in (xi, yi))
        if cx[0] == "missing" or cy[0] == "missing":
            missing.append(place)
            continue
        vx = _value(*cx[:2], cx[3], f"{where} {place}", f"column {t.label(xi)}" if t.header else t.label(xi), t.words)
        vy = _value(*cy[:2], cy[3], f"{where} {place}", f"column {t.label(yi)}" if t.header else t.label(yi), t.words)
        if comma is None:
            comma = next((c[3] for c in (cx, cy) if c[2]), None)
        points.append((place, vx, vy, cx[3]))
    if comma is not None:
        notices.append(SAY.decimal_commas(comma))
    if missing:
        notices.append(SAY.skipped_missing(missing, t.words))
    if not points:
        raise ValueError(SAY.no_points(t.words))
    if len(points) == 1:
        raise ValueError(SAY.one_point)
    if clamped:
        notices.append(SAY.clamped(len(t.rows), t.words, MAX_ROWS))
    xs = np.array([p[1] for p in points])
    if np.all(xs == xs[0]):
        raise ValueError(SAY.all_x_equal(points[0][3]))
    _check_spread(float(xs.min()), float(xs.max()))
    _note_repeats(points, t.words, notices)
    return UserData(x=xs, y=np.array([p[2] for p in points]), x_name=_clean_name(t.names[xi]) if t.header else "x",
                    y_name=_clean_name(t.names[yi]) if t.header else "y", notices=tuple(notices))


def _check_spread(lo: float, hi: float) -> None:
    """Refuse x spread too little to scale (see "Points"; twin of checkSpread in app/ui/userparse.js)."""
    if hi - lo < MIN_X_SPREAD:
        raise ValueError(SAY.x_too_close)
    if hi - lo < MIN_X_RELATIVE * max(abs(lo), abs(hi)):
        raise ValueError(SAY.x_too_close_for_size)


def _note_repeats(points, words: _Words, notices: list[str]) -> None:
    seen: dict[float, list] = {}
    for p in points:
        seen.setdefault(p[1], []).append(p)
    repeats = [ps for ps in seen.values() if len(ps) > 1]
    if repeats:
        first = repeats[0]
        notices.append(SAY.repeated(first[0][3], [p[0] for p in first], words, len(repeats) - 1))


# ---- public: text, arrays, tables, files -----------------------------------------------------------

def parse_text(text: str, x=None, y=None) -> UserData:
    """Read x, y pairs from CSV, TSV or semicolon-separated text (see the module's rules).

    Parameters
    ----------
    text : the text, as pasted or read from a file.
    x, y : a column's header name or its number from 1 (str or int); None picks the first columns
        holding numbers.

    Returns
    -------
    UserData.  Raises ValueError with one plain sentence (the same as app/ui/userparse.js) when the text
    cannot give points.

    >>> d = parse_text("day;temp_c\\n1;3,5\\n2;4,25\\n")
    >>> d.x.tolist(), d.y.tolist(), d.y_name, d.notices
    ([1.0, 2.0], [3.5, 4.25], 'temp_c', ('Commas were read as decimal points (\u201c3,5\u201d is 3.5).',))
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a str, got {type(text).__name__}")
    _check_text_size(text)
    _check_text(text)
    text = _normalize(text)
    sep = _separator(text)
    filled, blanks, cells_of = _text_rows(text, sep)
    if not filled:
        raise ValueError(SAY.empty)
    first, last = filled[0], filled[-1]
    blank = [p for p in blanks if first < p < last]
    if blank:
        raise ValueError(SAY.empty_lines(blank))
    # a comma inside a cell of comma-separated text was quoted ("3,14"): a decimal comma there too, unless it
    # could as well separate thousands ("1,234")
    classify = (lambda cell: (*_classify_text(cell, commas=True, grouped=sep == ","), cell))
    heads = cells_of(first)
    header = not any(classify(c)[0] == "number" for c in heads)
    rows = _TextRows(filled[1:] if header else filled, cells_of)
    if header and not len(rows):
        raise ValueError(SAY.header_only(first))
    ncols = max(len(heads) if header else 0, *(len(cells) for _, cells in rows[:MAX_ROWS]))
    if ncols < 2:
        raise ValueError(SAY.one_column)
    heads = heads if header else []
    names = [heads[j] if j < len(heads) and heads[j] else f"column {j + 1}" for j in range(ncols)]
    t = _Table(rows=rows, names=[_clean_name(nm) for nm in names], keys=names, header=header,
               classify=classify, words=LINES,
               unnamed=frozenset(j for j in range(ncols) if header and not (j < len(heads) and heads[j])))
    xi, yi, notices = _choose(t, x, y)
    return _points(t, xi, yi, notices)


def _column(values, name: str) -> list:
    if isinstance(values, (str, bytes)):
        raise ValueError(f"{name} must be a list of numbers, one per point, got a string")
    arr = np.asarray(values, dtype=object)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (one value per point), got shape {arr.shape}")
    return list(arr)


def from_arrays(x, y, x_name: str | None = None, y_name: str | None = None) -> UserData:
    """Points from two sequences of numbers, for the notebook's ``e.data = (x, y)``.

    Parameters
    ----------
    x, y : one value per point (lists, numpy arrays, pandas Series).  NaN and None are missing: the point
        is skipped, and said.  Points count from 1 in the sentences.
    x_name, y_name : the axes' names (default "x" and "y").

    Returns
    -------
    UserData.  Raises ValueError with the page's sentences, as ``parse_text``.
    """
    xs, ys = _column(x, "x"), _column(y, "y")
    if len(xs) != len(ys):
        raise ValueError(f"x has {len(xs)} values but y has {len(ys)}; each point needs one of each.")
    if not xs:
        raise ValueError(SAY.no_arrays)
    names = [x_name if x_name else "x", y_name if y_name else "y"]
    t = _Table(rows=[(i + 1, [a, b]) for i, (a, b) in enumerate(zip(xs, ys))],
               names=[_clean_name(str(nm)) for nm in names], keys=names, header=True, classify=_classify_value,
               words=POINTS)
    return _points(t, 0, 1, [])


def from_dataframe(df, x=None, y=None) -> UserData:
    """Points from two columns of a table, for the notebook's ``e.data = df``.

    Parameters
    ----------
    df : a pandas DataFrame, or anything with ``.columns`` and ``df[label]`` (pandas itself is not needed).
    x, y : a column's label, its name as text, or its number from 1; None picks the first columns holding
        numbers (and says which).  Missing values (NaN, None, pandas' NA) skip their row, and say so.

    Returns
    -------
    UserData.  Raises ValueError with the page's sentences; rows count from 1 in them.
    """
    labels = getattr(df, "columns", None)
    if labels is None or not hasattr(df, "__getitem__"):
        raise ValueError(f"df must be a table with .columns and df[label] (a pandas DataFrame), "
                         f"got {type(df).__name__}")
    labels = list(labels)
    series = [df[label] for label in labels]
    cols = [_column(s.tolist() if hasattr(s, "tolist") else list(s), str(label)) for s, label in zip(series, labels)]
    if len(cols) < 2:
        raise ValueError(SAY.one_column)
    nrows = len(cols[0])
    if nrows == 0:
        raise ValueError(SAY.no_rows)
    t = _Table(rows=[(i + 1, [c[i] for c in cols]) for i in range(nrows)],
               names=[_clean_name(str(label)) for label in labels], keys=labels, header=True,
               classify=_classify_value, words=ROWS)
    xi, yi, notices = _choose(t, x, y)
    return _points(t, xi, yi, notices)


def check_file(size: int | None, name: str | None = None, type_: str = "") -> None:
    """Refuse a file from its name, type and size alone, before reading it (twin of AttnUserData.checkFile);
    ``size`` None: not known before reading (a pipe)."""
    low = (name or "").lower()
    if low.endswith(WORKBOOK_EXTENSIONS) or (type_ or "").lower() in WORKBOOK_TYPES:
        raise ValueError(SAY.workbook(name))
    if size is None:
        return
    if size == 0:
        raise ValueError(SAY.file_empty)
    if size > MAX_INPUT_BYTES:
        raise ValueError(SAY.file_too_big(size, MAX_INPUT_BYTES))


def decode_bytes(data: bytes) -> str:
    """The text of a file's bytes: UTF-16 when it starts with a UTF-16 byte-order mark (a spreadsheet's
    "Unicode text"), else UTF-8 (bad bytes become U+FFFD); a file with NUL bytes is refused."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        text = data[2:].decode("utf-16-le" if data[:2] == b"\xff\xfe" else "utf-16-be", errors="replace")
    elif b"\x00" in data:
        raise ValueError(SAY.binary)
    else:
        text = data.decode("utf-8", errors="replace")
    _check_text(text)
    return text


def read_csv_file(path, x=None, y=None) -> UserData:
    """``parse_text`` of a file (for ``export --data``), refused from its name or size before it is read.

    Parameters
    ----------
    path : the file: CSV, TSV or semicolon-separated text in UTF-8 (or UTF-16 with a byte-order mark),
        at most MAX_INPUT_BYTES; not a spreadsheet workbook.  A pipe (``--data /dev/stdin``, ``<(...)``)
        has no size to check first: it is read up to one byte past the limit.
    x, y : as in ``parse_text``.
    """
    path = os.fspath(path)
    st = os.stat(path)
    check_file(st.st_size if stat.S_ISREG(st.st_mode) else None, os.path.basename(path))
    with open(path, "rb") as f:
        data = f.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:        # a pipe, or a file that grew since it was measured
        raise ValueError(SAY.stream_too_big(MAX_INPUT_BYTES))
    if not data:
        raise ValueError(SAY.file_empty)
    return parse_text(decode_bytes(data), x=x, y=y)


# ---- scaling ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Scale:
    """The affine map from the data's x (its units) to the page's x (the sliders' 0 ... 6).

    page = u0 + (x - x0) / span * uspan; a bandwidth scales by the same factor uspan / span.
    ``sentence`` is what the page shows when x was rescaled (None when it was not).
    """

    scaled: bool
    x0: float
    span: float
    u0: float
    uspan: float
    sentence: str | None

    @property
    def factor(self) -> float:
        return self.uspan / self.span

    def from_units(self, x):
        return self.u0 + (x - self.x0) / self.span * self.uspan

    def to_units(self, u):
        return self.x0 + (u - self.u0) / self.uspan * self.span

    def h_from_units(self, h):
        return h / self.span * self.uspan

    def h_to_units(self, h):
        return h / self.uspan * self.span


def scale_for(x, data_range=DATA_RANGE, min_spread=MIN_SPREAD) -> Scale:
    """Whether x must be rescaled to the page's range, and the map (twin of AttnUserData.scaleFor).

    Rule: x stays as it is when it already lies within ``data_range`` (0 ... 6) and spans at least
    ``min_spread`` (half of it); otherwise [min x, max x] is mapped onto ``data_range``.  The shipped
    datasets stay put (their x fill 0 ... 6); days 1 ... 365, years, anything negative, or x bunched in
    0 ... 2 are rescaled, so the sliders' range (query 0 ... 6, bandwidth 0.005 ... 50) fits the data.
    Readouts, axes and h stay in the data's units: ``to_units`` and ``h_to_units`` give them.

    >>> s = scale_for([1.0, 365.0])
    >>> s.scaled, s.from_units(365.0), s.to_units(3.0), s.h_to_units(0.5)
    (True, 6.0, 183.0, 30.333333333333332)
    """
    xs = np.asarray(x, dtype=float)
    if xs.ndim != 1 or xs.size < 2 or not np.all(np.isfinite(xs)) or xs.min() == xs.max():
        shown = np.array2string(xs, threshold=6, edgeitems=2)
        raise ValueError(f"x must hold at least two different finite values, got {shown}")
    lo, hi = float(xs.min()), float(xs.max())
    r0, r1 = (float(v) for v in data_range)
    if r0 <= lo and hi <= r1 and hi - lo >= min_spread:
        return Scale(False, 0.0, 1.0, 0.0, 1.0, None)
    return Scale(True, lo, hi - lo, r0, r1 - r0, SCALED.format(lo=number_text(r0), hi=number_text(r1)))


# ---- the link's fragment ---------------------------------------------------------------------------

_FRAGMENT = re.compile(r"data([0-9]+)\.(.*)", re.DOTALL)
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")


def _payload(d: UserData) -> str:
    """Names on the first line, then one "x<TAB>y" line per point, each number as number_text writes it."""
    names = "\t".join(_clean_name(nm) for nm in (d.x_name, d.y_name))
    return "\n".join([names] + [f"{number_text(a)}\t{number_text(b)}" for a, b in zip(d.x, d.y)])


def encode_fragment(data: UserData) -> str:
    """The address's fragment carrying ``data``: "data1." then the payload, deflated (raw) and base64url.

    Raises ValueError (the page's sentence) when it would be longer than MAX_FRAGMENT_CHARS.
    """
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    raw = c.compress(_payload(data).encode("utf-8")) + c.flush()
    s = f"data{FRAGMENT_FORMAT}." + base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")
    if len(s) > MAX_FRAGMENT_CHARS:
        raise ValueError(SAY.too_long_for_link(data.n, MAX_FRAGMENT_CHARS))
    return s


def _inflate(body: str) -> str:
    if len(body) > MAX_PAYLOAD_BYTES or not _BASE64URL.fullmatch(body) or len(body) % 4 == 1:
        raise ValueError(SAY.damaged)
    raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    d = zlib.decompressobj(-15)
    try:
        out = d.decompress(raw, MAX_PAYLOAD_BYTES + 1)
        text = out.decode("utf-8")
    except (zlib.error, UnicodeDecodeError):
        raise ValueError(SAY.damaged) from None
    if len(out) > MAX_PAYLOAD_BYTES or not d.eof or d.unused_data:
        raise ValueError(SAY.damaged)
    return text


def decode_fragment(fragment: str) -> UserData:
    """The data of a fragment written by ``encode_fragment`` or by the page (AttnUserData.encodeFragment).

    A leading "#" is allowed.  Raises ValueError with the page's sentence for a damaged fragment, one that
    holds no data (another use of the address's "#"), or one in another format.
    """
    s = fragment[1:] if fragment.startswith("#") else fragment
    m = _FRAGMENT.fullmatch(s)
    if not m:
        raise ValueError(SAY.foreign)
    if m.group(1) != str(FRAGMENT_FORMAT):
        raise ValueError(SAY.other_format(m.group(1)))
    lines = _inflate(m.group(2)).split("\n")
    names = lines[0].split("\t")
    rows = [line.split("\t") for line in lines[1:]]
    if len(names) != 2 or not rows or any(len(r) != 2 or not all(NUMBER.fullmatch(v) for v in r) for r in rows):
        raise ValueError(SAY.damaged)
    return from_arrays([float(r[0]) for r in rows], [float(r[1]) for r in rows], names[0], names[1])


# ---- the data a page carries (export --data, and a page's download of itself) ------------------------

_HTML_UNSAFE = re.compile("[<>&\u2028\u2029]")


def embed_text(data: UserData) -> str:
    """The JSON an exported page carries its opening data in (``<script type="application/json" id="attn-data">``).

    {"format": 1, "x_name", "y_name", "x": [...], "y": [...]}: every number as its shortest exact text, and
    "<", ">" and "&" escaped, so nothing in a column's name can end the element.  Twin of AttnUserData.embedText
    (the page writes the same JSON when it downloads itself with your data inside).
    """
    body = json.dumps({"format": FRAGMENT_FORMAT, "x_name": _clean_name(data.x_name), "y_name": _clean_name(data.y_name),
                       "x": [float(v) for v in data.x], "y": [float(v) for v in data.y]},
                      ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return _HTML_UNSAFE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", body)


def from_embedded(text: str) -> UserData:
    """The data of ``embed_text`` (or of a page that downloaded itself), checked as ``from_arrays`` checks."""
    try:
        d = json.loads(text)
    except ValueError:
        d = None
    ok = (isinstance(d, dict) and d.get("format") == FRAGMENT_FORMAT and isinstance(d.get("x_name"), str)
          and isinstance(d.get("y_name"), str) and isinstance(d.get("x"), list) and isinstance(d.get("y"), list)
          and len(d["x"]) == len(d["y"])
          and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in d["x"] + d["y"]))
    if not ok:
        raise ValueError(SAY.damaged_page)
    if not d["x"]:
        raise ValueError(SAY.no_arrays)
    return from_arrays(d["x"], d["y"], d["x_name"], d["y_name"])


def data_key(data: UserData) -> str:
    """A short name for these exact points and names (the notebook's hand-over tells them apart by it)."""
    import hashlib

    return "py-" + hashlib.sha1(_payload(data).encode("utf-8")).hexdigest()[:16]


def as_userdata(value) -> UserData | None:
    """What a notebook hands ``e.data``, as points: None (no data of your own), a ``UserData``, a pandas
    DataFrame (its first two columns holding numbers, as ``from_dataframe`` picks them), or a pair (x, y) of
    sequences (``from_arrays``; a pandas Series lends its name to the axis).

    Raises ValueError with the page's sentence when the value cannot give points.
    """
    if value is None or isinstance(value, UserData):
        return value
    if hasattr(value, "columns") and hasattr(value, "__getitem__"):
        return from_dataframe(value)
    if isinstance(value, (tuple, list)) and len(value) == 2:
        x, y = value
        return from_arrays(x, y, _series_name(x), _series_name(y))
    raise ValueError(f"data must be None, a pandas DataFrame or a pair (x, y) of sequences of numbers, "
                     f"got {type(value).__name__}")


def _series_name(values) -> str | None:
    name = getattr(values, "name", None)
    return str(name) if name is not None and not isinstance(values, np.ndarray) else None
