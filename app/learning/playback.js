// The learning section's playback, shared by both demos: a path loaded (playback stops), stepped, played and
// reset; a new dataset's path caught up with; and a tour step's Show me, which sets the rates and the steps.

const LearningPlayback = (function (U, State, Bandwidth, Metric) {
  "use strict";

  const quiet = U.quiet;
  const { lastStep, tell } = State;
  const { bwTrajectory, showBandwidth } = Bandwidth;
  const { showMetric } = Metric;

  // The loss plots' y axis spans the whole path from the start, so it never rescales while playing
  // (a rescale costs a re-layout of the plot at every step).  It spans at least a tenth of the path's
  // highest loss: a path that lowers the loss by a hair looks nearly flat rather than like a cliff, and
  // its tick labels keep to four digits (theme.steady_ticks), so a new dataset does not re-lay out the page.
  function fitRange(r, loss, fromZero) {
    let lo = Infinity, hi = -Infinity;
    for (const v of loss) { if (v < lo) lo = v; if (v > hi) hi = v; }
    if (!isFinite(lo)) { lo = 0; hi = 1; }
    lo = Math.min(lo, hi - 0.1 * Math.abs(hi));
    const pad = hi > lo ? 0.08 * (hi - lo) : 0.05 * Math.abs(hi) || 0.05;
    const start = fromZero ? 0 : lo - pad, end = hi + pad;
    if (r.start !== start || r.end !== end) r.setv({ start, end });
  }

  function loadBandwidth(a, c) {
    stop(a, c, "bw");
    c.bw.traj = bwTrajectory(a, c);
    c.bw.lr = a.bw_lr.value;
    c.bw.dsKey = a.ds.tags[0] || "";
    c.bw.step = 0;
    c.bw.manual = false;
    c.bw.notes = {};
    c.bw.moved = false;   // the slider is not on this path until a step, a reset or a link puts it there
    if (c.bw.traj) fitRange(a.bw_loss_range, c.bw.traj.loss, false);
  }

  function loadMetric(a, c) {
    stop(a, c, "m");
    c.m.lr = a.m_lr.value;
    c.m.traj = c.cfg.metric.trajectories[c.m.lr] || c.cfg.metric.trajectories[c.cfg.defaults.metric_lr];
    c.m.step = 0;
    fitRange(a.m_loss_range, c.m.traj.loss, true);
  }

  // ---- playback (shared by both demos) ---------------------------------------------------------------

  function demo(a, c, which) {
    return which === "bw"
      ? { s: c.bw, show: (move) => showBandwidth(a, c, move), play: a.bw_play, pause: a.bw_pause }
      : { s: c.m, show: () => showMetric(a, c), play: a.m_play, pause: a.m_pause };
  }

  function stop(a, c, which) {
    const d = demo(a, c, which);
    if (d.s.timer) { clearInterval(d.s.timer); d.s.timer = null; tell(a, c); }
    quiet(d.play, "disabled", false);
    quiet(d.pause, "disabled", true);
  }

  function stepOnce(a, c, which) {
    const d = demo(a, c, which);
    if (!d.s.traj || d.s.step >= lastStep(d.s)) { stop(a, c, which); return false; }
    d.s.step += 1;
    d.show(true);
    if (d.s.step >= lastStep(d.s)) stop(a, c, which);
    return true;
  }

  function reducedMotion() {
    return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
  }

  function play(a, c, which) {
    const d = demo(a, c, which);
    if (d.s.timer || !d.s.traj) return;
    if (d.s.step >= lastStep(d.s)) { d.s.step = 0; d.show(true); }  // at the end: play again from the start
    if (reducedMotion()) {   // a student who asked for less motion gets the path's end at once, drawn whole
      d.s.step = lastStep(d.s) - 1;
      stepOnce(a, c, which);
      return;
    }
    quiet(d.play, "disabled", true);
    quiet(d.pause, "disabled", false);
    tell(a, c);
    // The path advances with the clock, one step per tick_ms: when a redraw takes
    // longer than a tick, the next frame jumps to the step the clock has reached
    // (the plots keep every step), so the pace holds on a slow machine too.
    const t0 = performance.now(), step0 = d.s.step;
    d.s.timer = setInterval(() => {
      try {
        const due = Math.min(lastStep(d.s), step0 + Math.floor((performance.now() - t0) / c.cfg.tick_ms));
        if (due <= d.s.step) return;
        d.s.step = due - 1;
        stepOnce(a, c, which);
      } catch (e) { console.error("attention learning:", e); stop(a, c, which); }
    }, Math.max(10, c.cfg.tick_ms / 2));
  }

  function reset(a, c, which) {
    const d = demo(a, c, which);
    stop(a, c, which);
    d.s.step = 0;
    if (which === "bw") { c.bw.manual = false; d.show(true); } else d.show();
  }

  // A new dataset heard but not loaded yet (dispatch, ev === a.ds): load its path and show it now.
  function catchUp(a, c) {
    if (!c.bw.pending) return;
    c.bw.pending = false;
    if ((a.ds.tags[0] || "") === c.bw.dsKey) return;
    loadBandwidth(a, c);
    c.bw.moveOnArrival = false;
    showBandwidth(a, c, false);
  }

  // A tour step's Show me: the learning rates, then each path at its step (playback stops).
  function apply(a, c, v) {
    catchUp(a, c);
    stop(a, c, "bw");
    stop(a, c, "m");
    if (v.lr !== undefined && c.cfg.bandwidth.presets.includes(v.lr) && a.bw_lr.value !== v.lr) { a.bw_lr.value = v.lr; loadBandwidth(a, c); }
    if (v.metric_lr !== undefined && c.cfg.metric.presets.includes(v.metric_lr) && a.m_lr.value !== v.metric_lr) {
      a.m_lr.value = v.metric_lr;
      loadMetric(a, c);
    }
    if (v.step !== undefined) { c.bw.step = v.step; c.bw.manual = false; showBandwidth(a, c, c.bw.traj !== null); }
    if (v.metric_step !== undefined) { c.m.step = v.metric_step; showMetric(a, c); }
  }

  return { loadBandwidth, loadMetric, stop, stepOnce, play, reset, catchUp, apply };
})(AttnCommon, LearningOnPage, LearningBandwidth, LearningMetric);
