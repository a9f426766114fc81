"""The browser's sentence analysis (attention/words.js, ``AttnWords``) against the numpy core (attention/sentences.py).

attention/mirror.js and attention/words.js are loaded into a blank page, as the sentence engine joins them, and every
function is compared with its Python twin; each batch of cases is one ``page.evaluate`` call.

* tokens: the page reads the shipped character classes (data/unicode_classes.json, Unicode 14.0) as the core
  does; every code point of the planes with Unicode 14 characters alone (and 1008 of each other plane's) and,
  on planes 0, 1 and 14 (2016 of each of planes 2 and 3), beside a capital sigma (final sigma), seeded random texts of punctuation,
  symbols, controls, full-width letters, accents, scripts and odd spaces; tokens equal, and the error strings
  of an empty or over-long sentence equal character for character.  The core's tokens are the same on
  Python 3.11, 3.12 and 3.13 (tests/core/test_sentences.py), so these hold on each;
* the unknown words' vectors: SHA-256 against hashlib, UTF-8 (lone surrogates included) against Python's
  ``surrogatepass``, numpy's rounding (ties to even), the vectors themselves exactly;
* 200 seeded random sentences (known and unknown words, punctuation, accents, full-width letters, emoji,
  mixed scripts, 1 to 32 tokens) at several temperatures, with and without the causal mask: every number of
  ``analyze`` within 1e-9 of ``attention.analyze_sentence(...).to_plain()``, every string and flag equal.

The texts, words and sentences, and most comparisons, are tests/parity/words.py's, which tests/js runs too.
Texts cross to the page as lists of code points: a Python string may hold a lone surrogate, which JSON would
not carry.
"""

from __future__ import annotations

import json
import unicodedata

import pytest

from app.sentence.data import browser_model
from app.ui.engine import LIBRARY_FILES, unicode_table_js
from attention import charclasses
from attention.sentences import MAX_TOKENS

from tests.browser.pageutil import harness_page
from tests.parity import batches, library_js
from tests.parity import words as pw
from tests.parity.words import PLANES_14, core_tokens, final_sigmas

HARNESS = r"""
window.words = (function (W) {
  const str = (cps) => String.fromCodePoint(...cps);
  const attempt = (f) => { try { return { ok: f() }; } catch (e) { return { name: e.name, error: e.message }; } };
  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  const SIGMA_CONTEXTS = [(c) => "\u0391" + c + "\u03a3", (c) => "\u0391\u03a3" + c + "\u0391",
                          (c) => c + "\u03a3", (c) => "\u0391\u03a3" + c];
  return {
    max: () => W.MAX_TOKENS,
    unicode: () => W.UNICODE,
    runs: (names) => names.map((n) => { const r = W.decodeRuns(AttnUnicode.classes[n]);
                                        return [Array.from(r.starts), Array.from(r.ends)]; }),
    member: ([name, cps]) => cps.map((cp) => W.member(name, cp)),
    tokenize: (texts) => texts.map((cps) => attempt(() => W.tokenize(str(cps)))),
    // every code point from lo to hi (not included) alone: [code point, its tokens joined by spaces] when any
    // (as JSON text, as every large answer here: Playwright carries one long string much faster than many
    // small arrays)
    singles: ([lo, hi]) => {
      const out = [];
      for (let cp = lo; cp < hi; cp++) {
        const r = attempt(() => W.tokenize(String.fromCodePoint(cp)));
        if (r.ok) out.push([cp, r.ok.join(" ")]);
      }
      return JSON.stringify(out);
    },
    // the same for a list of code points
    singlesOf: (cps) => JSON.stringify(cps.flatMap((cp) => {
      const r = attempt(() => W.tokenize(String.fromCodePoint(cp)));
      return r.ok ? [[cp, r.ok.join(" ")]] : [];
    })),
    // for each code point, how many final sigmas each context holds once folded: 4 digits
    sigmas: ([lo, hi]) => {
      let out = "";
      for (let cp = lo; cp < hi; cp++) {
        const c = String.fromCodePoint(cp);
        for (const f of SIGMA_CONTEXTS) out += W.fold(f(c)).split("\u03c2").length - 1;
      }
      return out;
    },
    sigmasOf: (cps) => {
      let out = "";
      for (const cp of cps) {
        const c = String.fromCodePoint(cp);
        for (const f of SIGMA_CONTEXTS) out += W.fold(f(c)).split("\u03c2").length - 1;
      }
      return out;
    },
    sha256: (inputs) => inputs.map((bytes) => hex(W.sha256(Uint8Array.from(bytes)))),
    utf8: (texts) => texts.map((cps) => hex(W.utf8(str(cps)))),
    round2: (xs) => xs.map((x) => W.round2(x)),
    vectors: (cases) => cases.map((c) => W.unknownWordVector(str(c.word), c.n, c.scale)),
    encode: (cases) => cases.map((tokens) => attempt(() => W.encode(tokens.map(str), MODEL))),
    analyze: (cases) => JSON.stringify(cases.map((c) => attempt(() => W.analyze(str(c.text), MODEL,
                                                                 { temperature: c.t, causal: c.causal })))),
  };
})(AttnWords);
"""


@pytest.fixture(scope="module")
def js(browser):
    """A blank page holding the mirror, the character classes and attention/words.js, as an engine joins them;
    js(name, cases) runs one batch."""
    script = (f"{library_js(('kernels.js', 'mirror.js', 'words.js'))}\n"
              f"const MODEL = {json.dumps(browser_model())};\n{HARNESS}")
    with harness_page(browser, script, "words", timeout=120000) as run:
        yield run




# ---- tokens ------------------------------------------------------------------------------------

def test_max_tokens_is_the_cores(js):
    assert js("max") == MAX_TOKENS


def test_the_page_reads_the_shipped_character_classes(js):
    """The runs words.js decodes are attention.charclasses' (data/unicode_classes.json), and its lookups agree
    at every run's edges."""
    pw.check_table_and_classes(js)


def test_the_page_carries_the_table_once_just_before_words_js():
    """The page's shared library (app/ui/engine.py, once per page; the self-attention and routing engines
    tokenize with it) holds the shipped table once, right before attention/words.js reads it, and no engine carries a
    copy of its own."""
    from app.routing.view import engine_source as routing_source
    from app.sentence.view import engine_source as sentence_source
    from app.ui.engine import library_source, read_js

    library = library_source()
    assert library.count("const AttnUnicode =") == 1
    assert unicode_table_js() + "/*<attn:AttnWords>*/\n" + read_js(LIBRARY_FILES["words.js"]) in library
    for code in (sentence_source(), routing_source()):
        assert "const AttnUnicode =" not in code and "const AttnWords =" not in code


def test_other_planes_hold_no_character_of_unicode_14():
    """Outside PLANES_14 every code point is blank (unassigned) or a separator (private use), in the table."""
    covered = sorted(zip(*charclasses.ranges("blank"))) + sorted(zip(*charclasses.ranges("separator")))
    for p in set(range(17)) - set(PLANES_14):
        lo, hi = p << 16, ((p + 1) << 16) - 1
        inside = sorted((max(a, lo), min(b, hi)) for a, b in covered if a <= hi and b >= lo)
        reach = lo - 1
        for a, b in inside:
            assert a <= reach + 1, (p, hex(reach + 1))
            reach = max(reach, b)
        assert reach == hi, p


def test_every_code_point_alone_gives_the_cores_tokens(js):
    """Every code point of the planes where Unicode 14 assigns characters (lone surrogates included): the same
    tokens, or none, as attention.tokenize.  In the other twelve planes every code point is blank or a separator
    in the table (the test above), so the page refuses each alone as the core does: each plane's first and last
    4 code points and 1000 drawn ones are checked there (all 786 432 took two thirds of this test's time)."""
    import random

    rng, bad = random.Random(17), []
    for p in set(range(17)) - set(PLANES_14):
        lo = p << 16
        cps = sorted({*range(lo, lo + 4), *range(lo + 0xFFFC, lo + 0x10000),
                      *(lo + rng.randrange(0x10000) for _ in range(1000))})
        got = dict(json.loads(js("singlesOf", cps)))
        assert got == {}, (p, list(got.items())[:5])
        assert all("ok" not in core_tokens(chr(cp)) for cp in cps), p
    for p in PLANES_14:
        lo = p << 16
        got = dict(json.loads(js("singles", [lo, lo + 0x10000])))
        for cp in range(lo, lo + 0x10000):
            r = core_tokens(chr(cp))
            want = " ".join(r["ok"]) if "ok" in r else None
            if got.get(cp) != want:
                bad.append((hex(cp), unicodedata.category(chr(cp)), want, got.get(cp)))
    assert bad == [], bad[:20]


def test_every_character_beside_a_capital_sigma_gives_the_cores_final_sigma(js):
    """Final sigma (lower case "ς" at the end of a word) depends on the neighbours' Cased and Case_Ignorable
    properties, which changed for a few characters after Unicode 15.1 (the browser's are Unicode 17's): every code
    point of planes 0, 1 and 14 (and 2016 of each of planes 2 and 3), before and after a capital sigma, folds as the
    core folds it (attention.charclasses.fold, which reads them from the table)."""
    import random

    bad, rng = [], random.Random(14)
    for p in PLANES_14:
        lo, hi = p << 16, (p + 1) << 16
        if p in (2, 3):
            # planes 2 and 3 hold CJK ideographs (neither cased nor case-ignorable) and unassigned code points:
            # their first and last 4 and 2000 drawn ones (all 131 072 took 40 % of this test)
            cps = sorted({*range(lo, lo + 4), *range(hi - 4, hi), *(lo + rng.randrange(0x10000) for _ in range(2000))})
            assert all(unicodedata.category(chr(cp)) in ("Lo", "Cn") for cp in cps)
            got = js("sigmasOf", cps)
            for i, cp in enumerate(cps):
                if got[4 * i:4 * i + 4] != final_sigmas(cp):
                    bad.append((hex(cp), unicodedata.category(chr(cp)), final_sigmas(cp), got[4 * i:4 * i + 4]))
            continue
        got = js("sigmas", [lo, hi])
        for cp in range(lo, hi):
            want = final_sigmas(cp)
            if got[4 * (cp - lo):4 * (cp - lo) + 4] != want:
                bad.append((hex(cp), unicodedata.category(chr(cp)), want, got[4 * (cp - lo):4 * (cp - lo) + 4]))
    assert bad == [], bad[:20]


def test_texts_give_the_cores_tokens_or_its_refusal(js):
    pw.check_texts(js)


# ---- the unknown words' vectors -------------------------------------------------------------------

def test_sha256_is_hashlibs(js):
    pw.check_sha256(js)


def test_utf8_with_lone_surrogates_is_pythons_surrogatepass(js):
    pw.check_utf8(js)


def test_rounding_is_numpys_half_to_even(js):
    pw.check_rounding(js)


def test_unknown_word_vectors_are_the_cores_exactly(js):
    pw.check_unknown_word_vectors(js)


# ---- X and the heads ---------------------------------------------------------------------------------

def test_encode_is_the_cores(js):
    pw.check_encode(js)


def analyze(js, cases):
    """The page's analyses of ``cases``, in batches of 40 (each comes back as one JSON text)."""
    return [g for batch in batches(pw.analyze_payload(cases), 40) for g in json.loads(js("analyze", batch))]


def test_200_random_sentences_analyse_as_the_core(js):
    cases, _ = pw.random_sentences()
    pw.assert_random_sentences(analyze(js, cases))   # 1 to 32 tokens, most taken, at 2 settings each


def test_refused_sentences_and_settings_give_the_cores_words(js):
    cases, want = pw.refused_sentences()
    assert pw.assert_analyses(cases, analyze(js, cases), want) == 0
    got = json.loads(js("analyze", [{"text": pw.cps("the bank"), "t": t, "causal": False} for t in (0, -1)]))
    assert all(g["name"] == "ValueError" and g["error"].startswith("temperature must be a positive finite number")
               for g in got)
