"""The ideas section's setting (the lag panel's period, a deep-link key with its bounds) and its control."""

from __future__ import annotations

import param

import attention

from app.contract import Control


class IdeasState(param.Parameterized):
    """The ideas section: the lag panel's period."""

    period = param.Integer(attention.lags.DEFAULT_PERIOD, bounds=(3, attention.lags.MAX_LAG),
                           doc="The lag panel's pattern: it repeats every this many days.")


CONTROLS = (Control("period", "lag_period_select", "select", "the pattern repeats every \u2026 days"),)
