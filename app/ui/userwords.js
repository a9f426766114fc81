// Your own data, the words: every sentence the reader of your data says (twins of app/userdata/words.py _Say), the
// refusal that carries one, and the rules of the config (app.userdata.config()) compiled once.  The parser
// (ui/userparse.js) and the page's side of your data (ui/userdata.js) say everything through these.  No DOM.

const AttnUserWords = (function () {
  "use strict";

  // A sentence that refuses the input; the public functions turn it into {error}.
  class Refusal extends Error {}
  function refuse(sentence) { throw new Refusal(sentence); }

  function guarded(work) {
    try {
      return work();
    } catch (e) {
      if (e instanceof Refusal) return { error: e.message };
      throw e;
    }
  }

  // ---- words (twins of app/userdata/words.py: _Say) ------------------------------------------------------

  let MAX_SHOWN = 40;   // set from cfg by every public function (one definition: app.state.MAX_SHOWN)
  const cps = (s) => Array.from(s);
  function shown(text) {
    const c = cps(text);
    return c.length <= MAX_SHOWN ? text : c.slice(0, MAX_SHOWN).join("") + "\u2026";
  }
  const CONTROL = /[\u0000-\u001f\u007f]/g;
  // a user's text in quotes, on one line (a line end or a tab inside it shows as a space)
  function q(text) { return `\u201c${shown(text.replace(CONTROL, " "))}\u201d`; }

  function andList(items, limit) {
    if (items.length > limit) return items.slice(0, limit).join(", ") + ` and ${items.length - limit} more`;
    return items.length === 1 ? items[0] : items.slice(0, -1).join(", ") + " and " + items[items.length - 1];
  }

  function words(one, many, rows, whole) {
    return { one, many, rows, whole, places: (locs) => `${locs.length === 1 ? one : many} ${andList(locs.map(String), 5)}` };
  }
  const LINES = words("line", "lines", "rows of data", "text"), POINTS = words("point", "points", "points", "data");

  // a size in decimal units (1 MB: a million bytes) rounded up to a tenth (a file just over a limit reads as
  // over it): "812 bytes", "12.3 KB"
  function sizeText(size) {
    if (size < 1000) return `${size} byte` + (size === 1 ? "" : "s");
    const [unit, base] = size < 1000 ** 2 ? ["KB", 1000] : size < 1000 ** 3 ? ["MB", 1000 ** 2] : ["GB", 1000 ** 3];
    const tenths = Math.ceil(size * 10 / base), whole = Math.floor(tenths / 10), tenth = tenths % 10;
    if (whole === 1000 && unit !== "GB") return sizeText(base * 1000);   // 999 950 bytes read as 1 MB
    return tenth ? `${whole}.${tenth} ${unit}` : `${whole} ${unit}`;
  }

  // the length of a text in UTF-8 (a lone surrogate counts 3 bytes, as U+FFFD would)
  function utf8Length(text) {
    let n = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        n += 4;
        i += 1;
      } else n += 3;
    }
    return n;
  }

  // the shortest text that reads back as exactly v (app/userdata/words.py number_text writes the same)
  function numberText(v) { return v === 0 ? "0" : String(v); }

  const SAY = {
    empty: "There is nothing to read: the page needs two columns of numbers, x and y.",
    binary: "This is not text but a binary file; save the data as CSV and try again.",
    oneColumn: "Found only one column; the page needs two, x and y.",
    noNumbers: "No column holds numbers; the page needs two, x and y.",
    onePoint: "There is only one point; kernel regression needs at least two.",
    fileEmpty: "This file is empty.",
    damaged: "The data in this link is damaged, perhaps cut short when it was copied; copy the whole link again.",
    foreign: "The part of this link after \u201c#\u201d does not hold data for this page.",
    noCompression: "This browser cannot put data into a link; download the page with the data inside instead.",
    noDecompression: "This browser cannot read data from a link; open the link in a current browser.",
    noArrays: "There are no points: x and y are empty.",
    damagedPage: "The data this page carries are damaged; export it again with your data.",
    unreadable: (count) => `This is not UTF-8 text (${count} characters could not be read); ` +
      "save the data as CSV UTF-8 and try again.",
    openQuote: (line) => `Line ${line}: a quotation mark opens a field that never closes.`,
    headerOnly: (line) => `There is a header row (line ${line}) but no data below it.`,
    oneNumberColumn: (label) => `Only one column holds numbers (${label}); the page needs two, x and y.`,
    noOtherColumn: (label, which) => `No column besides ${label} holds numbers to use for ${which}.`,
    noSuchName: (name, labels) => `There is no column ${q(name)} (the columns are ${andList(labels, 6)}).`,
    noHeader: (name, ncols) => `There is no column ${q(name)}: the text has no header row, ` +
      `so give a column number from 1 to ${ncols}.`,
    noSuchNumber: (number, ncols, w) => `There is no column ${number}: the ${w.whole} has ${ncols} columns.`,
    sameColumn: (label) => `x and y must be two different columns (both are ${label}).`,
    notNumber: (where, cell, column) => `${where}: ${q(cell)} in ${column} is not a number.`,
    nan: (where, cell, column, w) => `${where}: ${q(cell)} in ${column} is not a number; to skip the ${w.one}, ` +
      "leave the cell empty or write NA.",
    notFinite: (where, cell, column) => `${where}: ${q(cell)} in ${column} is not a finite number.`,
    grouped: (where, cell, column) => `${where}: ${q(cell)} in ${column} could be a decimal comma or a thousands ` +
      `separator; write ${cell.replace(",", ".")} or ${cell.replace(",", "")}.`,
    tooLarge: (where, cell, column, m) => `${where}: ${q(cell)} in ${column} is too large; ` +
      `the page takes values from \u2212${m} to ${m}.`,
    noPoints: (w) => `Every ${w.one} misses an x or a y value, so there are no points.`,
    allXEqual: (s) => `Every x is ${q(s)}; x must take at least two different values.`,
    xTooClose: "The x values all lie within a billionth of one another, too close for the page to scale; " +
      "write x in finer units (nanoseconds instead of seconds, say).",
    xTooCloseForSize: "The x values differ by less than a millionth of a millionth of their size, too little " +
      "for the page to scale; subtract the first x from every x and try again.",
    used: (xl, yl) => `Used ${xl} for x and ${yl} for y.`,
    decimalCommas: (cell) => `Commas were read as decimal points (${q(cell)} is ${shown(cell.replace(",", "."))}).`,
    emptyLines: (lines) => {
      const one = lines.length === 1, places = LINES.places(lines);
      return `${places[0].toUpperCase() + places.slice(1)} ${one ? "is" : "are"} empty; take the empty ` +
        `${one ? "line" : "lines"} between the rows out and try again.`;
    },
    skippedMissing: (locs, w) =>
      `Skipped ${locs.length} ${locs.length === 1 ? w.one : w.many} with a missing value (${w.places(locs)}).`,
    clamped: (total, w, kept) => `There are ${total} ${w.rows}; the page keeps the first ${kept} points.`,
    repeated: (s, locs, w, others) => `The x value ${q(s)} occurs ${locs.length} times (${w.places(locs)})` +
      (others ? `, and ${others} other x ${others === 1 ? "value repeats" : "values repeat"} too` : "") +
      "; every point is kept.",
    fileTooBig: (size, limit) => `This file is ${sizeText(size)}; the page reads files up to ${sizeText(limit)}.`,
    textTooBig: (size, limit) => `This text is ${sizeText(size)}; the page reads texts up to ${sizeText(limit)}.`,
    workbook: (name) => `${name ? q(name) : "This"} is a spreadsheet workbook; save it as CSV first.`,
    tooLongForLink: (n, limit) => `These ${n} points do not fit in a link (up to ${limit} characters); ` +
      "download the page with the data inside instead.",
    otherFormat: (version, mine) => `This link holds data in format ${shown(version)}, ` +
      `which this page does not read (it reads format ${mine}).`,
  };

  // ---- the config's rules ---------------------------------------------------------------------------

  // The rules of cfg, compiled once per cfg object.
  const RULES = new WeakMap();
  function rules(cfg) {
    let R = RULES.get(cfg);
    if (!R) {
      R = { cfg, number: new RegExp(cfg.number), thousands: new RegExp(cfg.thousands), missing: new Set(cfg.missing_words), nan: new Set(cfg.nan_words),
            nonfinite: new Set(cfg.nonfinite_words), trim: new RegExp(`^[${cfg.trim}]+|[${cfg.trim}]+$`, "g"),
            blank: new RegExp(`^[${cfg.trim}]*$`) };
      RULES.set(cfg, R);
    }
    MAX_SHOWN = cfg.max_shown;
    return R;
  }

  // a column's name as the page shows it: on one line, trimmed, shortened
  function cleanName(name, R) { return shown(name.replace(CONTROL, " ").replace(R.trim, "")); }

  return { Refusal, refuse, guarded, q, shown, LINES, POINTS, sizeText, utf8Length, numberText, SAY, rules,
           cleanName };
})();
