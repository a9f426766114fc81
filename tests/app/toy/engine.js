// The toy section's engine: it publishes its one readout on the page's bus, and takes Show me's settings from it.
const Toy = (function (U) {
  "use strict";

  function handle(ev, a) {
    const doc = a.w_spread.document, c = U.pageState("__attnToyCache", a.w_spread);
    if (!c.ready) {
      c.ready = true;
      U.onApply(doc, c, "toy", (v) => { if (v.toy_spread !== undefined) a.w_spread.value = v.toy_spread; });
    }
    U.tellReadouts(doc, c, "toy", () => ({ toy_spread: a.w_spread.value }));
  }

  return { handle };
})(AttnCommon);
