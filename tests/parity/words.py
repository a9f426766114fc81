"""The tokenizer and the heads in the browser (attention/words.js) against the numpy core (attention/sentences.py,
attention/charclasses.py): the texts, words and sentences, and the checks both tests/js and
tests/browser/test_words_parity.py run on them.

Texts cross to the JS as lists of code points (``cps``): a Python string may hold a lone surrogate, which JSON
would not carry.  (A high surrogate followed by a low one is two code points in Python but one character in a JS
string; the cases never hold that pair.)
"""

from __future__ import annotations

import hashlib
import random
from functools import cache

import numpy as np

import attention
from attention import charclasses
from attention.sentences import MAX_TOKENS, encode, tokenize, unknown_word_vector

from tests.parity import answers

TOL = 1e-9
MODEL = attention.load_sentence_model()
PLANES_14 = (0, 1, 2, 3, 14)   # the planes where Unicode 14 assigns characters
# A code point c beside a capital sigma, four ways: how many final sigmas each holds once folded is the case.
SIGMA_CONTEXTS = (lambda c: "\u0391" + c + "\u03a3", lambda c: "\u0391\u03a3" + c + "\u0391",
                  lambda c: c + "\u03a3", lambda c: "\u0391\u03a3" + c)


def cps(text: str) -> list[int]:
    return [ord(ch) for ch in text]


def core_tokens(text):
    try:
        return {"ok": tokenize(text)}
    except ValueError as e:
        return {"name": "ValueError", "error": str(e)}


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


# ---- the character classes -----------------------------------------------------------------------------------

@cache
def class_edges(name):
    """The code points at and beside each run's ends of one class."""
    starts, ends = charclasses.ranges(name)
    return tuple(sorted({cp for a, b in zip(starts, ends) for cp in (a - 1, a, b, b + 1) if 0 <= cp < 0x110000}))


def final_sigmas(cp: int) -> str:
    """Four digits: the final sigmas of each of SIGMA_CONTEXTS around ``cp``, as the core folds them."""
    return "".join(str(charclasses.fold(f(chr(cp))).count("\u03c2")) for f in SIGMA_CONTEXTS)


def check_table_and_classes(js):
    """The page reads the shipped character classes (data/unicode_classes.json): the runs words.js decodes are
    attention.charclasses', and its lookups agree at every run's edges."""
    assert js("max") == MAX_TOKENS
    assert js("unicode") == charclasses.unicode_version() == "14.0.0"
    names = list(charclasses.CLASSES)
    assert js("runs", names) == [list(map(list, charclasses.ranges(n))) for n in names]
    for name in names:
        edges = list(class_edges(name))
        assert js("member", [name, edges]) == [charclasses.member(name, chr(cp)) for cp in edges], name


# ---- texts ----------------------------------------------------------------------------------------------------

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


@cache
def text_cases():
    texts = SHIPPED + HAND_MADE + REFUSED + random_texts(17, 600)
    return texts, [core_tokens(t) for t in texts]


def check_texts(js):
    """The shipped, hand-made, refused and random texts: the core's tokens, or its refusal in its words."""
    texts, want = text_cases()
    got = answers(js, "tokenize", [cps(t) for t in texts])
    bad = [(t, g, w) for t, g, w in zip(texts, got, want) if g != w]
    assert bad == [], bad[:5]
    refused = [g["error"] for t, g in zip(texts, got) if t in REFUSED]
    assert len(refused) == len(REFUSED) and all(refused)   # each refused, with the core's words


# ---- the unknown words' vectors --------------------------------------------------------------------------------

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


def check_sha256(js):
    rng = random.Random(3)
    lengths = list(range(0, 130)) + [183, 184, 1000, 4095, 4096, 65537]   # every padding case, several blocks
    inputs = [[rng.randrange(256) for _ in range(n)] for n in lengths]
    assert js("sha256", inputs) == [hashlib.sha256(bytes(b)).hexdigest() for b in inputs]


def check_utf8(js):
    """UTF-8 with lone surrogates is Python's ``surrogatepass``."""
    rng = random.Random(5)
    texts = ["", "bank", "café", "日本", "🙂", "\ud800", "\udfff", "a\udc00b", "\U0010FFFF", "\x00"]
    texts += [random_word(rng, rng.randint(1, 12)) for _ in range(300)]
    assert js("utf8", [cps(t) for t in texts]) == [t.encode("utf-8", errors="surrogatepass").hex() for t in texts]


def check_rounding(js):
    """Rounding to two decimals is numpy's, half to even."""
    rng = np.random.default_rng(7)
    xs = [k / 8 for k in range(-40, 41)] + [k / 200 for k in range(-400, 401)] + [-0.0, 0.0, 2.675, -2.675, 1.005]
    xs += list(rng.uniform(-2, 2, 500)) + list(rng.integers(-65535, 65536, 200) / 65535 * 0.3)
    xs = [float(x) for x in xs]
    got = js("round2", xs)
    want = np.round(np.array(xs), 2)
    assert np.array_equal(np.array(got, dtype=float), want), [(x, g, w) for x, g, w in zip(xs, got, want) if g != w]
    # the cases hold ties where rounding a half up would differ
    assert any(np.round(x, 2) != np.floor(x * 100 + 0.5) / 100 for x in xs)


@cache
def vector_cases():
    rng = random.Random(11)
    words = ["zorblat", "quux", "constructor", "__proto__", "ＢＡＮＫ", "河岸", "🙂", "\ud800", "a\udfffb"]
    words += [random_word(rng, rng.randint(1, 20)) for _ in range(150)]
    cases = [{"word": cps(w), "n": (1, 2, 7, 16, 17, 33, 48)[i % 7], "scale": (0.3, 0.05, 1.7, 0.125, 4.0)[i % 5]}
             for i, w in enumerate(words)]
    return words, cases, [unknown_word_vector(w, c["n"], c["scale"]) for w, c in zip(words, cases)]


def check_unknown_word_vectors(js):
    """The unknown words' vectors are the core's exactly."""
    words, cases, want = vector_cases()
    for w, c, g, v in zip(words, cases, answers(js, "vectors", cases), want):
        assert np.array_equal(np.array(g, dtype=float), v), (w, c["n"], c["scale"])


# ---- X and the heads -------------------------------------------------------------------------------------------

def check_encode(js):
    vocab = sorted(MODEL.vocab)
    rng = random.Random(13)
    cases = [["bank"], ["constructor", "__proto__", "tostring", "bank", "constructor"], ["w"] * 32,
             [rng.choice(vocab + ["zorblat", "river2", "ｂａｎｋ", "日本"]) for _ in range(20)], [], ["w"] * 33, ["bank", ""]]
    for c, g in zip(cases, answers(js, "encode", [[cps(t) for t in c] for c in cases])):
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
    """``count`` random sentences of 1 to 32 tokens, each at two settings (temperature, causal or not)."""
    rng = random.Random(seed)
    texts = [random_sentence(rng, 1 + i % MAX_TOKENS) for i in range(count)]
    temperatures = (0.01, 0.25, 1.0, 3.7, 100.0)
    cases = []
    for i, t in enumerate(texts):
        causal = bool(i % 2)
        cases.append({"text": t, "t": temperatures[i % 5], "causal": causal})
        cases.append({"text": t, "t": temperatures[(i + 2) % 5], "causal": not causal})
    return cases


def analysis(c):
    """The core's analysis of one case, as the JS answers it: {"ok": plain} or the refusal."""
    try:
        return {"ok": attention.analyze_sentence(c["text"], temperature=c["t"], causal=c["causal"]).to_plain()}
    except ValueError as e:
        return {"name": "ValueError", "error": str(e)}


@cache
def random_sentences():
    """200 random sentences at two settings each, and the core's analyses."""
    cases = sentence_cases(19, 200)
    return cases, [analysis(c) for c in cases]


@cache
def refused_sentences():
    cases = [{"text": t, "t": 1.0, "causal": False} for t in REFUSED]
    return cases, [analysis(c) for c in cases]


def analyze_payload(cases):
    """The cases as the JS entry "analyze" takes them (texts as code points)."""
    return [dict(c, text=cps(c["text"])) for c in cases]


def assert_analyses(cases, got, want) -> int:
    """Every number of the heads within 1e-9, every string and flag equal, each refusal the core's; returns how
    many were analysed (not refused)."""
    assert len(got) == len(cases)
    shown = 0
    for c, g, w in zip(cases, got, want):
        if "error" in w:
            assert g == w, c
            continue
        assert "ok" in g, (c, g)
        close(g["ok"], w["ok"])
        shown += 1
    return shown


def assert_random_sentences(got):
    """The 200 random sentences (random_sentences) as the core analyses them: most are taken (a few have too
    many tokens once split), at two settings each, and they run from 1 to 32 tokens."""
    cases, want = random_sentences()
    assert assert_analyses(cases, got, want) >= 300
    lengths = {len(r["ok"]) for r in map(core_tokens, (c["text"] for c in cases)) if "ok" in r}
    assert {1, MAX_TOKENS} <= lengths
