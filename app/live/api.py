"""What the live page asks its server for: the three things only Python can do, as plain functions.

Each takes the request's query arguments (``{key: [values]}``, as tornado gives them) and returns
``(status, reply)``: 200 and the data, or 400 and ``{"error": one sentence}``.  Nothing here knows
about HTTP or Bokeh, so the tests call them directly and ``app/live/server.py`` only routes to them.

* ``dataset``: ``attention.make_dataset(fn, n, noise, seed)``, the same samples for the same seed.
  A value the generator cannot use (n = 5000, noise = abc) is clamped or left at its default with a
  notice, as the deep link's parser does (``app.state.parse_query``).
* ``train``: gradient descent on h over that dataset (``bandwidth_trajectory_for``), for one
  learning-rate preset; each (dataset, rate) is trained once per process and kept, so a class that
  opens one shared link costs one training.
* ``sentence``: ``attention.analyze_sentence(text).to_plain()``, the typed sentence's tokens, Q, K and V.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from urllib.parse import urlencode

import attention

from ..learning.view import BANDWIDTH_LR_PRESETS, _train_columns
from ..regression.view import dataset_meta
from ..sentence.view import _plain_json
from ..state import parse_query, url_spec

GENERATOR_KEYS = ("fn", "n", "noise", "seed")
MAX_TEXT = 500    # characters of a typed sentence read at all (the deep link's limit, url_spec()["sentence"])


def _first(args: dict, key: str) -> str | None:
    vals = args.get(key) or []
    v = vals[-1] if vals else None
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else v


def generator_values(args: dict) -> tuple[dict, list[str]]:
    """fn, n, noise and seed from the request (defaults for what is missing), and notices for what was not used.

    >>> generator_values({"fn": ["step"], "n": ["5000"]})[0]["n"]
    2000
    """
    spec = url_spec()
    picked = {k: _first(args, k) for k in GENERATOR_KEYS if _first(args, k) is not None}
    values, notices = parse_query(urlencode(picked))
    out = {k: values.get(k, spec[k]["default"]) for k in GENERATOR_KEYS}
    return out, notices


def _generated(values: dict):
    return attention.make_dataset(values["fn"], values["n"], values["noise"], values["seed"])


def dataset(args: dict) -> tuple[int, dict]:
    """The seeded dataset: ``{"x", "y", "meta", "values", "notices"}``; ``meta`` is the data source's tag."""
    values, notices = generator_values(args)
    try:
        d = _generated(values)
    except ValueError as e:   # bounds are checked above; this is a last guard
        return 400, {"error": str(e)}
    return 200, {"x": d.x.tolist(), "y": d.y.tolist(), "meta": dataset_meta("generated", d), "values": values,
                 "notices": notices}


def train(args: dict) -> tuple[int, dict]:
    """h's gradient-descent path on the seeded dataset for one learning rate: ``{"columns", "tag"}``.

    ``tag`` is what the learning engine matches against the regression's dataset and learning rate
    (the same JSON the served page's Python writes into ``learn_generated.tags``).
    """
    lr = _first(args, "lr")
    if lr not in BANDWIDTH_LR_PRESETS:
        shown = json.dumps(lr if lr is None else lr[:40])
        return 400, {"error": f"lr must be one of {', '.join(BANDWIDTH_LR_PRESETS)}, got {shown}"}
    values, _notices = generator_values(args)
    return 200, _trained(tuple(values[k] for k in GENERATOR_KEYS) + (lr,))


TRAINED_KEPT = 64   # paths kept (a few kB each, n = 2000 included); a class on one shared link trains once
_trained_cache: OrderedDict = OrderedDict()
_trained_locks: dict = {}
_trained_guard = threading.Lock()


def _trained(key: tuple) -> dict:
    """The reply for ``key`` = (fn, n, noise, seed, lr), computed once: the same dataset and learning rate give
    the same path, and training on n = 2000 takes seconds.  Requests for a key being trained wait for it
    instead of training it again (the server calls this from a thread pool)."""
    with _trained_guard:
        if key in _trained_cache:
            _trained_cache.move_to_end(key)
            return _trained_cache[key]
        lock = _trained_locks.setdefault(key, threading.Lock())
    with lock:
        with _trained_guard:
            if key in _trained_cache:
                return _trained_cache[key]
        *gen, lr = key
        d = _generated(dict(zip(GENERATOR_KEYS, gen)))
        columns, error = _train_columns(d.x, d.y, lr)
        tag = {"lr": lr, "dataset": dataset_meta("generated", d)}
        if error:
            tag["error"] = error
        reply = {"columns": columns, "tag": json.dumps(tag)}
        with _trained_guard:
            _trained_cache[key] = reply
            while len(_trained_cache) > TRAINED_KEPT:
                _trained_cache.popitem(last=False)
            _trained_locks.pop(key, None)
    return reply


def sentence(args: dict) -> tuple[int, dict]:
    """A typed sentence's tokens and Q, K, V (``{"plain": JSON text}``), or 400 with the reason it was refused."""
    text = _first(args, "text")
    if text is None:
        return 400, {"error": "That sentence was not used: no text was sent. The previous sentence stays."}
    if len(text) > MAX_TEXT:
        return 400, {"error": f"That sentence was not used: it is longer than {MAX_TEXT} characters. "
                              "The previous sentence stays."}
    try:
        plain = _plain_json(text)
    except ValueError as e:
        return 400, {"error": f"That sentence was not used: {e}. The previous sentence stays."}
    return 200, {"plain": plain}


ENDPOINTS = {"dataset": dataset, "train": train, "sentence": sentence}

__all__ = ["ENDPOINTS", "GENERATOR_KEYS", "dataset", "train", "sentence", "generator_values"]
