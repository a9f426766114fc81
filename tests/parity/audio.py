"""The audio graph's rule (app/ui/audiograph.js AttnAudio.tones) in Python, for tests/js's twin check and the
browser's test of what the page plays."""

from __future__ import annotations

import numpy as np


def tones_of(x, w, lo, hi, sound) -> list[dict]:
    """The audio graph's tones, by the rule its file states: samples in x order, gathered into ``bins`` equal
    stretches of the plot when there are more, each tone's weight their sum; pitch from ``low`` to ``high`` on a log
    scale as that weight goes from 0 to the largest tone's, silent under ``quietest`` of it; panned by x."""
    x, w = np.asarray(x, float), np.asarray(w, float)
    order = np.argsort(x, kind="stable")
    n = len(x)
    count = min(n, sound["bins"])
    if n > sound["bins"]:
        b = np.clip(np.floor((x[order] - lo) / (hi - lo) * count), 0, count - 1).astype(int)
        weight = np.bincount(b, weights=w[order], minlength=count)
        at = lo + (np.arange(count) + 0.5) * (hi - lo) / count
    else:
        weight, at = w[order], x[order]
    top, dur = weight.max(), sound["seconds"] / count
    out = []
    for k in range(count):
        share = weight[k] / top
        if share < sound["quietest"]:
            continue
        out.append({"start": k * dur, "dur": 0.9 * dur, "freq": sound["low"] * (sound["high"] / sound["low"]) ** share,
                    "pan": float(np.clip(2 * (at[k] - lo) / (hi - lo) - 1, -1, 1)),
                    "gain": sound["floor"] + (sound["gain"] - sound["floor"]) * share, "weight": weight[k]})
    return out
