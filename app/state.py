"""The deep link's grammar: settings declared as param classes with bounds, read from and written to a query string.

Each section declares its settings in its state.py; ``PageState`` holds the page's own (the tour's step, the
presenter's keys, a short frame's section), and the composition (app/sections.py) joins them all into
``ExplorableState``.  ``parse_query`` turns a query string (``?query=2.5&bandwidth=0.3``) into values and a list
of notices: values that do not parse are ignored and values out of range are clamped, each with a sentence
saying so.  The browser's ``parseQuery`` (app/ui/format.js) applies the same rules to the same ``url_spec``, so
a served page and an offline file read a link identically.  Nothing here knows a section.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode

import param

# ASCII digits only, as in the browser's twin (Python's \d would also take "٣" or "３")
NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$", re.ASCII)
INTEGER = re.compile(r"^\d+$", re.ASCII)
TRUE_WORDS, FALSE_WORDS = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
WHITESPACE = " \t\n\r\f\v"
MAX_SHOWN = 40  # characters of a bad value repeated back in a notice
TEXT_MAX = 500  # characters of a text setting (a sentence) a link may carry


class PageState(param.Parameterized):
    """The settings of the page itself, which no section owns: the tour's step, the presenter's keys in a frame
    and a short frame's one section.  The composition (app/sections.py) adds every section's settings to them
    (``ExplorableState``)."""

    # A step's number (1 is the first, 0 hides the card) or its id ("shrink-h"); the tour resolves it against
    # the steps the page has (app.tour.model.resolve_step, and its twin in app/tour/steps.js), with a notice for a
    # value it cannot use.
    tour = param.ClassSelector(class_=(int, str), default=1,
                               doc="Step of the guided tour shown: its number (1 is the first, 0 hides the card) "
                                   "or its id.")
    # Inside a frame (a slide deck), in presentation mode: whose are the presenter's keys (Page Down, Page Up, the
    # space bar, the arrows)?  The deck's by default (app/ui/frame.js posts them to the host); "tour" lets them turn
    # the tour's steps, as they do outside a frame.
    keys = param.Selector(default="deck", objects=["deck", "tour"],
                          doc="Inside a frame in presentation mode: 'deck' leaves the presenter's keys to the host's "
                              "slides, 'tour' lets them turn the tour's steps.")
    # In a short frame: one section's figure and sliders fitted to it (app/ui/embed.js): "1" the first section
    # offered, a section's name that one, "0" the whole page (a file exported with --embed opens embedded).
    embed = param.String(default="", doc="Show one section's figure, sliders and readout line fitted to a short "
                                         "frame: 1 (the first section offered), a section's name, or 0 (the whole "
                                         "page).")


def _fmt(v) -> str:
    """A value as a link writes it (ASCII: "-0.25")."""
    return f"{v:g}" if isinstance(v, float) else str(v)


def _said(v) -> str:
    """A bound as a sentence shown to the student writes it: a negative one with the true minus ("\u22120.25")."""
    return _fmt(v).replace("-", "\u2212")


def url_spec(cls) -> dict:
    """The URL keys of the param class ``cls`` (a section's settings, or the whole page's: app/sections.py
    ``ExplorableState``) with their kinds and bounds, shared with the browser's parser."""
    spec = {}
    for name, p in cls.param.objects("existing").items():
        if name == "name":
            continue
        if isinstance(p, param.Boolean):
            spec[name] = {"kind": "bool", "default": p.default}
        elif isinstance(p, param.Integer):
            spec[name] = {"kind": "int", "lo": p.bounds[0], "hi": p.bounds[1], "default": p.default,
                          "lo_text": _said(p.bounds[0]), "hi_text": _said(p.bounds[1])}
        elif isinstance(p, param.Number):
            spec[name] = {"kind": "float", "lo": p.bounds[0], "hi": p.bounds[1], "default": p.default,
                          "lo_text": _said(p.bounds[0]), "hi_text": _said(p.bounds[1])}
        elif isinstance(p, param.Selector):
            spec[name] = {"kind": "choice", "choices": list(p.objects), "default": p.default}
        elif isinstance(p, param.String):
            spec[name] = {"kind": "text", "default": p.default, "max": TEXT_MAX}
        elif name == "tour":   # a step's number or id, kept as written: the tour resolves it (resolve_step)
            spec[name] = {"kind": "tour", "default": p.default, "max": 80}
    return spec


def _shown(text: str) -> str:
    """A user's text repeated back in a notice: at most MAX_SHOWN characters."""
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "\u2026"


def _grouped(query: str | dict) -> dict[str, list[str]]:
    """key -> every value given for it, in order, from a query string or a mapping of key -> values."""
    if isinstance(query, str):
        # only one leading "?" is the separator, as in a browser's location.search
        pairs = parse_qsl(query[1:] if query.startswith("?") else query, keep_blank_values=True)
    else:
        pairs = [(k, v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v))
                 for k, vs in query.items() for v in vs]
    grouped: dict[str, list[str]] = {}
    for k, v in pairs:
        grouped.setdefault(k, []).append(v)
    return grouped


def _number(key: str, raw: str, s: dict) -> tuple[bool, float | int | None, str | None]:
    """A float or int setting: (kept, value, notice); out of range is clamped with a notice."""
    kind = s["kind"]
    pattern = NUMBER if kind == "float" else INTEGER
    if not pattern.match(raw):
        what = "a number" if kind == "float" else "a whole number"
        return False, None, f"Ignored {key}=\u201c{_shown(raw)}\u201d: not {what}."
    v = float(raw)  # '1e999' or 5000 digits -> inf, clamped below
    notice = None
    if v < s["lo"] or v > s["hi"]:
        low = v < s["lo"]
        notice = (f"{key}={_shown(raw)} is outside {s['lo_text']} to {s['hi_text']}; "
                  f"using {s['lo_text'] if low else s['hi_text']}.")
        v = s["lo"] if low else s["hi"]
    return True, int(v) if kind == "int" else v, notice


def _value(key: str, raw: str, s: dict) -> tuple[bool, object, str | None]:
    """One setting's non-empty value read by its spec ``s``: (kept, value, notice or None)."""
    kind = s["kind"]
    if kind in ("float", "int"):
        return _number(key, raw, s)
    if kind == "bool":
        low = raw.lower()
        if low in TRUE_WORDS or low in FALSE_WORDS:
            return True, low in TRUE_WORDS, None
        return False, None, f"Ignored {key}=\u201c{_shown(raw)}\u201d: expected 1 or 0."
    if kind == "choice":
        if raw in s["choices"]:
            return True, raw, None
        return False, None, f"Ignored {key}=\u201c{_shown(raw)}\u201d: expected one of {', '.join(s['choices'])}."
    if kind == "tour":
        return True, raw[:s["max"]], None
    if len(raw) > s["max"]:  # text
        return False, None, f"Ignored {key}: longer than {s['max']} characters."
    return True, raw, None


def parse_query(query: str | dict, cls) -> tuple[dict, list[str]]:
    """Parse a URL query string into state values and notices.

    ``query`` is the raw string after ``?`` or a mapping of key -> list of
    values (as Panel's ``pn.state.session_args`` gives them, bytes or str).
    Unknown keys, empty values, repeated keys, unparsable values and values
    out of range each produce one notice; only clean or clamped values are
    returned.  Nothing in the result is HTML: the page escapes notices.  ``cls``: the param class whose
    settings the link may carry (the page's: app/sections.py ``parse_query``).
    """
    spec = url_spec(cls)
    values, notices = {}, []
    for key, vals in _grouped(query).items():
        if key not in spec:
            notices.append(f"Ignored unknown setting \u201c{_shown(key)}\u201d.")
            continue
        if len(vals) > 1:
            notices.append(f"\u201c{key}\u201d was given {len(vals)} times; using the last value.")
        raw = vals[-1].strip(WHITESPACE)
        if raw == "" and spec[key]["kind"] != "tour":   # an empty tour is kept: the tour says so itself
            notices.append(f"Ignored an empty value for \u201c{key}\u201d.")
            continue
        kept, value, notice = _value(key, raw, spec[key])
        if notice:
            notices.append(notice)
        if kept:
            values[key] = value
    return values, notices


def to_query(state: param.Parameterized) -> str:
    """The query string of every setting that differs from its default."""
    out = []
    for name, s in url_spec(type(state)).items():
        v = getattr(state, name)
        if v != s["default"]:
            out.append((name, ("1" if v else "0") if isinstance(v, bool) else _fmt(v)))
    return urlencode(out)
