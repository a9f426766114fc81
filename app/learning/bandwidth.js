// The learning section's bandwidth demo: plays a path of attention.train_bandwidth (at T = 1) and sets the
// regression's bandwidth slider at every step, so the regression's own engine redraws the main plot.  The weights
// depend on h and T only through h·√T, so with T ≠ 1 the path is followed in h·√T: the slider is set to
// h = h_path / √T and everything on the page stays exact.  Every text it writes goes through esc().

const LearningBandwidth = (function (U, M, State, Text) {
  "use strict";

  const esc = U.esc, fixed = U.fixed, plain = U.plain, clamp = U.clamp;
  const { range, para, lastStep, tell, scheduleUrl } = State;

  // Texts that change at every step go straight into the rendered Div (see setHtml in ui/common.js);
  // texts that change rarely (the notes) go through the model as usual.
  const setHtml = U.setHtml;

  // ---- the bandwidth ------------------------------------------------------------------------------

  function datasetMeta(a) {
    try { return JSON.parse(a.ds.tags[0] || "{}"); } catch (e) { return {}; }
  }

  // The path for the regression's current dataset and the selected learning rate, or null while the
  // browser is still working it out (a dataset the page made: the generator's, or your own data).
  function bwTrajectory(a, c) {
    const meta = datasetMeta(a), lr = a.bw_lr.value;
    const name = meta.name || "default", shipped = c.cfg.bandwidth.trajectories[name];
    c.bw.waiting = false;
    c.bw.error = "";
    if (!shipped) {
      let g = {};
      try { g = JSON.parse(a.gen.tags[0] || "{}"); } catch (e) { g = {}; }
      if (g.lr === lr && g.dataset === (a.ds.tags[0] || "")) {
        if (g.error) { c.bw.error = g.error; return null; }
        const d = a.gen.data;
        return { h: Array.from(d.h), loss: Array.from(d.loss), grad: Array.from(d.grad),
                 status: Array.from(d.status), message: Array.from(d.message) };
      }
      c.bw.waiting = true;   // the browser is working it out
      requestPath(a, c, lr);
      return null;
    }
    return shipped[lr] || null;
  }

  // Train h on a dataset the page made (the generator, your own data), keyed by the dataset source's tag: AttnTrain, the twin of attention.train_bandwidth, in a
  // Web Worker for a large dataset (the drag stays smooth meanwhile), on the spot for a small one.  The path
  // arrives in the `gen` source, tagged with its dataset and rate, as any path does (dispatch: ev === a.gen).
  function requestPath(a, c, lr) {
    const key = JSON.stringify([a.ds.tags[0] || "", lr]);
    if (c.bw.asked === key) return;
    c.bw.asked = key;
    const cfg = c.cfg.bandwidth, x = Array.from(a.ds.data.x), y = Array.from(a.ds.data.y);
    const payload = { x, y, lr, h0: cfg.h0, steps: cfg.steps, presets: cfg.presets };
    const tag = { lr, dataset: a.ds.tags[0] || "" };
    const arrive = (cols, extra) => {
      if (c.bw.asked !== key) return;   // the dataset or the rate changed meanwhile
      a.gen.tags = [JSON.stringify(Object.assign({}, tag, extra || {}))];
      a.gen.data = cols;
    };
    const empty = { h: [], loss: [], grad: [], status: [], message: [] };
    const failed = (e) => { if (e.reason !== "cancelled") arrive(empty, { error: e.message }); };
    const here = () => AttnWorker.runHere(AttnTrain.trainColumns, payload, { key: `learning-path:${a.gen.id}` });
    if (x.length <= c.cfg.worker_above_n) { here().promise.then(arrive, failed); return; }
    AttnWorker.run(AttnWorker.modules(c.cfg.worker_modules), "AttnTrain.trainColumns", payload, { key: `learning-path:${a.gen.id}` }).promise.then(arrive, (e) => {
      if (e.reason !== "unavailable") return failed(e);
      // no worker in this browser: train here (the page pauses for a moment), and say why
      c.bw.workerNote = e.message;
      here().promise.then(arrive, failed);
    });
  }

  // Put the regression's bandwidth slider at the path's h (in h·√T, see the top of this file).
  function moveSlider(a, c, hEff) {
    const s = c.bw;
    if (a.w_kernel.value !== "gaussian") { a.w_kernel.value = "gaussian"; s.notes.kernel = true; }
    if (a.w_link.active) { a.w_link.active = false; s.notes.link = true; }
    const t = 10 ** a.w_logt.value;
    const want = Math.log10(hEff / Math.sqrt(t));
    const v = clamp(want, a.w_logh.start, a.w_logh.end);
    s.notes.clamped = v !== want ? 10 ** v : null;
    s.expect = v;
    s.manual = false;
    s.moved = true;
    if (a.w_logh.value !== v) a.w_logh.value = v;
  }

  // On your own data (the dataset's tag holds the scale of its x to the sliders'), h in the data's units:
  // the path is trained on the sliders' scale, where h0 = 0.15 means the same everywhere.
  function hText(a, h, p) {
    const meta = datasetMeta(a);
    return Text.hText(h, p, meta.scale, meta.x_name);
  }

  // The demo's words name where training starts as the readout writes it, and how sharply a typical query
  // attends there (twin of bandwidth_text in view.py): the path's first h, or h0 while there is none, in the
  // data's units on your own data.  focus: AttnMirror.typicalFocus's { max_weight, effective_points }.
  function bwText(template, start, focus, limits) {
    return template.split("{start}").join(esc(Text.startSentence(start, focus.max_weight, focus.effective_points,
                                                                 limits)));
  }

  // attention.typical_focus of the data shown at the path's first h (T = 1: the path is in h·√T) over the
  // regression curve's x grid (view.py start_focus), once per dataset and h.
  function startFocus(a, c, h) {
    const key = JSON.stringify([a.ds.tags[0] || "", a.ds.data.x.length, h]);
    if (!c.bw.focus || c.bw.focus.key !== key) {
      const [lo, hi, n] = c.cfg.bandwidth.focus_grid;
      const f = M.typicalFocus(M.linspace(lo, hi, n), a.ds.data.x, { kernel: "gaussian", bandwidth: h, temperature: 1,
                                                                      keyScale: null });
      c.bw.focus = { key, value: f };
    }
    return c.bw.focus.value;
  }

  function bwReadout(a, c) {
    const s = c.bw, T = s.traj, k = s.step, steps = c.cfg.bandwidth.steps;
    const t = 10 ** a.w_logt.value, hname = t === 1 ? "h" : "h\u00b7\u221aT";
    const h0 = T ? T.h[0] : c.cfg.bandwidth.h0;
    setHtml(a.bw_text, bwText(c.cfg.bandwidth.text, `${hname} = ${hText(a, h0, 4)}`, startFocus(a, c, h0),
                              c.cfg.bandwidth.focus_limits));
    if (!T) {
      setHtml(a.bw_readout, s.waiting ? para("step", "Working out the path for this dataset\u2026")
        : para("step", s.error ? `No path for this dataset: ${s.error}` : "No path for this dataset."));
      setHtml(a.bw_status, "");
      return;
    }
    const head = `Step ${k} of ${steps}`;
    const slope = plain(T.grad[k], 3);
    const rest = `${hname} = ${hText(a, T.h[k], 4)}, leave-one-out error ${fixed(T.loss[k], 4)}, ` +
      `slope dL/d(log h) ${slope}`;
    setHtml(a.bw_readout, `<p class="step"><b>${esc(head)}</b>: ${esc(rest)}</p>`);
    U.sayWhenSettled(`${head}: ${rest}`, "learning");   // where a training ends, once

    const notes = [];
    const st = T.status[k];
    if (st === "diverged") notes.push(["notice", `Step ${k}: ${T.message[k]}. The last good h is kept.`]);
    else if (k === lastStep(s) && k > 0) {
      const done = `Done: after ${k} steps h = ${hText(a, T.h[k], 4)}.`;
      notes.push(["dataset", done]);
      if (s.saidDone !== T) { s.saidDone = T; U.say(done, "learning"); }   // heard once per training (app/ui/common.js say)
    }
    if (s.moved && t !== 1)
      notes.push(["dataset", `Training runs at T = 1. With T = ${plain(t, 3)} only h\u00b7\u221aT matters, so the ` +
        `path is followed in h\u00b7\u221aT and the slider shows h = (h\u00b7\u221aT) / \u221aT.`]);
    if (s.notes.clamped !== null && s.notes.clamped !== undefined)
      notes.push(["limit", `h = ${hText(a, T.h[k] / Math.sqrt(t), 3)} is beyond the slider's range; ` +
        `the slider stops at ${hText(a, s.notes.clamped, 3)}.`]);
    if (s.notes.kernel)
      notes.push(["dataset", "Training uses the Gaussian similarity, so the kernel was switched to Gaussian."]);
    if (s.notes.link) notes.push(["dataset", "Training moves h alone, so \u201clink h and T\u201d was switched off."]);
    if (s.manual)
      notes.push(["dataset", `You moved h by hand. Step or Play carries on along the path from step ${k}.`]);
    if (s.workerNote) notes.push(["notice", s.workerNote]);
    setHtml(a.bw_status, notes.map(([cls, m]) => para(cls, m)).join(""));   // (Bokeh's .text re-lays out the page)
  }

  function showBandwidth(a, c, move) {
    const s = c.bw, T = s.traj;
    if (!T) {
      a.bw_path.data = { h: [], loss: [] };
      a.bw_now.data = { h: [], loss: [] };
      a.bw_loss.data = { step: [], loss: [] };
      bwReadout(a, c);
      tell(a, c);
      return;
    }
    s.step = clamp(s.step, 0, lastStep(s));
    const k = s.step;
    if (k > 0 && a.bw_path.get_length() === k && a.bw_loss.get_length() === k) {
      // one step on from what is drawn (playing): append a point, cheaper than replacing the columns
      a.bw_path.stream({ h: [T.h[k]], loss: [T.loss[k]] });
      a.bw_loss.stream({ step: [k], loss: [T.loss[k]] });
    } else {
      const ls = T.loss.slice(0, k + 1);
      a.bw_path.data = { h: T.h.slice(0, k + 1), loss: ls };
      a.bw_loss.data = { step: range(k + 1), loss: ls };
    }
    a.bw_now.data = { h: [T.h[k]], loss: [T.loss[k]] };
    if (move) moveSlider(a, c, T.h[k]);
    bwReadout(a, c);
    scheduleUrl(a, c);
  }

  return { bwTrajectory, bwText, bwReadout, showBandwidth };
})(AttnCommon, AttnMirror, LearningOnPage, LearningText);
