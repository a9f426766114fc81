"""The self-attention figures' sizes for a sentence, on a screen (twin of app/sentence/sizes.js, held to it by
tests/browser/test_parity.py)."""

from __future__ import annotations

import math

MINI_SIZE = 170   # px: each head's small matrix, whatever the sentence's length
# The page's one colour scale for attention weights, shared with the W_Q/W_K section: app/ui/weights.py.

# The selected word's output label in the sense plot (drawing.js outputLabel): ``gap`` px above or below its dot
# (more than the dot's and the diamond's half height, 9 px, so neither marker covers it), leaning ``lean`` px
# past the dot's centre; the y range keeps ``margin`` times the points' span above and below them for it.
SENSE_LABEL = {"gap": 12, "lean": 8, "margin": 0.2}


def _js_round(x: float) -> int:
    return math.floor(x + 0.5)     # JavaScript's Math.round (Python's round() halves to even)


# The matrix's sizes, one definition for Python (geometry) and the engine (sizes, in sizes.js, which gets
# them through the config).  Pairs are (normal, presentation mode).
GEOMETRY = {
    "present_scale": 1.3,        # presentation mode: cells 1.3 x larger
    "room": 440,                 # px the cells fill on a wide screen ...
    "room_margin": 150,          # ... and at most the screen's width minus this on a narrow one
    "cell_range": (20, 56),      # px per cell: never under 20 (a long sentence scrolls instead), never over 56
    "sums_px": (38, 62),         # px for the row sums right of the cells: "1.000" is 2.9 em (37 px, 57 projected)
    "sums_pad": 0.15,            # cells
    "char_px": (7, 10),          # px per character of a word's label
    "labels_px": (150, 230),     # the box around the matrix: labels and colour bar
    "box_min": 260,              # px, the box's smallest width
    "narrow_width": 600,         # px: under this screen width the colour bar and the rows' axis title are left
    "narrow_px": 85,             # out (the cells print their weights; the note says rows are queries): px saved
    "screen_margin": 32,         # px kept free beside the box on a narrow screen
    "label_pad": 4,              # px: a label turns vertical when it is wider than its cell minus this
    "bars_px": 300,              # px: the bar chart's width, for its labels
    "height_margin": (300, 420), # px of the screen's height kept for the knobs and the labels around the cells
    "embed_labels": (205, 270),  # px of a short frame's matrix block besides its cells, until it is drawn (sizes.js)
    # px: a cell prints its weight only when it is at least this big: "0.00" is 2.2 em wide in the page's font,
    # 29 px at the text glyphs' 13 px and 45 px at their 20 px projected (app/ui/theme.py present_text_size)
    "numbers_cell": (34, 52),
}


def geometry(tokens, *, present: bool = False, inner_width: int = 1280, inner_height: float = math.inf) -> dict:
    """The matrix's sizes for a sentence: the twin of ``sizes`` in app/sentence/sizes.js (both read GEOMETRY).

    Used for the opening sentence, so that on a wide screen the engine finds nothing to resize when the
    page starts (each resize lays out the whole page).  The cells also fit the screen's height (a small
    projector in presentation mode): n cells at most the height minus ``height_margin``.
    """
    G, i = GEOMETRY, int(bool(present))
    n = len(tokens)
    longest = max(len(t) for t in tokens)
    big = G["present_scale"] if present else 1.0
    room = min(G["room"], inner_width - G["room_margin"])
    lo, hi = G["cell_range"]
    cell = _js_round(min(max(math.floor(room / (n + 1)), lo), hi) * big)
    tall = math.floor((inner_height - G["height_margin"][i]) / n) if math.isfinite(inner_height) else cell
    cell = max(lo, min(cell, tall))
    extra = G["sums_pad"] + G["sums_px"][i] / cell
    frame_width = _js_round((n + extra) * cell)
    px = G["char_px"][i]
    narrow = inner_width < G["narrow_width"]
    want = frame_width + longest * px + G["labels_px"][i] - (G["narrow_px"] if narrow else 0)
    box = _js_round(max(G["box_min"], min(want, inner_width - G["screen_margin"])))
    return {"cell": cell, "extra": extra, "frame_width": frame_width, "frame_height": n * cell, "box": box,
            "narrow": narrow,
            "heat_vertical": longest * px > cell - G["label_pad"],
            "bars_vertical": longest * px > G["bars_px"] / n - G["label_pad"]}
