"""The explorable's user interface (Panel + Bokeh) and command line.

``from app import Explorable`` gives the page as a notebook component; the
import of Panel waits until it is asked for, so the command line stays quick.
"""


def __getattr__(name):
    if name == "Explorable":
        from .delivery.page import Explorable

        return Explorable
    raise AttributeError(f"module 'app' has no attribute {name!r}")
