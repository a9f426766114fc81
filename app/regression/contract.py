"""The regression section's contract (app/contract.py): what the composition builds and what the tour reads."""

from app.contract import SectionContract

from .readouts import regression_readouts
from .view import MORE_KEYS, build_regression

CONTRACT = SectionContract(name="regression", build=build_regression, readouts=regression_readouts,
                           more=MORE_KEYS)
