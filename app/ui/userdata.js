// Your own data: x, y pairs pasted or dropped by an instructor, read in the browser.
//
// The twin of app/userdata.py (the CLI's and the notebook's reader), rule for rule and sentence for
// sentence; tests/browser/test_userdata_parity.py holds them equal.  Every limit and word list comes in
// `cfg`, app.userdata.config(), the one definition.  The rules are written out in app/userdata.py.
//
// Nothing here touches the DOM: text in, numbers and plain sentences out.  The page escapes every sentence
// and name it shows; nothing from a file is ever taken as markup.
//
//   parse(text, {x, y}, cfg)     -> {x, y, xName, yName, notices} | {error}
//   checkFile(file, cfg)         -> null | {error}           (from name, type and size: never reads it)
//   checkSize(text, cfg)         -> null | {error}           (a text over the limit, before anything reads it)
//   readFile(file, cfg)          -> Promise<text | {error}>
//   scaleFor(x, cfg)             -> {scaled, x0, span, u0, uspan, factor, sentence}
//   fromUnits / toUnits / hFromUnits / hToUnits (scale, value)
//   encodeFragment(data, cfg)    -> Promise<"data1.…" | {error}>
//   decodeFragment(s, cfg)       -> Promise<{x, y, xName, yName, notices} | {error}>
//   fromArrays(x, y, xName, yName, cfg) -> {x, y, xName, yName, notices} | {error}   (app/userdata.py from_arrays)
//   columnNames(text, cfg)       -> [{value, label}] (the columns a reader may pick; [] when there are none)
//   embedText(data, cfg)         -> the JSON a page carries its data in (<script id="attn-data">), safe in HTML
//   fromEmbedded(text, cfg)      -> {x, y, xName, yName, notices} | {error}

const AttnUserData = (function () {
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

  // ---- words (twins of app/userdata.py: _Say) ------------------------------------------------------

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

  // the shortest text that reads back as exactly v (app/userdata.py number_text writes the same)
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

  // ---- cells ---------------------------------------------------------------------------------------

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

  // {kind, value, comma, shown} of a trimmed text cell; kind: number, missing, nonfinite or text
  // grouped: the text is comma-separated, where a quoted "1,234" reads as thousands as well as a decimal comma
  function classifyText(cell, commas, R, grouped) {
    const low = cell.toLowerCase();
    if (R.missing.has(low)) return { kind: "missing", value: null, comma: false, shown: cell };
    if (R.nan.has(low)) return { kind: "nan", value: null, comma: false, shown: cell };
    if (R.nonfinite.has(low)) return { kind: "nonfinite", value: null, comma: false, shown: cell };
    const t = cell.startsWith("\u2212") ? "-" + cell.slice(1) : cell;
    if (R.number.test(t)) return { kind: "number", value: Number(t), comma: false, shown: cell };
    if (grouped && R.thousands.test(t)) return { kind: "grouped", value: null, comma: false, shown: cell };
    if (commas && t.split(",").length === 2 && !t.includes(".") && R.number.test(t.replace(",", ".")))
      return { kind: "number", value: Number(t.replace(",", ".")), comma: true, shown: cell };
    return { kind: "text", value: null, comma: false, shown: cell };
  }

  // a number from an array (a link's data): missing when NaN, else its canonical text
  function classifyNumber(v) {
    if (Number.isNaN(v)) return { kind: "missing", value: null, comma: false, shown: "" };
    return { kind: isFinite(v) ? "number" : "nonfinite", value: v, comma: false, shown: numberText(v) };
  }

  function valueOf(c, where, column, w, R) {
    if (c.kind === "nan") refuse(SAY.nan(where, c.shown, column, w));
    if (c.kind === "nonfinite") refuse(SAY.notFinite(where, c.shown, column));
    if (c.kind === "grouped") refuse(SAY.grouped(where, c.shown, column));
    if (c.kind !== "number") refuse(SAY.notNumber(where, c.shown, column));
    if (Math.abs(c.value) > R.cfg.max_magnitude) refuse(SAY.tooLarge(where, c.shown, column, R.cfg.magnitude_text));
    return c.value;
  }

  // ---- text: lines, separator, records -------------------------------------------------------------

  // a text over the limit in UTF-8 is refused before anything reads it (one UTF-16 unit: at most 3 bytes)
  function tooBig(text, R) {
    const limit = R.cfg.max_input_bytes;
    if (3 * text.length <= limit) return null;
    const size = utf8Length(text);
    return size > limit ? SAY.textTooBig(size, limit) : null;
  }

  function checkText(text, R) {
    if (text.includes("\u0000")) refuse(SAY.binary);
    let bad = 0;
    for (let i = text.indexOf("\ufffd"); i >= 0; i = text.indexOf("\ufffd", i + 1)) bad += 1;
    if (bad >= R.cfg.unreadable_limit) refuse(SAY.unreadable(bad));
  }

  function normalize(text) {
    if (text.startsWith("\ufeff")) text = text.slice(1);
    return text.replace(/\r\n/g, "\n").replace(/\r/g, "\n");
  }

  const SEPARATORS = ["\t", ";", ","];

  // tab, semicolon or comma: the first on every one of the first ten non-blank lines, else the first on
  // the first line; " " (runs of spaces and tabs) when the first line has none
  function separator(text, R) {
    const lines = [];
    let start = 0;
    while (start <= text.length && lines.length < 10) {
      let end = text.indexOf("\n", start);
      if (end < 0) end = text.length;
      const line = text.slice(start, end);
      if (!R.blank.test(line)) lines.push(line);
      start = end + 1;
    }
    for (const sep of SEPARATORS) if (lines.length && lines.every((l) => l.includes(sep))) return sep;
    for (const sep of SEPARATORS) if (lines.length && lines[0].includes(sep)) return sep;
    return " ";
  }

  function escapeClass(ch) { return ch === "\t" ? "\\t" : ch; }

  // one field: quoted (RFC 4180: "" inside is one quote; text after the closing quote is kept) or not
  function fieldPattern(sep) {
    const lead = sep === "\t" ? "[ ]*" : "[ \\t]*";
    const stop = sep === " " ? "[^ \\t\\n]" : `[^${escapeClass(sep)}\\n]`;
    return new RegExp(`${lead}"([^"]*(?:""[^"]*)*)"(${stop}*)|(${stop}*)`, "y");
  }

  // a whole line that is a record by itself: each field unquoted, or quoted and closed on the line with
  // no quotation mark after it (the tokenizer reads such a line exactly so); none for runs of spaces
  function oneLinePattern(sep) {
    if (sep === " ") return null;
    const lead = sep === "\t" ? "[ ]*" : "[ \\t]*", bare = `[^${escapeClass(sep)}\\n"]*`;
    const field = `(?:${lead}"(?:[^"\\n]|"")*"${bare}|${bare})`;
    return new RegExp(`^${field}(?:${escapeClass(sep)}${field})*$`);
  }

  function countNewlines(s) {
    let k = 0;
    for (let i = s.indexOf("\n"); i >= 0; i = s.indexOf("\n", i + 1)) k += 1;
    return k;
  }

  // the record of normalized text starting at pos (a line's start, line number `line`):
  // [trimmed cells, the position of its end, the line it ends on]
  function recordAt(text, pos, line, sep, field, R) {
    const cells = [], n = text.length, spaces = /[ \t]*/y;
    const skipSpaces = (at) => { spaces.lastIndex = at; spaces.exec(text); return spaces.lastIndex; };
    if (sep === " ") pos = skipSpaces(pos);
    for (;;) {
      field.lastIndex = pos;
      const m = field.exec(text);
      let cell;
      if (m[1] !== undefined) {
        cell = m[1].replace(/""/g, '"') + m[2];
        line += countNewlines(m[1]);
      } else {
        cell = m[3];
        if (cell.replace(/^[ \t]+/, "").startsWith('"')) refuse(SAY.openQuote(line));
      }
      cells.push(cell.replace(R.trim, ""));
      pos = field.lastIndex;
      if (pos >= n || text[pos] === "\n") return [cells, pos, line];
      pos = sep === " " ? skipSpaces(pos) : pos + 1;                       // past the separator
      if (sep === " " && (pos >= n || text[pos] === "\n")) return [cells, pos, line];   // spaces before the end
    }
  }

  // {filled, blank, cellsOf}: lines where non-blank records start, lines of blank records, and the cells
  // of a record by its line.  A line without a quotation mark, or quoted only on itself (oneLinePattern),
  // is a record, split into cells only when read: a big file costs one pass.  Any other line starts a
  // record read at once by the RFC 4180 tokenizer, which may span lines.
  function textRows(text, sep, R) {
    const lines = text.split("\n"), field = fieldPattern(sep), oneLine = oneLinePattern(sep);
    const seps = sep === " " ? "" : escapeClass(sep);
    const empty = new RegExp(`^[${R.cfg.trim}${seps}]*$`), onlyQuotes = new RegExp(`^[${R.cfg.trim}${seps}"]*$`);
    const filled = [], blank = [], read = new Map();
    let i = 0, pos = 0;
    while (i < lines.length) {
      const line = lines[i];
      if (!line.includes('"')) {
        (empty.test(line) ? blank : filled).push(i + 1);
      } else if (oneLine !== null && !onlyQuotes.test(line) && oneLine.test(line)) {
        filled.push(i + 1);
      } else {
        const [cells, end, last] = recordAt(text, pos, i + 1, sep, field, R);
        read.set(i + 1, cells);
        (cells.some((c) => c !== "") ? filled : blank).push(i + 1);
        i = last; pos = end + 1;
        continue;
      }
      i += 1; pos += line.length + 1;
    }
    const split = sep === " " ? (line) => line.replace(/^[ \t]+|[ \t]+$/g, "").split(/[ \t]+/)
                              : (line) => line.split(sep);
    const cellsOf = (p) => {
      if (read.has(p)) return read.get(p);
      const line = lines[p - 1];
      if (line.includes('"')) return recordAt(line, 0, p, sep, field, R)[0];
      return split(line).map((c) => c.replace(R.trim, ""));
    };
    return { filled, blank, cellsOf };
  }

  // the data rows of a text as [line, cells], each line split only when read
  function textRowsView(places, cellsOf) {
    const rows = { length: places.length, places };
    rows.slice = (a, b) => textRowsView(places.slice(a, b), cellsOf);
    rows[Symbol.iterator] = function* () { for (const p of places) yield [p, cellsOf(p)]; };
    return rows;
  }

  // ---- tables: columns, points ---------------------------------------------------------------------

  function cleanName(name, R) { return shown(name.replace(CONTROL, " ").replace(R.trim, "")); }

  // rows: [place, cells]; names: shown names; keys: what x and y are matched against
  // unnamed: columns whose header cell is empty (the row numbers R and pandas write)
  function table(rows, names, keys, header, classify, w, R, unnamed) {
    const t = { rows, names, keys, header, classify, words: w, R, unnamed: unnamed || new Set() };
    t.label = (j) => header ? q(names[j]) : `column ${j + 1}`;
    t.cell = (row, j) => j < row.length ? row[j] : "";
    t.holdsNumbers = (j) => {
      let nums = 0, texts = 0;
      for (const [, cells] of rows.slice(0, R.cfg.max_rows)) {
        const kind = classify(t.cell(cells, j)).kind;
        if (kind === "number" || kind === "nonfinite") nums += 1;
        if (kind === "text") texts += 1;
      }
      return nums >= 1 && nums >= texts;
    };
    return t;
  }

  // the column named (or numbered from 1) by `wanted`, or the sentence that says there is none
  function findColumn(t, wanted) {
    const ncols = t.names.length, R = t.R, text = String(wanted).replace(R.trim, "");
    if (t.header) {
      for (const same of [(a, b) => a === b, (a, b) => a.toLowerCase() === b.toLowerCase()])
        for (let j = 0; j < ncols; j++) if (same(String(t.keys[j]).replace(R.trim, ""), text)) return j;
    }
    if (/^[0-9]+$/.test(text)) {
      if (Number(text) >= 1 && Number(text) <= ncols) return Number(text) - 1;
      refuse(SAY.noSuchNumber(shown(text), ncols, t.words));
    }
    if (!t.header) refuse(SAY.noHeader(text, ncols));
    refuse(SAY.noSuchName(text, t.names.map(q)));
  }

  // the x and y columns (given, or the first columns holding numbers) and the notice saying so
  function chooseColumns(t, x, y) {
    const unset = (v) => v === undefined || v === null || String(v).replace(t.R.trim, "") === "";
    const given = { x: unset(x) ? null : findColumn(t, x), y: unset(y) ? null : findColumn(t, y) };
    if (given.x !== null && given.x === given.y) refuse(SAY.sameColumn(t.label(given.x)));
    const need = ["x", "y"].filter((k) => given[k] === null);
    if (!need.length) return { xi: given.x, yi: given.y, notices: [] };
    const taken = [given.x, given.y].filter((j) => j !== null), ncols = t.names.length, pool = [];
    for (let j = 0; j < ncols; j++) if (!taken.includes(j) && (ncols === 2 || t.holdsNumbers(j))) pool.push(j);
    pool.sort((a, b) => t.unnamed.has(a) - t.unnamed.has(b));   // named columns first (a stable sort)
    if (pool.length < need.length) {
      if (taken.length) refuse(SAY.noOtherColumn(t.label(taken[0]), need[0]));
      refuse(pool.length ? SAY.oneNumberColumn(t.label(pool[0])) : SAY.noNumbers);
    }
    need.forEach((k, i) => { given[k] = pool[i]; });
    return { xi: given.x, yi: given.y, notices: ncols > 2 ? [SAY.used(t.label(given.x), t.label(given.y))] : [] };
  }

  // read the chosen columns row by row, then check the points as a whole
  function collect(t, xi, yi, notices) {
    const where = t.words.one[0].toUpperCase() + t.words.one.slice(1), max = t.R.cfg.max_rows;
    const column = (j) => t.header ? `column ${t.label(j)}` : t.label(j), colx = column(xi), coly = column(yi);
    const points = [], missing = [];
    let comma = null, clamped = false;
    for (const [place, cells] of t.rows) {
      if (points.length === max) { clamped = true; break; }
      const cx = t.classify(t.cell(cells, xi)), cy = t.classify(t.cell(cells, yi));
      if (cx.kind === "missing" || cy.kind === "missing") { missing.push(place); continue; }
      const vx = valueOf(cx, `${where} ${place}`, colx, t.words, t.R);
      const vy = valueOf(cy, `${where} ${place}`, coly, t.words, t.R);
      if (comma === null) comma = cx.comma ? cx.shown : cy.comma ? cy.shown : null;
      points.push([place, vx, vy, cx.shown]);
    }
    if (comma !== null) notices.push(SAY.decimalCommas(comma));
    if (missing.length) notices.push(SAY.skippedMissing(missing, t.words));
    if (!points.length) refuse(SAY.noPoints(t.words));
    if (points.length === 1) refuse(SAY.onePoint);
    if (clamped) notices.push(SAY.clamped(t.rows.length, t.words, max));
    if (points.every((p) => p[1] === points[0][1])) refuse(SAY.allXEqual(points[0][3]));
    checkSpread(points, t.R.cfg);
    noteRepeats(points, t.words, notices);
    const name = (j, plain) => t.header ? cleanName(t.names[j], t.R) : plain;
    return { x: points.map((p) => p[1]), y: points.map((p) => p[2]), xName: name(xi, "x"), yName: name(yi, "y"),
             notices };
  }

  // x spread too little to scale onto the sliders (app/userdata.py _check_spread)
  function checkSpread(points, cfg) {
    let lo = Infinity, hi = -Infinity;
    for (const p of points) { if (p[1] < lo) lo = p[1]; if (p[1] > hi) hi = p[1]; }
    if (hi - lo < cfg.min_x_spread) refuse(SAY.xTooClose);
    if (hi - lo < cfg.min_x_relative * Math.max(Math.abs(lo), Math.abs(hi))) refuse(SAY.xTooCloseForSize);
  }

  function noteRepeats(points, w, notices) {
    const seen = new Map();
    for (const p of points) {
      if (!seen.has(p[1])) seen.set(p[1], []);
      seen.get(p[1]).push(p);
    }
    const repeats = Array.from(seen.values()).filter((ps) => ps.length > 1);
    if (!repeats.length) return;
    notices.push(SAY.repeated(repeats[0][0][3], repeats[0].map((p) => p[0]), w, repeats.length - 1));
  }

  // ---- public: text --------------------------------------------------------------------------------

  function parseText(text, x, y, R) {
    if (typeof text !== "string") refuse(SAY.binary);
    const big = tooBig(text, R);
    if (big) refuse(big);
    checkText(text, R);
    text = normalize(text);
    const sep = separator(text, R), { filled, blank: blanks, cellsOf } = textRows(text, sep, R);
    if (!filled.length) refuse(SAY.empty);
    const first = filled[0], last = filled[filled.length - 1];
    const blank = blanks.filter((p) => first < p && p < last);
    if (blank.length) refuse(SAY.emptyLines(blank));
    // a comma inside a cell of comma-separated text was quoted ("3,14"): a decimal comma there too, unless it
    // could as well separate thousands ("1,234")
    const classify = (cell) => classifyText(cell, true, R, sep === ",");
    const firstCells = cellsOf(first), header = !firstCells.some((c) => classify(c).kind === "number");
    const rows = textRowsView(header ? filled.slice(1) : filled, cellsOf);
    if (header && !rows.length) refuse(SAY.headerOnly(first));
    let ncols = header ? firstCells.length : 0;
    for (const [, cells] of rows.slice(0, R.cfg.max_rows)) if (cells.length > ncols) ncols = cells.length;
    if (ncols < 2) refuse(SAY.oneColumn);
    const heads = header ? firstCells : [], names = [];
    for (let j = 0; j < ncols; j++) names.push(j < heads.length && heads[j] ? heads[j] : `column ${j + 1}`);
    const unnamed = new Set();
    for (let j = 0; j < ncols; j++) if (header && !(j < heads.length && heads[j])) unnamed.add(j);
    const t = table(rows, names.map((nm) => cleanName(nm, R)), names, header, classify, LINES, R, unnamed);
    const chosen = chooseColumns(t, x, y);
    return collect(t, chosen.xi, chosen.yi, chosen.notices);
  }

  function parse(text, opts, cfg) {
    const o = opts || {};
    return guarded(() => parseText(text, o.x, o.y, rules(cfg)));
  }

  // points from two arrays of numbers (a link's data): the checks of app/userdata.py from_arrays
  function fromArrays(xs, ys, xName, yName, R) {
    const names = [xName || "x", yName || "y"];
    const rows = xs.map((v, i) => [i + 1, [xs[i], ys[i]]]);
    const t = table(rows, names.map((nm) => cleanName(nm, R)), names, true, classifyNumber, POINTS, R);
    return collect(t, 0, 1, []);
  }

  // The columns of a text a reader may pick for x and y: the header's names (value: the header cell, label: the
  // name as the page shows it), or "column 1" ... (value: the number) when the first row holds numbers.
  function columnNames(text, cfg) {
    const R = rules(cfg);
    return guarded(() => {
      if (typeof text !== "string" || text.includes("\u0000") || tooBig(text, R)) return [];
      const t = normalize(text), sep = separator(t, R), { filled, cellsOf } = textRows(t, sep, R);
      if (!filled.length) return [];
      const first = cellsOf(filled[0]), classify = (cell) => classifyText(cell, true, R, sep === ",");
      const header = !first.some((cell) => classify(cell).kind === "number");
      return first.map((cell, j) => header && cell ? { value: cell, label: cleanName(cell, R) }
                                                   : { value: String(j + 1), label: `column ${j + 1}` });
    });
  }

  // ---- data a page carries: the notebook's, the exported file's (twins of app/userdata.py) -----------

  // The JSON of <script type="application/json" id="attn-data">: every double written as the shortest text that
  // reads back as itself (JSON.stringify does), and "<", ">", "&" escaped, so no name can close the element.
  function embedText(data, cfg) {
    const R = rules(cfg);
    const out = { format: cfg.fragment_format, x_name: cleanName(data.xName || "x", R),
                  y_name: cleanName(data.yName || "y", R), x: Array.from(data.x), y: Array.from(data.y) };
    return JSON.stringify(out).replace(/[<>&\u2028\u2029]/g, (ch) => "\\u" + ch.charCodeAt(0).toString(16).padStart(4, "0"));
  }

  function fromEmbedded(text, cfg) {
    const R = rules(cfg);
    return guarded(() => {
      let d = null;
      try { d = JSON.parse(text); } catch (e) { d = null; }
      const numbers = (a) => Array.isArray(a) && a.every((v) => typeof v === "number");
      if (!d || d.format !== cfg.fragment_format || !numbers(d.x) || !numbers(d.y) || d.x.length !== d.y.length ||
          typeof d.x_name !== "string" || typeof d.y_name !== "string") refuse(SAY.damagedPage);
      if (!d.x.length) refuse(SAY.noArrays);
      return fromArrays(d.x, d.y, d.x_name, d.y_name, R);
    });
  }

  // ---- files ---------------------------------------------------------------------------------------

  // refuse a file from its name, type and size alone: never reads it
  function checkFile(file, cfg) {
    rules(cfg);
    const name = typeof file.name === "string" ? file.name : "", low = name.toLowerCase();
    const type = String(file.type || "").toLowerCase();
    if (cfg.workbook_extensions.some((e) => low.endsWith(e)) || cfg.workbook_types.includes(type))
      return { error: SAY.workbook(name) };
    if (file.size === 0) return { error: SAY.fileEmpty };
    if (file.size > cfg.max_input_bytes) return { error: SAY.fileTooBig(file.size, cfg.max_input_bytes) };
    return null;
  }

  // the text of a file's bytes: UTF-16 after a UTF-16 byte-order mark, else UTF-8; NUL bytes: refused
  function decodeBytes(bytes, R) {
    let text;
    if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
      const order = bytes[0] === 0xff ? "utf-16le" : "utf-16be";
      text = new TextDecoder(order, { ignoreBOM: true }).decode(bytes.subarray(2));
    } else {
      if (bytes.includes(0)) refuse(SAY.binary);
      text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
    }
    checkText(text, R);
    return text;
  }

  async function readFile(file, cfg) {
    const refused = checkFile(file, cfg);
    if (refused) return refused;
    const bytes = new Uint8Array(await file.arrayBuffer());
    return guarded(() => decodeBytes(bytes, rules(cfg)));
  }

  // ---- scaling -------------------------------------------------------------------------------------

  // x stays as it is when it lies within cfg.data_range (0 … 6) and spans at least cfg.min_spread;
  // otherwise [min x, max x] is mapped onto data_range.  page = u0 + (x - x0) / span * uspan.
  function scaleFor(x, cfg) {
    let lo = Infinity, hi = -Infinity;
    for (const v of x) {
      if (!isFinite(v)) throw new Error("scaleFor: x must be finite");
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    if (!(hi > lo)) throw new Error("scaleFor: x must hold at least two different values");
    const [r0, r1] = cfg.data_range;
    if (r0 <= lo && hi <= r1 && hi - lo >= cfg.min_spread)
      return { scaled: false, x0: 0, span: 1, u0: 0, uspan: 1, factor: 1, sentence: null };
    return { scaled: true, x0: lo, span: hi - lo, u0: r0, uspan: r1 - r0, factor: (r1 - r0) / (hi - lo),
             sentence: `x was scaled to ${numberText(r0)}\u2013${numberText(r1)} for the sliders; ` +
                       "the axis shows your units." };
  }

  function fromUnits(s, x) { return s.u0 + (x - s.x0) / s.span * s.uspan; }
  function toUnits(s, u) { return s.x0 + (u - s.u0) / s.uspan * s.span; }
  function hFromUnits(s, h) { return h / s.span * s.uspan; }
  function hToUnits(s, h) { return h / s.uspan * s.span; }

  // ---- the link's fragment -------------------------------------------------------------------------

  function payload(data, R) {
    const lines = [cleanName(data.xName || "x", R) + "\t" + cleanName(data.yName || "y", R)];
    for (let i = 0; i < data.x.length; i++) lines.push(numberText(data.x[i]) + "\t" + numberText(data.y[i]));
    return lines.join("\n");
  }

  function base64url(bytes) {
    let bin = "";
    for (let i = 0; i < bytes.length; i += 0x8000) {
      bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    }
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  // all of a stream's bytes; more than `cap` of them: null
  async function drain(stream, cap) {
    const reader = stream.getReader(), parts = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > cap) { reader.cancel().catch(() => {}); return null; }
      parts.push(value);
    }
    const out = new Uint8Array(total);
    let at = 0;
    for (const p of parts) { out.set(p, at); at += p.length; }
    return out;
  }

  async function encodeFragment(data, cfg) {
    const R = rules(cfg);
    if (typeof CompressionStream !== "function") return { error: SAY.noCompression };
    const bytes = new TextEncoder().encode(payload(data, R));
    const packed = await drain(new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate-raw")), Infinity);
    const s = `data${cfg.fragment_format}.` + base64url(packed);
    return s.length > cfg.max_fragment_chars ? { error: SAY.tooLongForLink(data.x.length, cfg.max_fragment_chars) } : s;
  }

  async function inflate(body, R) {
    const cap = R.cfg.max_payload_bytes;
    if (body.length > cap || !/^[A-Za-z0-9_-]*$/.test(body) || body.length % 4 === 1) refuse(SAY.damaged);
    const bin = atob(body.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - body.length % 4) % 4));
    const raw = Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
    let out;
    try {
      out = await drain(new Blob([raw]).stream().pipeThrough(new DecompressionStream("deflate-raw")), cap);
    } catch (e) {
      refuse(SAY.damaged);
    }
    if (out === null) refuse(SAY.damaged);
    try {
      return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(out);
    } catch (e) {
      return refuse(SAY.damaged);
    }
  }

  async function decodeOrRefuse(fragment, R) {
    const s = fragment.startsWith("#") ? fragment.slice(1) : fragment;
    const m = /^data([0-9]+)\.([\s\S]*)$/.exec(s);
    if (!m) refuse(SAY.foreign);
    if (m[1] !== String(R.cfg.fragment_format)) refuse(SAY.otherFormat(m[1], R.cfg.fragment_format));
    if (typeof DecompressionStream !== "function") refuse(SAY.noDecompression);
    const lines = (await inflate(m[2], R)).split("\n");
    const names = lines[0].split("\t"), rows = lines.slice(1).map((l) => l.split("\t"));
    if (names.length !== 2 || !rows.length || rows.some((r) => r.length !== 2 || !r.every((v) => R.number.test(v))))
      refuse(SAY.damaged);
    return fromArrays(rows.map((r) => Number(r[0])), rows.map((r) => Number(r[1])), names[0], names[1], R);
  }

  async function decodeFragment(fragment, cfg) {
    try {
      return await decodeOrRefuse(String(fragment), rules(cfg));
    } catch (e) {
      if (e instanceof Refusal) return { error: e.message };
      throw e;
    }
  }

  function checkSize(text, cfg) {
    const big = tooBig(String(text), rules(cfg));
    return big ? { error: big } : null;
  }

  return { parse, checkFile, checkSize, readFile,
           decodeBytes: (bytes, cfg) => guarded(() => decodeBytes(bytes, rules(cfg))),
           scaleFor, fromUnits, toUnits, hFromUnits, hToUnits, encodeFragment, decodeFragment, numberText, sizeText,
           fromArrays: (x, y, xName, yName, cfg) => guarded(() => fromArrays(x, y, xName, yName, rules(cfg))),
           columnNames, embedText, fromEmbedded };
})();
