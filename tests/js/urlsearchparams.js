// URLSearchParams for the embedded V8 (which has no browser APIs), as the WHATWG URL standard parses a query
// (application/x-www-form-urlencoded): a leading "?" dropped, sequences split on "&", empty ones skipped, name and
// value split at the first "=", "+" read as a space, percent-encoded bytes decoded and the bytes read as UTF-8
// with U+FFFD for each maximal ill-formed subsequence (the Encoding standard's decoder).  app/ui/format.js
// parseQuery reads a link through it here as through the browser's own in tests/browser/test_parity.py.
if (typeof URLSearchParams === "undefined") {
  globalThis.URLSearchParams = (function () {
    function bytesOf(s) {
      const out = [];
      for (const ch of s) {
        const cp = ch.codePointAt(0);
        const cpv = cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp;   // a lone surrogate: as the standard's UTF-8 encode
        if (cpv < 0x80) out.push(cpv);
        else if (cpv < 0x800) out.push(0xc0 | (cpv >> 6), 0x80 | (cpv & 63));
        else if (cpv < 0x10000) out.push(0xe0 | (cpv >> 12), 0x80 | ((cpv >> 6) & 63), 0x80 | (cpv & 63));
        else out.push(0xf0 | (cpv >> 18), 0x80 | ((cpv >> 12) & 63), 0x80 | ((cpv >> 6) & 63), 0x80 | (cpv & 63));
      }
      return out;
    }
    const HEX = /^[0-9A-Fa-f]{2}$/;
    function percentDecode(bytes) {
      const out = [];
      for (let i = 0; i < bytes.length; i++) {
        const pair = String.fromCharCode(bytes[i + 1] || 0, bytes[i + 2] || 0);
        if (bytes[i] === 0x25 && i + 2 < bytes.length && HEX.test(pair)) { out.push(parseInt(pair, 16)); i += 2; }
        else out.push(bytes[i]);
      }
      return out;
    }
    function utf8Decode(bytes) {   // the Encoding standard's UTF-8 decoder, replacement mode
      let s = "", cp = 0, need = 0, seen = 0, lo = 0x80, hi = 0xbf;
      for (let i = 0; i < bytes.length; i++) {
        const b = bytes[i];
        if (need === 0) {
          if (b <= 0x7f) { s += String.fromCharCode(b); continue; }
          if (b >= 0xc2 && b <= 0xdf) { need = 1; cp = b & 0x1f; }
          else if (b >= 0xe0 && b <= 0xef) { if (b === 0xe0) lo = 0xa0; if (b === 0xed) hi = 0x9f; need = 2; cp = b & 0xf; }
          else if (b >= 0xf0 && b <= 0xf4) { if (b === 0xf0) lo = 0x90; if (b === 0xf4) hi = 0x8f; need = 3; cp = b & 0x7; }
          else s += "\ufffd";
          continue;
        }
        if (b < lo || b > hi) {   // the sequence ends here, unfinished: one U+FFFD, and the byte read again
          cp = need = seen = 0; lo = 0x80; hi = 0xbf; s += "\ufffd"; i--; continue;
        }
        lo = 0x80; hi = 0xbf; cp = (cp << 6) | (b & 0x3f); seen++;
        if (seen === need) { s += String.fromCodePoint(cp); cp = need = seen = 0; }
      }
      return need ? s + "\ufffd" : s;
    }
    const decode = (s) => utf8Decode(percentDecode(bytesOf(s.replace(/\+/g, " "))));
    return class URLSearchParams {
      constructor(init) {
        const text = String(init === undefined ? "" : init);
        this.list = [];
        for (const seq of (text.startsWith("?") ? text.slice(1) : text).split("&")) {
          if (seq === "") continue;
          const at = seq.indexOf("=");
          this.list.push(at < 0 ? [decode(seq), ""] : [decode(seq.slice(0, at)), decode(seq.slice(at + 1))]);
        }
      }
      [Symbol.iterator]() { return this.list[Symbol.iterator](); }
    };
  })();
}
