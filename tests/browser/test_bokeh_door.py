"""BokehJS's private parts behind one door (issue 40): app/ui/bokehjs.js on the page's side, app/ui/private.py on
Python's.  Every private name the page uses is reached there and nowhere else; the shipped BokehJS has them all; a
BokehJS that lacks one gets a console line naming it and its version, and the page takes its way round it, never a
blank page (without the decoder of a document's parts, the whole page drawn at once by BokehJS's public embedding).
"""

from __future__ import annotations

import re

import pytest

from tests.browser.pageutil import ROOT, block_outside, drag, model_prop, plot_geometry, wait_ready

# The private names, and the only files that may say them (the door).  "_roots" and "_all_models" are the
# document's; a name followed by a word character is another name.
PRIVATE = {
    r"Bokeh\.require\(": "app/ui/bokehjs.js",
    r"\b_all_models\b": "app/ui/bokehjs.js", r"\b_roots\b": "app/ui/bokehjs.js",
    r"\bnotify_idle\b": "app/ui/bokehjs.js", r"\b_invalidate_layout_if_needed\b": "app/ui/bokehjs.js",
    r"\b_update\b": "app/ui/bokehjs.js", r"\bupdate_position\b": "app/ui/bokehjs.js",
    r"\b_get_css_value\b": "app/ui/bokehjs.js", r"\bbase_font_size\b": "app/ui/bokehjs.js",
    r"\bthrottled_paint\b": "app/ui/bokehjs.js", r"\bmarkup_el\b": "app/ui/bokehjs.js",
    r"\b_document_callbacks\b": "app/ui/private.py", r"\b_get_model\b": "app/ui/private.py",
    r"\b_models\b": "app/ui/private.py",
}


def _code_lines(path):
    """The lines of a file that are code (not a whole-line comment: the door's own table may name them)."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if not re.match(r"\s*(//|#)", line):
            yield line


def test_every_private_name_is_said_only_behind_the_door():
    files = [p for ext in ("*.js", "*.py") for p in (ROOT / "app").rglob(ext)]
    assert len(files) > 30
    found = []
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        for line in _code_lines(path):
            for pattern, door in PRIVATE.items():
                if re.search(pattern, line) and rel != door:
                    found.append((rel, pattern, line.strip()[:80]))
    assert found == []


def test_the_shipped_bokehjs_has_every_name(browser, static_file):
    page = browser.new_page()
    warnings = []
    page.on("console", lambda m: warnings.append(m.text) if m.type in ("warning", "error") else None)
    try:
        block_outside(page)
        page.goto(static_file.as_uri())
        wait_ready(page)
        page.evaluate("() => AttnPage.ensure('regression')")
        report = page.evaluate("() => AttnBokeh.report()")
        assert report["missing"] == [] and re.fullmatch(r"\d+\.\d+\.\d+.*", report["version"])
        light = page.evaluate("() => globalThis.__attnLightRepaints")
        assert all(light[k] for k in ("layout", "css", "sheets", "positions", "fontSize"))
        assert page.evaluate("() => AttnPage.drawnWhole") is False   # drawn block by block
        assert [w for w in warnings if "attention explorable" in w] == []
    finally:
        page.close()


# An inline script after BokehJS that makes one of its modules unreachable, as a release that moved it would.
MOVED = ('<script>(() => { const r = Bokeh.require; Bokeh.require = (p) => { '
         'if (p === "core/serialization/deserializer") throw new Error("Cannot find module " + p); '
         'return r(p); }; })();</script>')


def test_a_bokehjs_without_a_private_name_gets_the_whole_page_and_a_line_that_says_so(browser, static_file, tmp_path):
    html = static_file.read_text(encoding="utf-8")
    # (after BokehJS, before the page's own script: the file runs them in order once a frame has painted)
    at = html.rindex('<script type="text/plain" class="attn-later">')
    moved = tmp_path / "moved.html"
    moved.write_text(html[:at] + MOVED.replace("<script>", '<script type="text/plain" class="attn-later">') + "\n"
                     + html[at:], encoding="utf-8")
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    console, errors = [], []
    page.on("console", lambda m: console.append((m.type, m.text)))
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        block_outside(page)
        page.goto(moved.as_uri())
        wait_ready(page)
        said = [t for k, t in console if k == "warning" and "attention explorable" in t]
        version = page.evaluate("() => Bokeh.version")
        assert len(said) == 1 and 'require("core/serialization/deserializer")' in said[0] and version in said[0]
        assert "drawn whole" in said[0]
        assert page.evaluate("() => AttnBokeh.report().missing") == [
            'require("core/serialization/deserializer").Deserializer']
        # the whole page, every block drawn at once, and working: a drag moves the query, the tour turns
        assert page.evaluate("() => AttnPage.drawnWhole && AttnPage.allDrawn()") is True
        assert page.evaluate("() => document.querySelectorAll('[data-drawn]').length") == \
            page.evaluate("() => document.querySelectorAll('.attn-block').length")
        g = plot_geometry(page)
        drag(page, g, g["top"] + 0.5 * g["height"], [3.2, 2.4, 1.6])
        page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('query_slider').value < 2")
        page.get_by_role("button", name="Next \u2192").click()
        page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('tour_card').text.includes('Step 2 of')")
        assert model_prop(page, "sentence_caption", "text")   # a later section's engine started too
        assert errors == [] and [t for k, t in console if k == "error"] == []
    finally:
        page.close()
