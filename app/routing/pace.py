"""The routing section's pace of Play: how long each recorded frame of the path stays on screen.

Training settles its answers early (the accuracy reaches its final value, 40 of 40, by step 18 of 150) and
spends the rest of the path sharpening the weights.  Play spends its time where the learning is: LEARNING_MS
on each frame before the accuracy first reaches its final value, SETTLED_MS on each one after, and a hold of
HOLD_MS on the moment the shown sentence's deciding word first gets half of the ambiguous word's weight.

Computed here, from the core's training record, and handed to the page as one list of milliseconds per
sentence: the page walks the list (playback.js ``dueFrame``) and needs no twin of these rules, and the tests
check the schedule the page plays without a browser.
"""

from __future__ import annotations

LEARNING_MS = 1450   # each frame while the accuracy climbs
HOLD_MS = 1200       # the moment the deciding word first gets half of the weight (at least LEARNING_MS before it)
SETTLED_MS = 55      # each frame once the answers are settled (only the weights sharpen)


def learned_frame(frame_steps, train_accuracy, held_out_accuracy) -> int:
    """The first recorded frame at which both accuracies (per step) have reached their final values."""
    for f, k in enumerate(frame_steps):
        if train_accuracy[k] == train_accuracy[-1] and held_out_accuracy[k] == held_out_accuracy[-1]:
            return f
    return len(frame_steps) - 1


def frame_ms(frame_steps, train_accuracy, held_out_accuracy, hold_frame: int = -1) -> list[int]:
    """Milliseconds each frame stays before the next one (the last frame's 0: Play stops there).

    LEARNING_MS before ``learned_frame``, SETTLED_MS from it on; the hold frame (-1: none, a typed sentence)
    gets HOLD_MS, or its frame's own time if that is longer.
    """
    learned = learned_frame(frame_steps, train_accuracy, held_out_accuracy)
    out = [LEARNING_MS if f < learned else SETTLED_MS for f in range(len(frame_steps))]
    if 0 <= hold_frame < len(out):
        out[hold_frame] = max(out[hold_frame], HOLD_MS)
    out[-1] = 0
    return out


def play_ms(schedule, start: int = 0) -> int:
    """How long Play takes from frame ``start`` to the last frame."""
    return int(sum(schedule[start:-1]))


__all__ = ["LEARNING_MS", "HOLD_MS", "SETTLED_MS", "learned_frame", "frame_ms", "play_ms"]
