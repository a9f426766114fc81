"""The routing section's settings (deep-link keys with their bounds) and the controls that show them.

The section plays back attention.train_qk (W_Q and W_K learning the sense of "bank") at its defaults: the path's
length and the sentences it shows come from the core and data/senses.json, one definition each.
"""

from __future__ import annotations

import param

import attention

from app.contract import Control

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


# (the menu also offers a sentence of one's own, which no number names: the notebook's parameter does not follow it)
CONTROLS = (Control("qk_sentence", "routing_sentence_select", "select", "sentence", widget="sentence", synced=False),)
