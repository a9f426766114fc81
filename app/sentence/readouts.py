"""The self-attention section's readouts for the tour's conditions, with ``attention.analyze_sentence``."""

from __future__ import annotations

import numpy as np

import attention
from app.contract import Readout

# The names this section's readouts publish, which a tour step's "when" may compare (the README lists them).
CONDITIONS = {
    "sentence": Readout("words", "the sentence, as its words: lowercase, one space apart, no "
                        "punctuation", "text"),
    "n_tokens": Readout("number", "the number of words n", "words"),
    "n_scores": Readout("number", "the number of scores, n², one per pair of words", "scores"),
    "token": Readout("number", "the selected row, counted from 0", "a word's position"),
    "word": Readout("word", "the selected row's word", "a word"),
    "head": Readout("number", "the head shown, counted from 0", "a head's number"),
    "head_name": Readout("choice", "the head shown, by its name", "a name",
                         choices=lambda: attention.sentences.load_sentence_model().head_names),
    "causal": Readout("bool", "whether the causal mask is on", "true or false"),
    "att_temperature": Readout("number", "the temperature T of the sentence's softmax", "none: a factor"),
    "top_word": Readout("word", "the word the selected row gives the most weight (the first one on a tie)",
                        "a word"),
    "top_weight": Readout("number", "the selected row's largest weight", "share of the weight, 0 to 1"),
    "row_sum": Readout("number", "the selected row's weights added up (1, up to rounding)",
                       "share of the weight"),
    "future_weight": Readout("number", "the weight the selected row gives to the words after it (0 with "
                             "the causal mask)", "share of the weight, 0 to 1"),
    "sense_water": Readout("number", "where the selected word's output lands in the sense plot, across: "
                           "how much water and nature it carries", "the sense plot's units, about 0 to 1"),
    "sense_money": Readout("number", "where the selected word's output lands in the sense plot, up: how "
                           "much money and finance it carries", "the sense plot's units, about 0 to 1"),
}


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


STEP_RULE = "a sentence in a state splits into 1 to 32 words, and its selected word and head exist"


def step_problems(s: dict) -> list[str]:
    """What a tour step's full state ``s`` gets wrong that the settings' bounds cannot say: the selected word
    and head exist in its sentence and the toy model (the page would clamp them; a step says what it means)."""
    n = len(attention.sentences.tokenize(s["sentence"]))
    heads = attention.sentences.load_sentence_model().head_names
    out = []
    if s["token"] > n - 1:
        out.append(f"token: {s['token']} is past the end of the {n}-word sentence (its words are 0 to {n - 1})")
    if s["head"] > len(heads) - 1:
        out.append(f"head: there is no head {s['head']} (the heads are 0 to {len(heads) - 1}: {', '.join(heads)})")
    return out
