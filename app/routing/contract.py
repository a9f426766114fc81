"""The routing section's contract (app/contract.py): what the composition builds and what the tour reads."""

from app.contract import SectionContract

from .readouts import routing_readouts
from .view import build_routing

CONTRACT = SectionContract(name="routing", build=build_routing, readouts=routing_readouts)
