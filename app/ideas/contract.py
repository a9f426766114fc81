"""The ideas section's contract (app/contract.py): what the composition builds and what the tour reads."""

from app.contract import SectionContract

from .readouts import ideas_readouts
from .view import build_ideas

CONTRACT = SectionContract(name="ideas", build=build_ideas, readouts=ideas_readouts)
