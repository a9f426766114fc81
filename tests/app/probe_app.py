"""The served page (as app/delivery/main.py) with test-only probes, for ``panel serve tests/app/probe_app.py``.

Switched by environment variables of the server process, so app code carries no test hooks:

* ``PROBE_FAULT=1``  -- on a page opened with ``?n=1999``, the Python callback that follows the bandwidth
  slider (``Explorable._syncer``) raises (a fault in one session's callback; every other callback of that
  session, and every other session, works as usual).
* ``PROBE_NAGLE=1``  -- leave Bokeh's websockets with Nagle's algorithm on (what the app switches off), to
  measure the difference.
* ``PROBE_GCLOG=1``  -- log every garbage collection that pauses the process for 20 ms or more (generation,
  milliseconds, objects tracked), to see whether collections are what stalls replies under load.

A page opened with ``?census=1`` also gets a Div named "census": JSON with how many explorable pages and
Bokeh documents are alive in this process (after a full garbage collection), the number of Python objects and
the RSS, to find sessions that outlive their cleanup; ``?census=trim`` also asks glibc to hand its free memory
back to the OS (malloc_trim) and reports the RSS after that; ``?census=bare`` gets the census alone, without a
page of its own, so that asking again and again counts only the other sessions' pages.
"""

import gc
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import panel as pn  # noqa: E402
from bokeh.document import Document  # noqa: E402
from bokeh.models import Div  # noqa: E402

from app.delivery.page import Explorable, serve_page  # noqa: E402
from app.delivery.serving import no_delay_websockets, skip_document_validation  # noqa: E402


def _faulty(original):
    # a closure, not a module global: Bokeh clears this script's module when its session ends
    def _syncer(self, pname, conv):
        sync = original(self, pname, conv)
        if pname != "bandwidth":
            return sync

        def faulty(attr, old, new):
            if self.n == 1999:
                raise RuntimeError("injected fault (tests/app/probe_app.py)")
            return sync(attr, old, new)
        return faulty
    return _syncer


if os.environ.get("PROBE_FAULT") == "1" and not getattr(Explorable, "_probe_fault", False):
    Explorable._syncer = _faulty(Explorable._syncer)
    Explorable._probe_fault = True

if os.environ.get("PROBE_NAGLE") != "1":
    no_delay_websockets()
skip_document_validation()  # as app/delivery/main.py


def _gc_logger():
    import logging
    import time

    log = logging.getLogger("probe.gc")
    started = {}

    def callback(phase, info):
        if phase == "start":
            started["t"] = time.perf_counter()
        elif "t" in started:
            ms = (time.perf_counter() - started.pop("t")) * 1e3
            if ms >= 20:
                log.warning("gc pause: generation %d, %.0f ms, %d objects tracked", info["generation"], ms,
                            len(gc.get_objects()) if info["generation"] == 2 else -1)
    return callback


if os.environ.get("PROBE_GCLOG") == "1" and not any(getattr(c, "__qualname__", "").startswith("_gc_logger")
                                                    for c in gc.callbacks):
    gc.callbacks.append(_gc_logger())


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _census(trim: bool) -> dict:
    from collections import Counter

    gc.collect()
    pages = docs = 0
    kinds = Counter()
    objects = gc.get_objects()
    for obj in objects:
        kinds[type(obj).__name__] += 1
        if isinstance(obj, Explorable):
            pages += 1
        elif isinstance(obj, Document):
            docs += 1
    out = {"pages": pages, "documents": docs, "pid": os.getpid(), "gc_objects": len(objects),
           "allocated_blocks": sys.getallocatedblocks(),
           "top_types": kinds.most_common(8), "rss_mb": _rss_mb()}
    del objects
    if trim:  # give the C allocator's free memory back to the OS: what is left is really in use
        import ctypes

        try:
            ctypes.CDLL("libc.so.6").malloc_trim(0)
            out["rss_mb_after_malloc_trim"] = _rss_mb()
        except OSError:
            pass
    return out


pn.extension(design=None, notifications=False)
_census_arg = (pn.state.session_args or {}).get("census")
if not (_census_arg and _census_arg[-1] == b"bare"):   # a bare census builds no page: it counts only the others
    _page, layout = serve_page()
    layout.servable(title="Attention as kernel regression (probe)")
if _census_arg and pn.state.curdoc is not None:
    pn.state.curdoc.add_root(Div(text=json.dumps(_census(trim=_census_arg[-1] == b"trim")), name="census",
                                 visible=False))
