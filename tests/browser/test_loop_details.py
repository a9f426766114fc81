"""The small parts of the explorable's loop (issue 23), each checked where a student meets it, on the offline file:

* no control covers another and no control's words are cut, with every block drawn and "More controls" open: a
  1920 x 1080 projector in presentation mode, a 1366 x 768 laptop and a 390 x 844 phone; the query slider's
  title reads "1.00" at ?query=1 there;
* entropy and effective points are explained on the first screen, next to the readouts: in step 1's card (which
  sits beside them on a wide screen) and, on a phone, in a line under the legend;
* prefers-reduced-motion: Show me jumps (its numbers and its scroll), the learning section's Play shows its end at
  once; without it both move;
* what a screen reader hears: the readouts' polite live region, written at most every ANNOUNCE_MAX_MS during a drag
  and with the drag's last state once the numbers rest;
* the main plot is the first Tab stop and its arrow keys move the query by the slider's step (numpy's readouts
  there); in presentation mode they turn the tour's steps and leave the query alone;
* "Copy a link" in a cross-origin frame without allow="clipboard-write" logs nothing and shows the link to copy by
  hand.

Every wait is for a condition, never for a time.
"""

from __future__ import annotations

import re

import pytest

from app.tour import default_tour
from tests.browser.pageutil import (ALL_VIEWS_JS, DRAW_ALL_JS, FIND_VIEW_JS, OFFLINE_ORIGINS, SETTLED_JS, block_outside,
                                    check_against_core, draw, draw_all, drag, model_element, model_prop,
                                    open_more_controls, plot_geometry, readout_rows, set_model_prop, wait_prop,
                                    wait_ready)
from app.sections import CATALOGUE

TOUR = default_tour(CATALOGUE)
# the regression's step about the bias-variance plot: its Show me moves h and scrolls the page on a laptop
BIAS = next(k for k, s in enumerate(TOUR.steps, 1)
            if s.section == "regression" and s.looks_at[0] == "bias_variance_plot")
ANNOUNCE_MS, ANNOUNCE_MAX_MS = 600, 2000   # app/regression/querytexts.js announce()


def open_file(browser, static_file, query="", *, width, height, mobile=False, **context):
    """The offline file in a fresh context (every request outside it refused); returns (context, page, problems):
    the console errors and page errors it logs."""
    ctx = browser.new_context(viewport={"width": width, "height": height}, is_mobile=mobile, has_touch=mobile,
                              **context)
    page = ctx.new_page()
    page.set_default_timeout(30000)
    problems = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    block_outside(page)
    page.goto(static_file.as_uri() + query)
    wait_ready(page)
    return ctx, page, problems


def visible_text(page, name):
    """What a named view shows (its text, read through its shadow root)."""
    return page.evaluate(f"(n) => {{ const v = ({FIND_VIEW_JS})(n); return v && (v.shadow_el || v.el).textContent; }}",
                         name)


# ---- no control covers another; no control's words are cut ---------------------------------------------------

# Every control on the page, each as the boxes it draws (page coordinates): a Bokeh widget is its element and
# everything it draws inside its shadow root (a label wider than the widget spills out of it, so it counts); the
# form controls inside a Div's HTML (the own-data form) are each one control, a label holding its input as one.
CONTROLS_JS = f"""() => {{
  const PARTS = "button, select, input, textarea, label, .bk-slider-title, .noUi-target";
  const WIDGET = /Button|Toggle|Slider|Select|Checkbox|Switch|Choice|Input|RadioGroup|Spinner|Picker/;
  const drawn = (e) => {{ const r = e.getBoundingClientRect(), s = getComputedStyle(e);
    return r.width >= 1 && r.height >= 1 && s.visibility !== "hidden" && s.display !== "none" ? r : null; }};
  const box = (r) => ({{ l: r.left, t: r.top + scrollY, r: r.right, b: r.bottom + scrollY }});
  const out = [];
  for (const v of ({ALL_VIEWS_JS})()) {{
    if (!v.el || !v.el.isConnected || !v.shadow_el || !drawn(v.el)) continue;
    const parts = [...v.shadow_el.querySelectorAll(PARTS)].filter(drawn);
    const name = v.model.name || v.model.type;
    if (WIDGET.test(v.model.type))
      out.push({{ name, boxes: [box(drawn(v.el)), ...parts.map((e) => box(drawn(e)))] }});
    else if (!(v.child_views && v.child_views.length))
      parts.filter((e) => !parts.some((o) => o !== e && o.contains(e)))
           .forEach((e, i) => out.push({{ name: `${{name}}: ${{e.tagName.toLowerCase()}} ${{i}}`,
                                          boxes: [box(drawn(e))] }}));
  }}
  return out;
}}"""

# Words cut inside their own box: a button's label, a slider's title, a form label, wider than the box shows.
CUT_JS = f"""() => {{ const out = [];
  for (const v of ({ALL_VIEWS_JS})()) {{
    if (!v.el || !v.el.isConnected || !v.shadow_el) continue;
    for (const e of v.shadow_el.querySelectorAll("button, label, .bk-slider-title"))
      if (e.getBoundingClientRect().width >= 1 && e.scrollWidth > e.clientWidth + 0.5)
        out.push(`${{v.model.name || v.model.type}}: "${{e.textContent.trim()}}" needs ${{e.scrollWidth}} px,` +
                 ` has ${{e.clientWidth}}`);
  }}
  return out; }}"""


# The controls drawn inside the docked step card (their model names).
DOCKED_JS = f"""() => {{ const dock = document.querySelector('.attn-docked'), out = [];
  if (!dock) return out;
  const inside = (e) => {{ for (let p = e; p; p = p.parentNode || p.host) if (p === dock) return true; return false; }};
  for (const v of ({ALL_VIEWS_JS})()) if (v.el && v.el.isConnected && inside(v.el)) out.push(v.model.name || v.model.type);
  return out; }}"""


def overlapping(controls):
    """Pairs of controls with a box of one over a box of the other (by more than half a pixel each way)."""
    out = []
    for i, a in enumerate(controls):
        for b in controls[i + 1:]:
            for p in a["boxes"]:
                hit = [q for q in b["boxes"] if min(p["r"], q["r"]) - max(p["l"], q["l"]) > 0.5
                       and min(p["b"], q["b"]) - max(p["t"], q["t"]) > 0.5]
                if hit:
                    out.append((a["name"], b["name"], {k: round(v) for k, v in p.items()},
                                {k: round(v) for k, v in hit[0].items()}))
                    break
    return out


# The paragraphs on screen, whole and uncovered, that explain effective points and entropy, with their distance
# (px, up or down) from the compact readouts under the plot (the readout strip).
EXPLAINED_JS = f"""() => {{ const strip = ({FIND_VIEW_JS})('readout_strip').el.getBoundingClientRect(), out = [];
  const explains = (t) => /effective points/i.test(t) && /how many samples/i.test(t) && /entropy/i.test(t) &&
    /spread/i.test(t);
  for (const v of ({ALL_VIEWS_JS})()) {{
    if (!v.el || !v.el.isConnected || !v.shadow_el) continue;
    for (const p of v.shadow_el.querySelectorAll("p")) {{
      const r = p.getBoundingClientRect();
      if (!explains(p.textContent) || r.width < 1 || r.top < 0 || r.left < 0 || r.bottom > innerHeight ||
          r.right > innerWidth) continue;
      let e = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
      while (e && e.shadowRoot && e.shadowRoot.elementFromPoint) {{
        const f = e.shadowRoot.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
        if (!f || f === e) break; e = f; }}
      if (!e || !(p === e || p.contains(e))) continue;
      out.push({{ text: p.textContent.trim(), from_strip: Math.max(0, r.top - strip.bottom, strip.top - r.bottom) }});
    }}
  }}
  return out; }}"""
NEAR_STRIP = 200   # px: "next to the readouts", above or below them

SCREENS = {
    "projector": dict(width=1920, height=1080, query="&present=1"),
    "laptop": dict(width=1366, height=768),
    "phone": dict(width=390, height=844, mobile=True),
}


@pytest.mark.parametrize("screen", list(SCREENS))
def test_the_first_screen_explains_its_readouts_and_no_control_covers_another(browser, static_file, screen):
    """The first screen, nothing opened: effective points and entropy are explained next to the readouts (a laptop
    and a phone), step 1's card names both, and the query slider's title at ?query=1 reads "1.00" (it once read
    "query x: 1").  Then every block drawn and "More controls" open: no control's box lies over another's and no
    label is cut."""
    s = dict(SCREENS[screen])
    ctx, page, problems = open_file(browser, static_file, "?query=1" + s.pop("query", ""), **s)
    try:
        title = model_element(page, "query_slider", ".bk-slider-title").text_content()
        assert title.replace("\u00a0", " ").strip() == "query x: 1.00"
        card = visible_text(page, "tour_card")
        assert "Step 1 of" in card or "1/21" in card   # (a phone's card puts the count in its title's line)
        if "effective points" not in card:   # the docked card's words are folded where room is short: one tap
            page.get_by_role("button", name="Read more").click()
            page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('tour_card').text"
                                   ".includes('tour-text')")
            card = visible_text(page, "tour_card")
            page.get_by_role("button", name="Read less").click()
        assert "effective points" in card and "entropy" in card
        if screen != "projector":
            page.evaluate(SETTLED_JS)
            assert page.evaluate("() => scrollY") == 0
            shown = page.evaluate(EXPLAINED_JS)
            assert [e for e in shown if e["from_strip"] <= NEAR_STRIP], shown
        draw_all(page)
        open_more_controls(page)
        # measured at the top of the page: there the stage (stuck at the top of a phone's screen as the page
        # scrolls under it) is in its place in the page
        page.evaluate("() => scrollTo({top: 0, behavior: 'instant'})")
        page.evaluate(SETTLED_JS)
        controls = page.evaluate(CONTROLS_JS)
        names = {c["name"] for c in controls}
        assert {"learn_pause", "learn_step_button", "metric_pause", "metric_step_button", "routing_pause",
                "share_button", "kernel_select", "sentence_input", "tour_show"} <= names, names
        # the step card docked at the foot of the screen lies over the page by design (a tap there reaches the card:
        # tests/browser/test_in_view.py): its controls keep clear of each other, and the page's of each other
        docked = set(page.evaluate(DOCKED_JS))
        mine = [c for c in controls if c["name"].split(":")[0] in docked]
        assert overlapping(mine) == [] and len(mine) >= 4
        assert overlapping([c for c in controls if c not in mine]) == []
        assert page.evaluate(CUT_JS) == []
        assert problems == []
    finally:
        ctx.close()


# ---- reduced motion: Show me and the learning playback ----------------------------------------------------------

# An init script: each call of window.scrollTo noted with the scroll position just before and just after it (an
# "auto" scroll is done when the call returns; a smooth one has not started), and at every frame the scroll
# position and the bandwidth slider, once window.__frames is an array.
MOTION_JS = """(() => {
  window.__scrolls = [];
  const scrollTo = window.scrollTo.bind(window);
  window.scrollTo = (...args) => {
    const before = scrollY, out = scrollTo(...args);
    const o = typeof args[0] === "object" ? args[0] : { top: args[1] };
    window.__scrolls.push({ top: o.top, behavior: o.behavior || "auto", before, after: scrollY,
                            max: document.documentElement.scrollHeight - innerHeight });
    return out;
  };
  const tick = () => {
    if (Array.isArray(window.__frames) && window.Bokeh && Bokeh.documents[0])
      window.__frames.push([scrollY, Bokeh.documents[0].get_model_by_name('bandwidth_slider').value]);
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();"""

CARD_JS = "Bokeh.documents[0].get_model_by_name('tour_card').text"
STEP_JS = "/Step (\\d+) of/.exec(Bokeh.documents[0].get_model_by_name('learn_bw_readout').text)"


def distinct(values):
    """The values in order, each run of equal ones once."""
    return [v for i, v in enumerate(values) if i == 0 or v != values[i - 1]]


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_show_me_and_play_move_only_without_reduced_motion(browser, static_file, motion):
    """With prefers-reduced-motion, Show me's numbers and its scroll land in one frame, and the learning section's
    Play draws its last step at once; without it, both move through frames in between."""
    ctx = browser.new_context(viewport={"width": 1366, "height": 768}, reduced_motion=motion)
    ctx.add_init_script(MOTION_JS)
    page = ctx.new_page()
    page.set_default_timeout(30000)
    block_outside(page)
    still = motion == "reduce"
    try:
        page.goto(static_file.as_uri() + f"?tour={BIAS}")
        wait_ready(page)
        page.wait_for_function(f"() => {CARD_JS}.includes('Step {BIAS} of')")
        page.evaluate("() => scrollTo({top: 0, behavior: 'instant'})")
        show = model_element(page, "tour_show", "button")
        show.scroll_into_view_if_needed()
        page.evaluate(SETTLED_JS)
        h0 = model_prop(page, "bandwidth_slider", "value")
        page.evaluate("() => { window.__scrolls = []; window.__frames = []; }")
        show.click()
        page.wait_for_function(f"() => /tour-(shown|found)/.test({CARD_JS})")
        page.evaluate(SETTLED_JS)
        scrolls = page.evaluate("() => window.__scrolls")
        frames = page.evaluate("() => window.__frames")
        hs = distinct([h for _, h in frames])
        ys = distinct([y for y, _ in frames])
        assert scrolls, "Show me did not scroll the page: this check needs a step whose Show me does"
        assert hs[0] == h0 and hs[-1] != h0, hs
        if still:
            assert len(hs) == 2, f"h went through {hs} instead of jumping"
            for s in scrolls:   # each scroll is over when its call returns
                assert s["behavior"] != "smooth" and abs(s["after"] - min(max(s["top"], 0), s["max"])) <= 1, s
            assert len(ys) <= len(scrolls) + 1, ys
        else:
            assert len(hs) > 3, f"h jumped: {hs}"
            assert any(s["behavior"] == "smooth" for s in scrolls), scrolls
            assert len(ys) > len(scrolls) + 2, f"the page did not glide: {ys}"

        draw(page, "learning")
        page.wait_for_function(f"() => {STEP_JS} && {STEP_JS}[1] === '0'")
        page.evaluate(f"""() => {{ window.__steps = []; const look = () => {{ const m = {STEP_JS};
          if (m && window.__steps[window.__steps.length - 1] !== m[1]) window.__steps.push(m[1]);
          requestAnimationFrame(look); }}; look(); }}""")
        last = re.search(r"Step 0 of (\d+)", model_prop(page, "learn_bw_readout", "text"))[1]
        model_element(page, "learn_play", "button").click()
        page.wait_for_function("(s) => window.__steps.includes(s)", arg=last)   # (2.4 s of playback)
        steps = page.evaluate("() => window.__steps")   # the step written at each frame
        if still:
            assert steps == ["0", last]   # from the start to the end, nothing between
        else:
            assert len(steps) > 3 and steps[-1] == last and all(0 < int(k) < int(last) for k in steps[1:-1]), steps
    finally:
        ctx.close()


# ---- the main plot: the keyboard, a drag and what a screen reader hears -----------------------------------------

# An init script: once window.__heard is an array, every write of the live region (the readout announcer) and of
# the readout strip, with the time (performance.now) and the text.
HEARD_JS = f"""() => {{
  const el = (n) => {{ const v = ({FIND_VIEW_JS})(n); return v && v.markup_el; }};
  const live = el('readout_announcer'), strip = el('readout_strip');
  window.__heard = []; window.__strip = [];
  new MutationObserver(() => window.__heard.push([performance.now(), live.textContent]))
    .observe(live, {{ childList: true, subtree: true, characterData: true }});
  new MutationObserver(() => window.__strip.push([performance.now(), strip.textContent]))
    .observe(strip, {{ childList: true, subtree: true, characterData: true }});
  return live.getAttribute('aria-live'); }}"""

# Every element with aria-live, in the document and in every shadow root: [its view's model name or its id, its text].
LIVE_REGIONS_JS = f"""() => {{ const out = [], walk = (root) => {{
    for (const el of root.querySelectorAll('*')) {{
      if (el.hasAttribute('aria-live')) out.push(el);
      if (el.shadowRoot) walk(el.shadowRoot);
    }} }};
  walk(document);
  const named = new Map(({ALL_VIEWS_JS})().map((v) => [v.markup_el || v.el, v.model.name]));
  return out.map((el) => [named.get(el) || el.id, el.textContent]); }}"""

# The element that has the keyboard's focus, looked for through the shadow roots.
FOCUSED_IS_PLOT_JS = f"""() => {{ let e = document.activeElement;
  while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
  const v = ({FIND_VIEW_JS})('main_plot'), canvas = v && v.canvas_view && v.canvas_view.el;
  return !!canvas && (e === canvas || canvas.contains(e) || (canvas.shadowRoot && canvas.shadowRoot.contains(e))); }}"""


def spoken(rows, n):
    """What the live region says for the readouts table ``rows`` (readout_rows) over n samples."""
    return (f"max weight {rows['max weight']}, effective points {rows['effective points']} of {n}, "
            f"prediction {rows['prediction']}")


def wait_spoken(page, n, timeout=30000):
    """Wait until the live region says the readouts the table shows; returns that text."""
    want = spoken(readout_rows(page), n)
    page.wait_for_function(f"(s) => ({FIND_VIEW_JS})('readout_announcer').markup_el.textContent === s", arg=want,
                           timeout=timeout)
    return want


def test_the_main_plot_by_keyboard_and_by_drag_and_what_a_screen_reader_hears(browser, static_file):
    ctx, page, problems = open_file(browser, static_file, "?query=1", width=1366, height=768)
    try:
        n = page.evaluate("() => Bokeh.documents[0].get_model_by_name('dataset').data.x.length")
        assert page.evaluate(HEARD_JS) == "polite"
        # issue 47 (what Orca read, tools/orca_listen.py): the opening state is read with the page, not announced.
        # Every block drawn and the main plot described (once its readouts rest), no live region has said anything,
        # and the only live regions are the page's two (the readouts' and common.js say's): no section's text
        # re-drawn whole is one
        assert page.evaluate(DRAW_ALL_JS)
        page.wait_for_function("() => !!Bokeh.documents[0].get_model_by_name('main_plot').html_attributes"
                               "['aria-description'] && !(globalThis.__attnTextsPending > 0)")
        assert page.evaluate(LIVE_REGIONS_JS) == [["readout_announcer", ""]], "a live region spoke at load"
        assert page.evaluate("() => window.__heard.length") == 0
        step = model_prop(page, "query_slider", "step")
        assert step > 0

        # the first Tab stop is the link past the controls to the step card, the next the main plot; its right arrow
        # moves the query one slider step, numpy's readouts
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.className") == "attn-skip"
        page.keyboard.press("Tab")
        assert page.evaluate(FOCUSED_IS_PLOT_JS), "the second Tab stop is not the main plot"
        page.keyboard.press("ArrowRight")
        page.wait_for_function("(q) => Math.abs(Bokeh.documents[0].get_model_by_name('query_slider').value - q) < 1e-9",
                               arg=1 + step)
        state, r = check_against_core(page)
        assert state["query"] == pytest.approx(1 + step, abs=1e-9) and r.query == pytest.approx(1 + step, abs=1e-9)
        title = model_element(page, "query_slider", ".bk-slider-title").text_content().replace("\u00a0", " ")
        assert title.strip() == f"query x: {1 + step:.2f}"
        page.keyboard.press("ArrowLeft")
        page.wait_for_function("() => Math.abs(Bokeh.documents[0].get_model_by_name('query_slider').value - 1) < 1e-9")
        check_against_core(page)
        # as the slider's own keys do: End and Home to its ends, Page Up and Page Down by ten steps (issue 47)
        lo, hi = model_prop(page, "query_slider", "start"), model_prop(page, "query_slider", "end")
        for key, want in (("End", hi), ("PageDown", hi - 10 * step), ("Home", lo), ("PageUp", lo + 10 * step),
                          ("ArrowRight", lo + 11 * step)):
            page.keyboard.press(key)
            page.wait_for_function("(q) => Math.abs(Bokeh.documents[0].get_model_by_name('query_slider').value - q) "
                                   "< 1e-9", arg=want)
            if key == "Home":   # the slider and the plot say the query with a true minus (what Orca read)
                # (the plot's words are written with the caption, two frames after the move: common.js afterPaint)
                page.wait_for_function("() => !(globalThis.__attnTextsPending > 0)")
                said = page.evaluate(f"() => ({FIND_VIEW_JS})('main_plot').canvas_view.el.getAttribute('aria-valuetext')")
                title = model_element(page, "query_slider", ".bk-slider-title").text_content()
                handle = model_element(page, "query_slider", ".noUi-handle").get_attribute("aria-valuetext")
                assert (said, title, handle) == ("x = \u22120.50", "query x: \u22120.50", "\u22120.50"), (said, title, handle)
        check_against_core(page)
        set_model_prop(page, "query_slider", "value", 1.0)
        page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('query_slider').value === 1")
        page.evaluate(f"() => ({FIND_VIEW_JS})('main_plot').canvas_view.el.focus()")
        wait_spoken(page, n)

        # a fast drag: the live region is written at most once per ANNOUNCE_MAX_MS (and after each rest of
        # ANNOUNCE_MS), and when the drag ends it says the drag's last state
        page.evaluate("() => { window.__heard.length = 0; window.__strip.length = 0; }")
        g = plot_geometry(page)
        y = g["top"] + g["height"] * 0.5
        t0 = page.evaluate("() => performance.now()")
        xs = [1.0, 5.0, 1.5, 4.5, 2.0, 4.0, 2.5, 3.6]
        drag(page, g, y, xs, steps=14)
        t1 = page.evaluate("() => performance.now()")
        state, r = check_against_core(page)
        want = wait_spoken(page, n)
        heard = page.evaluate("() => window.__heard")
        strip = page.evaluate("() => window.__strip")
        changes = [t for t, _ in strip if t <= t1]
        assert len(changes) >= 10, f"the drag changed the readouts only {len(changes)} times"
        during = [t for t, _ in heard if t <= t1]
        rests = sum(1 for a, b in zip([t0] + changes, changes) if b - a >= ANNOUNCE_MS)
        assert len(during) <= 1 + (t1 - t0) / ANNOUNCE_MAX_MS + rests, (len(during), t1 - t0, rests, heard)
        gaps = [b - a for (a, _), (b, _) in zip(heard, heard[1:])]
        assert all(gap >= ANNOUNCE_MS - 50 for gap in gaps), gaps
        after = [s for t, s in heard if t >= strip[-1][0] - 1]
        assert after == [want], (after, want)   # once, with the last state, after the last change of the numbers

        # presentation mode (issue 47): the focused plot keeps its arrows (the query moves a slider step, the step
        # stays), and the clicker's Page Down turns the tour's step, shown as it opens
        set_model_prop(page, "present_toggle", "active", True)
        page.wait_for_function("() => document.querySelector('.attn-page').getAttribute('data-present') === '1'")
        page.evaluate(f"() => ({FIND_VIEW_JS})('main_plot').canvas_view.el.focus()")
        assert page.evaluate(FOCUSED_IS_PLOT_JS)
        card = model_prop(page, "tour_card", "text")
        k = int(re.search(r"Step (\d+) of", card)[1])
        page.evaluate(SETTLED_JS)
        q = model_prop(page, "query_slider", "value")
        page.keyboard.press("ArrowRight")   # one slider step, onto the slider's grid (the drag left it between)
        page.wait_for_function("(q) => Math.abs(Bokeh.documents[0].get_model_by_name('query_slider').value - q) < 1e-9",
                               arg=round((q + step) / step) * step)
        assert f"Step {k} of" in model_prop(page, "tour_card", "text")
        page.keyboard.press("PageDown")
        page.wait_for_function("(s) => Bokeh.documents[0].get_model_by_name('tour_card').text.includes(s)",
                               arg=f"Step {k + 1} of")
        from app.tour import default_tour, full_state

        # the step's own state, by its Show me
        want = full_state(CATALOGUE, default_tour(CATALOGUE).steps[k].state)["query"]
        page.wait_for_function("(q) => Bokeh.documents[0].get_model_by_name('query_slider').value === q", arg=want)
        page.evaluate(SETTLED_JS)
        assert model_prop(page, "query_slider", "value") == want
        assert problems == []
    finally:
        ctx.close()


# ---- "Copy a link" inside a frame whose host did not allow the clipboard -----------------------------------------

HOST_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>course page</title>
<link rel="icon" href="data:,"></head><body><h1>Week 5: attention</h1>
<iframe src="{src}" style="width:100%;height:1400px;border:0" title="attention explorable"></iframe></body></html>"""


def test_copy_link_in_a_frame_without_allow_logs_nothing_and_shows_the_link(browser, static_file):
    """A course page (localhost) frames the offline file served from another origin (127.0.0.1), without
    allow="clipboard-write": both answered by the browser's router, nothing else reached.  The click asks for no
    clipboard (asking logs a permissions-policy error) and shows the link selected, to copy by hand."""
    app = "http://127.0.0.1:9/explorable.html?query=2.5"
    body = static_file.read_bytes()
    outside = []

    def answer(route):
        url = route.request.url
        if url.startswith("http://localhost:9/course.html"):
            route.fulfill(body=HOST_PAGE.format(src=app), content_type="text/html")
        elif url.startswith("http://127.0.0.1:9/explorable.html"):
            route.fulfill(body=body, content_type="text/html")
        elif url.startswith(OFFLINE_ORIGINS):
            route.continue_()
        else:
            outside.append(url)
            route.abort()

    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.set_default_timeout(30000)
    logged = []
    page.on("console", lambda m: logged.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: logged.append(f"pageerror: {e}"))
    page.route("**/*", answer)
    try:
        page.goto("http://localhost:9/course.html")
        page.wait_for_function("document.querySelectorAll('iframe').length === 1")
        frame = page.frames[1]
        wait_ready(frame)
        assert frame.evaluate("() => window.isSecureContext && !!navigator.clipboard")   # the clipboard exists ...
        assert frame.evaluate("() => !(document.permissionsPolicy || document.featurePolicy)"
                              ".allowsFeature('clipboard-write')")   # ... and refused to this frame
        open_more_controls(frame)
        model_element(frame, "share_button", "button").click()
        wait_prop(frame, "share_status", "text", "(t) => t.includes('copy it by hand')")
        field = model_element(frame, "share_status", "input.share-link")
        assert field.input_value() == frame.evaluate("() => location.href")
        frame.wait_for_function("(el) => el.selectionStart === 0 && el.selectionEnd === el.value.length", arg=field)
        assert logged == [] and outside == []
    finally:
        ctx.close()
