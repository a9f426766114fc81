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
    takes=("notices", "dataset", "figure_menu"),
    aligned=("main_plot", "weights_plot", "entropy_x_plot"),
    show_me="glide",
    untoured_choices={"dataset": ("generated",)},   # a step's data are a shipped dataset
    readouts_on_bus=False,     # the card asks for its numbers (too costly to publish at every drag)
    tour_hears=("present",),   # presentation mode: the presenter's keys turn the steps
    card_models={"data": "dataset", "data_menu": "dataset_select", "more": "more_controls", "drag": "main_plot",
                 "notices": "notices"},
    lends={
        "ds": "the samples shown (x, y), which the engine swaps for the generator's or your own",
        "curve": "the prediction and the truth across the queries' range, as the engine draws them",
        "hcurve": "the leave-one-out error against h",
        "w_logh": "the bandwidth slider (log10 h)", "w_logt": "the temperature slider (log10 T)",
        "w_kernel": "the similarity menu", "w_link": "the check box that links h and T",
        "main_plot": "the plot of the samples, the query and the prediction",
        "bias_variance_plot": "the plot of bias and variance against h",
        "add_bias_legend": "add an entry to the bias-variance plot's legend: (label, colour, line)",
    },
)
