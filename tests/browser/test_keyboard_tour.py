"""Issue 47: the lesson by keyboard alone.  One page (1366 x 768, offline), every section drawn; a student who uses
only Tab, Shift+Tab, Enter and the keys of the control in hand reaches the goal ("found", by the page's own check)
of steps 1 to 8, 12, 16, 18 and 20, turning the steps with the card's Next button; step 1 in at most 30 presses.
"""

from __future__ import annotations

import math

from app.tour import default_tour
from app.sections import CATALOGUE
from tests.browser.pageutil import DRAW_ALL_JS, FIND_VIEW_JS, block_outside, model_prop, wait_ready

TOUR = default_tour(CATALOGUE)
N = len(TOUR)

# Whether the focused element (inside shadow roots) is inside the view of the model called `name`, and, with
# `text`, whether its own name or words start with it.
FOCUS_IN_JS = f"""([name, text]) => {{ let e = document.activeElement;
  while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
  const v = ({FIND_VIEW_JS})(name);
  if (!e || !v) return false;
  let inside = false;
  for (let p = e; p; p = p.parentNode || p.host) if (p === v.el || p === v.shadow_el) {{ inside = true; break; }}
  const words = (e.getAttribute('aria-label') || e.textContent || e.value || '').trim();
  return inside && (!text || words.startsWith(text)); }}"""


class Keyboard:
    """The page and the keys pressed on it, counted."""

    def __init__(self, page):
        self.page, self.presses = page, 0

    def press(self, key, times=1):
        for _ in range(times):
            self.page.keyboard.press(key)
            self.presses += 1

    def tab_to(self, name, text=None, back=False, limit=80, ahead=12):
        """Tab (Shift+Tab with ``back``) until the focus is in the model ``name`` (and its words start with
        ``text``); without ``back``, a student who does not find it within ``ahead`` stops turns back."""
        for way, most in (("Shift+Tab", limit),) if back else (("Tab", ahead), ("Shift+Tab", limit)):
            for _ in range(most):
                if self.page.evaluate(FOCUS_IN_JS, [name, text]):
                    return
                self.press(way)
        if not self.page.evaluate(FOCUS_IN_JS, [name, text]):
            raise AssertionError(f"Tab and Shift+Tab did not reach {name} {text or ''}")

    def type(self, text):
        self.page.keyboard.type(text)
        self.presses += len(text)

    def slide_to(self, name, value):
        """On the focused slider ``name``: Home, then the right arrow until its value is the one nearest ``value``."""
        start, step = model_prop(self.page, name, "start"), model_prop(self.page, name, "step")
        self.press("Home")
        self.press("ArrowRight", round((value - start) / step))
        self.page.wait_for_function("([n, v, s]) => Math.abs(Bokeh.documents[0].get_model_by_name(n).value - v) <= s",
                                    arg=[name, value, step])

    def choose(self, name, value):
        """On the focused menu ``name``: the arrows until it holds ``value``."""
        options = [o[0] if isinstance(o, list) else o for o in model_prop(self.page, name, "options")]
        now = options.index(model_prop(self.page, name, "value"))
        want = options.index(value)
        self.press("ArrowDown" if want > now else "ArrowUp", abs(want - now))
        self.page.wait_for_function("([n, v]) => Bokeh.documents[0].get_model_by_name(n).value === v", arg=[name, value])

    def found(self, k):
        self.page.wait_for_function(f"""() => {{ const t = Bokeh.documents[0].get_model_by_name('tour_card').text;
          return t.includes('Step {k} of') && t.includes('tour-found'); }}""", timeout=30000)

    def next_step(self, k):
        """Next, by keyboard: Tab or Shift+Tab to the card's Next button, Enter; the card says step ``k``."""
        self.tab_to("tour_next")
        self.press("Enter")
        self.page.wait_for_function(f"() => Bokeh.documents[0].get_model_by_name('tour_card').text.includes('Step {k} of')")


def test_the_lesson_by_keyboard_alone(browser, static_file):
    ctx = browser.new_context(viewport={"width": 1366, "height": 768}, reduced_motion="reduce")
    page = ctx.new_page()
    page.set_default_timeout(30000)
    try:
        block_outside(page)
        page.goto(static_file.as_uri())
        wait_ready(page)
        kb = Keyboard(page)
        # step 1: the main plot is the first stop after the skip link; Home moves the query to the left end
        kb.tab_to("main_plot")
        kb.press("Home")
        kb.found(1)
        assert kb.presses <= 30, kb.presses
        page.evaluate(DRAW_ALL_JS)   # (a student who waits has every section drawn by now)
        # steps 2 and 3: the bandwidth slider to its ends
        kb.next_step(2)
        kb.tab_to("bandwidth_slider", back=True)
        kb.press("Home")
        kb.found(2)
        kb.next_step(3)
        kb.tab_to("bandwidth_slider", back=True)
        kb.press("End")
        kb.found(3)
        # step 4: h to about a third of where it opens, then T up until h times the root of T is back near 0.62
        kb.next_step(4)
        kb.tab_to("bandwidth_slider", back=True)
        kb.slide_to("bandwidth_slider", math.log10(0.2))
        kb.tab_to("temperature_slider")
        kb.slide_to("temperature_slider", math.log10(9.6))
        kb.found(4)
        # steps 5 and 6: the dot product (behind More controls), then the key-norm tilt to its end
        kb.next_step(5)
        if model_prop(page, "more_controls", "visible") is not True:   # (the step may have opened them)
            kb.tab_to("more_controls_toggle")
            kb.press("Enter")
        kb.tab_to("kernel_select")
        kb.choose("kernel_select", "dot")
        kb.found(5)
        kb.next_step(6)
        kb.tab_to("keynorm_slider")
        kb.press("End")
        kb.found(6)
        # step 7: back to the Gaussian, h to the lowest leave-one-out error
        kb.next_step(7)
        kb.tab_to("kernel_select")
        kb.choose("kernel_select", "gaussian")
        kb.tab_to("bandwidth_slider", back=True)
        kb.slide_to("bandwidth_slider", math.log10(0.27))
        kb.found(7)
        # step 8: the learning section's Play
        kb.next_step(8)
        kb.tab_to("learn_play")
        kb.press("Enter")
        kb.found(8)
        # step 12: the example sentence from its menu, then the row of "bank" from the words' menu
        for k in (9, 10, 11, 12):
            kb.next_step(k)
        kb.tab_to("preset_select")
        kb.choose("preset_select", "2")
        kb.tab_to("token_select")
        kb.choose("token_select", "4")
        kb.found(12)
        # step 16: head 1, "previous word", a button of the heads' group
        for k in (13, 14, 15, 16):
            kb.next_step(k)
        kb.tab_to("head_select", text="1: previous word")
        kb.press("Space")
        kb.found(16)
        # step 18: W_Q and W_K's Play
        for k in (17, 18):
            kb.next_step(k)
        kb.tab_to("routing_play")
        kb.press("Enter")
        kb.found(18)
        # step 20: a sentence of 16 words typed into the sentence's box
        for k in (19, 20):
            kb.next_step(k)
        kb.tab_to("sentence_input")
        kb.press("Control+a")
        kb.type(" ".join(["word"] * 15 + ["bank"]))
        kb.press("Enter")
        kb.found(20)
    finally:
        ctx.close()
