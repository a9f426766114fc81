"""The "why attention won" section's readouts for the tour's conditions: the sentence's step counts
(``attention.sequential_steps``) and the lag panel's shipped results (``lag_results`` in app/ideas/view.py,
by ``compare_lag_models``)."""

from __future__ import annotations

import attention

from .view import lag_results


def ideas_readouts(s: dict, needs=None, dataset=None) -> dict:
    """The ideas names for the full state ``s``.  ``needs`` and ``dataset`` are not used."""
    counts = attention.sequential_steps(len(attention.sentences.tokenize(s["sentence"])))
    res = lag_results()[str(int(s["period"]))]
    top = int(res["top_lag"])
    return {"rnn_steps": counts["rnn"], "attention_steps": counts["attention"], "period": int(s["period"]),
            "top_lag": top, "top_lag_weight": float(res["weights"][top - 1]),
            "rmse_attention": float(res["rmse_attention"]), "rmse_linear": float(res["rmse_linear"])}
