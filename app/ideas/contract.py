"""The ideas section's contract (app/contract.py): what the composition builds, what its steps may look
at and what the tour reads."""

from app.contract import SectionContract

from .readouts import CONDITIONS, ideas_readouts
from .state import CONTROLS, IdeasState
from .view import build_ideas

# The section's plots by the names a person calls them, in the page's order (the figure menu, a step's PNG).
FIGURES = {
    "dependency_graph": "Steps in a row: an RNN against attention",
    "sequence_timing_plot": "Time: one step after another against all at once",
    "sequence_counts_plot": "Steps and scores against the number of words",
    "lag_weights": "Attention's weights on the past days",
    "lag_predictions": "Predictions for the held-out weeks",
}

CONTRACT = SectionContract(
    name="ideas", words="why attention won",
    state=IdeasState, controls=CONTROLS,
    build=build_ideas, readouts=ideas_readouts, conditions=CONDITIONS,
    figures=FIGURES,
    reads=('sentence',),
    borrows={"sentence": ("tokens_src",)},   # its dependency graphs follow the sentence section's words
    # what the step cards call them
    look_words={"lag_weights": ("bar of attention's weights", "bars of attention's weights", "tallest bar"),
                "lag_predictions": ("plot of the predictions",)},
    said_with={"dependency_graph": "graph_caption", "lag_weights": "lag_errors", "lag_predictions": "lag_errors"},
    embed=("ideas-lag",),
)
