// The learning section's state on the page and what it tells the page: its cache, the readouts the tour reads
// (with the lowest leave-one-out error they compare the path's with), and its link.

const LearningOnPage = (function (U) {
  "use strict";

  const esc = U.esc;

  function cacheFor(a) { return U.pageState("__attnLearningCache", a.bw_readout); }
  function range(n) { return Array.from({ length: n }, (_, i) => i); }
  function para(cls, s) { return `<p class="${cls}">${esc(s)}</p>`; }

  function lastStep(s) { return s.traj ? s.traj.loss.length - 1 : 0; }

  // The lengths of W's two columns and attention.learn.MetricTrajectory.column_ratio: |column 2| / |column 1|,
  // how much a step along x2 counts relative to one along x1.
  function columnLengths(W) {
    const c1 = Math.hypot(W[0][0], W[1][0]), c2 = Math.hypot(W[0][1], W[1][1]);
    return { c1, c2, ratio: c2 / c1 };
  }

  // ---- what the tour reads and sets (app/tour/model.py learning_readouts, show_me_settings) ----------------

  // The lowest leave-one-out error of the current dataset across the tour's grid of bandwidths, once per dataset
  // (AttnTrain.lowestLoo, windowed sums): on the spot for a small dataset, in a Web Worker above worker_above_n
  // samples (2000 samples and 241 bandwidths take a second or more); null until it is known, and the readouts
  // are told again when it arrives.
  function lowestLoo(a, c) {
    const key = a.ds.tags[0] || "", x = a.ds.data.x;
    if (c.lowest && c.lowest.key === key && c.lowest.n === x.length) return c.lowest.value;
    const lowest = c.lowest = { key, n: x.length, value: null };
    const payload = { x: Array.from(x), y: Array.from(a.ds.data.y), grid: c.cfg.loo_grid };
    const job = `learning-lowest-loo:${a.gen.id}`;
    const arrive = (v) => { if (c.lowest === lowest) { lowest.value = v; tell(a, c); } };
    const failed = (e) => { if (e.reason !== "cancelled") console.error("attention learning:", e.message); };
    if (x.length <= c.cfg.worker_above_n) {
      try { lowest.value = AttnTrain.lowestLoo(payload); } catch (e) { console.error("attention learning:", e.message); }
      return lowest.value;
    }
    AttnWorker.run(AttnWorker.modules(c.cfg.worker_modules), "AttnTrain.lowestLoo", payload, { key: job }).promise.then(arrive, (e) => {
      if (e.reason !== "unavailable") return failed(e);
      AttnWorker.runHere(AttnTrain.lowestLoo, payload, { key: job }).promise.then(arrive, failed);
    });
    return null;
  }

  function readouts(a, c) {
    const out = { lr: a.bw_lr.value, playing: !!c.bw.timer, metric_lr: a.m_lr.value, metric_step: c.m.step,
                  metric_playing: !!c.m.timer };
    const W = c.m.traj.W[c.m.step];
    Object.assign(out, { column_ratio: columnLengths(W).ratio, metric_refused: c.m.traj.status[c.m.step] === "diverged",
                         metric_finished: c.m.step === lastStep(c.m) });
    const T = c.bw.pending ? null : c.bw.traj, k = c.bw.step;   // (a new dataset's path not loaded yet: unknown)
    if (T) {
      const loss = T.loss[k];
      Object.assign(out, { step: k, learned_h: T.h[k], refused: T.status[k] === "diverged", finished: k === lastStep(c.bw) });
      // How far the path's error is above the lowest over the tour's grid: worked out when the tour first reads
      // it (a step that asks), not for every dataset a student makes (at 2000 samples a worker's seconds, which
      // would compete with training for the cores).  Unknown until then: a condition on it is not met yet.
      Object.defineProperty(out, "learned_excess", { enumerable: true, configurable: true, get() {
        const lowest = lowestLoo(a, c);
        if (lowest === null) return undefined;
        const best = Math.min(lowest, loss);
        return best > 0 ? loss / best - 1 : 0;
      } });
    }
    return out;
  }

  function tell(a, c) { U.tellReadouts(a.ds.document, c, "learning", () => readouts(a, c)); }

  // ---- the URL follows the state (throttled; only this section's keys are touched) ----------------------

  function scheduleUrl(a, c) {
    tell(a, c);
    U.scheduleUrl(c, () => {
      const d = c.cfg.defaults, out = new URLSearchParams(window.location.search);
      const put = (k, v) => { if (v === d[k]) out.delete(k); else out.set(k, String(v)); };
      put("lr", a.bw_lr.value);
      put("step", c.bw.step);
      put("metric_lr", a.m_lr.value);
      put("metric_step", c.m.step);
      return out.toString();
    });
  }

  return { cacheFor, range, para, lastStep, columnLengths, readouts, tell, scheduleUrl };
})(AttnCommon);
