"""The toy section's one setting and the control that shows it."""

import param

from app.contract import Control


class ToyState(param.Parameterized):
    """How far apart the toy spreads the regression's samples."""

    toy_spread = param.Number(1.0, bounds=(0.5, 2.0), doc="Toy: how far apart the toy plot spreads the samples.")


CONTROLS = (Control("toy_spread", "toy_spread_slider", "slider", "spread", widget="spread"),)
