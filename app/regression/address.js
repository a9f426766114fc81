// The regression section's address: the link's query follows the state (throttled: a drag writes it a few times
// a second, not at every frame), the fragment holds your data while they are shown, and "Copy a link"
// (ui/share.js) hears whether the link carries them.

const RegressionAddress = (function (U) {
  "use strict";

  const D = typeof AttnUserData !== "undefined" ? AttnUserData : null;   // ui/userdata.js, on the page

  // ---- the URL follows the state (throttled) -----------------------------------

  function stateQuery(a, c) {
    const s = c.cfg.spec, out = new URLSearchParams(window.location.search);
    const put = (k, v) => { if (v === s[k].default) out.delete(k); else out.set(k, v); };
    put("query", Number(c.query.toFixed(3)));
    put("bandwidth", Number(c.h.toPrecision(4)));
    put("temperature", Number(c.t.toPrecision(4)));
    put("kernel", c.kernel);
    put("key_norm", Number(c.key_norm.toFixed(2)));
    put("dataset", a.w_dataset.value === "yours" ? s.dataset.default : a.w_dataset.value);   // yours: after "#"
    for (const { key: k } of c.cfg.toggles) {
      if (c[k] === s[k].default) out.delete(k); else out.set(k, c[k] ? "1" : "0");
    }
    for (const k of c.cfg.generator_keys) {
      if (a.w_dataset.value === "generated" && c.gen) put(k, c.gen[k]); else out.delete(k);
    }
    return out.toString();
  }

  function scheduleUrl(a, c) {
    U.scheduleUrl(c, () => stateQuery(a, c), () => {
      if (!c.queryDirty) return;  // the server learns the query a few times a second, not every frame
      c.queryDirty = false;
      c.busy = true;
      try { a.w_query.setv({ value: c.query }, { check_eq: false }); } finally { c.busy = false; }
    }, c.cfg.url_delay_ms);
  }

  // ---- the fragment and the link -------------------------------------------------------------------

  // The fragment holds your data while they are shown (and fit in a link); any other fragment is left alone.
  function setHash(a, c) {
    if (U.hostOwnsAddress() || !c.ready) return;
    const want = c.units && c.yours && c.yours.fragment ? "#" + c.yours.fragment : "";
    const now = window.location.hash;
    if (now === want || (!want && !/^#data/.test(now))) return;
    try { window.history.replaceState(null, "", window.location.pathname + window.location.search + want); }
    catch (e) { /* a sandboxed frame may refuse; the page works without it */ }
  }

  // Tell "Copy a link" (ui/share.js) whether the link carries the data shown, and what to offer when it cannot.
  function publishLink(a, c) {
    const y = c.units ? c.yours : null;
    let v = { state: "none" };
    if (y && y.fragment) v = { state: "link" };
    else if (y && y.link) {
      if (!y.embed) y.embed = D.embedText({ x: y.xu, y: y.y, xName: y.xName, yName: y.yName }, c.cfg.userdata);
      v = { state: "too_long", message: y.link, embed: y.embed, filename: "attention-explorable-your-data.html" };
    } else if (y) v = { state: "pending" };
    U.publish(a.ds.document, "data-link", v);
  }

  return { scheduleUrl, setHash, publishLink };
})(AttnCommon);
