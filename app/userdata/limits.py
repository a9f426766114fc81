"""Your own data's limits and word lists, one definition for the Python reader and the browser's
(``config()`` hands them to app/ui/userdata.js), and the points the reader gives (``UserData``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

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
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")
