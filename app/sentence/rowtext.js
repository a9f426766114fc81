// The selected row's words, as the page writes them beside the matrix (drawing.js drawRow): the readout table
// (which also begins the matrix's, the row's and the sense plot's descriptions) and the line that ties the row to
// the regression.  Pure functions of the row's numbers, checked by the sentence sweep (tests/app/sweep/sentence.py)
// against attention.analyze_sentence.  Every word of the sentence goes through esc().

const SentenceRowText = (function (M, U) {
  "use strict";

  const esc = U.esc, fixed = U.fixed, plain = U.plain, signed = U.signed;

  // The readouts of row i (a screen reader hears them once they settle: drawing.js drawRow): toks the words, w the row's weights (this head), causal the mask, out the row's
  // output in the sense plane (this head) and comb all heads' (after W_O).  The first largest weight wins a tie.
  function rowReadouts(toks, i, w, causal, out, comb) {
    let mx = 0, arg = 0;
    for (let j = 0; j < w.length; j++) if (w[j] > mx) { mx = w[j]; arg = j; }
    const H = M.entropyBits(w);
    // with the causal mask, row i sees only words 0..i: its spread is out of those k words
    const k = causal ? i + 1 : w.length;
    const row = (key, v, extra) => `<tr><th scope="row">${key}</th><td>${v}</td><td class="extra">${extra || ""}</td></tr>`;
    return `<table class="readouts" aria-label="readouts for the selected word">` +
      row("query word", esc(toks[i]), `row ${i}`) +
      row("max weight", fixed(mx, 3), `on \u201c${esc(toks[arg])}\u201d`) +
      row("entropy", `${fixed(H, 2)} bits`, `of ${fixed(Math.log2(k), 2)}${causal ? ` (${k} visible)` : ""}`) +
      row("effective tokens", fixed(2 ** H, 1), `of ${k}${causal ? " visible" : ""}`) +
      row("output (water, money)", `${signed(out[0], 2)}, ${signed(out[1], 2)}`, "this head") +
      row("all heads (water, money)", `${signed(comb[0], 2)}, ${signed(comb[1], 2)}`, "after W\u2092") +
      `</table>`;
  }

  // The line under the matrix: row i is one regression query, scored with a dot product over √d_k (and T).
  function rowLine(toks, i, dk, t) {
    const temp = t === 1 ? "" : ` and by T = ${plain(t, 3)}`;
    return `<p class="rowline">Row ${i} is one regression query, like the orange-red line above: ` +
      `\u201c${esc(toks[i])}\u201d compares its query with every word's key, a softmax turns the scores ` +
      `into weights, and its output is the weighted average of the values. Only the similarity is new: ` +
      `a dot product of vectors, divided by \u221ad\u2096 = ${plain(Math.sqrt(dk), 3)}${temp}.</p>`;
  }

  return { rowReadouts, rowLine };
})(AttnMirror, AttnCommon);
