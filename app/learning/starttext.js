// The learning section's words on where training starts: twins of h_text and start_sentence in app/learning/text.py
// (no page, no Bokeh: tests/js runs it in V8).  A typical query's largest weight there (AttnMirror.typicalFocus, the
// twin of attention.typical_focus), written with two decimals, picks the words, by the limits text.py declares
// (text.FOCUS_LIMITS, handed over in the engine's config).

const LearningText = (function (U) {
  "use strict";

  const signed = U.signed, plain = U.plain;

  // text.h_text: h as the readouts write it, to p significant digits; on your own data (scale: its {span, uspan})
  // in the data's units, named ("9.1 (day)")
  function hText(h, p, scale, xName) {
    return scale ? `${plain(h * scale.span / scale.uspan, p)} (${xName || "x"})` : plain(h, p);
  }

  // text.points_text: one decimal below 10 ("2.4"), whole from 10 on ("38")
  function pointsText(points) { return Number(signed(points, 1)) < 10 ? signed(points, 1) : signed(points, 0); }

  // text.start_sentence: start as the readout writes it ("h = 0.15"); w and points from typicalFocus
  function startSentence(start, w, points, limits) {
    const ws = signed(w, 2), shown = Number(ws), p = pointsText(points);
    let does;
    if (shown >= limits.nearly_copies) does = "it nearly copies its nearest sample";
    else if (shown >= limits.leans_mostly)
      does = `it leans mostly on its nearest sample, and effectively consults about ${p} samples`;
    else if (shown >= limits.a_few) does = `it mixes its nearest few samples, effectively about ${p} of them`;
    else does = `it averages about ${p} samples`;
    return `Training starts at ${start}, where the largest weight a query gives is typically ${ws}: ${does}.`;
  }

  return { hText, pointsText, startSentence };
})(AttnCommon);
