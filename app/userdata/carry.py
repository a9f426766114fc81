"""Your own data carried: scaled onto the sliders' 0 ... 6 and back, in a link's fragment, inside a saved page."""

from __future__ import annotations

import base64
import json
import re
import zlib
from dataclasses import dataclass

import numpy as np

from attention.datasets import DATA_RANGE

from app.state import NUMBER

from .limits import _BASE64URL, FRAGMENT_FORMAT, MAX_FRAGMENT_CHARS, MAX_PAYLOAD_BYTES, MIN_SPREAD, SCALED, UserData
from .parse import _clean_name, from_arrays
from .words import SAY, number_text


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


_FRAGMENT = re.compile(r"data([0-9]+)\.(.*)", re.DOTALL)


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
