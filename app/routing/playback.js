// The routing section's playback: one state drawn (a sentence at a recorded step), Play, Pause, Step and Reset at
// the pace of app/routing/pace.py (view.py pace()), and a tour step's Show me.

const RoutingPlayback = (function (U, W, Head, State, Plots, Texts) {
  "use strict";

  const clamp = U.clamp, quiet = U.quiet, setWidget = U.setWidget;
  const { attend, typedSentence, holdFrame, frameAt } = Head;
  const { para, flush, lastFrame, tell, scheduleUrl, fail } = State;
  const { matrixAxes, drawMatrix, senseValues, drawSense, drawCurves } = Plots;
  const { drawStatus, drawReadout, drawWeights, ownInfo } = Texts;

  // ---- one state, drawn ---------------------------------------------------------------------------------

  // The plots take the step's data now and paint at the next frame; the texts follow a frame later
  // (U.afterPaint: HTML changed before a paint makes the paint restyle the whole page first), and the slider's
  // "training step" with them, in the same task: the status line's step and the slider's are painted together.
  function showFrame(a, c) {
    const p = c.cfg.plain;
    c.frame = clamp(c.frame, 0, p.frame_steps.length - 1);
    c.res = attend(c.sent.x, c.sent.valueXY, p.w_q[c.frame], p.w_k[c.frame]);
    drawMatrix(a, c);
    drawSense(a, c);
    drawCurves(a, c);
    U.afterPaint(c, "texts", () => { syncSlider(a, c); drawStatus(a, c); drawReadout(a, c); drawWeights(a, c); },
                 (e) => fail(a, e));
    scheduleUrl(a, c);
  }

  function syncSlider(a, c) { if (a.w_frame.value !== c.frame) quiet(a.w_frame, "value", c.frame); }

  function loadSentence(a, c, s) {
    c.sent = s;
    c.hold = s.own ? -1 : holdFrame(c.clue[c.shown], c.cfg.hold_share);
    matrixAxes(a, c);
    senseValues(a, c);
  }

  function showShown(a, c, i) {
    c.shown = clamp(i, 0, c.cfg.plain.sentences.length - 1);
    loadSentence(a, c, c.sentences[c.shown]);
    ownInfo(a, c);
    showFrame(a, c);
  }

  // The box's sentence: read it (AttnWords), show it with the trained projections; a refusal keeps what is shown.
  function showTyped(a, c, raw) {
    let s;
    try { s = typedSentence(c.cfg, String(raw)); } catch (e) {
      if (!W.isRefusal(e)) throw e;
      ownInfo(a, c, para("notice", `That sentence was not used: ${e.message}. The sentence shown stays.`));
      return;
    }
    stop(a, c);
    c.typed = s;
    setWidget(a.w_sentence, "value", c.cfg.own);
    loadSentence(a, c, s);
    c.frame = c.cfg.plain.frame_steps.length - 1;   // the trained W_Q and W_K
    ownInfo(a, c);
    showFrame(a, c);
  }

  // ---- playback -------------------------------------------------------------------------------------------

  // (stopped, the slider shows the frame at once: a control that stops where the student let go)
  function stop(a, c) {
    if (c.timer) { clearInterval(c.timer); c.timer = null; syncSlider(a, c); tell(a, c); }
    quiet(a.w_play, "disabled", false);
    quiet(a.w_pause, "disabled", true);
  }

  function stepOnce(a, c) {
    stop(a, c);
    if (c.frame >= lastFrame(c)) return;
    c.frame += 1;
    showFrame(a, c);
  }

  // The frame due `ms` after Play was pressed at frame f0, by the schedule: schedule[f] ms on frame f before the
  // next (app/routing/pace.py frame_ms: slow while the accuracy climbs, a hold at the sentence's moment, fast
  // once the answers are settled).  Never past the last frame.
  function dueFrame(ms, f0, schedule) {
    let t = ms, f = f0;
    while (f < schedule.length - 1 && t >= schedule[f]) { t -= schedule[f]; f += 1; }
    return f;
  }

  // The schedule Play follows for the sentence shown (view.py pace()): a shown sentence's own, or a typed one's.
  function scheduleOf(c) { return c.sent.own ? c.cfg.pace.typed : c.cfg.pace.shown[c.shown]; }

  // The path advances with the clock: a slow redraw makes the next one jump to where the clock is, so the pace
  // holds on a slow machine.
  function play(a, c) {
    if (c.timer) return;
    if (c.frame >= lastFrame(c)) { c.frame = 0; showFrame(a, c); }
    // a student who asked for less motion gets the end of training at once (as the learning section does)
    if (typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches) {
      c.frame = lastFrame(c);
      showFrame(a, c);
      U.say(Texts.saidStatus(c), "routing");
      return;
    }
    quiet(a.w_play, "disabled", true);
    quiet(a.w_pause, "disabled", false);
    const t0 = performance.now(), f0 = c.frame, schedule = scheduleOf(c);
    c.timer = setInterval(() => {
      U.runGuarded(c, () => {
        const due = Math.min(lastFrame(c), dueFrame(performance.now() - t0, f0, schedule));
        if (due > c.frame) { c.frame = due; showFrame(a, c); }
        if (c.frame >= lastFrame(c)) { stop(a, c); U.say(Texts.saidStatus(c), "routing"); }   // heard once, at the end
        flush(c);
      }, (e) => { c.pending = []; stop(a, c); fail(a, e); });
    }, 40);
  }

  function reset(a, c) {
    stop(a, c);
    c.frame = 0;
    showFrame(a, c);
  }

  // A tour step's Show me: a shown sentence and a training step (playback stops).
  function apply(a, c, v) {
    stop(a, c);
    if (v.qk_sentence !== undefined) {
      setWidget(a.w_sentence, "value", String(clamp(Number(v.qk_sentence), 0, c.sentences.length - 1)));
      showShown(a, c, Number(v.qk_sentence));
    }
    if (v.qk_step !== undefined) { c.frame = frameAt(c.cfg.plain.frame_steps, Number(v.qk_step)); showFrame(a, c); }
  }

  return { showFrame, loadSentence, showShown, showTyped, stop, stepOnce, dueFrame, scheduleOf, play, reset, apply };
})(AttnCommon, AttnWords, RoutingHead, RoutingOnPage, RoutingPlots, RoutingTexts);
