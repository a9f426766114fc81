"""The self-attention section's readouts for the tour's conditions, with ``attention.analyze_sentence``."""

from __future__ import annotations

import numpy as np

import attention


def sentence_readouts(s: dict, needs=None, dataset=None) -> dict:
    """The self-attention names for the full state ``s`` (the page clamps a word or head past the end to the
    last one; so does this).  ``needs`` and ``dataset`` are not used."""
    a = attention.analyze_sentence(s["sentence"], temperature=float(s["att_temperature"]), causal=bool(s["causal"]))
    i, h = min(int(s["token"]), a.n - 1), min(int(s["head"]), len(a.head_names) - 1)
    w = a.weights[h][i]
    top = int(np.argmax(w))                      # the first largest, as the page's loop finds it
    water, money = (float(v) for v in a.output_xy[h][i])
    return {
        "sentence": " ".join(a.tokens), "n_tokens": a.n, "n_scores": a.n * a.n, "token": i, "word": a.tokens[i],
        "head": h, "head_name": a.head_names[h], "causal": a.causal, "att_temperature": a.temperature,
        "top_word": a.tokens[top], "top_weight": float(w[top]), "row_sum": float(w.sum()),
        "future_weight": float(w[i + 1:].sum()), "sense_water": water, "sense_money": money,
    }
