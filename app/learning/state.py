"""The learning section's settings (deep-link keys with their bounds) and the controls that show them."""

from __future__ import annotations

import param

import attention

from app.contract import Control

# Learning rates offered by the "learn the kernel" section (strings, so a link carries them exactly).
BANDWIDTH_LR_PRESETS = ("0.5", "2", "10", "20", "50", "300")   # on log h; 300 diverges on the default dataset
METRIC_LR_PRESETS = ("0.5", "2", "10", "100", "3000", "100000")  # on W; 3000 gets stuck, 100000 diverges
# The paths' lengths: the core's defaults, one definition (the learning engine gets them in its config, the
# deep link's bounds below follow them).
BANDWIDTH_TRAIN_STEPS = attention.learn.DEFAULT_BANDWIDTH_STEPS   # 60
METRIC_TRAIN_STEPS = attention.learn.DEFAULT_METRIC_STEPS         # 150


class LearningState(param.Parameterized):
    """The learning section: gradient descent on the bandwidth and on a 2-D metric, played back step by step."""

    lr = param.Selector(default="2", objects=list(BANDWIDTH_LR_PRESETS),
                        doc="Learning rate of gradient descent on log h (one of the presets).")
    step = param.Integer(0, bounds=(0, BANDWIDTH_TRAIN_STEPS), doc="Step of the bandwidth's training path shown.")
    metric_lr = param.Selector(default="2", objects=list(METRIC_LR_PRESETS),
                               doc="Learning rate of gradient descent on the metric W (one of the presets).")
    metric_step = param.Integer(0, bounds=(0, METRIC_TRAIN_STEPS), doc="Step of the metric's training path shown.")


CONTROLS = (
    Control("lr", "learn_lr_select", "select", "learning rate (on log h)", synced=False),
    Control("metric_lr", "metric_lr_select", "select", "learning rate (on W)", synced=False),
)
