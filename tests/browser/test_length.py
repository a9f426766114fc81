"""The page's length, counted in the browser (issue 39, "Shorter, in the page's voice").

* At the first load, with every block drawn, at most 2,000 words are visible: the text nodes a student sees,
  Bokeh's shadow roots included; text in a closed <details>, in a hidden element or clipped to nothing does not
  count, nor does the tour's step card (its own design).  The rest of the words sit one tap away.
* No paragraph or list item runs over 60 words, visible or not (closed disclosures and hidden Divs included),
  at the first load and in the states whose texts are longest (a tilted dot product at a tiny temperature).
* The two columns of the regression, self-attention and routing sections (the figure, kept in view, and the side
  column that scrolls beside it) end within one screen height of each other at 1366 x 768.

The counts are printed (pytest -s) per section; the routing section's words are its own helper's budget.
"""

from __future__ import annotations

import pytest

from tests.browser.pageutil import DRAW_ALL_JS, block_outside, wait_ready, wait_texts

MAX_VISIBLE_WORDS = 2000
MAX_PARAGRAPH_WORDS = 60
GRID_SECTIONS = ("regression", "sentence", "routing")   # the sections whose columns must end near each other
TOUR_CARD = ".tour-card"

# The words of the visible text, one run per block element (so "x<sub>1</sub>" is one word, as it reads), by
# section; and every <p> and <li> of the page, shadow roots included, visible or not, with its word count.
# A word is a run of non-space characters with a letter or a digit in it ("·" and "→" are not words).
# opts.skip: selectors whose elements (and everything under them) are not counted; opts.except: a text that
# marks the one paragraph left out of the runs (its run is returned apart, in "excepted").
TEXT_JS = r"""(opts) => {
  const skip = opts.skip || [], out = { total: 0, sections: {}, runs: [], paragraphs: [] };
  const words = (s) => (s.match(/\S+/g) || []).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
  const up = (e) => e.parentElement || (e.getRootNode && e.getRootNode().host) || null;
  const skipped = (el) => { for (let e = el; e; e = up(e)) if (e.matches && skip.some((s) => e.matches(s))) return true;
                            return false; };
  const folded = (el) => { for (let e = el; e; e = up(e)) { const p = up(e);
    if (p && p.tagName === 'DETAILS' && !p.open && e.tagName !== 'SUMMARY') return true; } return false; };
  const clipped = (el) => { for (let e = el; e; e = up(e)) if (getComputedStyle(e).clip === 'rect(0px, 0px, 0px, 0px)')
                              return true; return false; };
  const visible = (el) => { const r = el.getBoundingClientRect();
    return el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }) && r.width > 1 && r.height > 1
      && !folded(el) && !clipped(el); };
  const sectionOf = (el) => { for (let e = el; e; e = up(e)) if (e.tagName === 'SECTION' && e.dataset.section)
                                return e.dataset.section; return 'page'; };
  const blockOf = (el) => { for (let e = el; e; e = up(e)) if (!getComputedStyle(e).display.startsWith('inline'))
                              return e; return null; };
  let last = null;
  const walk = (root) => {
    const tw = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = tw.currentNode; n; n = tw.nextNode()) {
      if (n.nodeType === 1) { if (n.shadowRoot) walk(n.shadowRoot); continue; }
      const el = n.parentElement;
      if (!el || /^(SCRIPT|STYLE|OPTION|TEXTAREA|NOSCRIPT|TITLE)$/.test(el.tagName) || !/\S/.test(n.textContent)) continue;
      if (skipped(el) || !visible(el)) continue;
      const b = blockOf(el);
      if (last && last.block === b) last.text += n.textContent;
      else out.runs.push(last = { block: b, text: n.textContent, section: sectionOf(el) });
    }
  };
  walk(document.body);
  out.runs = out.runs.map((r) => ({ section: r.section, text: r.text.replace(/\s+/g, ' ').trim(), words: words(r.text) }));
  for (const r of out.runs) { out.total += r.words; out.sections[r.section] = (out.sections[r.section] || 0) + r.words; }
  const paragraphs = (root) => {
    for (const el of root.querySelectorAll('p, li'))
      if (!skipped(el)) out.paragraphs.push({ section: sectionOf(el), words: words(el.textContent),
                                              text: el.textContent.replace(/\s+/g, ' ').trim() });
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) paragraphs(el.shadowRoot);
  };
  paragraphs(document);
  return out;
}"""

# Every block drawn and the engines' texts written (the sentence section writes its own after its matrix).
ENGINE_TEXTS = ("readouts", "caption", "learn_bw_readout", "sentence_readouts", "sentence_caption", "graph_caption",
                "lag_errors")
TEXTS_WRITTEN_JS = """(names) => names.every((n) => { const m = Bokeh.documents[0].get_model_by_name(n);
  return m && m.text.length > 0; })"""


def page_text(page, skip=(TOUR_CARD,)):
    """What TEXT_JS counts on the page now."""
    return page.evaluate(TEXT_JS, {"skip": list(skip)})


def open_drawn(browser, static_file, width, height, query=""):
    """The offline page at this size, every block drawn and every engine's words written."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(90000)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    block_outside(page)
    page.goto(static_file.as_uri() + query)
    wait_ready(page, timeout=90000)
    assert page.evaluate(DRAW_ALL_JS) is True
    page.wait_for_function(TEXTS_WRITTEN_JS, arg=list(ENGINE_TEXTS))
    wait_texts(page, timeout=30000)
    page.errors = errors
    return page


def _report(counted) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counted["sections"].items()))


@pytest.mark.parametrize("width, height", [(1366, 768), (390, 844)])
def test_at_most_2000_words_are_visible_at_the_first_load(browser, static_file, width, height):
    page = open_drawn(browser, static_file, width, height)
    try:
        counted = page_text(page)
        print(f"\nvisible words at {width}x{height}: {counted['total']} ({_report(counted)})")
        assert counted["total"] <= MAX_VISIBLE_WORDS, _report(counted)
        # every section is there, and says something: the key sentence of each stays visible
        for section in ("regression", "learning", "sentence", "routing", "ideas"):
            assert counted["sections"].get(section, 0) >= 100, (section, _report(counted))
        # the words behind "more" are one tap away: each closed disclosure has a summary a student can see
        closed = page.evaluate("""() => { const out = []; const walk = (root) => {
          for (const d of root.querySelectorAll('details:not([open])')) {
            const s = d.querySelector(':scope > summary'), r = s && s.getBoundingClientRect();
            out.push(!!(r && r.width > 0 && r.height > 0) || !d.checkVisibility()); }
          for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot); };
          walk(document); return out; }""")
        assert closed and all(closed)
        assert page.errors == []
    finally:
        page.close()


@pytest.mark.parametrize("query", ["", "?kernel=dot&key_norm=-0.25&temperature=0.001&query=0.37&bandwidth=0.0051"])
def test_no_paragraph_runs_over_60_words(browser, static_file, query):
    page = open_drawn(browser, static_file, 1366, 768, query)
    try:
        if query:
            page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('caption').text.includes('tilt')")
            wait_texts(page)
        paragraphs = page_text(page)["paragraphs"]
        assert len(paragraphs) > 50   # the page's words, hidden ones included
        longest = max(paragraphs, key=lambda p: p["words"])
        print(f"\nlongest paragraph: {longest['words']} words ({longest['section']}): {longest['text'][:80]}")
        assert [p for p in paragraphs if p["words"] > MAX_PARAGRAPH_WORDS] == []
        assert page.errors == []
    finally:
        page.close()


def test_the_two_columns_end_within_a_screen_of_each_other(browser, static_file):
    page = open_drawn(browser, static_file, 1366, 768)
    try:
        cols = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('section .attn-grid')].map((g) => {
          const f = g.querySelector(':scope > .attn-fig'), s = g.querySelector(':scope > .attn-side');
          return [g.closest('section').dataset.section, [f.offsetHeight, s.offsetHeight]]; }))""")
        print("\ncolumns (figure, side) px:", cols)
        screen = page.evaluate("() => innerHeight")
        for name in GRID_SECTIONS:
            fig, side = cols[name]
            assert fig > 300 and side > 300, (name, fig, side)
            assert abs(fig - side) <= screen, (name, fig, side)
    finally:
        page.close()
