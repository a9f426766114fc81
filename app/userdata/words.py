"""What the reader of your own data says: every sentence about what it did or refused, in plain words (twins in
app/ui/userwords.js)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from app.state import MAX_SHOWN

from .limits import FRAGMENT_FORMAT, _CONTROL


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
