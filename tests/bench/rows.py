"""Report rows for tests/bench/__main__.py, built the same way by every benchmark module.

A row holds ``section``, ``name``, ``median_us``, ``p95_us`` and ``n_runs``, and may add ``target`` (text),
``meets_target`` (bool), ``ratio``, ``count`` and ``note`` (which ends with the machine's load average: the
benchmarks share 2 cores with other work, and every figure says how busy they were).

* ``times_row``: medians and 95th percentiles of times (given in seconds or milliseconds); a sample that
  never arrived is NaN, left out of the statistics and counted in the note.
* ``ratio_row``: one figure against another (no time of its own: the table shows the ratio).
* ``count_row``: a number of things (models, blocks), no time.
"""

from __future__ import annotations

import os

import numpy as np


def load_note() -> str:
    try:
        return "load average %.1f %.1f %.1f" % os.getloadavg()
    except OSError:
        return ""


def _note(*parts) -> str:
    return "; ".join(p for p in (*parts, load_note()) if p)


def p95(values) -> float:
    """The 95th percentile of the finite values (inf when there are none)."""
    a = np.asarray(list(values), dtype=float)
    a = a[np.isfinite(a)]
    return float(np.percentile(a, 95)) if a.size else float("inf")


def median(values) -> float:
    a = np.asarray(list(values), dtype=float)
    a = a[np.isfinite(a)]
    return float(np.median(a)) if a.size else float("nan")


def times_row(section, name, values, *, unit="s", target=None, meets=None, note="", **extra) -> dict:
    """A row from times in ``unit`` ("s" or "ms"); ``meets`` is decided by the caller (median or p95)."""
    scale = {"s": 1e6, "ms": 1e3}[unit]
    a = np.asarray(list(values), dtype=float)
    missing = int(np.sum(~np.isfinite(a)))
    a = a[np.isfinite(a)] * scale
    row = {"section": section, "name": name,
           "median_us": float(np.median(a)) if a.size else None,
           "p95_us": float(np.percentile(a, 95)) if a.size else None, "n_runs": int(a.size)}
    if target is not None:
        row["target"] = target
        row["meets_target"] = bool(meets) and not missing and a.size > 0
    row["note"] = _note(note, f"{missing} never arrived" if missing else "")
    row.update(extra)
    return row


def seconds_row(section, name, seconds, *, target=None, meets=None, note="", **extra) -> dict:
    """``times_row`` in seconds, ``meets`` kept as given (None: no verdict)."""
    row = times_row(section, name, seconds, target=target, meets=meets, note=note, **extra)
    if target is not None and meets is not None:
        row["meets_target"] = bool(meets)
    return row


def ratio_row(section, name, ratio, *, target=None, meets=None, n_runs=1, note="", **extra) -> dict:
    row = {"section": section, "name": name, "median_us": None, "p95_us": None, "n_runs": int(n_runs),
           "ratio": float(ratio)}
    if target is not None:
        row["target"] = target
        row["meets_target"] = bool(meets)
    row["note"] = _note(note)
    row.update(extra)
    return row


def count_row(section, name, count, *, note="", **extra) -> dict:
    row = {"section": section, "name": name, "median_us": None, "p95_us": None, "n_runs": 1, "count": int(count)}
    if note:
        row["note"] = note
    row.update(extra)
    return row


def skipped_row(section, why) -> dict:
    return {"section": section, "name": f"skipped: {why}", "median_us": None, "p95_us": None, "n_runs": 0}
