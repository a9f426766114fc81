// The routing section's texts: the step's status, what the ambiguous word does, W_Q and W_K with what the word
// looks for, and a typed sentence's words.  Every text that reaches a Div goes through esc().

const RoutingTexts = (function (U, Head, State, Lines) {
  "use strict";

  const esc = U.esc, signed = U.signed, setHtml = U.setHtml;
  const { preference, wordX, sharedColumns, sharedSummary } = Head;
  const { range, para, quote } = State;

  // ---- texts --------------------------------------------------------------------------------------------

  // The shown step, its loss and its right, undecided and wrong sentences, and at the moment playback holds, what
  // happened there: RoutingLines.statusText's words (lines.js), escaped.
  function drawStatus(a, c) {
    const s = c.sent, moment = !s.own && c.frame === c.hold
      ? { clue: s.clue, share: c.cfg.hold_share, weight: c.clue[c.shown][c.frame] } : null;
    const t = Lines.statusText(c.cfg.plain, c.frame, moment);
    const html = `<p class="step"><b>${esc(t.head)}</b>: ${esc(t.body)}` +
      (t.moment ? ` <b class="moment">${esc(t.moment)}</b>` : "");
    setHtml(a.status_div, html + `</p>`);
    // a step taken or a word chosen is said once it settles; Play says its end itself (playback.js)
    if (!c.timer) U.sayWhenSettled(`${t.head}: ${t.body}` + (t.moment ? ` ${t.moment}` : ""), "routing");
  }

  // The status line as plain words, for the page's live region once Play has finished.
  function saidStatus(c) {
    const t = Lines.statusText(c.cfg.plain, c.frame, null);
    return `Training finished. ${t.head}: ${t.body}`;
  }

  // The word the ambiguous word looks at most, itself left out (-1: no other word).
  function topOther(row, b) {
    let top = -1;
    for (let j = 0; j < row.length; j++) if (j !== b && (top < 0 || row[j] > row[top])) top = j;
    return top;
  }

  // What the ambiguous word does in this sentence at this step: RoutingLines's plain sentences (lines.js), escaped,
  // with W_Q and W_K written as the page writes them.
  function drawReadout(a, c) {
    const s = c.sent, p = c.cfg.plain, b = s.index;
    const lines = Lines.readoutLines(Object.assign({ word: p.word }, s), b >= 0 ? c.res.weights[b] : null,
                                     b >= 0 ? c.res.outputs[b] : null,
                                     { readout_scale: p.readout_scale, undecided_within: p.undecided_within });
    // (only the closing words of the line without the word: a typed token is never markup)
    const html = (t) => esc(t).replace(/ W_Q and W_K\.$/, " W<sub>Q</sub> and W<sub>K</sub>.");
    setHtml(a.readout_div, lines.map((t, i) => `<p class="${i ? "small" : "step"}">${html(t)}</p>`).join(""));
  }

  // Whether the student opened the Div's disclosure (kept open when the Div is written again).
  function opened(div) {
    const v = U.findView(div);
    const el = AttnBokeh.markupElement(v);
    return !!(el && el.querySelector("details[open]"));
  }

  // W_Q, W_K and the learned preference as one table, behind "more": a row per dimension of x, coloured by sign
  // and size; each column labelled with the meanings a key needs to score high there with the ambiguous word's
  // query; under it, what that query shares with the key of the word it looks at most in this sentence.
  function drawWeights(a, c) {
    const p = c.cfg.plain, f = c.frame, wq = p.w_q[f], wk = p.w_k[f], nm = p.trained_rows.length;
    const xw = wordX(c.cfg, p.word), pref = preference(xw, wq, wk, nm), col = c.cfg.colors, T = c.cfg.weights_texts;
    const shade = (v, top) => {
      const rgb = v >= 0 ? col.positive : col.negative, t = Math.min(1, Math.abs(v) / (top || 1));
      return `background:${rgb}${Math.round(0x99 * t).toString(16).padStart(2, "0")}`;
    };
    const cell = (v, top) => `<td style="${shade(v, top)}">${esc(signed(v, 2))}</td>`;
    const names = p.trained_rows, short = c.cfg.short_dims;
    const cols = sharedColumns(xw, xw, wq, wk, names, p.feature_share, c.cfg.from_share);
    const label = (j) => {
      const k = cols[j].looksFor.slice(0, 2).map((n) => short[names.indexOf(n)]);
      return `<th class="col">${j + 1}${k.map((n) => `<br><span class="lab">${esc(n)}</span>`).join("")}</th>`;
    };
    const labels = range(wq[0].length).map(label).join("");
    // a box that scrolls sideways (a narrow column) is reached with the keyboard too
    let html = `<details class="more"${opened(a.weights_div) ? " open" : ""}><summary>${esc(T.summary)}</summary>` +
      T.intro + `<div style="overflow-x:auto" tabindex="0">` +
      `<table class="w" aria-label="W_Q, W_K and what the word looks for">` +
      `<tr><th></th><th colspan="2">W<sub>Q</sub></th><th colspan="2">W<sub>K</sub></th>` +
      `<th rowspan="2">${esc(p.word)}<br>looks for</th></tr><tr><th>column</th>${labels}${labels}</tr>`;
    p.model_dims.forEach((name, i) => {
      const learned = i < nm;
      html += `<tr${learned ? "" : ' class="fixed"'}><th>${esc(name)}</th>` + cell(wq[i][0], c.cfg.w_max) +
        cell(wq[i][1], c.cfg.w_max) + cell(wk[i][0], c.cfg.w_max) + cell(wk[i][1], c.cfg.w_max) +
        (learned ? cell(pref[i], c.prefMax) : `<td>${esc("fixed")}</td>`) + `</tr>`;
    });
    html += `</table></div>` + T.columns + T.preference;
    const s = c.sent, o = s.index >= 0 ? topOther(c.res.weights[s.index], s.index) : -1;
    if (o >= 0) {
      const other = s.tokens[o];
      html += `<p class="learned">${esc(sharedSummary(p.word, other, sharedColumns(xw, wordX(c.cfg, other), wq, wk,
        names, p.feature_share, c.cfg.from_share), p.feature_share))}</p>`;
    }
    setHtml(a.weights_div, html + `</details>`);
  }

  function prefMax(c) {
    const p = c.cfg.plain, x = wordX(c.cfg, p.word);
    let top = 0;
    p.w_q.forEach((wq, f) => { for (const v of preference(x, wq, p.w_k[f], p.trained_rows.length)) top = Math.max(top, Math.abs(v)); });
    return top;
  }

  // The typed sentence's words, with the ones the toy vocabulary does not know marked and named.
  function ownInfo(a, c, note) {
    const s = c.typed;
    let html = note ? note : "";
    if (s && c.sent === s) {
      const unknown = new Set(s.unknown);
      const chips = s.tokens.map((t) => `<span class="tok${unknown.has(t) ? " unknown" : ""}">${esc(t)}</span>`);
      html += `<p class="small">${esc(`${quote(s.text)} becomes ${s.tokens.length} word${s.tokens.length === 1 ? "" : "s"}:`)} ` +
        chips.join(" ") + `</p>`;
      if (s.unknown.length)
        html += para("limit", `Not in the toy vocabulary, so given made-up vectors that carry no meaning ` +
          `(highlighted): ${s.unknown.map(quote).join(", ")}.`);
    }
    setHtml(a.own_div, html);
  }

  return { drawStatus, saidStatus, drawReadout, drawWeights, prefMax, ownInfo };
})(AttnCommon, RoutingHead, RoutingOnPage, RoutingLines);
