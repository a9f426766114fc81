"""The W_Q/W_K section's readouts for the tour's conditions: the trained path (``trajectory`` in
app/routing/view.py, by ``attention.train_qk``) at the recorded step at or before ``qk_step``."""

from __future__ import annotations

import numpy as np

import attention
from app.contract import Readout

from .state import QK_SHOWN
from .view import FRAMES, trajectory

# The names this section's readouts publish, which a tour step's "when" may compare (the README lists them).
CONDITIONS = {
    "qk_step": Readout("number", "the training step of W_Q and W_K shown (the page shows the recorded step at "
                       "or before the one asked for)", "steps"),
    "qk_finished": Readout("bool", "the step shown is training's last", "true or false"),
    "qk_playing": Readout("bool", "whether Play is running the training of W_Q and W_K", "true or false",
                          runtime=True),
    "qk_sentence": Readout("words", "the sentence shown (one of the page's, or one the student typed)",
                           "a sentence, as the page splits it"),
    "qk_typed": Readout("bool", "the sentence shown was typed by the student", "true or false"),
    "held_out": Readout("bool", "the sentence shown is not one training saw", "true or false"),
    "bank_top_word": Readout("word", "the word bank gives the most weight", "a word"),
    "bank_top_weight": Readout("number", "that weight", "share of the weight, 0 to 1"),
    "bank_sense": Readout("word", "where bank's output lands: water, money or undecided", "a word"),
}


def routing_readouts(s: dict, needs=None, dataset=None) -> dict:
    """The routing names for the full state ``s``, read on the shown sentence.  ``needs`` and ``dataset`` are
    not used."""
    tr = trajectory()
    frames = tr.frames(FRAMES)
    step = max(f for f in frames if f <= int(s["qk_step"]))
    text = QK_SHOWN[min(int(s["qk_sentence"]), len(QK_SHOWN) - 1)]
    r = attention.sense_readout(text, tr.w_q[step], tr.w_k[step])
    tokens = attention.tokenize(text)
    top = int(np.argmax(r.weights))
    trained = {" ".join(attention.tokenize(t.text)) for t in attention.load_sense_corpus().train}
    return {"qk_step": int(step), "qk_finished": bool(step == frames[-1]), "qk_sentence": " ".join(tokens),
            "qk_typed": False, "held_out": bool(" ".join(tokens) not in trained), "bank_top_word": tokens[top],
            "bank_top_weight": float(r.weights[top]), "bank_sense": r.sense}
