"""Panel's app at /main: ``panel serve app/delivery/main.py --plugins app.delivery.plugin`` (what
``attention-explorable serve`` runs).

One Panel session per visit: Python builds the whole page for every student (about 2 s of server CPU)
and follows every widget.  The page at / (app/delivery/plugin.py) is the offline file's instead, built once per
server: a visit costs the server one reply.
"""

import sys
from pathlib import Path

try:
    import app  # noqa: F401  (installed, or run from the project's root)
except ImportError:  # `panel serve app/delivery/main.py` from a checkout that was never installed
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import panel as pn

from app.delivery.page import serve_page
from app.delivery.serving import no_delay_websockets, skip_document_validation

no_delay_websockets()  # once per process: replies from Python without Nagle's ~40 ms wait
skip_document_validation()  # the same document every session; checked by the tests instead
pn.extension(design=None, notifications=False)
_page, layout = serve_page()
layout.servable(title="Attention as kernel regression")
