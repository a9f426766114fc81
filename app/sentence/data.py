"""What the self-attention section hands the browser: the toy sentence model, the example sentences and their
plain text, and the timings measured in this process."""

from __future__ import annotations

import json
import math
import time
from functools import lru_cache

import numpy as np

import attention
from attention.sentences import load_sentence_model

TIMING_N = (64, 128, 256, 512, 1024, 2048)
MEASURE_BUDGET_S = 0.04                          # at most ~40 ms of timing per process, once

@lru_cache(maxsize=1)
def _browser_model_json() -> str:
    m = load_sentence_model()
    sp = m.sense_plane
    return json.dumps({
        "dims": list(m.dims), "position_features": list(m.position_features),
        "vocab": {word: vec.tolist() for word, vec in m.vocab.items()}, "unknown_scale": m.unknown_scale,
        "d_k": m.d_k, "d_v": m.d_v,
        "heads": [{"name": h.name, "description": h.description, "qk_columns": list(h.qk_columns),
                   "w_q": h.w_q.tolist(), "w_k": h.w_k.tolist(), "w_v": h.w_v.tolist()} for h in m.heads],
        "value_columns": list(m.value_columns), "output_columns": list(m.output_columns), "w_o": m.w_o.tolist(),
        "sense_plane": {"head": sp.head, "head_name": sp.head_name, "x_label": sp.x_label, "y_label": sp.y_label,
                        "value_projection": sp.value_projection.tolist(),
                        "output_projection": sp.output_projection.tolist()},
    }, separators=(",", ":"))


def browser_model() -> dict:
    """The toy sentence model as the browser reads it (``AttnWords`` in attention/words.js): what
    ``attention.load_sentence_model()`` checked in data/sentences.json, as plain lists.

    Keys: ``dims``, ``position_features`` (names), ``vocab`` (word -> vector), ``unknown_scale``, ``d_k``,
    ``d_v``, ``heads`` (name, description, qk_columns, w_q, w_k, w_v), and ``value_columns``,
    ``output_columns``, ``w_o``, ``sense_plane`` as ``SentenceAnalysis.to_plain()`` gives them.
    """
    return json.loads(_browser_model_json())


def sentence_key(tokens) -> str:
    """How the engine knows a sentence (an example on the page, the default): its tokens joined by spaces."""
    return " ".join(tokens)


@lru_cache(maxsize=64)
def _plain_json(text_: str) -> str:
    return json.dumps(attention.analyze_sentence(text_).to_plain(), separators=(",", ":"))


def sentence_plain(text_: str) -> dict:
    """``analyze_sentence(text).to_plain()`` (T = 1, no mask). Raises ValueError."""
    return json.loads(_plain_json(text_))


def presets_payload() -> list[dict]:
    """The example sentences: [{text, note, key}]; the browser analyses each when it is picked."""
    return [{"text": p.text, "note": p.note, "key": sentence_key(attention.tokenize(p.text))}
            for p in load_sentence_model().presets]


@lru_cache(maxsize=1)
def measured_timings() -> tuple[tuple[tuple[int, float], ...], str]:
    """Median microseconds of ``attention.dot_product_attention`` (d = 64) for n = 64 ... 2048, and their source.

    Measured here once per process, smallest n first, stopping once about 40 ms
    have been spent (the app reads nothing from ``tests/``: an installed package
    has none).  Returns ((), note) when nothing is available.
    """
    rng = np.random.default_rng(0)
    out, t_start = [], time.perf_counter()
    for n in TIMING_N:
        q, k, v = (rng.standard_normal((n, 64)) for _ in range(3))
        best = math.inf
        for _ in range(3):
            t0 = time.perf_counter()
            attention.dot_product_attention(q, k, v)
            best = min(best, time.perf_counter() - t0)
            if time.perf_counter() - t_start > MEASURE_BUDGET_S:
                break
        out.append((n, best * 1e6))
        if time.perf_counter() - t_start > MEASURE_BUDGET_S:
            break
    if len(out) < 2:
        return (), "no timings measured"
    return tuple(out), "measured once when this server started (fastest of up to 3 runs)"
