// Hear the weights: the current attention weights as an audio graph, for a student who cannot see the plot.  A
// sweep from left to right over x, one short tone per sample (per stretch of x when there are many): the higher
// and louder the tone, the more weight there; each tone is panned to where its samples lie, left ear to right ear.
// Nothing sounds before the student asks (an AudioContext is made on the button's press), and once on, the sweep
// plays again whenever the weights come to rest after a move (when the main plot's description is written).  `tones` is pure (tests/js checks it in V8).

const AttnAudio = (function () {
  "use strict";

  const SOUND = { bins: 40, seconds: 1.6, low: 220, high: 880, quietest: 0.01, gain: 0.25, floor: 0.04 };

  // The tones for weights `ws` of samples at `xs`, the plot's x running from lo to hi: at most `bins` tones in x
  // order, each {start, dur, freq, pan, gain} (seconds, Hz, -1 .. 1, 0 .. 1).  A tone's weight is the sum of its
  // samples' weights; its pitch rises from `low` to `high` on a log scale as that weight goes from 0 to the largest
  // tone's; a tone under `quietest` of the largest is left silent.
  function tones(xs, ws, lo, hi, opt) {
    const o = Object.assign({}, SOUND, opt || {}), n = xs.length;
    if (!n || !(hi > lo)) return [];
    const many = n > o.bins, count = many ? o.bins : n, w = new Array(count).fill(0), at = new Array(count).fill(0);
    const order = Array.from(xs, (_, i) => i).sort((i, j) => xs[i] - xs[j]);
    order.forEach((i, k) => {
      const b = many ? Math.min(count - 1, Math.max(0, Math.floor((xs[i] - lo) / (hi - lo) * count))) : k;
      w[b] += ws[i];
      at[b] = many ? lo + (b + 0.5) * (hi - lo) / count : xs[i];
    });
    const top = Math.max(...w), dur = o.seconds / count, out = [];
    if (!(top > 0)) return out;
    for (let b = 0; b < count; b++) {
      const share = w[b] / top;
      if (share < o.quietest) continue;
      out.push({ start: b * dur, dur: 0.9 * dur, freq: o.low * Math.pow(o.high / o.low, share),
                 pan: Math.min(1, Math.max(-1, 2 * (at[b] - lo) / (hi - lo) - 1)),
                 gain: o.floor + (o.gain - o.floor) * share, weight: w[b] });
    }
    return out;
  }

  // One sweep through the Web Audio graph: an oscillator, a gain with a short fade in and out, a stereo panner.
  // Returns the oscillators, so that a newer sweep can cut this one short.
  function play(ctx, list) {
    const t0 = ctx.currentTime + 0.05, oscs = [];
    for (const k of list) {
      const osc = ctx.createOscillator(), gain = ctx.createGain(), a = t0 + k.start, b = a + k.dur;
      osc.frequency.value = k.freq;
      gain.gain.setValueAtTime(0, a);
      gain.gain.linearRampToValueAtTime(k.gain, a + Math.min(0.01, k.dur / 4));
      gain.gain.linearRampToValueAtTime(0, b);
      osc.connect(gain);
      if (typeof ctx.createStereoPanner === "function") {
        const pan = ctx.createStereoPanner();
        pan.pan.value = k.pan;
        gain.connect(pan);
        pan.connect(ctx.destination);
      } else gain.connect(ctx.destination);
      osc.start(a);
      osc.stop(b + 0.02);
      oscs.push(osc);
    }
    return oscs;
  }

  // What is sounding: the sweep's tones as a key, when it ends (the context's clock) and its oscillators.
  const S = { ctx: null, on: false, listening: null, playing: null };

  // Play the weights now.  The same weights while their sweep still sounds are not started again (the description
  // can be written twice for one resting state); new weights cut the old sweep short, so sweeps never overlap.
  function sweep(doc, names) {
    const src = doc.get_model_by_name(names.samples), fig = doc.get_model_by_name(names.plot);
    if (!src || !fig || !S.ctx) return;
    const r = fig.x_range, d = src.data, list = tones(Array.from(d[names.x]), Array.from(d[names.w]), r.start, r.end);
    const key = JSON.stringify(list.map((k) => [k.freq, k.pan])), now = S.ctx.currentTime, p = S.playing;
    if (p && p.key === key && now < p.until) return;
    stopAll();
    S.playing = { key, until: now + 0.1 + SOUND.seconds, oscs: play(S.ctx, list) };
  }

  function stopAll() {
    const p = S.playing, now = S.ctx ? S.ctx.currentTime : 0;
    if (p) for (const osc of p.oscs) { try { osc.stop(now); } catch (e) { /* already ended */ } }
    S.playing = null;
  }

  // The toggle's press: on, it makes the AudioContext (the browser lets a page sound only after a gesture) and
  // plays the weights now; then again each time the samples' weights rest.  Off, it stops the sweep and listening.
  function toggle(button, names) {
    const doc = button.document;
    S.on = !!button.active;
    if (!S.on) { stopAll(); return; }
    const Ctx = globalThis.AudioContext || globalThis.webkitAudioContext;
    if (!Ctx) { button.label = names.unavailable; button.active = false; return; }
    if (!S.ctx) S.ctx = new Ctx();
    if (S.ctx.state === "suspended" && S.ctx.resume) S.ctx.resume();
    sweep(doc, names);
    if (S.listening !== doc) {
      S.listening = doc;
      // the plot's description is written once the readouts rest after a move (app/regression/querytexts.js)
      doc.on_change((ev) => {
        if (S.on && ev && ev.model && ev.model.name === names.plot && ev.attr === "html_attributes") sweep(doc, names);
      });
    }
  }

  return { SOUND, tones, play, toggle };
})();
