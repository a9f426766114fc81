"""The "why attention won" section's readouts for the tour's conditions: the sentence's step counts
(``attention.sequential_steps``) and the lag panel's shipped results (``lag_results`` in app/ideas/view.py,
by ``compare_lag_models``)."""

from __future__ import annotations

import attention
from app.contract import Readout

from .view import lag_results

# The names this section's readouts publish, which a tour step's "when" may compare (the README lists them).
CONDITIONS = {
    "rnn_steps": Readout("number", "the steps in a row an RNN needs for the current sentence (its n words)",
                         "steps"),
    "attention_steps": Readout("number", "the steps attention needs for it: always 1", "steps"),
    "period": Readout("number", "the period the sales pattern repeats with", "days"),
    "top_lag": Readout("number", "the lag with attention's largest learned weight", "days back"),
    "top_lag_weight": Readout("number", "that largest weight", "share of the weight, 0 to 1"),
    "rmse_attention": Readout("number", "attention's error on the 4 held-out weeks (root mean square)",
                              "sales units"),
    "rmse_linear": Readout("number", "the one-lag linear model's error on the held-out weeks (root mean "
                           "square)", "sales units"),
}


def ideas_readouts(s: dict, needs=None, dataset=None) -> dict:
    """The ideas names for the full state ``s``.  ``needs`` and ``dataset`` are not used."""
    counts = attention.sequential_steps(len(attention.sentences.tokenize(s["sentence"])))
    res = lag_results()[str(int(s["period"]))]
    top = int(res["top_lag"])
    return {"rnn_steps": counts["rnn"], "attention_steps": counts["attention"], "period": int(s["period"]),
            "top_lag": top, "top_lag_weight": float(res["weights"][top - 1]),
            "rmse_attention": float(res["rmse_attention"]), "rmse_linear": float(res["rmse_linear"])}
