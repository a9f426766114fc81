"""The regression section's settings (the deep link's keys, with their bounds) and the controls that show them.

A new control of this section is one ``Control`` in ``CONTROLS`` and its parameter in ``RegressionState``, plus
the engine code that makes it do something (app/contract.py says what follows from the declaration).
"""

from __future__ import annotations

import param

import attention
from attention.datasets import FUNCTIONS, MAX_GENERATED_N, X_RANGE

from app.contract import Control


class RegressionState(param.Parameterized):
    """The kernel-regression view: one query, one kernel, one dataset."""

    query = param.Number(3.2, bounds=X_RANGE, doc="Query position x.")
    bandwidth = param.Number(0.62, bounds=(0.005, 50.0), doc="Bandwidth h of the similarity (log slider).")
    temperature = param.Number(1.0, bounds=(0.001, 1000.0), doc="Softmax temperature T (log slider).")
    kernel = param.Selector(default="gaussian", objects=["gaussian", "dot"],
                            doc="gaussian, or dot product on circle-embedded (equal-norm) keys.")
    key_norm = param.Number(0.0, bounds=(-0.25, 0.25),
                            doc="Dot kernel only: tilt of the key norms (key i's length times exp(key_norm * u_i), "
                                "u_i from -1 to 1 across the keys); 0 keeps them equal.  At the default h the "
                                "nearest key stops winning near 0.07 and one long key wins everywhere from 0.2.")
    dataset = param.Selector(default="default", objects=attention.list_datasets() + ["generated"],
                             doc="A shipped dataset, or 'generated' from fn, n, noise and seed.")
    fn = param.Selector(default="wave", objects=list(FUNCTIONS), doc="Generator: the true function.")
    n = param.Integer(50, bounds=(2, MAX_GENERATED_N), doc="Generator: number of samples.")
    noise = param.Number(0.3, bounds=(0.0, 2.0), doc="Generator: noise standard deviation.")
    seed = param.Integer(0, bounds=(0, 2**31 - 1), doc="Generator: random seed.")
    link = param.Boolean(False, doc="Link h and T: moving one rescales the other so h*sqrt(T) stays put.")
    limits = param.Boolean(False, doc="Show the 1-nearest-neighbour curve and the global mean.")
    kernel_shape = param.Boolean(True, doc="Draw the kernel's shape through the tops of the weight stems.")
    present = param.Boolean(False, doc="Presentation mode: larger fonts and markers for a projector.")


# The settings a tour step may not set: the generator's (a step's dataset is a shipped one) and presentation mode
# (the lecturer's, not the lesson's).
UNTOURED = ("fn", "n", "noise", "seed", "present")

CONTROLS = (
    Control("query", "query_slider", "slider", "query x"),
    Control("bandwidth", "bandwidth_slider", "log_slider", "bandwidth h", widget="logh"),
    Control("temperature", "temperature_slider", "log_slider", "temperature T", widget="logt"),
    Control("kernel", "kernel_select", "select", "similarity (kernel)", role="more"),
    Control("key_norm", "keynorm_slider", "slider", "key-norm tilt (0 = keys of equal length)", role="more",
            widget="keynorm"),
    Control("dataset", "dataset_select", "select", "dataset", role="more"),
    Control("link", "link_toggle", "toggle", "link h and T (one knob)", role="more"),
    Control("limits", "limits_toggle", "toggle", "show 1-NN curve and global mean", role="more"),
    Control("kernel_shape", "kernel_shape_toggle", "toggle", "show the kernel's shape", role="more"),
    Control("present", "present_toggle", "toggle", "presentation mode", role="more"),
    Control("fn", "generator_fn", "select", "true function", role="generator"),
    Control("n", "generator_n", "number", "samples n", role="generator"),
    Control("noise", "generator_noise", "number", "noise", role="generator"),
    Control("seed", "generator_seed", "number", "seed", role="generator"),
)
