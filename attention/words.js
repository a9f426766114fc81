// The browser twin of attention/sentences.py: a typed sentence becomes tokens, word vectors and every head's
// Q, K, V and weights, the same numbers as attention.analyze_sentence(text).to_plain() (held to it within 1e-9
// by tests/browser/test_words_parity.py).  No DOM, no Bokeh, nothing fetched; the formulas of the heads come
// from attention/mirror.js.
//
// tokenize(text), as attention.tokenize: code points that Unicode 14.0 does not assign become spaces, then
// NFKC, lower case, every punctuation, symbol, control or space character (P*, S*, C*, Z*) becomes a space,
// split at the spaces.  Which character is in which class is not the browser's own Unicode (Chromium 156 has
// Unicode 17, Python 3.11 to 3.13 have 14.0 to 15.1): both sides read the same table, data/unicode_classes.json
// (Unicode 14.0, written by tools/unicode_classes.py), which the page hands over as AttnUnicode before this file
// (app/ui/engine.py unicode_table_js(), attention.charclasses.browser_table()):
//   * blank: the code points Unicode 14 leaves unassigned (Cn) and the surrogates.  Later versions assign
//     thousands of them (new CJK ideographs, new scripts, "outlined" Latin letters and Cyrillic superscripts
//     whose NFKC is a plain letter); here, as in the core, each is a space before anything else;
//   * separator: the characters of P*, S*, C* and Z*;
//   * case_ignorable and cased: what decides a capital sigma at the end of a word ("ς") or inside one ("σ").
//     U+0295 "ʕ" and U+02E4 "ˤ" (cased in Unicode 14 to 15.1) and U+1171E (case-ignorable there) are not so
//     in Chromium 156's Unicode 17; lower() below decides every sigma itself, from the table.
// What is left to the browser, NFKC and toLowerCase on the characters the table keeps, gives the core's result
// on every code point (tests/browser/test_words_parity.py).
//
// unknownWordVector(word, nDims, scale), as attention.sentences.unknown_word_vector: SHA-256 (synchronous, so
// it needs no WebCrypto, which is asynchronous and absent from pages opened over plain http) of the word's
// UTF-8 bytes (a lone surrogate as its three bytes, Python's "surrogatepass"), 2 big-endian bytes per
// coordinate, rounded to 2 decimals half to even as numpy's np.round.  A Python string can hold a high
// surrogate followed by a low one as two code points; a JS string cannot tell them from the pair's character.
//
// Bad input throws an Error named "ValueError" whose message is the core's ValueError message, character for
// character ("sentence is empty ...", "sentence has 40 tokens; at most 32 are allowed"); isRefusal(e) tells.
//
// The model is the page's sentence model (app/sentence/view.py browser_model(): data/sentences.json as
// attention.load_sentence_model reads it): dims, position_features, vocab {word: vector}, unknown_scale,
// heads [{name, description, qk_columns, w_q, w_k, w_v}], value_columns, output_columns, w_o, sense_plane,
// d_k, d_v.

const AttnWords = (function (M, U) {
  "use strict";

  const MAX_TOKENS = 32;   // attention.sentences.MAX_TOKENS
  const SIGMA = "\u03a3";

  function refusal(message) {
    const e = new Error(message);
    e.name = "ValueError";
    return e;
  }

  function isRefusal(e) { return !!e && e.name === "ValueError"; }

  // ---- the character classes (Unicode 14.0, from data/unicode_classes.json) -------------------------

  // Runs as the table writes them (base-36 lengths, alternately outside and inside the class, from U+0000) ->
  // the first and last code point of each run inside (attention.charclasses.decode_runs).
  function decodeRuns(text) {
    const lengths = text.split(" ").map((s) => parseInt(s, 36)), starts = [], ends = [];
    let cp = 0;
    for (let i = 0; i < lengths.length; i += 2) {
      cp += lengths[i];
      starts.push(cp);
      cp += lengths[i + 1];
      ends.push(cp - 1);
    }
    return { starts: Int32Array.from(starts), ends: Int32Array.from(ends) };
  }

  // A class as one regular expression (code points, lone surrogates included, with the u flag).
  function classRegExp({ starts, ends }) {
    const hex = (cp) => `\\u{${cp.toString(16)}}`;
    let body = "";
    for (let i = 0; i < starts.length; i++) body += hex(starts[i]) + "-" + hex(ends[i]);
    return new RegExp(`[${body}]`, "gu");
  }

  function codePoints({ starts, ends }) {
    const out = new Set();
    for (let i = 0; i < starts.length; i++) for (let cp = starts[i]; cp <= ends[i]; cp++) out.add(cp);
    return out;
  }

  // The classes decoded, once a page (an engine runs this file at each call; building them takes about 2 ms):
  // runs, the blank and separator classes as regular expressions, the two case classes as sets.
  function classes() {
    const cache = globalThis.__attnUnicodeClasses || (globalThis.__attnUnicodeClasses = new Map());
    if (!cache.has(U.unicode)) {
      const runs = {};
      for (const name of ["blank", "separator", "case_ignorable", "cased"]) runs[name] = decodeRuns(U.classes[name]);
      cache.set(U.unicode, { runs, blank: classRegExp(runs.blank), separator: classRegExp(runs.separator),
                             ignorable: codePoints(runs.case_ignorable), cased: codePoints(runs.cased) });
    }
    return cache.get(U.unicode);
  }

  // Whether code point cp is in the named class (a binary search over its runs).
  function member(name, cp) {
    const { starts, ends } = classes().runs[name];
    let lo = 0, hi = starts.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (cp < starts[mid]) hi = mid - 1;
      else if (cp > ends[mid]) lo = mid + 1;
      else return true;
    }
    return false;
  }

  // Final sigma (Unicode's Final_Sigma context, as str.lower decides it), from the table: a cased character
  // before (case-ignorable ones between are skipped) and none after.
  function finalSigma(cps, i) {
    const C = classes(), ignorable = (ch) => C.ignorable.has(ch.codePointAt(0));
    const cased = (ch) => C.cased.has(ch.codePointAt(0));
    let j = i - 1;
    while (j >= 0 && ignorable(cps[j])) j--;
    if (j < 0 || !cased(cps[j])) return false;
    let k = i + 1;
    while (k < cps.length && ignorable(cps[k])) k++;
    return k === cps.length || !cased(cps[k]);
  }

  // Python's str.lower: the browser's toLowerCase (the same full case mapping, with no locale), except that
  // each capital sigma is decided above (attention.charclasses.lower).
  function lower(text) {
    if (!text.includes(SIGMA)) return text.toLowerCase();
    const cps = Array.from(text);
    let out = "", run = "";
    cps.forEach((ch, i) => {
      if (ch !== SIGMA) { run += ch; return; }
      out += run.toLowerCase() + (finalSigma(cps, i) ? "\u03c2" : "\u03c3");
      run = "";
    });
    return out + run.toLowerCase();
  }

  // ---- tokens ------------------------------------------------------------------------------------

  // Step 1 of attention.tokenize (attention.charclasses.fold): blank code points -> spaces, then NFKC, then
  // lower case.
  function fold(text) {
    return lower(text.replace(classes().blank, " ").normalize("NFKC"));
  }

  // attention.tokenize: fold, then separators -> spaces, split at the spaces.
  function tokenize(text) {
    if (typeof text !== "string") throw refusal(`sentence must be a string, got ${typeof text}`);
    const tokens = fold(text).replace(classes().separator, " ").split(" ").filter((t) => t.length > 0);
    if (!tokens.length)
      throw refusal("sentence is empty (no words left once punctuation is removed); type a few words");
    if (tokens.length > MAX_TOKENS)
      throw refusal(`sentence has ${tokens.length} tokens; at most ${MAX_TOKENS} are allowed`);
    return tokens;
  }

  // ---- the unknown words' vectors ------------------------------------------------------------------

  // UTF-8 bytes of a string; a lone surrogate gives its own three bytes (Python's errors="surrogatepass").
  function utf8(text) {
    const out = [];
    for (const ch of text) {
      const cp = ch.codePointAt(0);
      if (cp < 0x80) out.push(cp);
      else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
      else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
      else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    }
    return Uint8Array.from(out);
  }

  // SHA-256 (FIPS 180-4): the round constants and the initial hash value.
  const K = Uint32Array.from([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ]);
  const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

  function rotr(x, n) { return (x >>> n) | (x << (32 - n)); }

  // One 64-byte block at `offset` of `view` into the hash state H (eight 32-bit words).
  function compress(H, w, view, offset) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(offset + 4 * t);
    for (let t = 16; t < 64; t++) {
      const s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >>> 3);
      const s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >>> 10);
      w[t] = (w[t - 16] + s0 + w[t - 7] + s1) | 0;
    }
    let [a, b, c, d, e, f, g, h] = H;
    for (let t = 0; t < 64; t++) {
      const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t]) | 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    [a, b, c, d, e, f, g, h].forEach((x, i) => { H[i] = (H[i] + x) | 0; });
  }

  // SHA-256 of some bytes (a Uint8Array): the 32-byte digest, as hashlib.sha256(data).digest().
  function sha256(bytes) {
    const n = bytes.length, padded = new Uint8Array(((n + 8) >> 6) * 64 + 64);
    padded.set(bytes);
    padded[n] = 0x80;
    const view = new DataView(padded.buffer);
    view.setUint32(padded.length - 8, Math.floor(n / 0x20000000));   // the length in bits, 64-bit big-endian
    view.setUint32(padded.length - 4, (n * 8) >>> 0);
    const H = Int32Array.from(H0), w = new Int32Array(64);
    for (let offset = 0; offset < padded.length; offset += 64) compress(H, w, view, offset);
    const out = new Uint8Array(32), ov = new DataView(out.buffer);
    H.forEach((x, i) => ov.setInt32(4 * i, x));
    return out;
  }

  // numpy's np.round(x, 2): rint(x * 100) / 100, rint rounding a half to the even neighbour.
  function round2(x) {
    const y = x * 100, r = Math.round(y);
    return (r - y === 0.5 && r % 2 !== 0 ? r - 1 : r) / 100;
  }

  // attention.sentences.unknown_word_vector: SHA-256 of the word (then of that digest, and so on, when more
  // than 16 coordinates are needed); 2 bytes b per coordinate, v = round(scale * (2 b / 65535 - 1), 2).
  function unknownWordVector(word, nDims, scale) {
    if (scale === undefined) scale = 0.3;
    const stream = [];
    let block = sha256(utf8(word));
    while (stream.length < 2 * nDims) {
      stream.push(...block);
      block = sha256(block);
    }
    return Array.from({ length: nDims }, (_, i) => round2(scale * (2.0 * (stream[2 * i] * 256 + stream[2 * i + 1]) /
      65535.0 - 1.0)));
  }

  // ---- X and the heads -----------------------------------------------------------------------------

  function hasWord(model, word) { return Object.prototype.hasOwnProperty.call(model.vocab, word); }

  // attention.sentences.word_vector: the vocabulary's vector, or the unknown word's made-up one (a new array).
  function wordVector(word, model) {
    if (typeof word !== "string" || !word) throw refusal(`word must be a non-empty string, got ${String(word)}`);
    return hasWord(model, word) ? model.vocab[word].slice() : unknownWordVector(word, model.dims.length,
      model.unknown_scale);
  }

  // attention.sentences.POSITION_FEATURES: index i -> value
  const POSITION_FEATURES = { "position": (i) => i, "position squared": (i) => i * i, "constant": () => 1 };

  // attention.sentences.position_features: row i holds the model's listed features of i.
  function positionFeatures(n, model) {
    const fs = model.position_features.map((name) => {
      if (!Object.prototype.hasOwnProperty.call(POSITION_FEATURES, name))
        throw refusal(`position.features: unknown feature ${JSON.stringify(name)}`);
      return POSITION_FEATURES[name];
    });
    return Array.from({ length: n }, (_, i) => fs.map((f) => f(i)));
  }

  // attention.sentences.encode: X (n rows of [word vector, position features]) and the unknown words, in
  // order of first appearance, each once.
  function encode(tokens, model) {
    if (!Array.isArray(tokens) || !tokens.every((t) => typeof t === "string" && t))
      throw refusal("tokens must be a list of non-empty strings (use tokenize(text) first)");
    if (!tokens.length) throw refusal("sentence is empty: there are no tokens");
    if (tokens.length > MAX_TOKENS)
      throw refusal(`sentence has ${tokens.length} tokens; at most ${MAX_TOKENS} are allowed`);
    const pos = positionFeatures(tokens.length, model);
    const x = tokens.map((t, i) => wordVector(t, model).concat(pos[i]));
    const unknown = Array.from(new Set(tokens.filter((t) => !hasWord(model, t))));
    return { x, unknown };
  }

  const rows = (A) => A.map((r) => Array.from(r));

  function checkOptions(options) {
    const t = options.temperature === undefined ? 1.0 : options.temperature;
    const causal = options.causal === undefined ? false : options.causal;
    if (typeof causal !== "boolean") throw refusal(`causal must be True or False, got ${String(causal)}`);
    if (typeof t !== "number" || !Number.isFinite(t) || t <= 0)
      throw refusal(`temperature must be a positive finite number, got ${String(t)}`);
    return { t, causal };
  }

  // attention.analyze_sentence(text, temperature=T, causal=...).to_plain(): every head's Q = X W_Q, K = X W_K,
  // V = X W_V and A = softmax(Q K^T / (sqrt(d_k) T)), with the model's fixed parts, as plain lists (w_o and
  // sense_plane are the model's own arrays: read them, do not change them).
  function analyze(text, model, options) {
    const { t, causal } = checkOptions(options || {});
    const tokens = tokenize(text);
    const { x, unknown } = encode(tokens, model);
    const heads = model.heads.map((h) => {
      const q = M.matmul(x, h.w_q), k = M.matmul(x, h.w_k), v = M.matmul(x, h.w_v);
      const weights = M.dotProductAttention(q, k, v, causal, t).weights;
      return { name: h.name, description: h.description, qk_columns: h.qk_columns.slice(), q: rows(q), k: rows(k),
               v: rows(v), weights: rows(weights) };
    });
    return { text, tokens, unknown, temperature: t, causal, d_k: model.d_k, d_v: model.d_v, heads,
             value_columns: model.value_columns.slice(), output_columns: model.output_columns.slice(),
             w_o: model.w_o, sense_plane: model.sense_plane };
  }

  return { MAX_TOKENS, UNICODE: U.unicode, decodeRuns, member, lower, fold, tokenize, isRefusal, utf8, sha256, round2,
           unknownWordVector, wordVector, positionFeatures, encode, analyze };
})(AttnMirror, AttnUnicode);
