"""Server-side settings of the served page that Bokeh and Panel leave at their defaults.

``no_delay_websockets()``: Bokeh sends every message as three or more websocket
frames (header, metadata, content, buffers) and does not switch off Nagle's
algorithm, so with the browser's delayed ACKs each reply from Python waits
about 40 ms (Linux) to 200 ms (Windows) for nothing.  Tornado's own advice is
to call ``set_nodelay(True)`` once a websocket is open; this does it for every
Bokeh websocket of this process.  Measured in tests/bench/bench_server.py.

``skip_document_validation()``: Bokeh checks every new session's document for
authoring mistakes (a plot without renderers, a misspelled column) by walking
all of its ~850 models, and only logs warnings.  The page's document is the
same for every session and is validated by the tests, so a server skips the
check: about an eighth of the CPU time of opening a session, which is what
limits how fast a class can arrive.  ``BOKEH_VALIDATE_DOC=true`` brings it back.
"""

from __future__ import annotations

import logging
import os

log = logging.getLogger(__name__)


def no_delay_websockets() -> None:
    """Open every Bokeh websocket of this server process with TCP_NODELAY (idempotent)."""
    from bokeh.server.views.ws import WSHandler

    if getattr(WSHandler, "_explorable_no_delay", False):
        return
    original_open = WSHandler.open

    def open(self, *args, **kwargs):
        try:
            self.set_nodelay(True)
        except Exception as e:  # noqa: BLE001 - a socket option is never worth a failed connection
            log.debug("could not set TCP_NODELAY on a websocket: %r", e)
        return original_open(self, *args, **kwargs)

    open.__doc__ = original_open.__doc__
    WSHandler.open = open
    WSHandler._explorable_no_delay = True


def skip_document_validation() -> None:
    """Skip Bokeh's per-session document check in this process, unless BOKEH_VALIDATE_DOC is set."""
    os.environ.setdefault("BOKEH_VALIDATE_DOC", "false")


__all__ = ["no_delay_websockets", "skip_document_validation"]
