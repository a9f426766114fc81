// Your own data, read: x, y pairs from a text (a pasted table, a CSV file) or from two arrays, with the
// twin rules of app/userdata/, rule for rule and sentence for sentence; tests/js and
// tests/browser/test_userdata_parity.py hold them equal.  Every limit and word list comes in `cfg`,
// app.userdata.config(), the one definition.  Text in, numbers and plain sentences out (ui/userwords.js says
// them); no DOM.  AttnUserData (ui/userdata.js) carries what the page calls.

const AttnUserParse = (function (W) {
  "use strict";

  const { refuse, guarded, q, shown, LINES, POINTS, utf8Length, numberText, SAY, rules, cleanName } = W;

  // ---- cells ---------------------------------------------------------------------------------------

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

  // x spread too little to scale onto the sliders (app/userdata/checks.py _check_spread)
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

  // points from two arrays of numbers (a link's data): the checks of app/userdata/parse.py from_arrays
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

  return { checkText, tooBig, parse, fromArrays, columnNames };
})(AttnUserWords);
