"""Reading your own data: cells, lines and records of a text, columns of a table, points; from a text, arrays, a
DataFrame or a file (the rules: app/userdata/__init__.py)."""

from __future__ import annotations

import numbers
import os
import re
import stat
from dataclasses import dataclass

import numpy as np

from app.state import NUMBER
from app.ui.text import plain

from .checks import _check_spread, _check_text, _check_text_size, check_file, decode_bytes
from .limits import (_CONTROL, _SEPARATORS, MAX_INPUT_BYTES, MAX_MAGNITUDE, MAX_ROWS, MISSING_WORDS, NAN_WORDS,
                     NONFINITE_WORDS, THOUSANDS, TRIM, UserData)
from .words import LINES, POINTS, ROWS, SAY, _q, _shown, _Words, number_text


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


def _note_repeats(points, words: _Words, notices: list[str]) -> None:
    seen: dict[float, list] = {}
    for p in points:
        seen.setdefault(p[1], []).append(p)
    repeats = [ps for ps in seen.values() if len(ps) > 1]
    if repeats:
        first = repeats[0]
        notices.append(SAY.repeated(first[0][3], [p[0] for p in first], words, len(repeats) - 1))


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
