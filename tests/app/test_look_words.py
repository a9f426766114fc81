"""Every figure a step card names is one the step looks at (issue 46): the page keeps a step's `look` in view
(tests/browser/test_in_view.py), so a card that sends the student to "the sense plot" must list `sense_plot`.

Each section declares what cards call its figures and controls (app/contract.py ``SectionContract.look_words``
and ``called``).  For every card of the shipped tours and the example tours, each of those words that its text,
Try it or found line uses names a look of the step, and each "the … plot / matrix / slider / bar" phrase in it
(PHRASE) stands for a declared name, or the test fails: a phrase that names nothing is a figure no section
declared, or a card that calls it by words nobody declared.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from app.contract import LOOK_NOUNS
from app.sections import CATALOGUE, CONTRACTS
from app.tour.model import load_tour

TOURS = Path(__file__).resolve().parents[2] / "data" / "tours"
SHIPPED = [TOURS / "lesson.json", TOURS / "regression.json"]
EXAMPLES = sorted((TOURS / "examples").glob("*.json"))

# "the" and up to four words before one of the nouns (none of them "the": "the left quarter of the plot" is
# "plot"), then what follows "of" (two words, or "the" and two): "the bias and variance plot", "the plot of the
# deciding word", "the tallest bar of attention's weights".  Singular only: "the matrices that make queries" are
# the model's weights, not a figure.
WORD = r"[\w'-]+"
PHRASE = re.compile(rf"\bthe\s+((?:(?!the\b){WORD}\s+){{0,4}}(?:{'|'.join(LOOK_NOUNS)})\b"
                    rf"(?:\s+of\s+(?:the\s+)?{WORD}(?:\s+{WORD})?)?)", re.IGNORECASE)

def called(section: str) -> dict:
    return CONTRACTS[section].called


def plain(text: str) -> str:
    return " ".join(text.replace("\u2019", "'").replace("\u00a0", " ").lower().split())


def _uses(words: str, text: str) -> bool:
    return re.search(rf"(?<![\w'-]){re.escape(words)}(?![\w'-])", text) is not None


def named(section: str, text: str) -> tuple[set, list]:
    """The look names a card's words name, and the "the … plot" phrases in it that name none.  Longer words are
    read first, and what they cover is not read again ("the small matrix" is not "the matrix")."""
    text, table = plain(text), called(section)
    nouns = re.compile(rf"\b({'|'.join(LOOK_NOUNS)})\b")
    names, unresolved = set(), []
    for m in PHRASE.finditer(text):
        phrase = m.group(1)
        # the longest declared words inside the phrase that hold its noun
        fits = [w for w in table if nouns.search(w) and _uses(w, phrase)]
        if fits:
            names.add(table[max(fits, key=len)])
        else:
            unresolved.append(phrase)
        text = text.replace(m.group(0), " " * len(m.group(0)), 1)
    for w in sorted(table, key=len, reverse=True):   # (a bare "matrix" only as "the matrix": not "a 2 × 2 matrix W")
        if w not in LOOK_NOUNS and _uses(w, text):
            names.add(table[w])
            text = re.sub(rf"(?<![\w'-]){re.escape(w)}(?![\w'-])", " ", text)
    return names, unresolved


def problems(path: Path, steps=None) -> list:
    out = []
    for k, step in enumerate(steps or load_tour(CATALOGUE, path).steps, 1):
        for part in ("text", "do", "found"):
            names, unresolved = named(step.section, getattr(step, part))
            out += [(path.name, k, step.id, part, f"names {n}, which it does not look at {list(step.looks_at)}")
                    for n in sorted(names - set(step.looks_at))]
            out += [(path.name, k, step.id, part, f"“the {p}” is no declared figure or control") for p in unresolved]
    return out


@pytest.mark.parametrize("path", SHIPPED + EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_figure_a_card_names_is_one_its_step_looks_at(path):
    assert problems(path) == []


def test_the_phrases_are_found_and_resolved_as_a_card_reads():
    assert named("sentence", "Find the orange-red dot on the cost plot.") == ({"cost_plot"}, [])
    assert named("sentence", "Read the row sums at the right of the matrix.") == ({"attention_heatmap"}, [])
    assert named("sentence", "Click the small matrix of head 1.") == ({"heads_box"}, [])
    assert named("routing", "On the plot of the deciding word, lines rise.") == ({"routing_clue_plot"}, [])
    assert named("ideas", "Find the tallest bar of attention\u2019s weights.") == ({"lag_weights"}, [])
    assert named("regression", "Drag the bandwidth slider down.") == ({"bandwidth_slider"}, [])
    # words nobody declared fail, and so do declared words of a name the step does not look at
    assert named("sentence", "Look at the colour bar.") == (set(), ["colour bar"])
    assert named("sentence", "The matrices that make queries; a 2 \u00d7 2 matrix W.") == (set(), [])
    step = dataclasses.replace(load_tour(CATALOGUE, TOURS / "examples" / "sentence.json").steps[1],
                               look=("attention_heatmap",),
                               do="See where it lands in the sense plot.")
    assert [p[3:] for p in problems(Path("t.json"), [step])] == [
        ("do", "names sense_plot, which it does not look at ['attention_heatmap']")]
