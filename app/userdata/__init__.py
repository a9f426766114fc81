"""Your own data: x, y pairs pasted, dropped, read from a file or handed over in a notebook.

The page reads an instructor's data in the browser with ``AttnUserData`` (app/ui/userdata.js, userparse.js,
userwords.js); this package is its Python twin, for the CLI (``export --data temps.csv``) and the notebook
(``e.data = (x, y)`` or a DataFrame).  Both give the same numbers and the same sentences (tests/js,
tests/browser/test_userdata_parity.py), and both take every limit from ``config()``, the one definition.

Its rooms, by concern: ``limits`` (every limit and word list, ``config()``, ``UserData``), ``words`` (what the
reader says), ``checks`` (the refusals before any reading), ``parse`` (cells, lines, tables, points: the
readers), ``carry`` (scaled onto the sliders, in a link's fragment, inside a saved page).

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

from . import carry, checks, limits, parse, words  # noqa: F401  (the rooms, for a reader of the code)
from .carry import Scale, data_key, decode_fragment, embed_text, encode_fragment, from_embedded, scale_for
from .checks import check_file, decode_bytes
from .limits import (DATA_RANGE, MAX_FRAGMENT_CHARS, MAX_INPUT_BYTES, MAX_PAYLOAD_BYTES, MAX_ROWS, MIN_SPREAD,
                     MIN_X_RELATIVE, MIN_X_SPREAD, UserData, config)
from .parse import as_userdata, from_arrays, from_dataframe, parse_text, read_csv_file
from .words import SAY, number_text

__all__ = ["UserData", "config", "parse_text", "from_arrays", "from_dataframe", "read_csv_file", "as_userdata",
           "check_file", "decode_bytes", "Scale", "scale_for", "encode_fragment", "decode_fragment", "embed_text",
           "from_embedded", "data_key", "number_text", "SAY", "DATA_RANGE", "MAX_ROWS", "MAX_INPUT_BYTES",
           "MAX_FRAGMENT_CHARS", "MAX_PAYLOAD_BYTES", "MIN_SPREAD", "MIN_X_SPREAD", "MIN_X_RELATIVE"]
