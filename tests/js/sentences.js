// The sentence builders' entry points for the sentence sweep (tests/app/test_true_sentences.py, through
// tests/app/sweep/render.py): each takes a batch of states as plain JSON and returns the texts the page would show.
// Run in an embedded V8 after the page's pure files and the builders (tests/js/v8.py), with no page.

const sentences = (function (D, R) {
  "use strict";
  const at = (c) => c.units ? (v) => `${c.units.x_name} = ${R.unitText(D.toUnits(c.scale, v), c.span)}` : undefined;
  return {
    // app/regression/text.js: the caption, the notices that name a limit, and what a screen reader hears
    regression: (cases) => cases.map((c) => ({
      caption: R.caption(c.r, c.kernel, c.h, c.t, c.tilt, c.units),
      notices: R.limitNotices(c.r, R.heaviestSample(c.q, c.x, c.y, c.w), c.curve, c.limits, c.tilt, at(c)),
      announcement: R.announcement(c.r),
    })),
  };
})(AttnUserData, RegressionText);
