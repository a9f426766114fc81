"""A guided tour as data: the file format, its validation, and the conditions that recognise a step.

A tour file is JSON, small enough to read and write by hand::

    {"title": "Attention as a weighted average",
     "steps": [{"title": "Shrink h",
                "text": "One idea in one to three plain sentences.",
                "do": "One thing to do.",
                "state": {"bandwidth": 0.05, "limits": true},
                "when": [["max_weight", ">=", 0.95]],
                "found": "One sentence about what the student found."}]}

``state`` uses the deep links' names and values (app/state.py); a setting left
out goes back to its default, as in a link, so "show me" always reaches the
same picture.  ``when`` is a list of comparisons that must all hold:
``[name, operator, value]`` with a readout or setting from ``NAMES``, one of
``OPERATORS`` and a number (or, for kernel and dataset, a choice).  Nothing in
a tour file is ever run as code or inserted as HTML.

``load_tour`` and ``parse_tour`` raise ``TourError`` whose message names the
step (counted from 1) and the field, e.g. ``step 3, "when" [1]: unknown name
"max_wieght"``.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

import attention

MAX_STEPS = 20
MAX_TEXT = 400         # characters of a step's text; a title, "do" and "found" get less
MAX_FILE_BYTES = 200_000
# The settings a step may set: the regression section's, in the deep links' terms.
STATE_KEYS = ("query", "bandwidth", "temperature", "kernel", "key_norm", "dataset", "link", "limits")
OPERATORS = ("<", "<=", ">", ">=", "==", "!=")
# Every name a condition may compare, and what it means (the README lists them from here).
NAMES = {
    "query": "the query position x",
    "bandwidth": "the bandwidth h",
    "temperature": "the temperature T",
    "h_eff": "the bandwidth the weights act as, h·√T",
    "key_norm": "the key-norm tilt (dot product only)",
    "kernel": "the similarity: gaussian or dot",
    "dataset": "the dataset's name",
    "n": "the number of samples",
    "max_weight": "the largest weight",
    "entropy_bits": "the entropy of the weights, in bits",
    "effective_points": "effective points, 2 to the power of the entropy",
    "effective_share": "effective points divided by the number of samples (1 = uniform weights)",
    "prediction": "the prediction at the query",
    "global_mean": "the mean of all the samples' y values",
    "winner_gap": "how much farther the heaviest sample is from the query than the nearest one (0 when the nearest wins)",
    "loo_excess": "leave-one-out error at h·√T over its lowest value across bandwidths, minus 1 (0 at the best h)",
}
CHOICE_NAMES = ("kernel", "dataset")
# The bandwidths over which loo_excess looks for the lowest leave-one-out error (h·√T, at T = 1).
LOO_GRID = (0.005, 50.0, 241)
STEP_FIELDS = {"title": True, "text": True, "do": True, "state": True, "when": True, "found": True}
TEXT_LIMITS = {"title": (80, 1), "text": (MAX_TEXT, 3), "do": (240, 2), "found": (240, 1)}  # (characters, sentences)
SENTENCE_END = re.compile(r"[.!?][\"”’)]?(?=\s|$)")
EXPONENT = re.compile(r"\d[eE][+\-\u2212]?\d")
HYPHEN_MINUS = re.compile(r"(?<![\w)\]])-(?=\d)")


class TourError(ValueError):
    """A tour file that cannot be used; the message names the step and the field."""


@dataclass(frozen=True)
class Step:
    title: str
    text: str
    do: str
    state: dict
    when: tuple
    found: str

    def as_dict(self) -> dict:
        return {"title": self.title, "text": self.text, "do": self.do, "state": dict(self.state),
                "when": [list(c) for c in self.when], "found": self.found}


@dataclass(frozen=True)
class Tour:
    title: str
    steps: tuple = field(default_factory=tuple)
    source: str = ""

    def __len__(self) -> int:
        return len(self.steps)

    def as_dict(self) -> dict:
        return {"title": self.title, "steps": [s.as_dict() for s in self.steps]}


def _spec() -> dict:
    from app.state import url_spec

    return url_spec()


def _where(i: int | None, fld: str) -> str:
    return f'step {i}, "{fld}"' if i is not None else f'"{fld}"'


def _text(i, fld, v) -> str:
    limit, sentences = TEXT_LIMITS[fld] if fld in TEXT_LIMITS else (200, 1)
    if not isinstance(v, str):
        raise TourError(f"{_where(i, fld)}: expected text, got {_kind(v)}")
    v = " ".join(v.split())
    if not v:
        raise TourError(f"{_where(i, fld)}: is empty")
    if len(v) > limit:
        raise TourError(f"{_where(i, fld)}: {len(v)} characters, at most {limit}")
    n = len(SENTENCE_END.findall(v)) or 1
    if fld != "title" and n > sentences:
        raise TourError(f"{_where(i, fld)}: {n} sentences, at most {sentences}")
    if EXPONENT.search(v):
        raise TourError(f"{_where(i, fld)}: write numbers plainly, without exponent notation ({EXPONENT.search(v)[0]!r})")
    if HYPHEN_MINUS.search(v):
        raise TourError(f"{_where(i, fld)}: write a negative number with the minus sign \u2212, not a hyphen")
    return v


def _kind(v) -> str:
    if isinstance(v, bool):
        return "true/false"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "text"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "an object"
    return "null" if v is None else type(v).__name__


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _state(i, raw) -> dict:
    if not isinstance(raw, dict):
        raise TourError(f"{_where(i, 'state')}: expected an object of settings, got {_kind(raw)}")
    spec = _spec()
    out = {}
    for key, v in raw.items():
        where = f'step {i}, "state" {key}'
        if key not in STATE_KEYS:
            raise TourError(f'{where}: not a setting a step can set (one of {", ".join(STATE_KEYS)})')
        s = spec[key]
        if s["kind"] == "bool":
            if not isinstance(v, bool):
                raise TourError(f"{where}: expected true or false, got {_kind(v)}")
        elif s["kind"] == "float":
            if not _number(v):
                raise TourError(f"{where}: expected a number, got {_kind(v)}")
            if not s["lo"] <= v <= s["hi"]:
                raise TourError(f"{where}: {v:g} is outside {s['lo_text']} to {s['hi_text']}")
            v = float(v)
        elif s["kind"] == "choice":
            choices = [c for c in s["choices"] if not (key == "dataset" and c == "generated")]
            if v not in choices:
                raise TourError(f"{where}: {json.dumps(v, ensure_ascii=False)[:40]} is not one of {', '.join(choices)}")
        out[key] = v
    return out


def _condition(i, j, raw) -> tuple:
    where = f'step {i}, "when" [{j}]'
    if not (isinstance(raw, list) and len(raw) == 3):
        raise TourError(f'{where}: expected [name, operator, value], like ["max_weight", ">=", 0.95]')
    name, op, value = raw
    if not isinstance(name, str) or name not in NAMES:
        shown = json.dumps(name, ensure_ascii=False)[:40]
        raise TourError(f"{where}: unknown name {shown} (known: {', '.join(NAMES)})")
    if op not in OPERATORS:
        raise TourError(f"{where}: unknown operator {json.dumps(op, ensure_ascii=False)[:20]} "
                        f"(one of {' '.join(OPERATORS)})")
    if name in CHOICE_NAMES:
        spec = _spec()[name]
        if op not in ("==", "!="):
            raise TourError(f"{where}: {name} is compared with == or !=, not {op}")
        if value not in spec["choices"]:
            raise TourError(f"{where}: {json.dumps(value, ensure_ascii=False)[:40]} is not a {name} "
                            f"(one of {', '.join(spec['choices'])})")
    elif not _number(value):
        raise TourError(f"{where}: {name} is compared with a number, got {_kind(value)}")
    return (name, op, value)


def _step(i, raw) -> Step:
    if not isinstance(raw, dict):
        raise TourError(f"step {i}: expected an object with {', '.join(STEP_FIELDS)}, got {_kind(raw)}")
    for key in raw:
        if key not in STEP_FIELDS:
            raise TourError(f'step {i}, "{key}": unknown field (a step has {", ".join(STEP_FIELDS)})')
    for key in STEP_FIELDS:
        if key not in raw:
            raise TourError(f'step {i}, "{key}": missing')
    when = raw["when"]
    if not isinstance(when, list) or not when:
        raise TourError(f'{_where(i, "when")}: expected a non-empty list of [name, operator, value]')
    return Step(title=_text(i, "title", raw["title"]), text=_text(i, "text", raw["text"]),
                do=_text(i, "do", raw["do"]), state=_state(i, raw["state"]),
                when=tuple(_condition(i, j, c) for j, c in enumerate(when, 1)),
                found=_text(i, "found", raw["found"]))


def parse_tour(data, source: str = "") -> Tour:
    """A ``Tour`` from decoded JSON; raises ``TourError`` naming the step and field of the first problem."""
    if not isinstance(data, dict):
        raise TourError(f"expected an object with \"title\" and \"steps\", got {_kind(data)}")
    for key in data:
        if key not in ("title", "steps"):
            raise TourError(f'"{key}": unknown field (a tour has "title" and "steps")')
    if "title" not in data:
        raise TourError('"title": missing')
    title = _text(None, "title", data["title"])
    steps = data.get("steps")
    if not isinstance(steps, list) or not steps:
        raise TourError('"steps": expected a non-empty list of steps')
    if len(steps) > MAX_STEPS:
        raise TourError(f'"steps": {len(steps)} steps, at most {MAX_STEPS}')
    tour = Tour(title=title, steps=tuple(_step(i, s) for i, s in enumerate(steps, 1)), source=source)
    return tour


def load_tour(path: str | Path) -> Tour:
    """Read and validate a tour file; ``TourError`` says what is wrong, with the step and field."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise TourError(f"cannot read the file: {e.strerror or e}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise TourError(f"{len(raw)} bytes; a tour file is at most {MAX_FILE_BYTES}")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise TourError("not UTF-8 text") from None
    except json.JSONDecodeError as e:
        raise TourError(f"not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    return parse_tour(data, source=str(p))


def default_tour_path():
    from attention.datasets import data_path

    return data_path("tours", "regression.json")


ENV_TOUR = "ATTENTION_EXPLORABLE_TOUR"   # set by `attention-explorable serve --tour FILE` for the server it starts


def active_tour() -> Tour:
    """The tour this process shows: the file ``serve --tour`` named (checked before the server started), or the
    shipped one.  A tour file is only ever named on the command line, never by a link."""
    import os

    path = os.environ.get(ENV_TOUR)
    if not path:
        return default_tour()
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        stamp = None   # load_tour says what is wrong
    return _load_once(path, stamp)


@lru_cache(maxsize=8)
def _load_once(path: str, stamp) -> Tour:   # one read per file version, not one per page built
    return load_tour(path)


@lru_cache(maxsize=1)
def default_tour() -> Tour:
    """The shipped tour through the regression section (data/tours/regression.json)."""
    p = default_tour_path()
    return parse_tour(json.loads(p.read_text(encoding="utf-8")), source="regression.json")


# ---- conditions, computed with the numpy core ------------------------------------------------

def full_state(values: dict) -> dict:
    """A step's state with every left-out setting at its default (as a deep link reads)."""
    spec = _spec()
    return {k: values.get(k, spec[k]["default"]) for k in STATE_KEYS}


def readouts(values: dict, dataset=None) -> dict:
    """Every name in ``NAMES`` for a state (deep-link values, defaults filled in), with attention/'s functions.

    The browser computes the same numbers with app/ui/mirror.js (tour.js).
    """
    s = full_state(values)
    d = dataset if dataset is not None else attention.load_dataset(s["dataset"])
    x, y = np.asarray(d.x, dtype=float), np.asarray(d.y, dtype=float)
    q, h, t, kernel = float(s["query"]), float(s["bandwidth"]), float(s["temperature"]), s["kernel"]
    ks = attention.key_norm_tilt(x, s["key_norm"]) if kernel == "dot" and s["key_norm"] else None
    r = attention.readout(q, x, y, kernel=kernel, bandwidth=h, temperature=t, key_scale=ks)
    w = np.asarray(attention.weights(q, x, kernel=kernel, bandwidth=h, temperature=t, key_scale=ks)).reshape(-1)
    dist = np.abs(x - q)
    h_eff = h * math.sqrt(t)
    grid = np.geomspace(*LOO_GRID[:2], LOO_GRID[2])
    loo_grid = attention.loo_error(x, y, bandwidths=grid, kernel=kernel, key_scale=ks)
    loo_here = float(attention.loo_error(x, y, bandwidths=[h_eff], kernel=kernel, key_scale=ks)[0])
    best = min(float(loo_grid.min()), loo_here)
    return {
        "query": q, "bandwidth": h, "temperature": t, "h_eff": h_eff, "key_norm": float(s["key_norm"]),
        "kernel": kernel, "dataset": s["dataset"], "n": r.n, "max_weight": r.max_weight,
        "entropy_bits": r.entropy_bits, "effective_points": r.effective_points,
        "effective_share": r.effective_points / r.n, "prediction": r.prediction, "global_mean": r.global_mean,
        "winner_gap": float(dist[int(np.argmax(w))] - dist.min()),
        "loo_excess": loo_here / best - 1.0 if best > 0 else 0.0,
    }


EQUAL_TOLERANCE = 1e-9


def compare(a, op: str, b) -> bool:
    """``a op b`` for one comparison of a condition (numbers within 1e-9 count as equal)."""
    if isinstance(b, str) or isinstance(a, str):
        return (a == b) if op == "==" else (a != b) if op == "!=" else False
    close = abs(a - b) <= EQUAL_TOLERANCE
    return {"<": a < b and not close, "<=": a <= b or close, ">": a > b and not close, ">=": a >= b or close,
            "==": close, "!=": not close}[op]


def holds(when, values: dict) -> bool:
    """Whether every comparison of a step's ``when`` holds for the readouts ``values``."""
    return all(compare(values[name], op, v) for name, op, v in when)


__all__ = ["Tour", "Step", "TourError", "parse_tour", "load_tour", "default_tour", "active_tour", "ENV_TOUR", "default_tour_path",
           "readouts", "holds", "compare", "full_state", "NAMES", "OPERATORS", "STATE_KEYS", "MAX_STEPS"]
