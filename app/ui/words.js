// The browser twin of attention/sentences.py: a typed sentence becomes tokens, word vectors and every head's
// Q, K, V and weights, the same numbers as attention.analyze_sentence(text).to_plain() (held to it within 1e-9
// by tests/browser/test_words_parity.py).  No DOM, no Bokeh, nothing fetched; the formulas of the heads come
// from ui/mirror.js.
//
// tokenize(text), as attention.tokenize: NFKC, lower case, every P*, S* or C* character becomes a space, split
// on whitespace.  Python 3.11 reads Unicode 14.0 (unicodedata), the browser its own ICU (Chromium 156: Unicode
// 17).  Checked on every code point, alone and beside a capital sigma, the two disagree on:
//   * the code points that Unicode 14 leaves unassigned (Cn) and later versions assign to letters, marks or
//     digits (14 210 in Chromium 156: new CJK ideographs (extensions H, I, J), new scripts, "outlined" Latin
//     letters and Cyrillic superscripts whose NFKC is a plain letter, new Latin and Cyrillic letters such as
//     U+A7CB and U+1C89; new emoji are symbols, separators either way).  Python calls them unassigned, so
//     separators; the browser keeps them in words.  Here every code point that is not a character in
//     Unicode 14 (NOT_CHARACTERS_14 below: Cn, and the surrogates) becomes a space before anything else,
//     which is what Python does with it;
//   * whether a capital sigma ends a word (final sigma: lower case gives "ς" at the end of a word and "σ"
//     elsewhere) next to three characters whose properties changed after Unicode 14: U+0295 "ʕ" and U+02E4 "ˤ"
//     were cased, U+1171E (Ahom medial ra) was case-ignorable.  lower() below decides the sigma itself, with
//     those three as Unicode 14 had them.
// Nothing else differs: every Latin, Greek, Cyrillic, CJK, full-width, emoji or punctuation character gives
// the same tokens, and so does the rest of Unicode 14.  A browser older than Unicode 14 (2021) would still
// differ on the characters Unicode 14 added.
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

const AttnWords = (function (M) {
  "use strict";

  const MAX_TOKENS = 32;   // attention.sentences.MAX_TOKENS
  const SIGMA = "\u03a3";

  function refusal(message) {
    const e = new Error(message);
    e.name = "ValueError";
    return e;
  }

  function isRefusal(e) { return !!e && e.name === "ValueError"; }

  // ---- Unicode 14 --------------------------------------------------------------------------------

  // The code points that are not characters in Unicode 14.0 (general category Cn, and the surrogates Cs),
  // as runs: base-36 lengths, alternately of characters and of non-characters, from U+0000.  Written from
  // Python 3.11's unicodedata; tests/browser/test_words_parity.py checks it (and prints it anew if it differs).
  const NOT_CHARACTERS_14 = [
    "oo 2 6 4 7 1 1 1 k 1 b1 1 12 2 1e 2 3 1 1j 8 r 4 6 b 7i 1 1o 2 2t e 1n 2 1d 2 f 1 s 2 1 1 b 5 v 1 2 6 6k 1 8 2",
    "2 2 m 1 7 1 1 3 4 2 9 2 2 2 4 8 1 4 2 1 5 2 p 2 3 1 6 4 2 2 m 1 7 1 2 1 2 1 2 2 1 1 5 4 2 2 3 3 1 7 4 1 1 7 h",
    "a 3 1 9 1 3 1 m 1 7 1 2 1 5 2 a 1 3 1 3 2 1 f 4 2 c 7 7 1 3 1 8 2 2 2 m 1 7 1 2 1 5 2 9 2 2 2 3 7 3 4 2 1 5 2",
    "i a 2 1 6 3 3 1 4 3 2 1 1 1 2 3 2 3 3 3 c 4 5 3 3 1 4 2 1 6 1 e l 5 d 1 3 1 n 1 g 2 9 1 3 1 4 7 2 1 3 2 1 2 4",
    "2 a 7 m 1 3 1 n 1 a 1 5 2 9 1 3 1 4 7 2 6 2 1 4 2 a 1 2 d d 1 3 1 1f 1 3 1 6 4 g 2 q 1 3 1 i 3 o 1 9 1 1 2 7 3",
    "1 4 6 1 1 1 8 6 a 2 3 c 1m 4 t 11 2 1 1 1 5 1 o 1 1 1 n 2 5 1 1 1 6 2 a 2 4 w 20 1 10 4 13 1 10 1 f 1 d 11 5i",
    "1 1 5 1 2 ah 1 4 2 7 1 1 1 4 2 15 1 4 2 x 1 4 2 7 1 1 1 4 2 f 1 1l 1 4 2 1v 2 w 3 q 6 2e 2 6 2 il 3 2h 7 m 9 o",
    "9 k c d 1 3 1 2 c 2m 2 a 6 a 6 q 6 2h 7 17 5 1y a v 1 c 4 c 4 1 3 16 2 5 b 18 4 q 6 b 3 1q 2 1t 1 t 2 b 6 a 6",
    "e 2 v 1d 25 3 1b 1 38 8 1o 3 f 3 1o 7 17 2 b 8 17 5 eu 2 6 2 12 2 6 2 8 1 1 1 1 1 1 1 v 2 1h 1 f 1 e 2 6 1 j 2",
    "3 1 9 1 2t 1 c 2 r 1 d 3 x f x f 3w 4 if p b l 1ec 2 w 1 9p 5 19 1 1 5 1 2 1k 7 2 e o 9 7 1 7 1 7 1 7 1 7 1 7",
    "1 7 1 7 1 3i y q 1 2h c 5y q c 4 1s 1 2e 2 2v 5 17 1 2m 1 2c c 1b 1 mlp 3 1j 9 9o k 54 8 5n 5 2 1 1 1 5 o 1n 3",
    "a 6 1k 8 1y 8 c 6 38 b u 3 26 1 b 4 x 1 1j 9 e 2 a 2 2v o s a 6 2 6 2 6 9 7 1 7 1 1o 4 3i 2 a 6 8mc c n 4 1d",
    "1l0 57y 2 2y 12 7 c 5 5 q 1 5 1 1 1 2 1 2 1 3h g cd 2 1i 7 1 w 16 6 1f 1 j 1 4 4 5 1 3r 2 1 1 5a 3 6 2 6 2 6 2",
    "3 3 7 1 7 a 5 2 c 1 q 1 j 1 2 1 f 2 e y 3f 5 3 4 19 3 2g 1 d 3 1 1b 1a 3m t 3 1d f s 4 10 9 u 5 17 5 u 1 11 4",
    "e 16 4e 2 a 6 10 4 10 4 14 8 1g b c 1 f 1 7 1 2 1 b 1 f 1 7 1 2 1v 8n 9 m a 8 o 6 1 16 1 9 1x 6 2 1 1 18 1 2 3",
    "1 2 n 1 20 8 9 1c j 1 2 5 x 3 r 5 1 1s 1k 4 k 2 1e 1 2 5 8 1 3 1 t 2 3 4 a 7 9 7 1s w 13 4 c 9 1i 3 t 2 r 5 q",
    "7 4 c 7 28 21 1j 1f d 1f 7 1a 8 a 86 v 1 16 1 3 2 2 26 14 8 16 m q 12 s k n 9 26 4 10 9 1w a 1 2 p 7 a 6 1h 1",
    "i 8 13 9 2o 1 k b i 1 18 1t 7 1 1 1 4 1 f 1 b 6 1n 5 a 6 4 1 8 2 2 2 m 1 7 1 2 1 5 1 a 2 2 2 3 2 1 6 1 5 7 2 7",
    "3 5 3v 2k 1 5 u 20 8 a 4m 1i 2 12 y 1x b a 6 d j 1m 6 a 1i r 2 f 4 n 55 1o 2s 2b c 8 2 1 2 8 1 2 1 u 1 2 2 c 9",
    "a 1y 8 2 1a 2 b r 20 8 2b d 21 7b 9 1 19 1 e a t 3 w 2 m 1 e 21 7 1 2 1 18 3 1 1 2 1 9 8 a 6 6 1 2 1 11 1 2 1",
    "6 7 a 8m p 53 1 f 1e d pn 2u 33 1 5 b 5g 218 2r d tr 1 9 347 g7 6nt ft 7 v 1 a 4 29 1 a 6 u 2 6 a 1y a a 1 7 1",
    "l 5 j j4 2j 2t 23 4 1l 7 h 1s 5 b 2 e 4qg 8 ye 16 9 6w7 4 1 7 1 2 1 83 19 3 h 4 8 b0 1s4 2z 5 d 3 9 7 a 2 8",
    "3mk 1a 2 n 9 38 1o 6u a 13 2 5e l 1y 4a k c 2f 9 p 3r 2d 1 1z 1 2 2 1 2 2 2 4 1 c 1 1 1 7 1 1t 1 4 2 8 1 7 1 s",
    "1 4 1 5 1 1 3 7 1 9g 2 84 2 ji f 5 1 f uo v 69 7 1 h 2 7 1 2 1 5 5x 19 3 e 2 a 4 2 8w v h 1m 5 1 yo 7 1 4 1 2",
    "1 f 1 5h 2 g 15 24 4 a 4 2 lt 1w 24 1p 5e 4 1 r 1 2 1 1 2 1 1 a 1 4 1 1 1 1 6 1 4 1 1 1 1 1 1 3 1 2 1 1 2 1 1",
    "1 1 1 1 1 1 1 1 2 1 1 2 4 1 7 1 4 1 4 1 1 1 a 1 h 5 3 1 5 1 h 1g 2 7i 18 4 2s c f 2 f 1 f 1 11 a 4u 1k t d 18",
    "4 9 7 2 e 6 4a rc 5 g 3 d 3 38 c 2h 7 c 4 1 f c 4 1k 8 a 6 14 8 u 2 2 26 9g c e 2 5 3 5 3 7 9 t 3 b 5 6 a a 6",
    "8 8 7 9 43 1 1j 11 a sm wyo w 37d 7 66 2 4g2 e 5rl 2e7 f2 15u 3t7 fcfq 1 u 2o 3k 6o 1e6o 1eke 2 1eke 2"
  ].join(" ");

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

  const GAPS = decodeRuns(NOT_CHARACTERS_14);

  // Whether Unicode 14 assigns code point cp (a binary search over the runs of non-characters).
  function isCharacter14(cp) {
    const { starts, ends } = GAPS;
    let lo = 0, hi = starts.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (cp < starts[mid]) hi = mid - 1;
      else if (cp > ends[mid]) lo = mid + 1;
      else return false;
    }
    return true;
  }

  // Unicode 14's Cased and Case_Ignorable where this browser's newer Unicode differs (see the top of the file).
  const CASED_14 = new Map([[0x295, true], [0x2e4, true]]);
  const IGNORABLE_14 = new Map([[0x1171e, true]]);
  const CASED = /^\p{Cased}$/u, IGNORABLE = /^\p{Case_Ignorable}$/u;

  function property(ch, table, re) {
    const cp = ch.codePointAt(0);
    return table.has(cp) ? table.get(cp) : re.test(ch);
  }

  // Final sigma (Unicode's Final_Sigma context, as Python's str.lower decides it): a cased letter before
  // (case-ignorable characters between are skipped) and no cased letter after.
  function finalSigma(cps, i) {
    let j = i - 1;
    while (j >= 0 && property(cps[j], IGNORABLE_14, IGNORABLE)) j--;
    if (j < 0 || !property(cps[j], CASED_14, CASED)) return false;
    let k = i + 1;
    while (k < cps.length && property(cps[k], IGNORABLE_14, IGNORABLE)) k++;
    return k === cps.length || !property(cps[k], CASED_14, CASED);
  }

  // Python's str.lower: the browser's toLowerCase (the same full case mapping, with no locale), except that
  // each capital sigma is decided above.
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

  const SEPARATORS = /[\p{P}\p{S}\p{C}]/gu;
  const SPACES = /\s+/u;

  // Step 1 of attention.tokenize: unicodedata.normalize("NFKC", text).lower(), in Unicode 14 (a code point
  // Unicode 14 does not assign is a space from the start: Python keeps it through NFKC and lower(), then
  // drops it as C*, and a space behaves the same in both steps).
  function fold(text) {
    const only14 = Array.from(text, (ch) => (isCharacter14(ch.codePointAt(0)) ? ch : " ")).join("");
    return lower(only14.normalize("NFKC"));
  }

  // attention.tokenize: NFKC, lower case, P* / S* / C* characters -> spaces, split on whitespace.
  function tokenize(text) {
    if (typeof text !== "string") throw refusal(`sentence must be a string, got ${typeof text}`);
    const tokens = fold(text).replace(SEPARATORS, " ").split(SPACES).filter((t) => t.length > 0);
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

  return { MAX_TOKENS, NOT_CHARACTERS_14, decodeRuns, isCharacter14, lower, fold, tokenize, isRefusal, utf8, sha256, round2,
           unknownWordVector, wordVector, positionFeatures, encode, analyze };
})(AttnMirror);
