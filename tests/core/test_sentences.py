"""The self-attention section's sentence model: tokenizer, data file, heads and teaching claims."""

import copy
import hashlib
import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import numpy as np
import pytest

from attention import charclasses, selfattention
from attention.datasets import data_path
from attention.sentences import (MAX_TOKENS, SentenceModel, analyze_sentence, encode, load_sentence_model,
                                 parse_sentence_model, tokenize, unknown_word_vector, word_vector)

ROOT = Path(__file__).resolve().parents[2]
MODEL = load_sentence_model()
PRESETS = [p.text for p in MODEL.presets]
MEANING = MODEL.head_names.index("meaning")
PREVIOUS = MODEL.head_names.index("previous word")


def raw():
    return json.loads(data_path("sentences.json").read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- tokenizer

def test_tokenize_lowercases_and_splits_on_whitespace():
    assert tokenize("The  Bank\tby the\nRIVER") == ["the", "bank", "by", "the", "river"]


def test_tokenize_drops_punctuation_and_splits_at_it():
    assert tokenize("The bank, by the river.") == ["the", "bank", "by", "the", "river"]
    assert tokenize("don't!") == ["don", "t"]
    assert tokenize("river-bank (muddy)?!") == ["river", "bank", "muddy"]
    assert tokenize("cost: $5 + 10%") == ["cost", "5", "10"]


def test_tokenize_normalises_unicode():
    assert tokenize("ＢＡＮＫ") == ["bank"]           # full-width letters
    assert tokenize("café  naïve") == ["café", "naïve"]
    assert tokenize("bank\u200briver") == ["bank", "river"]   # zero-width space separates


@pytest.mark.parametrize("text", ["", "   ", "\n\t", "...", " ?! , ;", "<>"])
def test_empty_sentence_is_refused(text):
    with pytest.raises(ValueError, match="sentence is empty"):
        tokenize(text)
    with pytest.raises(ValueError, match="sentence is empty"):
        analyze_sentence(text)


def test_non_string_is_refused():
    with pytest.raises(ValueError, match="string"):
        tokenize(None)


def test_32_tokens_accepted_33_refused_with_count():
    assert MAX_TOKENS == 32
    ok = " ".join(["the"] * 32)
    assert len(tokenize(ok)) == 32
    assert analyze_sentence(ok).weights.shape == (len(MODEL.heads), 32, 32)
    with pytest.raises(ValueError, match="sentence has 33 tokens; at most 32 are allowed"):
        tokenize(ok + " river")
    with pytest.raises(ValueError, match="sentence has 40 tokens"):
        analyze_sentence(" ".join(["bank"] * 40))
    with pytest.raises(ValueError, match="sentence has 33 tokens"):
        encode(["the"] * 33)


def test_punctuation_does_not_count_towards_the_limit():
    assert len(tokenize(", ".join(["the"] * 32) + ".")) == 32


def test_html_is_plain_tokens():
    tokens = tokenize("<img src=x onerror=alert(1)>")
    assert tokens == ["img", "src", "x", "onerror", "alert", "1"]
    assert all(type(t) is str for t in tokens)
    a = analyze_sentence("<script>alert('bank')</script> by the river")
    assert a.tokens == ["script", "alert", "bank", "script", "by", "the", "river"]
    assert a.unknown == ["script", "alert"]
    json.dumps(a.to_plain())


# --------------------------------------------------------------------------- vectors

def test_known_word_vector_is_the_vocab_entry_and_a_copy():
    v = word_vector("bank")
    assert np.array_equal(v, np.array(raw()["vocab"]["bank"]))
    v[0] = 99.0
    assert word_vector("bank")[0] != 99.0


def test_unknown_word_vectors_are_deterministic_small_and_distinct():
    a, b = word_vector("zebra"), word_vector("zebra")
    assert np.array_equal(a, b)
    assert a.shape == (len(MODEL.dims),)
    assert np.all(np.abs(a) <= MODEL.unknown_scale)
    assert np.array_equal(a, np.round(a, 2))
    words = ["zebra", "zebras", "Zebra", "quokka", "x", "1", "ünïcode", "\ud800"]
    vecs = {w: tuple(word_vector(w)) for w in words}
    assert len(set(vecs.values())) == len(words)
    # more coordinates than one SHA-256 digest holds
    long = unknown_word_vector("zebra", 40)
    assert long.shape == (40,) and np.array_equal(long[:len(a)], a)


def test_unknown_word_vector_is_the_same_in_another_process():
    code = ("import json; from attention.sentences import word_vector; "
            "print(json.dumps([word_vector(w).tolist() for w in ['zebra', 'quokka', 'ünïcode']]))")
    here = [word_vector(w).tolist() for w in ["zebra", "quokka", "ünïcode"]]
    for seed in ("0", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(ROOT))
        out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout
        assert json.loads(out) == here


def test_unknown_word_vector_is_pinned():
    # The exact values: SHA-256 bytes -> [-0.3, 0.3], 2 decimals.  Any change breaks saved pages.
    import hashlib
    d = hashlib.sha256("zebra".encode()).digest()
    b0 = int.from_bytes(d[:2], "big")
    assert word_vector("zebra")[0] == round(0.3 * (2 * b0 / 65535 - 1), 2)


def test_encode_appends_positions_and_lists_unknown_once_in_order():
    x, unknown = encode(["the", "zebra", "bank", "quokka", "zebra"])
    assert x.shape == (5, MODEL.d_model)
    nd = len(MODEL.dims)
    assert np.array_equal(x[:, nd:], np.stack([np.arange(5), np.arange(5) ** 2, np.ones(5)], axis=1))
    assert np.array_equal(x[2, :nd], word_vector("bank"))
    assert unknown == ["zebra", "quokka"]
    with pytest.raises(ValueError):
        encode("the bank")
    with pytest.raises(ValueError, match="empty"):
        encode([])


# --------------------------------------------------------------------------- data file

def test_data_file_shapes_are_consistent():
    d = raw()
    nd, npos = len(d["dims"]), len(d["position"]["features"])
    d_model = nd + npos
    assert 6 <= nd <= 8 and 40 <= len(d["vocab"]) <= 80
    assert d["model_dims"] == [x["name"] for x in d["dims"]] + [x["name"] for x in d["position"]["features"]]
    for dim in d["dims"]:
        assert dim["name"] and dim["meaning"]
    for word, vec in d["vocab"].items():
        assert len(vec) == nd, word
        assert tokenize(word) == [word]
        assert all(round(v, 2) == v for v in vec)
    for w in ["the", "a", "bank", "river", "water", "shore", "fish", "boat", "money", "loan", "approved",
              "deposit", "account", "cash", "interest", "by", "of", "on", "near", "sat", "we"]:
        assert w in d["vocab"]
    assert 2 <= len(d["heads"]) <= 4
    d_k, d_v = len(d["heads"][0]["w_q"][0]), len(d["heads"][0]["w_v"][0])
    for h in d["heads"]:
        assert h["name"] and h["description"]
        assert np.shape(h["w_q"]) == np.shape(h["w_k"]) == (d_model, d_k)
        assert np.shape(h["w_v"]) == (d_model, d_v)
    assert np.shape(d["w_o"]) == (len(d["heads"]) * d_v, len(d["output_columns"]))
    sp = d["sense_plane"]
    assert np.shape(sp["value_projection"]) == (d_v, 2)
    assert np.shape(sp["output_projection"]) == (len(d["output_columns"]), 2)
    assert len(d["presets"]) >= 4
    texts = [p["text"] for p in d["presets"]]
    assert "the bank by the river" == texts[0] and "the bank approved the loan" in texts
    assert all(p["note"] for p in d["presets"])


def test_model_arrays_match_the_file_and_are_read_only():
    d = raw()
    assert isinstance(MODEL, SentenceModel)
    assert MODEL.w_q.shape == (len(d["heads"]), MODEL.d_model, MODEL.d_k)
    assert MODEL.w_v.shape == (len(d["heads"]), MODEL.d_model, MODEL.d_v)
    assert np.array_equal(MODEL.heads[0].w_q, np.array(d["heads"][0]["w_q"]))
    assert np.array_equal(MODEL.w_o, np.array(d["w_o"]))
    with pytest.raises(ValueError):
        MODEL.heads[0].w_q[0, 0] = 1.0
    with pytest.raises(TypeError):
        MODEL.vocab["new"] = np.zeros(len(MODEL.dims))
    assert load_sentence_model() is MODEL


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["vocab"].__setitem__("bank", [0.5, 0.5]), "vocab\\['bank'\\] must be a list of 7"),
    (lambda d: d["vocab"].__setitem__("Bank", [0.0] * 7), "not a single lowercase token"),
    (lambda d: d["heads"][1]["w_k"].pop(), "heads\\[1\\].w_k must be a 10 x 2 matrix"),
    (lambda d: d["heads"][2]["w_v"][0].append(0.0), "heads\\[2\\].w_v must be a 10 x 4 matrix"),
    (lambda d: d["w_o"].pop(), "w_o must be a 12 x"),
    (lambda d: d["sense_plane"].__setitem__("head", "nope"), "sense_plane.head"),
    (lambda d: d["position"]["features"][0].__setitem__("name", "sine"), "unknown feature 'sine'"),
    (lambda d: d["presets"][0].__setitem__("clue", "loan"), "clue 'loan' is not a token"),
    (lambda d: d["heads"].extend(copy.deepcopy(d["heads"][:2])), "heads must be a list of 1 to 4"),
    (lambda d: d["heads"][1].__setitem__("name", "meaning"), "head names must be different"),
])
def test_broken_data_files_are_refused_by_name(edit, message):
    d = raw()
    edit(d)
    with pytest.raises(ValueError, match=message):
        parse_sentence_model(d)


def test_an_edited_file_can_be_loaded(tmp_path):
    d = raw()
    d["vocab"]["zebra"] = [0.9, 0, 0, 0, 0, 0, 0]
    p = tmp_path / "s.json"
    p.write_text(json.dumps(d), encoding="utf-8")
    m = load_sentence_model(p)
    a = analyze_sentence("the bank by the zebra", model=m)
    assert a.unknown == [] and a.tokens[-1] == "zebra"
    assert analyze_sentence("the bank by the zebra").unknown == ["zebra"]


# --------------------------------------------------------------------------- attention

@pytest.mark.parametrize("text", PRESETS + ["the zebra ate my homework", "bank"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("temperature", [0.25, 1.0, 3.0])
def test_rows_sum_to_one_and_causal_zeroes_the_upper_triangle(text, causal, temperature):
    a = analyze_sentence(text, temperature=temperature, causal=causal)
    h, n = len(MODEL.heads), len(a.tokens)
    assert a.q.shape == a.k.shape == (h, n, MODEL.d_k)
    assert a.v.shape == a.head_outputs.shape == (h, n, MODEL.d_v)
    assert a.weights.shape == (h, n, n)
    assert a.concat.shape == (n, h * MODEL.d_v) and a.output.shape == (n, MODEL.w_o.shape[1])
    assert a.value_xy.shape == a.output_xy.shape == (h, n, 2) and a.combined_xy.shape == (n, 2)
    assert np.allclose(a.weights.sum(axis=-1), 1.0)
    assert np.all(a.weights >= 0)
    upper = np.triu(np.ones((n, n), dtype=bool), k=1)
    if causal:
        assert np.all(a.weights[:, upper] == 0.0)
    elif n > 1:
        assert np.all(a.weights[:, upper] > 0.0)


def test_analysis_agrees_with_the_reference_multi_head_attention():
    for text in PRESETS:
        for causal in (False, True):
            a = analyze_sentence(text, temperature=0.7, causal=causal)
            out, w, heads = selfattention.multi_head_attention(a.x, MODEL.w_q, MODEL.w_k, MODEL.w_v, MODEL.w_o,
                                                               causal=causal, temperature=0.7)
            assert np.allclose(out, a.output) and np.allclose(w, a.weights) and np.allclose(heads, a.head_outputs)
            assert np.allclose(a.q, a.x @ MODEL.w_q) and np.allclose(a.v, a.x @ MODEL.w_v)
            sp = MODEL.sense_plane
            assert np.allclose(a.output_xy, a.head_outputs @ sp.value_projection)
            assert np.allclose(a.combined_xy, a.output @ sp.output_projection)


def test_browser_can_recompute_weights_from_plain_q_and_k():
    a = analyze_sentence("we sat on the bank of the river")
    p = a.to_plain()
    json.dumps(p)
    for i, head in enumerate(p["heads"]):
        q, k, v = (np.array(head[key]) for key in ("q", "k", "v"))
        for t in (0.5, 2.0):
            s = q @ k.T / (np.sqrt(p["d_k"]) * t)
            s[np.triu(np.ones(s.shape, dtype=bool), 1)] = -np.inf
            w = np.exp(s - s.max(axis=1, keepdims=True))
            w /= w.sum(axis=1, keepdims=True)
            ref = analyze_sentence(a.text, temperature=t, causal=True)
            assert np.allclose(w, ref.weights[i])
            assert np.allclose(w @ v @ np.array(p["sense_plane"]["value_projection"]), ref.output_xy[i])


def test_output_points_lie_in_the_hull_of_the_value_points():
    # a convex combination: each output coordinate lies between the smallest and largest value coordinate
    for text in PRESETS:
        a = analyze_sentence(text)
        lo = a.value_xy.min(axis=1, keepdims=True) - 1e-12
        hi = a.value_xy.max(axis=1, keepdims=True) + 1e-12
        assert np.all((a.output_xy >= lo) & (a.output_xy <= hi))


def test_bad_arguments():
    with pytest.raises(ValueError, match="temperature"):
        analyze_sentence("the bank", temperature=0)
    with pytest.raises(ValueError, match="temperature"):
        analyze_sentence("the bank", temperature=float("nan"))
    with pytest.raises(ValueError, match="causal"):
        analyze_sentence("the bank", causal="yes")
    with pytest.raises(ValueError, match="word"):
        word_vector("")


# --------------------------------------------------------------------------- teaching claims

def bank_row(text):
    a = analyze_sentence(text)
    b = a.tokens.index("bank")
    return a, b


def largest_other(a, head, i):
    row = a.weights[head, i].copy()
    row[i] = -1.0
    return a.tokens[int(np.argmax(row))]


def test_default_sentence_bank_looks_at_river_and_means_water():
    a, b = bank_row("the bank by the river")
    assert largest_other(a, MEANING, b) == "river"
    assert a.weights[MEANING, b, a.tokens.index("river")] > 0.5
    x, y = a.output_xy[MEANING, b]
    assert x > y + 0.3
    assert a.combined_xy[b, 0] > a.combined_xy[b, 1] + 0.3
    assert MODEL.sense_plane.head == MEANING
    assert (MODEL.sense_plane.x_label, MODEL.sense_plane.y_label) == ("water / nature", "money / finance")


def test_loan_sentence_bank_looks_at_loan_and_means_money():
    a, b = bank_row("the bank approved the loan")
    assert largest_other(a, MEANING, b) == "loan"
    x, y = a.output_xy[MEANING, b]
    assert y > x + 0.3
    assert a.combined_xy[b, 1] > a.combined_xy[b, 0] + 0.3


@pytest.mark.parametrize("preset", MODEL.presets, ids=lambda p: p.text)
def test_every_preset_meets_its_note(preset):
    a = analyze_sentence(preset.text)
    if "bank" not in a.tokens:
        return
    b = a.tokens.index("bank")
    if preset.clue:
        assert largest_other(a, MEANING, b) == preset.clue
    x, y = a.output_xy[MEANING, b]
    if preset.sense == "water":
        assert x > y + 0.3
    elif preset.sense == "money":
        assert y > x + 0.3
    elif preset.sense == "mixed":
        assert abs(x - y) < 0.1


def test_without_the_future_the_clue_is_lost():
    a = analyze_sentence("the bank by the river", causal=True)
    x, y = a.output_xy[MEANING, 1]
    assert abs(x - y) < 1e-12


@pytest.mark.parametrize("text", PRESETS + [" ".join(["the"] * 32), "zebra quokka bank river loan"])
@pytest.mark.parametrize("causal", [False, True])
def test_position_head_looks_at_the_previous_token(text, causal):
    a = analyze_sentence(text, causal=causal)
    w = a.weights[PREVIOUS]
    assert np.argmax(w[0]) == 0 and w[0, 0] > 0.99
    for i in range(1, a.n):
        assert np.argmax(w[i]) == i - 1
        assert w[i, i - 1] > 0.6


def test_position_head_ignores_the_words():
    a1 = analyze_sentence("the bank by the river")
    a2 = analyze_sentence("zebra loan of quokka sat")
    assert np.allclose(a1.weights[PREVIOUS], a2.weights[PREVIOUS])


def test_meaning_head_ignores_position():
    a = analyze_sentence("the river by the bank")
    b = analyze_sentence("the bank by the river")
    # swapping two words permutes the meaning head's matrix the same way
    perm = [0, 4, 2, 3, 1]
    assert np.allclose(a.weights[MEANING], b.weights[MEANING][np.ix_(perm, perm)])


def test_a_clue_before_bank_survives_the_causal_mask():
    a = analyze_sentence("she put cash in the bank", causal=True)
    b = a.tokens.index("bank")
    assert largest_other(a, MEANING, b) == "cash"
    x, y = a.output_xy[MEANING, b]
    assert y > x + 0.3


def test_content_head_rows_are_identical_without_the_mask():
    a = analyze_sentence("the bank by the river")
    w = a.weights[MODEL.head_names.index("content words")]
    assert np.allclose(w, w[0])
    assert w[0, a.tokens.index("river")] > 3 * w[0, a.tokens.index("the")]


# --------------------------------------------------------------------------- rules the browser's twin copies
# (attention/words.js repeats tokenize and unknown_word_vector; tests/browser/test_words_parity.py holds it to them)

def test_final_sigma_is_decided_on_the_whole_text_before_punctuation_is_dropped():
    # lower() sees "." between the words (a case-ignorable character), so the first sigma is not final
    assert tokenize("ΟΔΟΣ.ΑΣ") == ["οδοσ", "ας"]
    assert tokenize("ΟΔΟΣ. ΑΣ") == ["οδος", "ας"]
    assert tokenize("ὈΔΥΣΣΕΎΣ") == ["ὀδυσσεύς"]


def test_a_code_point_without_a_character_separates_words():
    assert tokenize("bank\u0378river") == ["bank", "river"]      # U+0378: unassigned (Cn), like punctuation


# --------------------------------------------------------------------------- the same tokens on every Python
# The tokenizer's character classes come from data/unicode_classes.json (Unicode 14.0), not from the running
# Python's unicodedata (3.11: Unicode 14.0, 3.12: 15.0, 3.13: 15.1).  The tokens below were derived once, on
# Python 3.11.7; read with unicodedata's classes, Python 3.12 and 3.13 split the first ten otherwise (U+0CF3,
# U+0ECE, U+10EFD to U+10EFF, U+1123F and U+1E030 are letters or marks there, and U+1E030 "𞀰" becomes a
# Cyrillic "а" under NFKC; U+31350 is a letter on 3.13).

VERSION_FREE = [
    ("ಕನ್ನಡ\u0cf3ಅ", ["ಕನ್ನಡ", "ಅ"]),
    ("ລາວ\u0eceລາວ", ["ລາວ", "ລາວ"]),
    ("a\U00010efdb\U00010effc", ["a", "b", "c"]),
    ("x\U0001123fy", ["x", "y"]),
    ("\U0001e030\U0001e031 bank", ["bank"]),
    ("ΑΣ\U0001e030", ["ας"]),
    ("ΑΣ\u0cf3", ["ας"]),
    ("Α\U0001123fΣ", ["α", "σ"]),
    ("ΟΔΟΣ\U00010efd", ["οδος"]),
    ("日\U00031350本 \U0002ebf0", ["日", "本"]),
    # the browser's Unicode 17 changed these (ʕ and ˤ are no longer cased, U+1171E no longer case-ignorable)
    ("ʕΣ ˤΣ Α\U0001171eΣ", ["ʕς", "ʕς", "α\U0001171eς"]),
    ("ΑΣ\u0345 Α\u02b0Σ ΑΣ'Σ", ["ας\u0345", "αhς", "ασ", "ς"]),
    ("ΟΔΟΣ.ΑΣ ΟΔΟΣ. ΑΣ", ["οδοσ", "ας", "οδος", "ας"]),
    ("ＦＵＬＬ ｗｉｄｔｈ ﬁne x² ½", ["full", "width", "fine", "x2", "1", "2"]),
    ("a\u200bb\ufeffc\u00add\u2028e\u3000f", ["a", "b", "c", "d", "e", "f"]),
    ("\ud800lone\udfff", ["lone"]),
    ("\U000f0000priv\U0010fffd", ["priv"]),
    ("İstanbul ǅemal ẞ", ["i\u0307stanbul", "džemal", "ß"]),
    ("Café naïve o\u0301", ["café", "naïve", "ó"]),
    ("🙂 emoji 👍🏽 \U0001fae8 \U0001faf8", ["emoji"]),
]


@pytest.mark.parametrize("text, tokens", VERSION_FREE)
def test_tricky_texts_give_the_same_tokens_on_every_python(text, tokens):
    assert tokenize(text) == tokens


def _digest(texts) -> str:
    h = hashlib.sha256()
    for t in texts:
        try:
            out = "\x00".join(tokenize(t))
        except ValueError:
            out = "\x01"
        h.update((out + "\x02").encode("utf-8", errors="surrogatepass"))
    return h.hexdigest()[:16]


# taken on Python 3.11.7 (2026-12-04)
ALONE_DIGEST, BEFORE_SIGMA_DIGEST, AFTER_SIGMA_DIGEST = "a1a606a9dd652735", "feb780b441e8956a", "644a5f1947744f5e"


def test_every_code_point_gives_the_tokens_it_gave_on_python_3_11():
    """Each of the 1 114 112 code points alone, and every code point of planes 0, 1 and 14 (where the cased and
    case-ignorable characters are) after a capital alpha and before a capital sigma, and after a capital sigma:
    the tokens, hashed, are those Python 3.11.7 gave (the digests were taken there)."""
    assert _digest(map(chr, range(0x110000))) == ALONE_DIGEST
    planes = [cp for p in (0, 1, 14) for cp in range(p << 16, (p + 1) << 16)]
    assert _digest("\u0391" + chr(cp) + "\u03a3" for cp in planes) == BEFORE_SIGMA_DIGEST
    assert _digest("\u0391\u03a3" + chr(cp) for cp in planes) == AFTER_SIGMA_DIGEST


@pytest.mark.skipif(unicodedata.unidata_version != "14.0.0",
                    reason="tools/unicode_classes.py writes the table from Unicode 14.0 (Python 3.11)")
def test_the_shipped_table_is_what_the_script_writes():
    from tools.unicode_classes import build
    shipped = charclasses.table()
    changed = [int(u[2:], 16) for u in shipped["changed_after_unicode_14"]]
    assert build(also_blank=changed)["classes"] == shipped["classes"]


def test_this_pythons_unicode_keeps_every_character_of_the_table():
    """On any supported Python: what the table keeps (not blank) is assigned here with the same kind (separator
    or not); what the table calls blank is unassigned here or was added after Unicode 14 (unicodedata cannot
    tell these apart, so only the first half is checked on 3.12 and 3.13)."""
    blank, separator = bytearray(0x110000), bytearray(0x110000)
    for flags, name in ((blank, "blank"), (separator, "separator")):
        for a, b in zip(*charclasses.ranges(name)):
            flags[a:b + 1] = b"\x01" * (b - a + 1)
    bad = []
    for cp in range(0x110000):
        if blank[cp]:
            continue
        cat = unicodedata.category(chr(cp))
        if cat in ("Cn", "Cs") or (cat[0] in "PSCZ") != bool(separator[cp]):
            bad.append((hex(cp), cat))
    assert bad == []
    if unicodedata.unidata_version == charclasses.unicode_version():
        assert all(unicodedata.category(chr(cp)) in ("Cn", "Cs") for cp in range(0x110000) if blank[cp])


def test_a_lone_surrogate_is_hashed_as_its_three_utf8_bytes():
    import hashlib

    d = hashlib.sha256(b"\xed\xa0\x80").digest()                # "\ud800" with errors="surrogatepass"
    b = np.array([int.from_bytes(d[2 * i:2 * i + 2], "big") for i in range(3)], dtype=float)
    assert np.array_equal(unknown_word_vector("\ud800", 3), np.round(0.3 * (2.0 * b / 65535.0 - 1.0), 2))


def test_coordinates_past_16_come_from_the_digest_of_the_digest():
    import hashlib

    d1 = hashlib.sha256("zebra".encode()).digest()
    d2 = hashlib.sha256(d1).digest()
    d3 = hashlib.sha256(d2).digest()
    stream = d1 + d2 + d3
    b = np.array([int.from_bytes(stream[2 * i:2 * i + 2], "big") for i in range(40)], dtype=float)
    assert np.array_equal(unknown_word_vector("zebra", 40, 0.5), np.round(0.5 * (2.0 * b / 65535.0 - 1.0), 2))
