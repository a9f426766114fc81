"""The browser's sentence analysis (attention/words.js, ``AttnWords``) against the numpy core (attention/sentences.py).

attention/mirror.js and attention/words.js are loaded into a blank page, as the sentence engine joins them, and every
function is compared with its Python twin; each batch of cases is one ``page.evaluate`` call.

* tokens: the page reads the shipped character classes (data/unicode_classes.json, Unicode 14.0) as the core
  does; every code point alone and beside a capital sigma (final sigma), seeded random texts of punctuation,
  symbols, controls, full-width letters, accents, scripts and odd spaces; tokens equal, and the error strings
  of an empty or over-long sentence equal character for character.  The core's tokens are the same on
  Python 3.11, 3.12 and 3.13 (tests/core/test_sentences.py), so these hold on each;
* the unknown words' vectors: SHA-256 against hashlib, UTF-8 (lone surrogates included) against Python's
  ``surrogatepass``, numpy's rounding (ties to even), the vectors themselves exactly;
* 200 seeded random sentences (known and unknown words, punctuation, accents, full-width letters, emoji,
  mixed scripts, 1 to 32 tokens) at several temperatures, with and without the causal mask: every number of
  ``analyze`` within 1e-9 of ``attention.analyze_sentence(...).to_plain()``, every string and flag equal.

Texts cross to the page as lists of code points: a Python string may hold a lone surrogate, which JSON would
not carry.  (A high surrogate followed by a low one is two code points in Python but one character in a JS
string; the cases never hold that pair.)
"""

from __future__ import annotations

import hashlib
import json
import random
import unicodedata

import numpy as np
import pytest

import attention
from app.sentence.view import browser_model
from app.ui.engine import LIBRARY_FILES, unicode_table_js
from attention import charclasses
from attention.sentences import MAX_TOKENS, encode, tokenize, unknown_word_vector


TOL = 1e-9
MODEL = attention.load_sentence_model()

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
    // for each code point, how many final sigmas each context holds once folded: 4 digits
    sigmas: ([lo, hi]) => {
      let out = "";
      for (let cp = lo; cp < hi; cp++) {
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
    """A blank page holding attention/mirror.js, the character classes and attention/words.js, as an engine joins them;
    js(name, cases) runs one batch."""
    ctx = browser.new_context()
    page = ctx.new_page()
    page.set_default_timeout(120000)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_content("<html><body></body></html>")
    code = "\n".join([LIBRARY_FILES["kernels.js"].read_text(encoding="utf-8"),
                      LIBRARY_FILES["mirror.js"].read_text(encoding="utf-8"),
                      unicode_table_js() + LIBRARY_FILES["words.js"].read_text(encoding="utf-8")])
    page.add_script_tag(content=f"{code}\nconst MODEL = {json.dumps(browser_model())};\n{HARNESS}")
    assert page.evaluate("() => typeof window.words") == "object", errors

    def run(name, cases=None):
        return page.evaluate("([n, cs]) => window.words[n](cs)", [name, cases])

    yield run
    assert errors == []
    ctx.close()


def cps(text: str) -> list[int]:
    return [ord(ch) for ch in text]


def core_tokens(text):
    try:
        return {"ok": tokenize(text)}
    except ValueError as e:
        return {"name": "ValueError", "error": str(e)}


def batches(items, size):
    for i in range(0, len(items), size):
        yield items[i:i + size]


# ---- tokens ------------------------------------------------------------------------------------

def test_max_tokens_is_the_cores(js):
    assert js("max") == MAX_TOKENS


def test_the_page_reads_the_shipped_character_classes(js):
    """The runs words.js decodes are attention.charclasses' (data/unicode_classes.json), and its lookups agree
    at every run's edges."""
    assert js("unicode") == charclasses.unicode_version() == "14.0.0"
    names = list(charclasses.CLASSES)
    assert js("runs", names) == [list(map(list, charclasses.ranges(n))) for n in names]
    for name in charclasses.CLASSES:
        starts, ends = charclasses.ranges(name)
        edges = sorted({cp for a, b in zip(starts, ends) for cp in (a - 1, a, b, b + 1) if 0 <= cp < 0x110000})
        assert js("member", [name, edges]) == [charclasses.member(name, chr(cp)) for cp in edges], name


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


PLANES_14 = (0, 1, 2, 3, 14)   # the planes where Unicode 14 assigns characters


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
    """All 1 114 112 code points (lone surrogates included): the same tokens, or none, as attention.tokenize.
    (In the planes without a character of Unicode 14, every code point alone is refused by the core: it is blank
    or a separator, see the test above.)"""
    bad = []
    for p in range(17):
        lo = p << 16
        got = dict(json.loads(js("singles", [lo, lo + 0x10000])))
        if p not in PLANES_14:
            assert got == {}, (p, list(got.items())[:5])
            continue
        for cp in range(lo, lo + 0x10000):
            r = core_tokens(chr(cp))
            want = " ".join(r["ok"]) if "ok" in r else None
            if got.get(cp) != want:
                bad.append((hex(cp), unicodedata.category(chr(cp)), want, got.get(cp)))
    assert bad == [], bad[:20]


def test_every_character_beside_a_capital_sigma_gives_the_cores_final_sigma(js):
    """Final sigma (lower case "ς" at the end of a word) depends on the neighbours' Cased and Case_Ignorable
    properties, which changed for a few characters after Unicode 15.1 (the browser's are Unicode 17's): every code
    point of the planes where Unicode 14 assigns characters, before and after a capital sigma, folds as the core
    folds it (attention.charclasses.fold, which reads them from the table)."""
    contexts = [lambda c: "\u0391" + c + "\u03a3", lambda c: "\u0391\u03a3" + c + "\u0391",
                lambda c: c + "\u03a3", lambda c: "\u0391\u03a3" + c]
    bad = []
    for p in PLANES_14:
        lo, hi = p << 16, (p + 1) << 16
        got = js("sigmas", [lo, hi])
        for cp in range(lo, hi):
            c = chr(cp)
            want = "".join(str(charclasses.fold(f(c)).count("\u03c2")) for f in contexts)
            if got[4 * (cp - lo):4 * (cp - lo) + 4] != want:
                bad.append((hex(cp), unicodedata.category(c), want, got[4 * (cp - lo):4 * (cp - lo) + 4]))
    assert bad == [], bad[:20]


SHIPPED = [p.text for p in MODEL.presets]
HAND_MADE = [
    "The bank of the river.", "  Don't   stop!  ", "ＦＵＬＬ－ｗｉｄｔｈ ｔｅｘｔ", "Café naïve ΣΟΦΟΣ ὈΔΥΣΣΕΎΣ",
    "İstanbul ǅemal ﬁne ﬀ", "tab\there\nnew\u00a0line\u2003em\u2028sep", "a\u200bb\ufeffc\u00add",
    "x²+y³=z½ №5 ™ © ₤ €10", "日本語の文 — «quoted» “curly” ‘single’", "emoji 🙂 and 👍🏽 signs",
    "under_score hy-phen slash/and back\\slash", "\x00ctrl\x1fchars\x7f", "Ǆ ǆ ß ẞ ﬃ", "mañana año",
    "ΟΔΟΣ.ΑΣ ΟΔΟΣ. ΑΣ Σ ΑΣ'Σ", "Москва БЕРЕГ Ёлка", "한국어 カタカナ ｶﾀｶﾅ", "ᾼ ῌ ῼ ǰ ΐ",
    "a\U0001CCD6b \U00031350 \u0897x \U0001E030y",   # letters Unicode 14 does not have yet: separators
    "\ud800lone \udfffsurrogates\udbff", "👨\u200d👩\u200d👧 family", "o\u0301 e\u0308 \u1100\u1161",
]
REFUSED = ["", "   ", "?!…", "🙂🙂", "—", "\u200b", "\x00\x01", " ".join(["bank"] * 33), "w " * 40,
           "don't " * 16 + "x", "a " * 32 + "b"]


def random_texts(seed, count):
    rng = random.Random(seed)
    pool = ("aZé ,.;:!?-'\"()[]{}<>=$€%&*+/\\|_~^`@#\t\n\u00a0\u2009\u3000\u200b\u00adΣσςİ１２ﬁ²½🙂日"
            "ʕˤ\U0001171e\u0345\u02b0ΑΣ\ud800")
    return ["".join(rng.choice(pool) for _ in range(rng.randint(1, 30))) for _ in range(count)]


def test_texts_give_the_cores_tokens_or_its_refusal(js):
    texts = SHIPPED + HAND_MADE + REFUSED + random_texts(17, 600)
    got = js("tokenize", [cps(t) for t in texts])
    bad = [(t, g, core_tokens(t)) for t, g in zip(texts, got) if g != core_tokens(t)]
    assert bad == []
    refused = [g["error"] for t, g in zip(texts, got) if t in REFUSED]
    assert len(refused) == len(REFUSED) and all(refused)   # each refused, with the core's words


# ---- the unknown words' vectors -------------------------------------------------------------------

def test_sha256_is_hashlibs(js):
    rng = random.Random(3)
    lengths = list(range(0, 130)) + [183, 184, 1000, 4095, 4096, 65537]   # every padding case, several blocks
    inputs = [[rng.randrange(256) for _ in range(n)] for n in lengths]
    got = js("sha256", inputs)
    assert got == [hashlib.sha256(bytes(b)).hexdigest() for b in inputs]


def random_word(rng, length):
    """A word of code points from ASCII to the astral planes, lone surrogates included (never a high one
    followed by a low one)."""
    out = []
    while len(out) < length:
        cp = rng.choice([rng.randrange(0x20, 0x80), rng.randrange(0x80, 0x800), rng.randrange(0x800, 0x10000),
                         rng.randrange(0x10000, 0x110000), rng.randrange(0xD800, 0xE000)])
        if out and 0xD800 <= out[-1] < 0xDC00 and 0xDC00 <= cp < 0xE000:
            continue
        out.append(cp)
    return "".join(map(chr, out))


def test_utf8_with_lone_surrogates_is_pythons_surrogatepass(js):
    rng = random.Random(5)
    texts = ["", "bank", "café", "日本", "🙂", "\ud800", "\udfff", "a\udc00b", "\U0010FFFF", "\x00"]
    texts += [random_word(rng, rng.randint(1, 12)) for _ in range(300)]
    got = js("utf8", [cps(t) for t in texts])
    assert got == [t.encode("utf-8", errors="surrogatepass").hex() for t in texts]


def test_rounding_is_numpys_half_to_even(js):
    rng = np.random.default_rng(7)
    xs = [k / 8 for k in range(-40, 41)] + [k / 200 for k in range(-400, 401)] + [-0.0, 0.0, 2.675, -2.675, 1.005]
    xs += list(rng.uniform(-2, 2, 500)) + list(rng.integers(-65535, 65536, 200) / 65535 * 0.3)
    xs = [float(x) for x in xs]
    got = js("round2", xs)
    want = np.round(np.array(xs), 2)
    assert np.array_equal(np.array(got, dtype=float), want), [(x, g, w) for x, g, w in zip(xs, got, want) if g != w]
    # the cases hold ties where rounding a half up would differ
    assert any(np.round(x, 2) != np.floor(x * 100 + 0.5) / 100 for x in xs)


def test_unknown_word_vectors_are_the_cores_exactly(js):
    rng = random.Random(11)
    words = ["zorblat", "quux", "constructor", "__proto__", "ＢＡＮＫ", "河岸", "🙂", "\ud800", "a\udfffb"]
    words += [random_word(rng, rng.randint(1, 20)) for _ in range(150)]
    cases = [{"word": cps(w), "n": n, "scale": s}
             for i, w in enumerate(words) for n, s in [((1, 2, 7, 16, 17, 33, 48)[i % 7],
                                                        (0.3, 0.05, 1.7, 0.125, 4.0)[i % 5])]]
    got = js("vectors", cases)
    for w, c, g in zip(words, cases, got):
        want = unknown_word_vector(w, c["n"], c["scale"])
        assert np.array_equal(np.array(g, dtype=float), want), (w, c["n"], c["scale"])


# ---- X and the heads ---------------------------------------------------------------------------------

def close(got, want, path="plain"):
    """Every number of ``got`` within TOL of ``want``; strings, flags and the structure equal."""
    if isinstance(want, bool) or want is None or isinstance(want, str):
        assert got == want and type(got) is type(want), (path, got, want)
    elif isinstance(want, (int, float)):
        assert isinstance(got, (int, float)) and not isinstance(got, bool), (path, got)
        assert abs(got - want) <= TOL, (path, got, want)
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (path, got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            close(g, w, f"{path}[{i}]")
    elif isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys(), (path, sorted(got), sorted(want))
        for k in want:
            close(got[k], want[k], f"{path}.{k}")
    else:
        raise TypeError(f"{path}: {type(want).__name__}")


def test_encode_is_the_cores(js):
    vocab = sorted(MODEL.vocab)
    rng = random.Random(13)
    cases = [["bank"], ["constructor", "__proto__", "tostring", "bank", "constructor"], ["w"] * 32,
             [rng.choice(vocab + ["zorblat", "river2", "ｂａｎｋ", "日本"]) for _ in range(20)],
             [], ["w"] * 33, ["bank", ""]]
    got = js("encode", [[cps(t) for t in c] for c in cases])
    for c, g in zip(cases, got):
        try:
            x, unknown = encode(c, model=MODEL)
        except ValueError as e:
            assert g == {"name": "ValueError", "error": str(e)}, c
            continue
        close(g["ok"], {"x": x.tolist(), "unknown": unknown})


WORD_KINDS = {
    "accents": ["café", "naïve", "mañana", "Ångström", "straße", "œuvre", "façade", "Łódź", "İstanbul", "ǅemal"],
    "greek": ["ΣΟΦΟΣ", "λόγος", "Ὀδυσσεύς", "ΟΔΟΣ", "σοφία", "ΤΡΑΠΕΖΑ"],
    "cyrillic": ["берег", "БАНК", "река", "Ёлка", "ЩИТ", "деньги"],
    "cjk": ["銀行", "川", "日本語", "한국어", "カタカナ", "ひらがな", "ｶﾀｶﾅ"],
    "full-width": ["ＢＡＮＫ", "ｒｉｖｅｒ", "１２３", "Ｌｏａｎ"],
    "digits": ["42", "3rd", "x²", "2024", "Ⅻ"],
    "mixed": ["bankσ", "rivεr", "東京bank", "loanΣ", "Москваriver", "caf\u0065\u0301"],
}
EMOJI = ["🙂", "👍🏽", "🏦", "🌊", "💰", "👨\u200d👩\u200d👧", "🇫🇷"]
GLUE = [" ", " ", " ", ", ", ". ", "! ", "? ", " — ", " (", ") ", " \"", "\" ", " « ", " » ", "… ", "-", "/",
        "\t", "\n", "\u00a0", "\u3000", " & ", " $", "% ", "'", " 🙂 ", "🌊"]


def random_sentence(rng, n):
    """About n tokens: vocabulary words (any case), made-up words, words of other scripts, glued by
    punctuation, symbols, spaces and emoji (a word with an apostrophe or an emoji inside counts twice)."""
    vocab = sorted(MODEL.vocab)
    words = []
    for _ in range(n):
        kind = rng.random()
        if kind < 0.45:
            w = rng.choice(vocab)
            w = rng.choice([w, w.capitalize(), w.upper()])
        elif kind < 0.65:
            w = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 9)))
        else:
            w = rng.choice(WORD_KINDS[rng.choice(sorted(WORD_KINDS))])
        words.append(w)
    text = words[0]
    for w in words[1:]:
        text += rng.choice(GLUE) + w
    if rng.random() < 0.3:
        text = rng.choice(["", "«", "(", "🙂 ", "—"]) + text + rng.choice([".", "!", "?!", " 🙂", "…", ")"])
    return text


def sentence_cases(seed, count):
    rng = random.Random(seed)
    texts = [random_sentence(rng, 1 + i % MAX_TOKENS) for i in range(count)]
    temperatures = (0.01, 0.25, 1.0, 3.7, 100.0)
    cases = []
    for i, t in enumerate(texts):
        causal = bool(i % 2)
        cases.append({"text": t, "t": temperatures[i % 5], "causal": causal})
        cases.append({"text": t, "t": temperatures[(i + 2) % 5], "causal": not causal})
    return cases


def check_analyses(js, cases):
    got = []
    for batch in batches(cases, 40):
        got += json.loads(js("analyze", [dict(c, text=cps(c["text"])) for c in batch]))
    shown = 0
    for c, g in zip(cases, got):
        try:
            want = attention.analyze_sentence(c["text"], temperature=c["t"], causal=c["causal"]).to_plain()
        except ValueError as e:
            assert g == {"name": "ValueError", "error": str(e)}, c
            continue
        assert "ok" in g, (c, g)
        close(g["ok"], want)
        shown += 1
    return shown


def test_200_random_sentences_analyse_as_the_core(js):
    cases = sentence_cases(19, 200)
    shown = check_analyses(js, cases)
    assert shown >= 300   # most sentences are taken (a few have too many tokens once split), at 2 settings each
    lengths = {len(r["ok"]) for r in map(core_tokens, (c["text"] for c in cases)) if "ok" in r}
    assert {1, MAX_TOKENS} <= lengths                                                   # 1 to 32 tokens


def test_refused_sentences_and_settings_give_the_cores_words(js):
    cases = [{"text": t, "t": 1.0, "causal": False} for t in REFUSED]
    assert check_analyses(js, cases) == 0
    got = json.loads(js("analyze", [{"text": cps("the bank"), "t": t, "causal": False} for t in (0, -1)]))
    assert all(g["name"] == "ValueError" and g["error"].startswith("temperature must be a positive finite number")
               for g in got)
