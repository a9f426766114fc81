// The routing section's state on the page and what it tells the page: its cache, the data a gesture queues, the
// readouts the tour reads, its link, and a failure's notice.  Every text that reaches a Div goes through esc().

const RoutingOnPage = (function (U, Head) {
  "use strict";

  const esc = U.esc, setHtml = U.setHtml;
  const { senseOf } = Head;

  function cacheFor(a) { return U.pageState("__attnRoutingCache", a.status_div, { pending: [] }); }
  function range(n) { return Array.from({ length: n }, (_, i) => i); }
  function para(cls, s) { return `<p class="${cls}">${esc(s)}</p>`; }
  function quote(w) { return `\u201c${w}\u201d`; }

  // New data for a source, applied all at once when the event's work is done (see put in app/sentence/onpage.js).
  function put(c, src, data) { c.pending.push([src, data]); }
  function flush(c) { const p = c.pending; c.pending = []; for (const [src, data] of p) src.data = data; }

  function lastFrame(c) { return c.cfg.plain.frame_steps.length - 1; }

  // ---- what the tour reads and sets (app/tour/model.py routing_readouts) ------------------------------------

  function readouts(c) {
    const s = c.sent, key = s.tokens.join(" "), steps = c.cfg.plain.frame_steps;
    const out = { qk_step: steps[c.frame], qk_finished: c.frame === lastFrame(c), qk_playing: !!c.timer,
                  qk_sentence: key, qk_typed: !!s.own, held_out: !c.cfg.train_keys.includes(key) };
    if (s.index >= 0 && c.res) {
      const w = c.res.weights[s.index];
      let top = 0;
      for (let j = 0; j < w.length; j++) if (w[j] > w[top]) top = j;
      const z = senseOf(c.res.outputs[s.index], s.even, c.cfg.plain.readout_scale, c.cfg.plain.undecided_within);
      Object.assign(out, { bank_top_word: s.tokens[top], bank_top_weight: w[top], bank_sense: z.sense });
    }
    return out;
  }

  function tell(a, c) { U.tellReadouts(a.heat.document, c, "routing", () => readouts(c)); }

  // ---- the URL ----------------------------------------------------------------------------------------------

  function scheduleUrl(a, c) {
    tell(a, c);
    U.scheduleUrl(c, () => {
      const d = c.cfg.defaults, out = new URLSearchParams(window.location.search);
      const putKey = (k, v) => { if (v === d[k]) out.delete(k); else out.set(k, String(v)); };
      putKey("qk_step", c.cfg.plain.frame_steps[c.frame]);
      putKey("qk_sentence", c.shown);
      return out.toString();
    });
  }

  function fail(a, e) {
    console.error("attention explorable (routing):", e);
    if (a.notice_div) {
      setHtml(a.notice_div, para("notice", `Something went wrong in this section (${e.message}).`));
      a.notice_div.visible = true;
    }
  }

  return { cacheFor, range, para, quote, put, flush, lastFrame, readouts, tell, scheduleUrl, fail };
})(AttnCommon, RoutingHead);
