"""Issue #24, "the page opens fast": how long the page takes to open, against a minimal Bokeh page, on a slow
phone, on a projector and on a slow network, and whether a drag stays smooth while the lower blocks draw.

``run(quick)`` returns rows for tests/bench/__main__.py (section "opens fast (#24)").  The pages: the offline
file (``attention-explorable export``, opened as file:// with every other request refused), the served page
(``attention-explorable serve`` on 127.0.0.1: app/delivery/plugin.py sends the same bytes, gzipped) and a minimal
Bokeh page (tests/bench/pages.py: one figure, two sliders, one Div, BokehJS inline, ``file_html``).  Every
visit is a fresh browser context (cold caches: a student's first visit).  Times run from the navigation's
start to what is on screen, seen at the animation frame that shows it (pages.OPEN_PROBE_JS): "first
readouts" when the Div named 'readouts' shows "max weight", "every block" when ``AttnPage.allDrawn()``.
Variants are visited in interleaved rounds (the order rotating), after one unmeasured round; medians.

(a) a phone: 390 x 844, touch, device scale 2, CPU slowed 4x (CDP Emulation.setCPUThrottlingRate): first
    readouts and every block for the offline file and the served page, the minimal page the same way;
    offline / minimal and served / minimal, first readouts (target <= 2).  With the environment variable
    ``BENCH_OLD_PAGE`` naming an earlier exported file (an HTML file, e.g. the page before the loader), that
    file is visited in the same rounds too (offline, its first readouts: BokehJS draws it whole), and the row
    gives offline / old page: the before and after of one run.  With ``BENCH_OLD_URL`` naming an earlier served
    page (e.g. http://127.0.0.1:5123/, an older checkout's ``serve``), that page is visited in the same rounds
    too, and a row gives served / old served.
(b) a projector: 1920 x 1080, ``?present=1`` against the normal page, offline and served, first readouts;
    present / normal (target <= 1.5).
(c) a drag while the sections draw: 1366 x 768, not slowed, the offline file.  From the moment the first
    readouts show, a real mouse drags the main plot in strokes of 30 moves (60 a second) with a student's
    pauses between them (0.25 to 0.6 s, and after every fourth stroke 1 to 2.5 s to read the numbers; seeded),
    until every block is drawn.  The loader draws while no pointer is down (blocks far from the screen a second
    after a drag), so blocks are drawn in the pauses and a stroke may start while one is being built.
    Latency: from each pointermove's timeStamp to the main plot's repaint that shows that move's query
    (pages.DragProbe); p95 (target <= 16.7 ms, one frame at 60 Hz).  The row says how many blocks were drawn
    between the first press and the last release, and how the moves that arrived during a block's build fared.
    A second row times what the issue asks of the loader, that drawing a block never holds a move up for more
    than a frame: from each move's timeStamp to the page's first pointermove handler (p95 <= 16.7 ms).
(d) a slow network: Chrome DevTools' "Fast 3G" (pages.FAST_3G) and the phone of (a): first readouts of the
    served page (gzip) and of the offline file from a host that does not compress (Python's http.server), and
    the bytes each took on the wire (CDP Network.loadingFinished).
(e) how big the page is: the Bokeh models of the exported document (app/delivery/export.py ``build_document``), and
    those reachable from each section's blocks (a model two sections share counts in both).

Without Chromium the browser rows are replaced by one row saying so.  Run directly
(``python -m tests.bench.bench_open [--quick]``) to print the rows.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

from tests.app.serverutil import LiveServer
from tests.bench import pages as P
from tests.bench.rows import count_row, median, p95, ratio_row, skipped_row, times_row

SECTION = "opens fast (#24)"
TARGET_PHONE_RATIO = 2.0
TARGET_PRESENT_RATIO = 1.5
TARGET_DRAG_P95_MS = 16.7
SERVER_ARGS = ("--log-level", "warning")   # the CLI's default


def _ms_row(name, values, **kw):
    return times_row(SECTION, name, values, unit="ms", **kw)


def _key(visits, field):
    return [v[field] for v in visits]


# -- (e) ----------------------------------------------------------------------------------------------------

def model_rows() -> list[dict]:
    """The exported document's models, in all and per section (no browser)."""
    from app.delivery.export import build_document

    t0 = time.perf_counter()
    page = build_document()
    built_s = time.perf_counter() - t0
    doc, plan = page.doc, page.plan
    total = len(doc.models)
    roots: dict[str, list] = {}
    for b in plan["blocks"]:
        roots.setdefault(b["section"], []).append(doc.get_model_by_id(b["root"]))
    minimal = len(P.minimal_root().references())
    rows = [count_row(SECTION, f"#24 (e) models in the exported document: {total} in {len(plan['blocks'])} blocks",
                      total, blocks=len(plan["blocks"]),
                      note=f"app.delivery.export.build_document() with the default state "
                           f"({built_s:.1f} s to build here); "
                           f"the minimal page has {minimal}")]
    for name, rs in roots.items():
        ids = set()
        for r in rs:
            ids |= {m.id for m in r.references()}
        rows.append(count_row(SECTION, f"#24 (e) models of the {name} section: {len(ids)} in {len(rs)} blocks",
                              len(ids), blocks=len(rs), section_name=name,
                              note="reachable from the section's blocks (engines and widgets included; a figure "
                                   "another section's engine drives counts in both)"))
    return rows


# -- (a), (b), (d): visits -------------------------------------------------------------------------------

def _ratio(num, den) -> float:
    return median(num) / median(den)


def old_page() -> Path | None:
    """The earlier exported file named by ``BENCH_OLD_PAGE``, if that names a file (else None)."""
    path = os.environ.get("BENCH_OLD_PAGE")
    if not path:
        return None
    path = Path(path).resolve()
    if not path.is_file():
        raise ValueError(f"BENCH_OLD_PAGE={path} is not a file: name an exported HTML file, or unset it")
    return path


def old_url() -> str | None:
    """The earlier served page named by ``BENCH_OLD_URL`` (an http(s) address), if set (else None)."""
    url = os.environ.get("BENCH_OLD_URL")
    if url and not url.startswith(("http://", "https://")):
        raise ValueError(f"BENCH_OLD_URL={url} is not an http(s) address: name an older server's page, or unset it")
    return url or None


def _old_rows(where, first, every, key, label, old_key, old_label, source) -> list[dict]:
    """The old page's first readouts, and the new page's against them (one run, the same rounds)."""
    rows = [_ms_row(f"#24 (a) {where}: {old_label}, navigation -> first readouts", first[old_key],
                    note=f"{source}; {len(first[old_key])} interleaved rounds; "
                         f"{_ratio(first[old_key], first['minimal']):.2f}x the minimal page's")]
    r = _ratio(first[key], first[old_key])
    per = [a / b for a, b in zip(first[key], first[old_key])]
    short = old_label.split(" (")[0]
    rows.append(ratio_row(SECTION, f"#24 (a) {where}: {label} / {short}, first readouts: {r:.2f}x", r,
                          n_runs=len(per), per_round=per,
                          note=f"ratio of the medians; each round's: {', '.join(f'{x:.2f}' for x in per)}; "
                               f"every block drawn: {_ratio(every[key], every[old_key]):.2f}x the old page's"))
    return rows


def phone_rows(browser, live, rounds: int, warmup: int) -> list[dict]:
    offline, minimal = P.exported_page().as_uri(), P.minimal_page().as_uri()
    phone = dict(cpu_slowdown=P.PHONE_CPU_SLOWDOWN, wait_all=True)
    variants = {
        "offline": lambda: P.visit(browser, offline, P.PHONE, block=True, **phone),
        "served": lambda: P.visit(browser, live.url, P.PHONE, **phone),
        "minimal": lambda: P.visit(browser, minimal, P.PHONE, block=True, **phone),
    }
    old = old_page()
    if old is not None:
        variants["old"] = lambda: P.visit(browser, old.as_uri(), P.PHONE, block=True, **phone)
    url = old_url()
    if url is not None:
        variants["old served"] = lambda: P.visit(browser, url, P.PHONE, **phone)
    got = P.interleave(rounds, variants, warmup=warmup)
    first = {k: _key(v, "readouts_ms") for k, v in got.items()}
    every = {k: _key(v, "all_ms") for k, v in got.items()}
    where = "phone 390x844, CPU 4x"
    rows = []
    for key, label in (("offline", "offline file"), ("served", "served page")):
        reqs = max(v["requests"] for v in got[key])
        rows.append(_ms_row(f"#24 (a) {where}: {label}, navigation -> first readouts", first[key],
                            note=f"{len(first[key])} interleaved rounds; requests made: {reqs}"))
        rows.append(_ms_row(f"#24 (a) {where}: {label}, navigation -> every block drawn", every[key],
                            note=f"AttnPage.allDrawn(); {len(every[key])} interleaved rounds"))
    rows.append(_ms_row(f"#24 (a) {where}: minimal Bokeh page, navigation -> its readouts (its one block)",
                        first["minimal"], note="one figure, two sliders, one Div; BokehJS inline (file_html)"))
    for key, label in (("offline", "offline file"), ("served", "served page")):
        r = _ratio(first[key], first["minimal"])
        per = [a / b for a, b in zip(first[key], first["minimal"])]
        rows.append(ratio_row(SECTION, f"#24 (a) {where}: {label} / minimal page, first readouts: {r:.2f}x", r,
                              target=f"ratio <= {TARGET_PHONE_RATIO:g}", meets=r <= TARGET_PHONE_RATIO,
                              n_runs=len(per), per_round=per,
                              note=f"ratio of the medians; each round's: {', '.join(f'{x:.2f}' for x in per)}; "
                                   f"every block drawn: {_ratio(every[key], first['minimal']):.2f}x the minimal "
                                   f"page's"))
    if old is not None:
        rows += _old_rows(where, first, every, "offline", "offline file", "old",
                          f"the old page ({old.name})", f"BENCH_OLD_PAGE={old}")
    if url is not None:
        rows += _old_rows(where, first, every, "served", "served page", "old served",
                          "the old served page", f"BENCH_OLD_URL={url}")
    return rows


def present_rows(browser, live, rounds: int, warmup: int) -> list[dict]:
    offline = P.exported_page().as_uri()
    got = P.interleave(rounds, {
        ("offline", False): lambda: P.visit(browser, offline, P.PROJECTOR, block=True),
        ("offline", True): lambda: P.visit(browser, offline + "?present=1", P.PROJECTOR, block=True),
        ("served", False): lambda: P.visit(browser, live.url, P.PROJECTOR),
        ("served", True): lambda: P.visit(browser, live.url + "?present=1", P.PROJECTOR),
    }, warmup=warmup)
    first = {k: _key(v, "readouts_ms") for k, v in got.items()}
    rows = []
    for where, label in (("offline", "offline file"), ("served", "served page")):
        for present in (False, True):
            rows.append(_ms_row(f"#24 (b) projector 1920x1080: {label}{' ?present=1' if present else ''}, "
                                f"navigation -> first readouts", first[(where, present)],
                                note=f"{len(first[(where, present)])} interleaved rounds, CPU not slowed"))
    for where, label in (("offline", "offline file"), ("served", "served page")):
        r = _ratio(first[(where, True)], first[(where, False)])
        per = [a / b for a, b in zip(first[(where, True)], first[(where, False)])]
        rows.append(ratio_row(SECTION, f"#24 (b) projector: {label} ?present=1 / normal, first readouts: {r:.2f}x", r,
                              target=f"ratio <= {TARGET_PRESENT_RATIO:g}", meets=r <= TARGET_PRESENT_RATIO,
                              n_runs=len(per), per_round=per,
                              note=f"ratio of the medians; each round's: {', '.join(f'{x:.2f}' for x in per)}"))
    return rows


def network_rows(browser, live, rounds: int, warmup: int) -> list[dict]:
    slow = dict(cpu_slowdown=P.PHONE_CPU_SLOWDOWN, network=P.FAST_3G)
    with P.StaticServer(P.exported_page().parent) as plain:
        got = P.interleave(rounds, {
            "served": lambda: P.visit(browser, live.url, P.PHONE, **slow),
            "plain": lambda: P.visit(browser, plain.base + "/", P.PHONE, **slow),
        }, warmup=warmup)
    first = {k: _key(v, "readouts_ms") for k, v in got.items()}
    size = {k: int(np.median(_key(v, "bytes"))) for k, v in got.items()}
    net = (f"Fast 3G ({P.FAST_3G['latency']:g} ms, {P.FAST_3G['downloadThroughput'] / 1e3:g} kB/s down) and the "
           f"phone of (a), CPU 4x")
    rows = [_ms_row(f"#24 (d) Fast 3G phone: served page (gzip, {size['served'] / 1e3:.0f} kB on the wire), "
                    f"navigation -> first readouts", first["served"], bytes=size["served"],
                    note=f"{net}; attention-explorable serve; {len(first['served'])} interleaved rounds"),
            _ms_row(f"#24 (d) Fast 3G phone: offline file from a host that does not compress "
                    f"({size['plain'] / 1e3:.0f} kB on the wire), navigation -> first readouts", first["plain"],
                    bytes=size["plain"], note=f"{net}; Python's http.server over the exported file")]
    r = _ratio(first["plain"], first["served"])
    rows.append(ratio_row(SECTION, f"#24 (d) Fast 3G phone: uncompressed / gzipped, first readouts: {r:.2f}x", r,
                          n_runs=len(first["served"]),
                          note=f"{size['plain'] / size['served']:.1f}x the bytes; what a host that compresses "
                               f"(attention-explorable serve, nginx with gzip_static) saves a student on a slow "
                               f"network"))
    return rows


# -- (c) ------------------------------------------------------------------------------------------------------

async def _drag_round(browser, seed: int) -> dict:
    ctx, page, cdp = await P.async_page(browser, P.LAPTOP, block=True)
    try:
        await page.goto(P.exported_page().as_uri(), wait_until="commit")
        await page.wait_for_function(P.READOUTS_SHOWN_JS, polling="raf", timeout=120000)
        probe = await P.DragProbe.attach(page, cdp)
        drawn0, total = await page.evaluate(P.BLOCKS_DRAWN_JS)
        rng = random.Random(seed)
        strokes = 0
        while strokes < 120:
            await probe.stroke(30)
            strokes += 1
            if await page.evaluate("() => AttnPage.allDrawn()"):
                break
            # the student's pause between two strokes; after every fourth, a longer one (reading the numbers)
            await asyncio.sleep(rng.uniform(0.25, 0.6) if strokes % 4 else rng.uniform(1.0, 2.5))
        settled = await page.evaluate("() => performance.now()")
        for _ in range(3):   # the same hand once every block is drawn: what this machine gives anyway
            await asyncio.sleep(rng.uniform(0.25, 0.6))
            await probe.stroke(30)
        res = await probe.result()
        timings = await page.evaluate(P.BLOCK_TIMINGS_JS)
        drawn1, _ = await page.evaluate(P.BLOCKS_DRAWN_JS)
    finally:
        await ctx.close()
    start, end = res["downs"][0], max(u for u in res["ups"] if u < settled)
    built = [t for t in timings if start <= t["at"] + t["ms"] <= end]
    lat = [np.nan if x is None else x for x in res["lat"]]
    during = [x for t, x in zip(res["moves"], lat) if any(b["at"] <= t <= b["at"] + b["ms"] for b in timings)]
    return {"lat": [x for t, x in zip(res["moves"], lat) if t < settled],
            "waited": [w for t, w in zip(res["moves"], res["waited"]) if t < settled],
            "waited_after": [w for t, w in zip(res["moves"], res["waited"]) if t >= settled],
            "after": [x for t, x in zip(res["moves"], lat) if t >= settled], "built": len(built),
            "left": total - drawn0, "total": total, "all": drawn1 == total, "strokes": strokes, "during": during,
            "longest_build": max((b["ms"] for b in built), default=0.0)}


async def _drag_rounds(rounds: int) -> list[dict]:
    async with P.async_chromium() as browser:
        return [await _drag_round(browser, seed) for seed in range(rounds)]


def drag_rows(rounds: int) -> list[dict]:
    got = asyncio.run(_drag_rounds(rounds))
    lat = [x for g in got for x in g["lat"]]
    after = [x for g in got for x in g["after"]]
    waited = [x for g in got for x in g["waited"]]
    waited_after = [x for g in got for x in g["waited_after"]]
    during = [x for g in got for x in g["during"]]
    built = [g["built"] for g in got]
    left = [g["left"] for g in got]
    p = p95(lat)
    note = (f"{rounds} rounds, each a fresh page: blocks still to draw at the first readouts "
            f"{', '.join(map(str, left))} (of {got[0]['total']}); blocks drawn between the first press and the last "
            f"release {', '.join(map(str, built))}; every block drawn by the end: "
            f"{sum(g['all'] for g in got)}/{rounds}; strokes {', '.join(str(g['strokes']) for g in got)}; "
            f"longest block build {max(g['longest_build'] for g in got):.0f} ms; {len(during)} moves arrived while a "
            f"block was being built: median {median(during):.1f} ms, p95 {p95(during):.1f} ms")
    return [_ms_row(f"#24 (c) laptop 1366x768: real mouse drag on the main plot from the first readouts while the "
                    f"blocks draw ({int(np.median(built))} blocks drawn during it, median) -> main plot repainted "
                    f"with the move's query", lat, target=f"p95 <= {TARGET_DRAG_P95_MS} ms",
                    meets=p <= TARGET_DRAG_P95_MS, note=note, blocks_drawn_during=built, blocks_left_at_start=left,
                    moves_during_builds=len(during)),
            _ms_row("#24 (c) the same drag once every block is drawn (the machine's own share, for comparison)", after,
                    note=f"{rounds} rounds x 3 strokes of 30 moves, right after the drag above"),
            _ms_row("#24 (c) the same drag while the blocks draw: how long each move waited before the page handled it "
                    "(what a block's build can hold up)", waited, target=f"p95 <= {TARGET_DRAG_P95_MS} ms",
                    meets=p95(waited) <= TARGET_DRAG_P95_MS,
                    note=f"from the move's timeStamp to the page's first pointermove handler; once every block is drawn: "
                         f"median {median(waited_after):.1f} ms, p95 {p95(waited_after):.1f} ms (Chromium hands moves "
                         f"to the page at the next frame, so up to one frame of waiting is the browser's own)")]


# -- all ------------------------------------------------------------------------------------------------------

def browser_rows(quick: bool) -> list[dict]:
    if not P.chromium_available():
        return [skipped_row(SECTION, f"Chromium not found at {P.CHROMIUM}")]
    rounds, warmup = (2, 0) if quick else (5, 1)
    rows = []
    with contextlib.ExitStack() as stack:
        live = LiveServer(cli_args=SERVER_ARGS)
        stack.callback(live.cleanup)
        live.start(timeout=300)
        P.exported_page()
        browser = stack.enter_context(P.chromium())
        rows += phone_rows(browser, live, rounds, warmup)
        rows += present_rows(browser, live, rounds if quick else 7, warmup)
        rows += network_rows(browser, live, rounds, warmup)
        errors = live.error_lines()
        if errors:
            rows[-1]["note"] += f"; the server logged {len(errors)} ERROR lines: {errors[0]}"
    return rows + drag_rows(rounds)   # Playwright's async API, after the sync one has stopped


def run(quick: bool) -> list[dict]:
    return model_rows() + browser_rows(quick)


if __name__ == "__main__":
    for r in run("--quick" in sys.argv):
        print(json.dumps(r))
