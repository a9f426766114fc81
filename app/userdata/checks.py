"""The refusals that come before any reading: a file by its name, type and size, a text by its size and its
bytes, and points whose x spread too little to scale."""

from __future__ import annotations

from .limits import (MAX_INPUT_BYTES, MIN_X_RELATIVE, MIN_X_SPREAD, UNREADABLE_LIMIT, WORKBOOK_EXTENSIONS,
                     WORKBOOK_TYPES)
from .words import SAY


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


def _check_spread(lo: float, hi: float) -> None:
    """Refuse x spread too little to scale (see "Points"; twin of checkSpread in app/ui/userparse.js)."""
    if hi - lo < MIN_X_SPREAD:
        raise ValueError(SAY.x_too_close)
    if hi - lo < MIN_X_RELATIVE * max(abs(lo), abs(hi)):
        raise ValueError(SAY.x_too_close_for_size)


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
