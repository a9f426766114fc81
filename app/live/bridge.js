// The live page's bridge to its server (app/live/server.py): it does in the browser what the served page's
// Python session did, by asking three small JSON endpoints (app/live/api.py) and writing their answers into
// the same data sources the engines already follow:
//   the generator's fields, "Generate", or "generated" in the dataset list -> api/dataset -> ds (regression)
//   a generated dataset, or another learning rate on one              -> api/train   -> gen (learning)
//   a typed sentence (Enter), or a link's own sentence                -> api/sentence -> holder (sentence)
// The engines cannot tell these answers from a Python session's.  A refused value or a server that does not
// answer gives a notice; the page keeps what it shows.  globalThis.__attnLivePending counts the requests still
// on their way (tests wait for zero).
const AttnLive = ((U) => {
  "use strict";

  const esc = U.esc;
  const GEN = ["fn", "n", "noise", "seed"];

  function cacheFor(a) { return U.pageState("__attentionLiveState", a.ds, { seq: { dataset: 0, train: 0, sentence: 0 } }); }

  function pending(delta) { globalThis.__attnLivePending = Math.max(0, (globalThis.__attnLivePending || 0) + delta); }

  // GET api/<name>?params; resolves to {ok, body}; a network failure or a reply that is not JSON is a notice
  function ask(a, name, params) {
    const url = new URL(a.config.api + name + "?" + new URLSearchParams(params).toString(), window.location.href);
    pending(1);
    return fetch(url.toString(), { headers: { Accept: "application/json" }, cache: "no-store" })
      .then((r) => r.json().then((body) => ({ ok: r.ok, body }), () => ({ ok: false, body: { error: `the server answered ${r.status}` } })))
      .catch((e) => ({ ok: false, body: { error: `the server could not be reached (${e && e.message ? e.message : e})` } }))
      .finally(() => pending(-1));
  }

  function notify(div, messages) {
    if (!div) return;
    const list = (Array.isArray(messages) ? messages : [messages]).filter(Boolean);
    div.text = list.map((s) => `<p class="notice">${esc(s)}</p>`).join("");
    div.visible = list.length > 0;
  }

  function fields(a) {
    const f = a.fields, out = {};
    for (const k of GEN) out[k] = f[k].value;
    return out;
  }

  function showValues(a, values) {
    for (const k of GEN) if (values[k] !== undefined) U.setWidget(a.fields[k], "value", values[k]);
  }

  function writeUrl(a, values) {
    if (U.hostOwnsAddress()) return;
    try {
      const q = new URLSearchParams(window.location.search);
      q.set("dataset", "generated");
      for (const k of GEN) q.set(k, String(values[k]));
      window.history.replaceState(null, "", "?" + q.toString());
    } catch (e) { /* a sandboxed frame may refuse; the page works without it */ }
  }

  function shownName(a) {
    try { return JSON.parse(a.ds.tags[0] || "{}").name; } catch (e) { return undefined; }
  }

  // the words of ``text`` as the sentence section splits them (roughTokens in sentence/engine.js) are ``tokens``
  function sameWords(text, tokens) {
    if (!tokens) return false;
    const words = String(text).normalize("NFKC").toLowerCase().replace(/[\p{P}\p{S}\p{C}]/gu, " ").split(/\s+/)
      .filter((t) => t.length > 0);
    return words.length > 0 && words.length === tokens.length && words.every((w, i) => w === tokens[i]);
  }

  function generate(a, c) {
    const seq = ++c.seq.dataset;
    const asked = fields(a);
    return ask(a, "dataset", asked).then(({ ok, body }) => {
      if (seq !== c.seq.dataset) return;   // a newer dataset was asked for meanwhile
      if (!ok) {
        notify(a.notice_div, `No new dataset: ${body.error}. The page keeps the samples it shows.`);
        return;
      }
      c.values = body.values;
      showValues(a, body.values);
      a.ds.tags = [body.meta];
      a.ds.data = { x: body.x, y: body.y };   // the regression engine redraws from it, as from Python's
      U.setWidget(a.w_dataset, "value", "generated");
      notify(a.notice_div, (body.notices || []).map((s) => `Generator: ${s}`));
      writeUrl(a, body.values);
      return train(a, c);
    });
  }

  function train(a, c) {
    if (!a.gen || !a.w_lr || !c.values || a.w_dataset.value !== "generated") return;
    const seq = ++c.seq.train;
    return ask(a, "train", Object.assign({}, c.values, { lr: a.w_lr.value })).then(({ ok, body }) => {
      if (seq !== c.seq.train) return;
      if (!ok) {
        // the learning engine shows the reason instead of a path (as for a path that failed in Python)
        a.gen.tags = [JSON.stringify({ lr: a.w_lr.value, dataset: a.ds.tags[0] || "", error: body.error })];
        a.gen.data = { h: [], loss: [], grad: [], status: [], message: [] };
        return;
      }
      a.gen.tags = [body.tag];
      a.gen.data = body.columns;
    });
  }

  function sentence(a, c, text) {
    const seq = ++c.seq.sentence;
    return ask(a, "sentence", { text }).then(({ ok, body }) => {
      if (seq !== c.seq.sentence) return;
      if (!ok) { notify(a.sentence_notice, body.error); return; }
      notify(a.sentence_notice, []);
      a.holder.data = { json: [body.plain] };   // the sentence engine loads it, as a Python push
    });
  }

  function init(a, c) {
    c.ready = true;
    pending(0);   // 0, not undefined, from the start: scripts and tests wait for it
    const { values } = U.parseQuery(window.location.search, a.config.spec, a.config.url_rules);
    showValues(a, values);
    if (values.dataset === "generated") generate(a, c);
  }

  function handle(ev, a) {
    const c = cacheFor(a);
    try {
      if (!c.ready) {   // the first event, whichever it is, starts the bridge
        init(a, c);
        if (ev && ev.event_name === "document_ready") return;
      }
      if (ev === a.w_dataset) {
        // "generated" picked in the list, not the bridge's own switch once a dataset has come (Bokeh runs this
        // callback after the code that set the value has finished, so a flag set around the write cannot tell)
        if (a.w_dataset.value === "generated" && shownName(a) !== "generated") generate(a, c);
        return;
      }
      if (ev && ev.origin === a.fields.go) { generate(a, c); return; }
      if (ev === a.w_lr) { train(a, c); return; }
      if (ev === a.w_input) {
        // an example picked in the list shows its text in the box: the page already holds that sentence
        if (!sameWords(a.w_input.value, a.tokens ? a.tokens.data.tok : null)) sentence(a, c, a.w_input.value);
        return;
      }
    } catch (e) {
      console.error("attention explorable (live):", e);
      notify(a.notice_div, `Something went wrong while asking the server (${e.message}).`);
    }
  }

  return { handle };
})(AttnCommon);
