"""The toy section's contract: what it offers the page, and what it borrows of the regression's."""

from app.contract import Readout, SectionContract

from .state import CONTROLS, ToyState
from .view import build_toy

CONDITIONS = {"toy_spread": Readout("number", "how far apart the toy plot spreads the samples", "none: a factor")}


def toy_readouts(s: dict, needs=None, dataset=None) -> dict:
    """The toy's one name, for its full state."""
    return {"toy_spread": float(s["toy_spread"])}


CONTRACT = SectionContract(
    name="toy", words="a toy section",
    state=ToyState, controls=CONTROLS,
    build=build_toy, readouts=toy_readouts, conditions=CONDITIONS,
    figures={"toy_plot": "The samples, spread"},
    borrows={"regression": ("ds",)},
)
