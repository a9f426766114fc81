"""The learning section's contract (app/contract.py): what the composition builds, what its steps may look
at and what the tour reads."""

from app.contract import SectionContract

from .readouts import CONDITIONS, learning_readouts
from .state import CONTROLS, LearningState
from .view import build_learning

# The section's plots by the names a person calls them, in the page's order (the figure menu, a step's PNG).
FIGURES = {
    "learn_fit_plot": "The fit, as h is learned",
    "learn_path_plot": "Gradient descent on h",
    "learn_loss_plot": "Loss at each step of learning h",
    "metric_plot": "The learned metric's similarity",
    "metric_loss_plot": "Loss at each step of learning the metric",
}

CONTRACT = SectionContract(
    name="learning", words="learning the kernel",
    state=LearningState, controls=CONTROLS,
    build=build_learning, readouts=learning_readouts, conditions=CONDITIONS,
    figures=FIGURES,
    look=('learn_bw_controls', 'learn_bw_status', 'learn_metric_controls'),
    reads=('dataset',),
    said_with={"learn_path_plot": "learn_bw_readout", "metric_plot": "learn_metric_readout"},
    embed=("learning-bandwidth-head", "learning-bandwidth"), embed_leaves_out=("learn_loss_plot",),
    needs=("regression",),
    # it plays its paths on the regression's bandwidth slider and draws on its plots
    borrows={"regression": ("ds", "curve", "hcurve", "w_logh", "w_logt", "w_kernel", "w_link", "main_plot",
                            "bias_variance_plot", "add_bias_legend")},
)
