"""The routing section's contract (app/contract.py): what the composition builds, what its steps may look
at and what the tour reads."""

from app.contract import SectionContract

from .readouts import CONDITIONS, routing_readouts
from .state import CONTROLS, RoutingState
from .view import build_routing

# The section's plots by the names a person calls them, in the page's order (the figure menu, a step's PNG).
FIGURES = {
    "routing_matrix_plot": "Who looks at whom, as W_Q and W_K learn",
    "routing_sense_plot": "Where the output of bank lands",
    "routing_clue_plot": "Weight of bank on the deciding word, as W_Q and W_K learn",
    "routing_accuracy_plot": "Right answers while W_Q and W_K learn",
}

CONTRACT = SectionContract(
    name="routing", words="W_Q and W_K learning",
    state=RoutingState, controls=CONTROLS,
    build=build_routing, readouts=routing_readouts, conditions=CONDITIONS,
    figures=FIGURES,
    look=('routing_controls', 'routing_play', 'routing_step_slider', 'routing_input', 'routing_weights_box'),
    # what the step cards call them (and the names that end in _plot or _slider: "routing step slider")
    look_words={"routing_matrix_plot": ("matrix",), "routing_sense_plot": ("sense plot",),
                "routing_clue_plot": ("plot of the deciding word",), "routing_accuracy_plot": ("plot of right answers",),
                "routing_step_slider": ("step slider",)},
    setting_units={'qk_sentence': "a sentence's place in the routing section's menu, counted from 0"},
    said_with={"routing_matrix_plot": "routing_readout", "routing_sense_plot": "routing_readout",
               "routing_clue_plot": "routing_status", "routing_accuracy_plot": "routing_status"},
    # in a short frame: Play, Step and the step slider, and the matrix, fitted to the frame
    embed=("routing-controls", "routing-matrix"),
)
