"""The toy section's view: one plot of the regression's samples (borrowed through the contract), one slider."""

from dataclasses import dataclass, field
from pathlib import Path

from bokeh.models import CustomJS
from bokeh.plotting import figure

from app.ui.controls import build_control
from app.ui.engine import by_name, engine_callback, engine_code
from app.ui.layout import Block

from .state import CONTROLS

HERE = Path(__file__).resolve().parent


@dataclass
class ToyView:
    blocks: list
    engine: CustomJS
    widgets: dict
    named: dict = field(default_factory=dict)


def build_toy(state, *, regression: dict | None) -> ToyView:
    """The toy section for ``state``; ``regression``: what it borrows of the regression section (its samples)."""
    fig = figure(height=200, sizing_mode="stretch_width", tools="", name="toy_plot", title="The samples, spread")
    fig.scatter("x", "y", source=regression["ds"])
    spread = build_control(CONTROLS[0], state)
    engine = engine_callback({"w_spread": spread, "fig": fig}, engine_code(HERE / "engine.js", "Toy.handle",
                                                                           ["w_spread", "fig"]))
    spread.js_on_change("value", engine)
    blocks = [Block("toy-plot", fig, "body", height=200), Block("toy-controls", spread, "body", height=60)]
    named = {**by_name(fig), **by_name(spread)}
    return ToyView(blocks=blocks, engine=engine, widgets={"spread": spread}, named=named)
