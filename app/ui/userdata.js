// Your own data: x, y pairs pasted or dropped by an instructor, read in the browser.
//
// The twin of app/userdata/ (the CLI's and the notebook's reader), rule for rule and sentence for
// sentence; tests/browser/test_userdata_parity.py holds them equal.  Every limit and word list comes in
// `cfg`, app.userdata.config(), the one definition.  The rules are written out in app/userdata/.
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
//   fromArrays(x, y, xName, yName, cfg) -> {x, y, xName, yName, notices} | {error}   (app/userdata/parse.py from_arrays)
//   columnNames(text, cfg)       -> [{value, label}] (the columns a reader may pick; [] when there are none)
//   embedText(data, cfg)         -> the JSON a page carries its data in (<script id="attn-data">), safe in HTML
//   fromEmbedded(text, cfg)      -> {x, y, xName, yName, notices} | {error}
//
// The words are ui/userwords.js's, the reading of a text ui/userparse.js's; this file adds files, the data a
// page carries, the scale of x and the link's fragment, and carries every public function.

const AttnUserData = (function (W, P) {
  "use strict";

  const { Refusal, refuse, guarded, numberText, sizeText, SAY, rules, cleanName } = W;
  const { checkText, tooBig, parse, fromArrays, columnNames } = P;

  // ---- data a page carries: the notebook's, the exported file's (twins of app/userdata/) -----------

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
})(AttnUserWords, AttnUserParse);
