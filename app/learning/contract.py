"""The learning section's contract (app/contract.py): what the composition builds and what the tour reads."""

from app.contract import SectionContract

from .readouts import learning_readouts
from .view import build_learning

CONTRACT = SectionContract(name="learning", build=build_learning, readouts=learning_readouts)
