"""Tests for attention.learn_qk: W_Q and W_K trained to tell the two senses of "bank" apart."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import re

import numpy as np
import pytest

import attention
from attention import learn_qk
from attention.datasets import data_path

MODEL = attention.load_sentence_model()
MEANING = MODEL.heads[MODEL.sense_plane.head]


def raw() -> dict:
    return json.loads(data_path("senses.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def corpus():
    return attention.load_sense_corpus()


@pytest.fixture(scope="module")
def path(corpus):
    return attention.train_qk(corpus)


def _reference_z(tokens, w_q, w_k):
    """Bank's sense number from the page's own self-attention, one sentence at a time: how far its output
    moved from where an even spread lands (the mean of the words' points), towards water and away from money."""
    x = attention.encode(list(tokens))[0]
    out, a = attention.self_attention(x, w_q, w_k, MEANING.w_v)
    b = list(tokens).index("bank")
    point = out[b] @ MODEL.sense_plane.value_projection
    even = (x @ MEANING.w_v @ MODEL.sense_plane.value_projection).mean(axis=0)
    d = point - even
    return float(d[0] - d[1]), a[b]


def _reference_score(s, z):
    """1 right, 0 wrong, 1/2 undecided (|z| <= 0.01)."""
    return 0.5 if abs(z) <= 0.01 else float(np.sign(z) == s.label)


def _reference_loss(sentences, w_q, w_k):
    beta = learn_qk.READOUT_SCALE
    terms = []
    for s in sentences:
        z, _ = _reference_z(s.tokens, w_q, w_k)
        y = 1.0 if s.sense == "water" else -1.0
        terms.append(math.log1p(math.exp(-y * beta * z)))
    return float(np.mean(terms))


def _uniform_z(s):
    """The plain average of (water - money) over the sentence: what evenly spread attention reads."""
    x = attention.encode(list(s.tokens))[0]
    return float(np.mean(x[:, 0] - x[:, 1]))


# ---------------------------------------------------------------------------
# the model and its gradient
# ---------------------------------------------------------------------------

def test_loss_is_the_page_models_logistic_loss(corpus, path):
    """The padded, batched loss equals a sentence-by-sentence run of attention.self_attention."""
    for entry in (0, 20, -1):
        wq, wk = path.w_q[entry], path.w_k[entry]
        got, _, _ = attention.qk_loss_and_grad(wq, wk, corpus.train)
        assert got == pytest.approx(_reference_loss(corpus.train, wq, wk), rel=1e-12)
        assert path.loss[entry] == pytest.approx(got, rel=1e-12)
        assert path.held_out_loss[entry] == pytest.approx(_reference_loss(corpus.held_out, wq, wk), rel=1e-12)


def _numeric_grad(f, w, eps=1e-6):
    g = np.zeros_like(w)
    for idx in np.ndindex(*w.shape):
        d = np.zeros_like(w)
        d[idx] = eps
        g[idx] = (f(w + d) - f(w - d)) / (2 * eps)
    return g


@pytest.mark.parametrize("where", ["untrained", "midway", "trained", "position rows on"])
def test_gradient_matches_central_differences(corpus, path, where):
    entry = {"untrained": 0, "midway": 20, "trained": -1, "position rows on": -1}[where]
    wq, wk = path.w_q[entry].copy(), path.w_k[entry].copy()
    if where == "position rows on":       # the gradient covers every row, not only the trained ones
        rng = np.random.default_rng(7)
        wq[7:] += rng.normal(0, 0.01, wq[7:].shape)
        wk[7:] += rng.normal(0, 0.01, wk[7:].shape)
    sents = corpus.train
    _, gq, gk = attention.qk_loss_and_grad(wq, wk, sents)
    nq = _numeric_grad(lambda w: attention.qk_loss_and_grad(w, wk, sents)[0], wq)
    nk = _numeric_grad(lambda w: attention.qk_loss_and_grad(wq, w, sents)[0], wk)
    for got, want in ((gq, nq), (gk, nk)):
        assert np.linalg.norm(want) > 1e-6      # a real slope, not two zeros agreeing
        assert np.linalg.norm(got - want) / np.linalg.norm(want) < 1e-6
    assert np.any(gq[7:] != 0) and np.any(gk[7:] != 0)   # position rows have a slope; training leaves them


def test_untrained_start_is_seeded_small_and_spreads_attention_evenly(corpus, path):
    wq, wk = attention.untrained_projections()
    assert np.array_equal(wq, path.w_q[0]) and np.array_equal(wk, path.w_k[0])
    assert np.all(wq[7:] == 0) and np.all(wk[7:] == 0)
    assert 0.02 < np.std(wq[:7]) < 0.3
    w2 = attention.untrained_projections(seed=1)[0]
    assert not np.array_equal(wq, w2)
    for s in corpus.sentences:
        a = path.readout(s, 0).weights
        n = len(s.tokens)
        assert np.max(np.abs(a * n - 1)) < 0.05, s.text    # every weight within 5 % of 1/n


def test_training_is_deterministic(corpus, path):
    again = attention.train_qk(corpus)
    for name in ("w_q", "w_k", "loss", "held_out_accuracy"):
        assert np.array_equal(getattr(again, name), getattr(path, name))


def test_the_held_out_sentences_never_reach_the_gradient(corpus, path):
    """Training on the same train sentences with other held-out ones (fewer, or each one's sense flipped)
    walks the very same path of W_Q and W_K: only the held-out readings change."""
    flip = {"water": "money", "money": "water"}
    for held in (corpus.held_out[:3],
                 tuple(dataclasses.replace(s, sense=flip[s.sense]) for s in corpus.held_out)):
        other = attention.train_qk(dataclasses.replace(corpus, held_out=held))
        assert np.array_equal(other.w_q, path.w_q) and np.array_equal(other.w_k, path.w_k)
        assert np.array_equal(other.loss, path.loss)
    assert not np.array_equal(other.held_out_accuracy, path.held_out_accuracy)   # ... and they are read


def test_only_the_word_rows_learn(path):
    assert np.all(path.w_q[:, 7:] == 0) and np.all(path.w_k[:, 7:] == 0)
    assert np.linalg.norm(path.w_q[-1] - path.w_q[0]) > 1.0
    assert path.trained_rows == MODEL.dims


# ---------------------------------------------------------------------------
# the training path
# ---------------------------------------------------------------------------

def test_loss_falls_at_every_step_with_plain_steps(path):
    """Guaranteed by the halving rule: the training loss never rises.  With the shipped data and
    defaults, more: it falls at every step and no step is halved (plain gradient descent)."""
    assert path.steps == learn_qk.DEFAULT_QK_STEPS
    assert np.all(np.diff(path.loss) < 0)
    assert np.all(path.step_size[1:] == path.learning_rate)
    assert path.loss[-1] < path.loss[0] / 5


def test_a_too_large_learning_rate_is_halved_and_the_loss_never_rises(corpus):
    p = attention.train_qk(corpus, learning_rate=200.0, steps=40)
    assert np.all(np.diff(p.loss) <= 0)
    assert np.any(p.step_size[1:] < 200.0)
    assert np.all(np.isfinite(p.w_q))


def test_recorded_accuracy_is_an_honest_count_with_ties_half_right(corpus, path):
    seen_ties = False
    for entry in (0, 9, 12, 20, -1):
        for split, acc, ties in ((corpus.train, path.train_accuracy, path.train_undecided),
                                 (corpus.held_out, path.held_out_accuracy, path.held_out_undecided)):
            zs = [_reference_z(s.tokens, path.w_q[entry], path.w_k[entry])[0] for s in split]
            assert acc[entry] == pytest.approx(sum(_reference_score(s, z) for s, z in zip(split, zs)) / len(split),
                                               abs=1e-15)
            assert ties[entry] == sum(abs(z) <= learn_qk.UNDECIDED_WITHIN for z in zs)
            seen_ties |= 0 < ties[entry] < len(split)
    assert seen_ties          # some steps mix right, wrong and undecided sentences


def test_even_attention_is_undecided_and_scores_half(corpus):
    """With W_Q = W_K = 0 every score is 0 and bank weighs every word alike: its output lands exactly where an
    even spread does, z = 0 in every sentence, every sentence is undecided and the accuracy is 1/2, although
    the plain average of most sentences leans to their sense."""
    zero = np.zeros((MODEL.d_model, MODEL.d_k))
    for s in corpus.sentences:
        r = attention.sense_readout(s.text, zero, zero)
        np.testing.assert_allclose(r.weights, 1 / len(s.tokens), rtol=1e-15)
        np.testing.assert_allclose(r.point, r.even, atol=1e-15)
        assert abs(r.z) < 1e-15 and r.sense == "undecided" and abs(r.p_water - 0.5) < 1e-15
    p = attention.train_qk(corpus, init_scale=1e-12, steps=0)
    assert p.train_accuracy[0] == p.held_out_accuracy[0] == 0.5
    assert p.train_undecided[0] == len(corpus.train) and p.held_out_undecided[0] == len(corpus.held_out)
    # reading the point itself (its side of the diagonal) would call most of them right
    leaning = sum(np.sign(_uniform_z(s)) == s.label for s in corpus.sentences)
    assert leaning > 0.6 * len(corpus.sentences)


def test_the_untrained_start_is_near_chance_and_training_learns(corpus, path):
    """The seeded start is undecided on every sentence (its leftover |z| is under 0.006, the tolerance is
    0.01): accuracy 1/2 on both sets.  Training lifts both to every sentence right."""
    z0 = [_reference_z(s.tokens, path.w_q[0], path.w_k[0])[0] for s in corpus.sentences]
    assert max(abs(z) for z in z0) < 0.006
    for acc in (path.train_accuracy, path.held_out_accuracy):
        assert abs(acc[0] - 0.5) <= 0.15
        assert acc[0] == 0.5
        assert acc[-1] == 1.0
    # it takes a while: the accuracy climbs over the first tens of steps, not in one jump
    assert path.train_accuracy[6] < 0.75 and path.held_out_accuracy[6] < 0.75
    assert path.held_out_accuracy[15] > 0.9


def test_trained_projections_beat_the_untrained_ones_on_held_out_sentences(path):
    assert path.held_out_accuracy[-1] > path.held_out_accuracy[0]
    assert path.held_out_accuracy[-1] == 1.0
    assert path.held_out_loss[-1] < path.held_out_loss[0] / 5
    assert path.train_accuracy[-1] == 1.0


def test_the_weight_on_the_deciding_word_rises_on_held_out_sentences_too(corpus, path):
    """clue_weights: bank's weight on each sentence's clue, at every step.  On every held-out sentence it starts
    near an equal share, ends above one half and several times its start, and rises over most steps."""
    w = path.clue_weights(corpus.held_out)
    assert w.shape == (path.steps + 1, len(corpus.held_out))
    for j, s in enumerate(corpus.held_out):
        r0, r1 = path.readout(s, 0), path.readout(s)
        clue = [t == s.clue for t in s.tokens]
        assert w[0, j] == pytest.approx(np.sum(r0.weights[clue]), abs=1e-15)
        assert w[-1, j] == pytest.approx(np.sum(r1.weights[clue]), abs=1e-15)
        assert w[0, j] < 1.5 * clue.count(True) / len(s.tokens), s.text
        assert w[-1, j] > 0.5 and w[-1, j] > 3 * w[0, j], s.text
        assert np.mean(np.diff(w[:, j]) > 0) > 0.9, s.text
    assert np.median(w[-1]) > 0.9
    # the training sentences' too, and the shown ones are the corpus's own rows
    assert np.all(path.clue_weights(corpus.train)[-1] > 0.5)
    np.testing.assert_array_equal(path.clue_weights(corpus.shown, [0, 75, 150]),
                                  path.clue_weights(corpus.shown)[[0, 75, 150]])


def test_training_wins_exactly_where_averaging_fails(corpus, path):
    """Held-out sentences whose plain average points the wrong way (a person of the other sense)."""
    hard = [s for s in corpus.held_out if np.sign(_uniform_z(s)) != s.label]
    assert len(hard) >= 2
    for s in hard:
        assert path.readout(s, -1).sense == s.sense, s.text
        assert path.readout(s, 0).weights.max() < 0.2


def test_bank_by_the_river_looks_at_river(corpus, path):
    s = next(s for s in corpus.held_out if s.text == "the bank by the river")
    r = path.readout(s)
    assert r.tokens[int(np.argmax(r.weights))] == "river"
    assert r.weights[s.tokens.index("river")] > 0.9
    assert r.sense == "water" and r.p_water > 0.95
    assert path.readout(s, 0).weights.max() < 0.25


def test_largest_weight_lands_on_the_clue_in_every_held_out_sentence(corpus, path):
    for s in corpus.held_out:
        r = path.readout(s)
        assert r.tokens[int(np.argmax(r.weights))] == s.clue, s.text
        assert r.sense == s.sense, s.text


def test_sense_readout_reads_the_side_of_the_diagonal():
    wq, wk = MEANING.w_q, MEANING.w_k
    r = attention.sense_readout("the bank approved the loan", wq, wk)
    assert r.sense == "money" and r.z < 0 and r.p_water < 0.5
    np.testing.assert_allclose(r.point, r.weights @ r.value_xy, rtol=1e-12)
    np.testing.assert_allclose(r.even, r.value_xy.mean(axis=0), rtol=1e-12)
    d = r.point - r.even
    assert r.z == pytest.approx(d[0] - d[1], rel=1e-12)
    assert r.z == pytest.approx(np.sum((r.weights - 1 / len(r.tokens)) * (r.value_xy[:, 0] - r.value_xy[:, 1])),
                                rel=1e-12)
    ref = attention.analyze_sentence("the bank approved the loan")
    np.testing.assert_allclose(r.weights, ref.weights[0][1], rtol=1e-12)
    np.testing.assert_allclose(r.point, ref.output_xy[0][1], rtol=1e-12)


# ---------------------------------------------------------------------------
# the data
# ---------------------------------------------------------------------------

def test_corpus_shape(corpus):
    assert corpus.word == "bank"
    assert 40 <= len(corpus.sentences) <= 80
    for split in (corpus.train, corpus.held_out):
        assert {s.sense for s in split} == {"water", "money"}
    assert any(s.text == "the bank by the river" for s in corpus.held_out)
    assert 4 <= len(corpus.shown) <= 8 and {s.split for s in corpus.shown} == {"train", "held_out"}


def test_held_out_clues_are_new_words_or_in_new_places(corpus):
    at_index, at_offset = set(), set()
    train_words = set()
    for s in corpus.train:
        train_words.update(s.tokens)
        for i, t in enumerate(s.tokens):
            at_index.add((t, i))
            at_offset.add((t, i - s.index))
    new_words = 0
    for s in corpus.held_out:
        c, i = s.clue, s.clue_index
        assert (c, i) not in at_index and (c, i - s.index) not in at_offset, s.text
        new_words += c not in train_words
    assert new_words >= 4


BAD = [
    (lambda d: d["train"][0].__setitem__("text", "the river flowed by the shore"), r"train\[0\].*exactly once"),
    (lambda d: d["train"][1].__setitem__("text", "the bank of the bank"), r"train\[1\].*found it 2 times"),
    (lambda d: d["held_out"][2].__setitem__("sense", "nature"), r"held_out\[2\]\.sense must be one of 'water', "
                                                               r"'money', got 'nature'"),
    (lambda d: d["held_out"].append({"text": "The bank by the river!", "sense": "water", "clue": "river"}),
     r"held_out\[16\] 'The bank by the river!' repeats held_out\[0\]"),
    (lambda d: d["train"].append(dict(d["held_out"][3])), r"held_out\[3\] .* repeats train\[40\]"),
    (lambda d: d["train"][2].__setitem__("text", "the fisherman rowed his canoe to the bank"),
     r"train\[2\].*not in the toy vocabulary.*'canoe'"),
    (lambda d: d["train"][3].__setitem__("clue", "loan"), r"train\[3\]\.clue must be a word of"),
    (lambda d: d["train"][3].__setitem__("clue", "bank"), r"train\[3\]\.clue must be a word of"),
    (lambda d: d.__setitem__("format", "x"), "format must be"),
    (lambda d: d.__setitem__("word", "canoe"), "word must be a word of the toy vocabulary"),
    (lambda d: d.__setitem__("held_out", []), "held_out must be a non-empty list"),
    (lambda d: d.__setitem__("train", [t for t in d["train"] if t["sense"] == "water"]), "both senses"),
    (lambda d: d["train"][0].__setitem__("show", "yes"), r"train\[0\]\.show must be true or false"),
    (lambda d: d["train"].__setitem__(0, "the bank"), r"train\[0\] must be an object"),
]


@pytest.mark.parametrize("edit, message", BAD)
def test_broken_data_files_are_refused_with_clear_errors(edit, message):
    d = raw()
    edit(d)
    with pytest.raises(ValueError, match=message):
        learn_qk.parse_sense_corpus(d)


def test_an_edited_file_can_be_loaded_and_trained(tmp_path):
    d = raw()
    d["held_out"].append({"text": "the ducks swam to the bank", "sense": "water", "clue": "ducks"})
    p = tmp_path / "senses.json"
    p.write_text(json.dumps(d), encoding="utf-8")
    c = attention.load_sense_corpus(p)
    assert len(c.held_out) == len(raw()["held_out"]) + 1 and c.source == str(p)
    t = attention.train_qk(c, steps=3)
    assert t.held_out_loss.shape == (4,)
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match="not valid JSON"):
        attention.load_sense_corpus(bad)


# ---------------------------------------------------------------------------
# plain data for the page
# ---------------------------------------------------------------------------

def test_plain_path_is_small_json_and_the_browser_can_recompute_every_row(path):
    plain = path.to_plain()
    text = json.dumps(plain)
    assert len(text) < 300_000
    assert json.loads(text) == plain
    steps = plain["frame_steps"]
    assert steps[0] == 0 and steps[-1] == path.steps and steps == sorted(set(steps))
    assert len(plain["loss"]) == len(plain["held_out_accuracy"]) == path.steps + 1
    assert len(plain["w_q"]) == len(steps)
    vp = np.array(plain["value_projection"])
    for s in plain["sentences"]:
        x = np.array(s["x"])
        np.testing.assert_array_equal(x, attention.encode(s["tokens"])[0])
        assert s["tokens"][s["index"]] == "bank"
        np.testing.assert_allclose(np.array(s["value_xy"]), x @ vp, rtol=0, atol=1e-15)
        for f in range(len(steps)):
            q = x[s["index"]] @ np.array(plain["w_q"][f])
            k = x @ np.array(plain["w_k"][f])
            a = attention.softmax(k @ q / math.sqrt(plain["d_k"]))
            np.testing.assert_allclose(s["weights"][f], a, rtol=0, atol=1e-12)
            np.testing.assert_allclose(s["point"][f], a @ x @ vp, rtol=0, atol=1e-12)


def test_frames_are_spread_evenly(path):
    f = path.frames(51)
    assert f[0] == 0 and f[-1] == path.steps and len(f) == 51
    assert np.ptp(np.diff(f)) <= 1
    assert list(attention.train_qk(steps=4).frames(51)) == [0, 1, 2, 3, 4]


# ---------------------------------------------------------------------------
# what was learned
# ---------------------------------------------------------------------------

def test_learned_words_moves_attention_from_grammar_and_people_to_clues(corpus, path):
    lw = attention.learned_words(path)
    by = {w.word: w for w in lw.words}
    assert set(by) == {t for s in corpus.sentences for t in s.tokens}
    for w in ("the", "of", "to", "fisherman", "clerk", "manager", "bank"):
        assert by[w].after < by[w].before / 10, w
    for w in {s.clue for s in corpus.sentences}:
        assert by[w].after > 2 * by[w].before, w
    assert lw.words[0].after > 0.9
    assert [w.after for w in lw.words] == sorted((w.after for w in lw.words), reverse=True)
    before = np.array(list(lw.preference_before.values()))
    after = lw.preference_after
    assert np.max(np.abs(before)) < 0.2
    assert after["water / nature"] > 2 and after["money / finance"] > 2
    assert after["person / agent"] < -2 and after["function word"] < -2 and after["ambiguity"] < -2


def test_learned_preference_is_the_query_key_product(path):
    lw = attention.learned_words(path)
    x = attention.encode(["bank", "river"])[0]
    score = (x[0] @ path.w_q[-1]) @ (x[1] @ path.w_k[-1]) / math.sqrt(2)
    by_dims = sum(lw.preference_after[d] * v for d, v in zip(MODEL.dims, x[1]))
    assert score == pytest.approx(by_dims, rel=1e-12)


def test_summary_is_plain_words(path):
    text = attention.learned_words(path).summary()
    lw = attention.learned_words(path)
    assert lw.words[0].word in text and "the" in text and "person / agent (\u2212" in text
    assert not re.search(r"\d[eE][+-]?\d|\bnan\b|\binf\b", text)     # no exponent notation, no nan
    # "almost evenly ... within k % of an equal share" is true of every untrained row
    k = int(re.search(r"within (\d+) % of an equal share", text).group(1))
    worst = max(np.max(np.abs(path.readout(s, 0).weights * len(s.tokens) - 1)) for s in path.corpus.sentences)
    assert worst <= k / 100 and worst == pytest.approx(lw.spread_before, abs=1e-12)
    held = attention.learned_words(path, split="held_out")
    assert held.sentences == len(path.corpus.held_out)


# ---------------------------------------------------------------------------
# bad arguments
# ---------------------------------------------------------------------------

def test_bad_arguments_are_refused_by_name(corpus, path):
    wq, wk = path.w_q[0], path.w_k[0]
    cases = [
        (lambda: attention.train_qk(corpus, learning_rate=0), "learning_rate must be a positive"),
        (lambda: attention.train_qk(corpus, steps=-1), "steps must be a whole number"),
        (lambda: attention.train_qk(corpus, steps=2.5), "steps must be a whole number"),
        (lambda: attention.train_qk(corpus, steps=True), "steps must be a whole number"),
        (lambda: attention.train_qk(corpus, seed=-1), "seed must be a whole number"),
        (lambda: attention.train_qk(corpus, init_scale=float("nan")), "init_scale must be a positive"),
        (lambda: attention.train_qk("senses.json"), "corpus must be a SenseCorpus"),
        (lambda: attention.qk_loss_and_grad(wq[:9], wk, corpus.train), r"W_Q must be a 10 x 2 matrix"),
        (lambda: attention.qk_loss_and_grad(wq, wk * np.nan, corpus.train), "W_K must contain only finite"),
        (lambda: attention.qk_loss_and_grad(wq, wk, []), "sentences must be a non-empty list"),
        (lambda: attention.qk_loss_and_grad(wq, wk, ["the bank"]), "sentences must be a non-empty list"),
        (lambda: attention.sense_readout("the river", wq, wk), "exactly once, found it 0 times"),
        (lambda: attention.learned_words(path, split="test"), "split must be one of"),
        (lambda: attention.learned_words("path"), "trajectory must be a QKTrajectory"),
        (lambda: path.frames(1), "count must be a whole number >= 2"),
        (lambda: attention.learned_words(path).summary(top=0), "top must be a whole number"),
    ]
    for call, message in cases:
        with pytest.raises(ValueError, match=message):
            call()


def test_gradient_accepts_a_single_sentence(corpus):
    wq, wk = attention.untrained_projections()
    one = attention.qk_loss_and_grad(wq, wk, corpus.train[0])
    many = attention.qk_loss_and_grad(wq, wk, [corpus.train[0]])
    assert one[0] == many[0] and np.array_equal(one[1], many[1])


def test_parsing_the_shipped_file_gives_the_loaded_corpus():
    d = raw()
    assert learn_qk.parse_sense_corpus(copy.deepcopy(d)) == attention.load_sense_corpus()
    assert attention.load_sense_corpus() is attention.load_sense_corpus()


# ---------------------------------------------------------------------------
# what bank's query and a key word share
# ---------------------------------------------------------------------------

def test_shared_columns_add_up_to_the_score_and_name_the_hand_made_heads_columns(path):
    x = attention.encode(["bank", "river"])[0]
    for wq, wk in ((path.w_q[-1], path.w_k[-1]), (path.w_q[40], path.w_k[40]), (MEANING.w_q, MEANING.w_k)):
        cols = learn_qk.shared_columns(wq, wk, "bank", "river")
        score = (x[0] @ wq) @ (x[1] @ wk) / math.sqrt(MODEL.d_k)
        assert sum(c.score for c in cols) == pytest.approx(score, rel=1e-12)
        assert [c.query for c in cols] == pytest.approx(list(x[0] @ wq), rel=1e-12)
        assert [c.key for c in cols] == pytest.approx(list(x[1] @ wk), rel=1e-12)
    # the hand-made meaning head: its columns are the "water clue" and the "money clue" (data/sentences.json)
    cols = learn_qk.shared_columns(MEANING.w_q, MEANING.w_k, "bank", "river")
    assert [c.looks_for for c in cols] == [("water / nature",), ("money / finance",)]
    assert list(MEANING.qk_columns) == ["water clue", "money clue"]


def test_shared_columns_do_not_depend_on_a_columns_sign(path):
    wq, wk = path.w_q[-1].copy(), path.w_k[-1].copy()
    flip = np.array([-1.0, 1.0])
    a = learn_qk.shared_columns(wq, wk, "bank", "loan")
    b = learn_qk.shared_columns(wq * flip, wk * flip, "bank", "loan")
    for c, d in zip(a, b):
        assert c.score == pytest.approx(d.score, rel=1e-12)
        assert (c.query_from, c.key_from, c.looks_for) == (d.query_from, d.key_from, d.looks_for)


def test_after_training_bank_and_river_share_a_column_of_clear_sense(path):
    """The words the page prints under "What the steps taught the head", derived from the trained W."""
    cols = learn_qk.shared_columns(path.w_q[-1], path.w_k[-1], "bank", "river")
    top = max(cols, key=lambda c: c.score)
    assert top.score > 2 and top.score > 5 * abs(sum(c.score for c in cols) - top.score)
    assert top.key_from == ("water / nature",) and "ambiguity" in top.query_from
    assert set(top.looks_for) == {"water / nature", "money / finance"}
    text = learn_qk.shared_summary(path.w_q[-1], path.w_k[-1], "bank", "river")
    assert text.startswith(f"Bank's query and river's key share column {top.column + 1} (")
    assert "river's key from water / nature." in text and not re.search(r"\d[eE][+-]?\d|-\d", text)
    # the score is stated with its factors, ÷ √d_k included: a student who checks the arithmetic finds it right
    said = re.search(r"\(([−\d.]+) and ([−\d.]+)\)\. Their product, ([\d.]+), divided by √(\d) \(a key has \4 "
                     r"numbers\), adds ([\d.]+) to bank's score for river\.", text)
    assert said, text
    num = lambda v: float(v.replace("\u2212", "-"))   # noqa: E731
    qv, kv, prod, dk, score = (num(g) for g in said.groups())
    assert int(dk) == path.w_q[-1].shape[1] and prod == round(top.query * top.key, 2)
    assert score == round(top.score, 2) and abs(prod / math.sqrt(dk) - score) <= 0.01
    assert learn_qk.shared_summary(path.w_q[0], path.w_k[0], "bank", "river").startswith(
        "Bank's query and river's key share no column yet")


def test_the_summary_comes_in_short_paragraphs(path):
    paras = attention.learned_words(path).paragraphs()
    assert len(paras) == 3 and all(len(p.split()) <= 60 for p in paras)
    assert " ".join(paras) == attention.learned_words(path).summary()


def test_the_figures_data_senses_md_gives_are_the_cores(corpus, path):
    """The table and the sentences under "What training gives" in data/senses.md."""
    md = data_path("senses.md").read_text(encoding="utf-8")
    assert "learning rate 0.5, 150 steps, seed 0" in md and path.learning_rate == 0.5
    for figure in (f"| {path.loss[0]:.3f} | {path.loss[-1]:.3f} |",
                   f"| {path.held_out_loss[0]:.3f} | {path.held_out_loss[-1]:.3f} |"):
        assert figure in md, figure
    w = path.clue_weights(corpus.held_out)
    assert f"| {w[0].min():.2f}, {np.median(w[0]):.2f} | {w[-1].min():.2f}, {np.median(w[-1]):.2f} |" in md
    first = lambda acc: int(np.argmax(acc > 0.5))   # noqa: E731
    assert first(path.train_accuracy) == first(path.held_out_accuracy) == 4 and "leaves 50 % at step 4" in md
    assert max(int(np.argmax(a == 1.0)) for a in (path.train_accuracy, path.held_out_accuracy)) <= 18
    s = next(s for s in corpus.held_out if s.text == "the bank by the river")
    assert f"*river* {path.readout(s).weights[s.clue_index]:.3f}" in md.replace("\n", " ")
