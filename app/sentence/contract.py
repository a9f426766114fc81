"""The self-attention section's contract (app/contract.py): what the composition builds, what its steps may look
at and what the tour reads."""

from app.contract import SectionContract

from .readouts import CONDITIONS, STEP_RULE, sentence_readouts, step_problems
from .state import CONTROLS, SentenceState
from .view import build_sentence

# The section's plots by the names a person calls them, in the page's order (the figure menu, a step's PNG).
FIGURES = {
    "attention_heatmap": "Attention matrix",
    "row_bars": "Weights of the selected row",
    "sense_plot": "Where the selected word's output lands",
    "cost_plot": "Scores against the number of words",
    "timing_plot": "Measured time against the number of words",
}

CONTRACT = SectionContract(
    name="sentence", words="self-attention",
    state=SentenceState, controls=CONTROLS,
    build=build_sentence, readouts=sentence_readouts, conditions=CONDITIONS,
    figures=FIGURES,
    look=("heads_box", "sentence_controls", "preset_select"),
    # the matrix's box, which scrolls sideways on a phone when the sentence is long
    look_models={"attention_heatmap": "matrix_box"},
    # what the step cards call them (and the names that end in _plot or _slider: "cost plot")
    look_words={"attention_heatmap": ("attention matrix", "matrix"), "sense_plot": ("sense plot", "sense plane"),
                "heads_box": ("small matrix", "small matrices"), "att_temperature_slider": ("temperature slider",)},
    # the chosen word's row and output in words (the readouts beside the matrix)
    said_with={"attention_heatmap": "sentence_readouts", "row_bars": "sentence_readouts",
               "sense_plot": "sentence_readouts"},
    # in a short frame: the sentence's knobs and the matrix
    embed=("sentence-knobs", "sentence-matrix"), embed_leaves_out=("matrix_note",),
    # a step's selected word and head exist in its sentence and the toy model
    step_check=step_problems, step_rule=STEP_RULE,
    lends={"tokens_src": "the words of the sentence shown, as the engine splits them"},
)
