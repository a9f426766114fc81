"""The self-attention section's settings (deep-link keys with their bounds) and the controls that show them."""

from __future__ import annotations

import param

from app.contract import Control


class SentenceState(param.Parameterized):
    """The self-attention view (a later section of the page)."""

    sentence = param.String("the bank by the river", doc="The sentence whose attention matrix is shown.")
    token = param.Integer(1, bounds=(0, 31), doc="Selected token (row of the matrix).")
    head = param.Integer(0, bounds=(0, 3), doc="Selected head.")
    att_temperature = param.Number(1.0, bounds=(0.01, 100.0), doc="Temperature of the sentence's softmax.")
    causal = param.Boolean(False, doc="Causal mask: each token sees only itself and the past.")


CONTROLS = (
    Control("sentence", "sentence_input", "text", "your own sentence", widget="input"),
    Control("token", "token_select", "select", "query word (row)"),
    Control("head", "head_select", "radio", "head"),
    Control("att_temperature", "att_temperature_slider", "log_slider", "temperature T", widget="temperature"),
    Control("causal", "causal_toggle", "toggle", "causal mask: each word sees only itself and earlier words"),
)
