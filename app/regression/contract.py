"""The regression section's contract (app/contract.py): what the composition builds, what its steps may look
at and what the tour reads."""

from app.contract import SectionContract

from .readouts import CONDITIONS, regression_readouts
from .state import CONTROLS, UNTOURED, RegressionState
from .text import FIGURES
from .view import build_regression


CONTRACT = SectionContract(
    name="regression", words="kernel regression",
    state=RegressionState, controls=CONTROLS,
    build=build_regression, readouts=regression_readouts, conditions=CONDITIONS,
    figures=FIGURES,
    # what the tour's cards call them, besides their names in words ("weights plot")
    look_words={"main_plot": ("plot",), "bias_variance_plot": ("bias and variance plot",)},
    look=("readouts",), untoured=UNTOURED,
    # the line under the main plot, which stays in view with it on every screen
    look_models={"readouts": "readout_strip"},
    # where the error plot's curves are lowest and where its marker stands (the line under it)
    said_with={"bias_variance_plot": "bias_words"},
    # in a short frame: the plot, fitted to the frame, and its sliders under the readout line
    embed=("regression-plot", "regression-controls"),
)
