"""Server-side settings of the served page that Bokeh and Panel leave at their defaults.

``no_delay_websockets()``: Bokeh sends every message as three or more websocket
frames (header, metadata, content, buffers) and does not switch off Nagle's
algorithm, so with the browser's delayed ACKs each reply from Python waits
about 40 ms (Linux) to 200 ms (Windows) for nothing.  Tornado's own advice is
to call ``set_nodelay(True)`` once a websocket is open; this does it for every
Bokeh websocket of this process.  Measured in tests/bench/bench_server.py.
"""

from __future__ import annotations

import logging

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


__all__ = ["no_delay_websockets"]
