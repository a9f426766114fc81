// The learning section's metric demo: plays a path of attention.train_metric, drawing at each step the samples'
// weights for the query, the similarity's ellipse around it, the loss so far and the learned W.

const LearningMetric = (function (M, U, State) {
  "use strict";

  const esc = U.esc, fixed = U.fixed, signed = U.signed, clamp = U.clamp, setHtml = U.setHtml;
  const { range, para, lastStep, columnLengths, scheduleUrl } = State;

  function showMetric(a, c) {
    const s = c.m, mc = c.cfg.metric, T = s.traj;
    s.step = clamp(s.step, 0, lastStep(s));
    const k = s.step, W = T.W[k], q = s.q;
    const w = M.metricWeights(q, mc.X, W, 1);
    let mx = 0;
    for (const v of w) if (v > mx) mx = v;
    const size = Array.from(w, (v) => 5 + 20 * Math.sqrt(v / mx));
    a.m_samples.data = { x1: c.x1, x2: c.x2, y: mc.y, w: Array.from(w), size };
    const e = M.similarityEllipse(W, mc.level, mc.points, mc.max_radius);
    a.m_ellipse.data = { x: Array.from(e.x, (v) => v + q[0]), y: Array.from(e.y, (v) => v + q[1]) };
    a.m_query.data = { x: [q[0]], y: [q[1]] };
    a.m_loss.data = { step: range(k + 1), loss: T.loss.slice(0, k + 1) };

    const pred = M.dot(w, mc.y), { c1, c2, ratio } = columnLengths(W);
    const head = `Step ${k} of ${mc.steps}`;
    const rest = `leave-one-out error ${fixed(T.loss[k], 4)}; at the query (${signed(q[0], 2)}, ${signed(q[1], 2)}) ` +
      `the prediction is ${signed(pred, 2)}, and sin(x\u2081) = ${signed(Math.sin(q[0]), 2)}.`;
    setHtml(a.m_readout, `<p class="step"><b>${esc(head)}</b>: ${esc(rest)}</p>`);
    U.sayWhenSettled(`${head}: ${rest}`, "learning");   // where a training or a drag ends, once
    const cell = (v) => `<td>${esc(signed(v, 3))}</td>`;
    const pct = 100 * ratio;
    setHtml(a.m_matrix,
      `<table class="matrix" aria-label="learned W"><tr><th>W</th><th>x\u2081</th><th>x\u2082</th></tr>` +
      `<tr><th></th>${cell(W[0][0])}${cell(W[0][1])}</tr><tr><th></th>${cell(W[1][0])}${cell(W[1][1])}</tr></table>` +
      para("dataset", `Length of the x\u2081 column ${fixed(c1, 3)}, of the x\u2082 column ${fixed(c2, 3)}: ` +
        `a step along x\u2082 counts ${pct < 10 ? fixed(pct, 1) : fixed(pct, 0)} % as much as one along x\u2081.`));
    const notes = [];
    if (T.status[k] === "diverged") notes.push(para("notice", `Step ${k}: ${T.message[k]}. The last good W is kept.`));
    else if (k === lastStep(s) && k > 0) {
      notes.push(para("dataset", `Done after ${k} steps.`));
      if (s.saidDone !== T) { s.saidDone = T; U.say(`Done after ${k} steps.`, "learning"); }   // heard once per training
    }
    setHtml(a.m_status, notes.join(""));
    scheduleUrl(a, c);
  }

  function setMetricQuery(a, c, x, y) {
    if (!isFinite(x) || !isFinite(y)) return;
    const [lo, hi] = c.cfg.metric.range;
    c.m.q = [clamp(x, lo, hi), clamp(y, lo, hi)];
    showMetric(a, c);
  }

  return { showMetric, setMetricQuery };
})(AttnMirror, AttnCommon, LearningOnPage);
