"""The learning section's sentences in the sweep: where training starts (app/learning/text.py start_sentence, twin
LearningText.startSentence) and a refused step (text.refusal_text, twin AttnTrain.refusalText), with the claims that
check them against the numpy core (attention.typical_focus, attention.train_bandwidth).

The page says where training starts once per dataset: at the path's first h, H0 = 0.15 on the sliders' scale (T = 1:
with T != 1 the path is followed in h·√T and the sentence says "h·√T = 0.15"), in the data's units on your own
data (text.h_text), with the typical largest weight and effective points of attention.typical_focus over the
regression curve's x grid (view.py start_focus).  The words mean, against the core's typical numbers:

- "nearly copies its nearest sample": the largest weight is 0.90 or more at the digits shown, the effective points
  below 1.5, and every query's heaviest sample is its nearest;
- "leans mostly on its nearest sample": more than half of the weight (above 0.50, below 0.90), on the nearest
  sample, and the effective points shown are the core's;
- "mixes its nearest few samples": 0.20 up to 0.55, on the nearest sample, fewer than 10 effective points;
- "averages about N samples": below 0.20 and at least 5 effective points.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

import attention
from attention import learn
from app.learning import text as LT
from app.learning import view as LV
from app.learning.state import BANDWIDTH_LR_PRESETS, METRIC_LR_PRESETS
from tests.app.sweep import states as S
from tests.app.sweep.claims import NUM, bump_group, claim, swap

HNAMES = ("h", "h\u00b7\u221aT")      # T = 1, and any other T
REFUSED_LR = "300"                    # the preset the core refuses on the shipped data


@dataclass(frozen=True)
class Start:
    """Where training starts on one dataset, as the page writes it (``hname``: "h" at T = 1, else "h·√T")."""

    name: str
    hname: str
    h: float = LV.H0

    @property
    def data(self) -> S.Data:
        return S.dataset(self.name)

    @property
    def focus(self):
        return focus_of(self.name, self.h)

    def start_text(self) -> str:
        """The start as the page writes it (text.h_text, bandwidth.js hText): h on the sliders' scale, or in the
        data's units on your own data (four significant digits)."""
        d = self.data
        h = LT.h_text(self.h, 4, d.scale, d.own.x_name) if d.units else LT.h_text(self.h, 4)
        return f"{self.hname} = {h}"

    def case(self) -> dict:
        """The state as tests/js/sentences.js ``learning`` takes it."""
        d = self.data
        c = {"x": d.x.tolist(), "h": self.h, "hname": self.hname}
        if d.units:
            c.update(scale={"span": d.scale.span, "uspan": d.scale.uspan}, x_name=d.own.x_name)
        return c

    def nearest_heaviest(self) -> bool:
        """Every query of the grid puts its largest weight on its nearest sample."""
        return nearest_heaviest(self.name, self.h)


@cache
def focus_of(name: str, h: float):
    return LV.start_focus(S.dataset(name).x, h)


@cache
def nearest_heaviest(name: str, h: float) -> bool:
    x, grid = S.dataset(name).x, np.linspace(*LV.FOCUS_GRID)
    w = attention.weights(grid, x, bandwidth=h)
    near = np.abs(grid[:, None] - x[None, :])
    return bool(np.all(near[np.arange(len(grid)), np.argmax(w, axis=1)] <= near.min(axis=1) + 1e-9))


def starts() -> list[Start]:
    return [Start(name, hn) for name in S.DATASETS for hn in HNAMES]


def start_python(s: Start) -> str:
    f = s.focus
    return LT.start_sentence(s.start_text(), f.max_weight, f.effective_points)


# ---- the claims ---------------------------------------------------------------------------------------------------

def _where(m, s: Start) -> bool:
    """The start: the name of h for the state's T, and the path's first h (attention.train_bandwidth starts at H0)
    in the data's units on your own data, at the digits shown; the typical largest weight at the digits shown."""
    d, f = s.data, s.focus
    h = d.scale.h_to_units(s.h) if d.units else s.h
    unit_ok = m["unit"] == (d.own.x_name if d.units else None)
    return (m["hname"] == s.hname and S.same_sig(m["h"], h, 4) and unit_ok and s.h == start_h(s.name)
            and S.same_at_digits(m["mw"], f.max_weight))


@cache
def start_h(name: str) -> float:
    """The first h of the core's path on the dataset (any preset: the start is the same)."""
    d = S.dataset(name)
    return float(attention.train_bandwidth(d.x, d.y, h0=LV.H0, learning_rate=0.5, steps=1).h[0])


def _points(m, s: Start) -> bool:
    return S.same_at_digits(m["p"], s.focus.effective_points)


START = (r"Training starts at (?P<hname>h|h\u00b7\u221aT) = (?P<h>" + NUM + r")(?: \((?P<unit>[^)]+)\))?, where the "
         r"largest weight a query gives is typically (?P<mw>\d\.\d\d): it ")


def _shown(m) -> float:
    return S.parse_number(m["mw"])


LEARNING = [
    claim("start: nearly copies its nearest sample",
          START + r"nearly copies its nearest sample\.",
          lambda m, s: (_where(m, s) and _shown(m) >= 0.9 and s.focus.effective_points < 1.5
                        and s.nearest_heaviest()),
          "the typical largest weight moves by one unit in its last digit", bump_group("mw")),
    claim("start: leans mostly on its nearest sample",
          START + rf"leans mostly on its nearest sample, and effectively consults about (?P<p>{NUM}) samples\.",
          lambda m, s: _where(m, s) and _points(m, s) and 0.5 < _shown(m) < 0.9 and s.nearest_heaviest(),
          "the effective points move by one unit in their last digit", bump_group("p")),
    claim("start: mixes its nearest few samples",
          START + rf"mixes its nearest few samples, effectively about (?P<p>{NUM}) of them\.",
          lambda m, s: (_where(m, s) and _points(m, s) and 0.2 <= _shown(m) < 0.55 and s.nearest_heaviest()
                        and s.focus.effective_points < 10),
          "the effective points move by one unit in their last digit", bump_group("p")),
    claim("start: averages about N samples",
          START + rf"averages about (?P<p>{NUM}) samples\.",
          lambda m, s: _where(m, s) and _points(m, s) and _shown(m) < 0.2 and s.focus.effective_points >= 5,
          "the effective points move by one unit in their last digit", bump_group("p")),
]


# ---- a refused step (lr 300 on the shipped data) -------------------------------------------------------------------

@dataclass(frozen=True)
class Refused:
    """The bandwidth's path at a learning rate on one dataset, and its first refused step (the page's note:
    "Step k: ...", bandwidth.js bwReadout)."""

    name: str
    lr: str = REFUSED_LR
    what = "h"                   # what the message says would leave its range
    kept = "h"                   # what the note says is kept
    presets = BANDWIDTH_LR_PRESETS

    @property
    def path(self):
        return bandwidth_path(self.name, self.lr)

    @property
    def step(self) -> int:
        return int(np.flatnonzero(np.asarray(self.path.status) == "diverged")[0])

    def proposed_log(self) -> float:
        """log h after the refused step: it moves by −(learning rate × slope) from the last good step."""
        p, k = self.path, self.step
        return float(np.log(p.h[k - 1]) - float(self.lr) * p.grad[k - 1])

    def too_large(self) -> bool:
        """The core does not take the exponential: log h of 700 or more (attention.learn's cut-off)."""
        return self.proposed_log() >= 700.0

    def kept_last_good(self) -> bool:
        return self.path.h[self.step] == self.path.h[self.step - 1]

    def case(self) -> dict:
        d = S.dataset(self.name)
        return {"x": d.x.tolist(), "y": d.y.tolist(), "lr": self.lr, "h0": LV.H0, "steps": LV.STEPS,
                "presets": list(BANDWIDTH_LR_PRESETS)}


@dataclass(frozen=True)
class MetricRefused(Refused):
    """The metric's path (view.metric_trajectory) at its largest preset, which the core refuses."""

    name: str = "metric2d"
    lr: str = METRIC_LR_PRESETS[-1]
    what = "1/||W|| (the metric's length scale)"
    kept = "W"
    presets = METRIC_LR_PRESETS

    @property
    def path(self):
        return metric_path(self.lr)

    def proposed_log(self) -> float:
        """log 1/||W|| after the refused step, W moved by −(learning rate × gradient) from the last good step."""
        p, k = self.path, self.step
        size = float(np.linalg.norm(p.W[k - 1] - float(self.lr) * p.grad[k - 1]))
        return -math.log(size) if 0 < size < math.inf else (math.inf if size == 0 else -math.inf)

    def too_large(self) -> bool:
        return self.proposed_log() == math.inf

    def kept_last_good(self) -> bool:
        return bool(np.array_equal(self.path.W[self.step], self.path.W[self.step - 1]))


@cache
def bandwidth_path(name: str, lr: str):
    d = S.dataset(name)
    return attention.train_bandwidth(d.x, d.y, h0=LV.H0, learning_rate=float(lr), steps=LV.STEPS)


@cache
def metric_path(lr: str):
    m = learn.load_metric_dataset()
    return attention.train_metric(m.X, m.y, W0=np.eye(2), learning_rate=float(lr), steps=LV.METRIC_STEPS)


def refused() -> list[Refused]:
    """Every dataset of the sweep whose path refuses a step at the refused preset."""
    return [r for r in map(Refused, S.DATASETS) if "diverged" in list(r.path.status)]


def refusal_note(k: int, message: str, kept: str = "h") -> str:
    """The page's note on a refused step (bandwidth.js bwReadout, metric.js)."""
    return f"Step {k}: {message}. The last good {kept} is kept."


def refusal_python(r: Refused) -> list[str]:
    """The page's notes on the path's refused steps, the messages written by text.refusal_text."""
    p = r.path
    return [refusal_note(k, LT.refusal_text(m, p.learning_rate, r.presets), r.kept)
            for k, m in enumerate(p.message) if m]


def _would_become(m, r: Refused) -> bool:
    """Where it would go, at the digits shown: below the range's floor ("almost 0"), too large for the core to
    compute, or a number above the range."""
    u = r.proposed_log()
    if m["almost"]:
        return u < math.log(float(m["floor"])) and float(m["floor"]) == float(m["lo"])
    if m["huge"]:
        return r.too_large()
    return not r.too_large() and S.same_sig(m["hv"], math.exp(u)) and math.exp(u) > float(m["hi"])


def _range(m) -> bool:
    """The range is the core's (attention.learn H_MIN, H_MAX)."""
    return float(m["lo"]) == attention.learn.H_MIN and float(m["hi"]) == attention.learn.H_MAX


def _pick(m, r: Refused) -> bool:
    below = [p for p in r.presets if float(p) < float(r.lr)]
    return m["lr"] == r.lr and m["pick"] == max(below, key=float) and m["what"] == r.what


REFUSAL = [
    claim("refused: the step, where h or 1/||W|| would go, the rate and the one to pick",
          r"Step (?P<k>\d+): step refused: (?P<what>h|1/\|\|W\|\| \(the metric's length scale\)) would become "
          r"(?:about (?P<hv>" + NUM + r")|(?P<almost>almost 0 \(below (?P<floor>[\d.]+)\))|(?P<huge>too large to "
          r"compute)), outside the range (?P<lo>[\d.]+) to "
          r"(?P<hi>[\d.]+); learning rate too large \u2014 lower it \(learning rate (?P<lr>[\d.]+), pick "
          r"(?P<pick>[\d.]+) or less from the list\)\.",
          lambda m, r: (int(m["k"]) == r.step and _would_become(m, r) and _range(m) and _pick(m, r)),
          "the step moves by one", bump_group("k")),
    claim("refused: the last good h (or W) is kept",
          r"The last good (?P<which>h|W) is (?P<kept>kept|dropped)\.",
          lambda m, r: m["which"] == r.kept and m["kept"] == "kept" and r.kept_last_good(),
          "\"kept\" for \"dropped\"", swap("is kept", "is dropped")),
]

for c in LEARNING + REFUSAL:
    if hasattr(c.mutate, "group"):
        c.mutate.pattern = c.pattern

__all__ = ["Start", "Refused", "MetricRefused", "starts", "refused", "start_python", "refusal_python", "LEARNING",
           "REFUSAL", "HNAMES", "REFUSED_LR"]
