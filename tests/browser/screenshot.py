"""Screenshots of the real page for the README: ``python -m tests.browser.screenshot [--out DIR]``.

Starts ``attention-explorable serve`` on a free local port, opens its page in
Debian's Chromium (Playwright, no download), waits until the loader has drawn
every block and writes:

* screenshot-regression.png: the top of the page on a laptop, 1366 px (the plots over x, readouts, controls);
* screenshot-phone.png: the main plot, the query slider and the readouts on a 360 px phone;
* screenshot-projector.png: the top of the page at 1920 px in presentation mode (``?present=1``);
* screenshot-sentence.png: the self-attention section on a laptop, when the page has one;
* screenshot-tour.png: the guided tour's step card beside the figure after "Show me" (step 2, ``?tour=2``).

``make screenshot`` runs this.  The files go to tests/browser/screenshots/ unless --out says otherwise.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tests.browser.pageutil import CHROMIUM, LAUNCH_ARGS, ROOT, model_element, wait_ready

DEFAULT_OUT = ROOT / "tests" / "browser" / "screenshots"
GRID = "#attn-sec-regression .attn-fig"   # the figure column: the stage and the plots under it (app/ui/layout.py)
SETTLE_JS = """() => document.fonts.ready.then(() => new Promise((done) =>
  requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 300)))))"""


def _has_model(page, name):
    return page.evaluate("(n) => !!Bokeh.documents[0].get_model_by_name(n)", name)


def _box(page, name):
    """The box of a named model, or of the page element a CSS selector names, in page coordinates (the page is
    scrolled to the top first)."""
    page.evaluate("() => window.scrollTo(0, 0)")
    el = page.query_selector(name) if name[0] in "#." else model_element(page, name)
    box = el.bounding_box() if el is not None else None
    if box is None:
        raise RuntimeError(f"{name!r} is not on the page")
    return box


def _open(browser, url, width, height, scale):
    ctx = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=scale)
    page = ctx.new_page()
    page.set_default_timeout(60000)
    page.goto(url)
    wait_ready(page, timeout=60000)
    page.wait_for_function("() => AttnPage.allDrawn()", timeout=120000)
    page.evaluate(SETTLE_JS)
    return ctx, page


def _shoot(page, path, top, bottom, width):
    page.screenshot(path=str(path), full_page=True,
                    clip={"x": 0, "y": max(0.0, top), "width": width, "height": max(1.0, bottom - max(0.0, top))})
    return path


def take(url: str, out: Path) -> list[Path]:
    """Write the screenshots of the page at ``url`` into ``out``; returns the files written."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    written = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            ctx, page = _open(browser, url, 1366, 768, 1)
            top = _box(page, "intro")["y"]
            grid = _box(page, GRID)
            written.append(_shoot(page, out / "screenshot-regression.png", top - 8, grid["y"] + grid["height"] + 12,
                                  1366))
            if page.query_selector("#attn-sec-sentence"):
                s = _box(page, "#attn-sec-sentence")
                written.append(_shoot(page, out / "screenshot-sentence.png", s["y"] - 8,
                                      s["y"] + s["height"] + 8, 1366))
            ctx.close()

            ctx, page = _open(browser, url + "?tour=2", 1366, 768, 1)
            if _has_model(page, "tour_card"):
                model_element(page, "tour_show", "button").click()
                page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('tour_card').text"
                                       ".includes('tour-shown')")
                page.evaluate(SETTLE_JS)
                grid = _box(page, GRID)
                card = _box(page, "tour")
                written.append(_shoot(page, out / "screenshot-tour.png", grid["y"] - 8,
                                      max(card["y"] + card["height"], grid["y"] + 470) + 12, 1366))
            ctx.close()

            ctx, page = _open(browser, url + "?present=1", 1920, 1080, 1)
            top = _box(page, "intro")["y"]
            grid = _box(page, GRID)
            written.append(_shoot(page, out / "screenshot-projector.png", top - 8,
                                  grid["y"] + grid["height"] + 12, 1920))
            ctx.close()

            ctx, page = _open(browser, url, 360, 740, 2)
            plot = _box(page, "main_plot")
            readouts = _box(page, "caption")
            written.append(_shoot(page, out / "screenshot-phone.png", plot["y"] - 2,
                                  readouts["y"] + readouts["height"] + 8, 360))
            ctx.close()
        finally:
            browser.close()
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.browser.screenshot", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"folder for the PNG files ({DEFAULT_OUT})")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"screenshot: Chromium not found at {CHROMIUM} (apt-get install chromium)", file=sys.stderr)
        return 2
    from tests.app.serverutil import LiveServer

    server = LiveServer()
    try:
        server.start(timeout=180)
        for path in take(server.url, args.out.resolve()):
            print(path)
    finally:
        server.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
