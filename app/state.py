"""The explorable's state: param classes with declared bounds, and the URL query string.

``ExplorableState`` holds everything a deep link can set.  ``parse_query``
turns a query string (``?query=2.5&bandwidth=0.3``) into values and a list of
notices: values that do not parse are ignored and values out of range are
clamped, each with a sentence saying so.  The browser's ``parseQuery`` (in
app/ui/format.js) applies the same rules to the same ``url_spec()``, so a served
page and an offline file read a link identically.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode

import param

import attention
from attention.datasets import FUNCTIONS, MAX_GENERATED_N

# Plot and query range for every shipped dataset (all of them live in [0, 6]).
X_RANGE = (-0.5, 6.5)
# The numbers the regression's readouts are computed on, which a section and the tour (Python and browser) share:
GRID_N = 400                       # points of the prediction curve across X_RANGE
SHARP_WEIGHT = 0.9                 # a query on the curve "has one winner" where its largest weight is this or more
LOO_GRID = (0.005, 50.0, 241)      # bandwidths (from, to, how many, geometric) for the lowest leave-one-out error
# ASCII digits only, as in the browser's twin (Python's \d would also take "٣" or "３")
NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$", re.ASCII)
INTEGER = re.compile(r"^\d+$", re.ASCII)
TRUE_WORDS, FALSE_WORDS = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
WHITESPACE = " \t\n\r\f\v"
MAX_SHOWN = 40  # characters of a bad value repeated back in a notice


class RegressionState(param.Parameterized):
    """The kernel-regression view: one query, one kernel, one dataset."""

    query = param.Number(3.2, bounds=X_RANGE, doc="Query position x.")
    bandwidth = param.Number(0.62, bounds=(0.005, 50.0), doc="Bandwidth h of the similarity (log slider).")
    temperature = param.Number(1.0, bounds=(0.001, 1000.0), doc="Softmax temperature T (log slider).")
    kernel = param.Selector(default="gaussian", objects=["gaussian", "dot"],
                            doc="gaussian, or dot product on circle-embedded (equal-norm) keys.")
    key_norm = param.Number(0.0, bounds=(-0.25, 0.25),
                            doc="Dot kernel only: tilt of the key norms (key i's length times exp(key_norm * u_i), "
                                "u_i from -1 to 1 across the keys); 0 keeps them equal.  At the default h the "
                                "nearest key stops winning near 0.07 and one long key wins everywhere from 0.2.")
    dataset = param.Selector(default="default", objects=attention.list_datasets() + ["generated"],
                             doc="A shipped dataset, or 'generated' from fn, n, noise and seed.")
    fn = param.Selector(default="wave", objects=list(FUNCTIONS), doc="Generator: the true function.")
    n = param.Integer(50, bounds=(2, MAX_GENERATED_N), doc="Generator: number of samples.")
    noise = param.Number(0.3, bounds=(0.0, 2.0), doc="Generator: noise standard deviation.")
    seed = param.Integer(0, bounds=(0, 2**31 - 1), doc="Generator: random seed.")
    link = param.Boolean(False, doc="Link h and T: moving one rescales the other so h*sqrt(T) stays put.")
    limits = param.Boolean(False, doc="Show the 1-nearest-neighbour curve and the global mean.")


class SentenceState(param.Parameterized):
    """The self-attention view (a later section of the page)."""

    sentence = param.String("the bank by the river", doc="The sentence whose attention matrix is shown.")
    token = param.Integer(1, bounds=(0, 31), doc="Selected token (row of the matrix).")
    head = param.Integer(0, bounds=(0, 3), doc="Selected head.")
    att_temperature = param.Number(1.0, bounds=(0.01, 100.0), doc="Temperature of the sentence's softmax.")
    causal = param.Boolean(False, doc="Causal mask: each token sees only itself and the past.")


# Learning rates offered by the "learn the kernel" section (strings, so a link carries them exactly).
BANDWIDTH_LR_PRESETS = ("0.5", "2", "10", "20", "50", "300")   # on log h; 300 diverges on the default dataset
METRIC_LR_PRESETS = ("0.5", "2", "10", "100", "3000", "100000")  # on W; 3000 gets stuck, 100000 diverges
# The paths' lengths: the core's defaults, one definition (the learning engine gets them in its config, the
# deep link's bounds below follow them).
BANDWIDTH_TRAIN_STEPS = attention.learn.DEFAULT_BANDWIDTH_STEPS   # 60
METRIC_TRAIN_STEPS = attention.learn.DEFAULT_METRIC_STEPS         # 150


class LearningState(param.Parameterized):
    """The learning section: gradient descent on the bandwidth and on a 2-D metric, played back step by step."""

    lr = param.Selector(default="2", objects=list(BANDWIDTH_LR_PRESETS),
                        doc="Learning rate of gradient descent on log h (one of the presets).")
    step = param.Integer(0, bounds=(0, BANDWIDTH_TRAIN_STEPS), doc="Step of the bandwidth's training path shown.")
    metric_lr = param.Selector(default="2", objects=list(METRIC_LR_PRESETS),
                               doc="Learning rate of gradient descent on the metric W (one of the presets).")
    metric_step = param.Integer(0, bounds=(0, METRIC_TRAIN_STEPS), doc="Step of the metric's training path shown.")


class IdeasState(param.Parameterized):
    """The ideas section: the lag panel's period."""

    period = param.Integer(attention.lags.DEFAULT_PERIOD, bounds=(3, attention.lags.MAX_LAG),
                           doc="The lag panel's pattern: it repeats every this many days.")




# The routing section plays back attention.train_qk (W_Q and W_K learning the sense of "bank") at its defaults:
# the path's length and the sentences it shows come from the core and data/senses.json, one definition each.
QK_TRAIN_STEPS = attention.learn_qk.DEFAULT_QK_STEPS   # 150


def _shipped_shown_sentences() -> tuple[str, ...]:
    """The sentences the routing section shows (data/senses.json, "show": true), in the file's order."""
    return tuple(s.text for s in attention.load_sense_corpus().shown)


QK_SHOWN = _shipped_shown_sentences()
QK_OPENING = "the bank by the river"   # the page's running example, if the file shows it


class RoutingState(param.Parameterized):
    """The routing section: the meaning head's W_Q and W_K trained on a task, played back step by step."""

    qk_step = param.Integer(0, bounds=(0, QK_TRAIN_STEPS),
                            doc="Training step of W_Q and W_K shown (the recorded step at or before it).")
    qk_sentence = param.Integer(QK_SHOWN.index(QK_OPENING) if QK_OPENING in QK_SHOWN else 0,
                                bounds=(0, len(QK_SHOWN) - 1),
                                doc="Which of the shown sentences (data/senses.json) the routing section draws.")


class ExplorableState(RegressionState, SentenceState, LearningState, RoutingState, IdeasState):
    """Every setting a deep link can carry."""

    present = param.Boolean(False, doc="Presentation mode: larger fonts and markers for a projector.")
    # A step's number (1 is the first, 0 hides the card) or its id ("shrink-h"); the tour resolves it against
    # the steps the page has (app.tour.model.resolve_step, and its twin in app/tour/steps.js), with a notice for a
    # value it cannot use.
    tour = param.ClassSelector(class_=(int, str), default=1,
                               doc="Step of the guided tour shown: its number (1 is the first, 0 hides the card) "
                                   "or its id.")



def _fmt(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def url_spec(cls=ExplorableState) -> dict:
    """The URL keys with their kinds and bounds, shared with the browser's parser."""
    spec = {}
    for name, p in cls.param.objects("existing").items():
        if name == "name":
            continue
        if isinstance(p, param.Boolean):
            spec[name] = {"kind": "bool", "default": p.default}
        elif isinstance(p, param.Integer):
            spec[name] = {"kind": "int", "lo": p.bounds[0], "hi": p.bounds[1], "default": p.default,
                          "lo_text": _fmt(p.bounds[0]), "hi_text": _fmt(p.bounds[1])}
        elif isinstance(p, param.Number):
            spec[name] = {"kind": "float", "lo": p.bounds[0], "hi": p.bounds[1], "default": p.default,
                          "lo_text": _fmt(p.bounds[0]), "hi_text": _fmt(p.bounds[1])}
        elif isinstance(p, param.Selector):
            spec[name] = {"kind": "choice", "choices": list(p.objects), "default": p.default}
        elif isinstance(p, param.String):
            spec[name] = {"kind": "text", "default": p.default, "max": 500}
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


def parse_query(query: str | dict, cls=ExplorableState) -> tuple[dict, list[str]]:
    """Parse a URL query string into state values and notices.

    ``query`` is the raw string after ``?`` or a mapping of key -> list of
    values (as Panel's ``pn.state.session_args`` gives them, bytes or str).
    Unknown keys, empty values, repeated keys, unparsable values and values
    out of range each produce one notice; only clean or clamped values are
    returned.  Nothing in the result is HTML: the page escapes notices.
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
