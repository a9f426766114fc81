// The routing section's readout in words: what the ambiguous word does in the sentence shown at the step shown, as
// plain sentences (no page, no Bokeh, no HTML: texts.js escapes them and writes them; tests/js runs this in V8).

const RoutingLines = (function (U, Head) {
  "use strict";

  const fixed = U.fixed;
  const { senseOf } = Head;

  function quote(w) { return `\u201c${w}\u201d`; }

  // learn_qk._listing: "a", "a and b", "a, b and c".
  function listing(items) {
    return items.length === 1 ? items[0] : items.slice(0, -1).join(", ") + " and " + items[items.length - 1];
  }

  // The words that get the largest share as it is written (two decimals): its positions, its words once each.
  function largest(row, tokens) {
    let top = 0;
    for (let j = 1; j < row.length; j++) if (row[j] > row[top]) top = j;
    const shown = fixed(row[top], 2), at = [];
    for (let j = 0; j < row.length; j++) if (fixed(row[j], 2) === shown) at.push(j);
    return { top, shown, at, words: Array.from(new Set(at.map((j) => tokens[j]))) };
  }

  // Where the largest share goes, in words: one word, several (a tie to the digits shown), or every word.
  function whereTop(t, n) {
    if (t.at.length === n) return `every word gets ${t.shown}`;
    const names = listing(t.words.map(quote));
    return t.at.length > t.words.length || t.at.length > 1 && t.words.length === 1
      ? `${names}, at ${t.at.length} places` : names;
  }

  // s: { word, tokens, index (-1: no ambiguous word), count, own, sense, clue, split }; row and point: the word's
  // weights and output at this step; p: { readout_scale, undecided_within }.  Plain sentences, first the main one.
  function readoutLines(s, row, point, p) {
    const word = s.word;
    if (s.index < 0)
      return [`There is no ${quote(word)} in this sentence, so nothing here asks which bank is meant. The ` +
        `matrix still shows where every word looks with this step's W_Q and W_K.`];
    const t = largest(row, s.tokens), n = row.length, r = senseOf(point, s.even, p.readout_scale, p.undecided_within);
    const tied = t.at.length > 1;
    // nearly even: no word gets half as much again as an even share
    const looks = row[t.top] < 1.5 / n
      ? (t.at.length === n ? `${quote(word)} spreads its weight almost evenly: ${whereTop(t, n)}.`
        : `${quote(word)} spreads its weight almost evenly (largest share ${t.shown}, on ${whereTop(t, n)}).`)
      : `${quote(word)} looks most at ${whereTop(t, n)}, with ${t.shown} of its weight${tied ? " each" : ""}.`;
    const moved = r.sense === "undecided"
      ? `Its output is within ${fixed(p.undecided_within, 2)} of where an even spread lands: undecided.`
      : `Its output moved ${fixed(Math.abs(r.z), 2)} towards ${r.z > 0 ? "water" : "money"} from where an even ` +
        `spread lands: ${r.sense} (${fixed(100 * (r.sense === "water" ? r.pWater : 1 - r.pWater), 0)} %).`;
    const out = [`${looks} ${moved}`];
    if (s.count > 1) out.push(`${quote(word)} appears ${s.count} times; the framed row is the first.`);
    if (!s.own) {
      const verdict = r.sense === "undecided" ? "Undecided, half right"
        : r.sense === s.sense ? "Right" : "Not right yet";
      out.push(`${verdict}: here it is the ${s.sense} sense, decided by ${quote(s.clue)} ` +
        `(${s.split === "train" ? "a training sentence" : "held out, never trained on"}).`);
    }
    return out;
  }

  // The status line at recorded frame f, in plain words: the step (head, which the page writes in bold), its loss
  // and its right, undecided and wrong sentences (the accuracy counts an undecided one as half right); moment:
  // { clue, share, weight } at the frame playback holds at (the deciding word's weight there), else null.
  function statusText(p, f, moment) {
    const k = p.frame_steps[f];
    const counts = (acc, ties, n) => {
      const right = Math.round(acc * n - ties / 2), wrong = n - right - ties;
      return [`${right} right`].concat(ties ? [`${ties} undecided`] : [], wrong ? [`${wrong} wrong`] : []).join(", ");
    };
    const body = `loss ${fixed(p.loss[k], 3)} training, ${fixed(p.held_out_loss[k], 3)} held out. ` +
      `Training: ${counts(p.train_accuracy[k], p.train_undecided[k], p.train_size)}; ` +
      `held out: ${counts(p.held_out_accuracy[k], p.held_out_undecided[k], p.held_out_size)}.`;
    const share = moment && (moment.share === 0.5 ? "half" : fixed(moment.share, 2));
    return { head: `Step ${k} of ${p.steps}`, body,
             moment: moment ? `Here ${quote(p.word)} first gives ${quote(moment.clue)} ${share} of its weight or ` +
               `more (${fixed(moment.weight, 2)}).` : "" };
  }

  return { quote, listing, largest, readoutLines, statusText };
})(AttnCommon, RoutingHead);
