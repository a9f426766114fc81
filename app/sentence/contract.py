"""The sentence section's contract (app/contract.py): what the composition builds and what the tour reads."""

from app.contract import SectionContract

from .readouts import sentence_readouts
from .view import build_sentence

CONTRACT = SectionContract(name="sentence", build=build_sentence, readouts=sentence_readouts)
