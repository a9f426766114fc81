"""The page's one colour scale for attention weights, which the self-attention and the W_Q/W_K sections share.

The weight itself, 0 (dark) to 1 (bright), ``theme.WEIGHT_PALETTE`` in ten steps.  A number printed in a cell is
black from 0.5 up (the palette's brighter half) and white below: every step of the palette keeps 4.8 : 1 or more
against its number.
"""

from __future__ import annotations

from bokeh.models import ColorBar, FixedTicker

CELL_TEXT = {"from": 0.5, "dark": "#000000", "light": "#FFFFFF"}


def weight_colour_bar(cmap, tick: str):
    """The colour bar of an attention matrix: the weight itself, from 0 to 1 (the page's one scale)."""
    return ColorBar(color_mapper=cmap, width=10, title="weight", title_text_font_size=tick,
                    major_label_text_font_size=tick, ticker=FixedTicker(ticks=[0, 0.5, 1]), padding=4,
                    name="weight_colour_bar")
