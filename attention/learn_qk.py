"""Watch the projections learn: W_Q and W_K trained to tell the two senses of "bank" apart.

The self-attention section's heads are made by hand.  Here the meaning head's
query and key projections are *learned* from a task, the way a transformer
gets its kernel: the sense of "bank" (water or money) has to be read from its
context, in the sentences of ``data/senses.json``.

The model is one head of the page's toy model (``data/sentences.json``):

    X = encode(tokens)                 (n, d_model): word vector, then i, i^2, 1
    Q = X W_Q,  K = X W_K,  V = X W_V  (W_V is the meaning head's, and stays fixed)
    A = softmax(Q K^T / sqrt(d_k)),    out = A V.

Only W_Q and W_K are learned; the values stay the words' own positions in the
sense plane.  So training changes *where bank looks*, never what the words
carry: the kernel is learned, the kernel regression is the same.

**Readout: what attention adds over an even spread.**  Let b be the index of
"bank", n the sentence's length and a = A[b] bank's row of weights.  Its output
lands in the sense plane at

    point = out_b P = sum_j a_j (x_j W_V P),

where P is the sense plane's value projection (so x_j W_V P is word j's
(water, money) pair).  An even spread, a_j = 1/n, would land at the sentence's
plain average, ``even`` = (1/n) sum_j x_j W_V P.  The sense number measures how
far attention moved the output from there, towards water (x) and away from
money (y):

    z = (point - even)_x - (point - even)_y = sum_j (a_j - 1/n) u_j = sum_j a_j (u_j - u_mean),

with u_j = water_j - money_j and u_mean its mean over the sentence (the last
form holds because the a_j sum to 1).  Why not the point itself?  The plain
average of a sentence already leans to its sense (most of its words are on
the sense's side), so a head that had learned nothing, spreading its weight
evenly, would read as right on most sentences.  Measured from the even
spread, z is exactly 0 when bank weighs every word alike: the untrained head
is *undecided*, and only what its learned attention adds can make it right.

z > 0 says water, z < 0 says money.  A sentence with |z| <= ``UNDECIDED_WITHIN``
= 0.01 is *undecided* (a tie: the seeded start is not exactly even, and its
leftover |z| is under 0.006 on every sentence of the shipped data); the
accuracy counts an undecided sentence as half right, as a coin toss would
score.  The probability of "water" is sigma(beta z) with a fixed readout
scale beta = ``READOUT_SCALE`` = 4, so an undecided sentence has it within one
point of 50 %.

**Loss.**  For sentences s with labels y_s = +1 (water) or -1 (money),

    L = (1/S) sum_s log(1 + exp(-y_s beta z_s))          (logistic loss)

**Gradient** (the same identity as in ``attention.learn``: differentiate
through the scores).  Write s_j = q_b . k_j / sqrt(d_k) for bank's scores.

* dL/dz_s = -(1/S) y_s beta sigma(-y_s beta z_s);
* with the centred values c_j = u_j - u_mean (z_s = sum_j a_sj c_sj), the
  softmax gives dz_s/ds_j = a_j (c_j - z_s), so
  G_sj = dL/ds_sj = (dL/dz_s) a_sj (c_sj - z_s),  and sum_j G_sj = 0;
* ds_j/dW_Q = x_b^T k_j / sqrt(d_k) and ds_j/dW_K = x_j^T q_b / sqrt(d_k)
  (outer products, d_model x d_k), hence

      dL/dW_Q = sum_s x_sb^T (sum_j G_sj k_sj) / sqrt(d_k),
      dL/dW_K = sum_s (sum_j G_sj x_sj)^T q_sb / sqrt(d_k).

Only bank's row of A reaches the loss, so the other rows need no gradient.

**Training.**  Plain gradient descent from small seeded random values (bank
then spreads its attention almost evenly), W <- W - eta dL/dW with eta = 0.5
(the answers turn over steps 4 to 18, slowly enough for the page to show it),
on the rows of W_Q and W_K that read the word vector.  The rows that read position (i, i^2
and the constant 1) stay 0, as in the hand-made meaning head: the head may
look at meaning only.  Two reasons: i^2 reaches 81 in a ten-word sentence,
so a learning rate small enough for the position rows barely moves the word
rows, and a larger one makes the loss go up again and again (``data/senses.md``
gives the figures); and a head that sees position could learn where the clue
sat in the training sentences instead of what it means.  The gradient above
is still the full one (every row).

A step that would raise the training loss is retried with half the step,
up to ``MAX_HALVINGS`` times, so the training loss never goes up from one step
to the next.  With the shipped data and defaults no step is ever halved: it
is plain gradient descent (``tests/core/test_learn_qk.py`` checks both).

This module imports numpy and the standard library only.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from . import _checks
from .datasets import data_path
from .kernels import softmax
from .sentences import SentenceModel, encode, load_sentence_model, tokenize

FORMAT = "attention-explorable senses 1"
SENSES = ("water", "money")            # the sense plane's x and y axes; y_s = +1 and -1
READOUT_SCALE = 4.0                    # beta: P(water) = sigma(beta z)
UNDECIDED_WITHIN = 0.01                # |z| up to this: undecided, half right (see the module docstring)
DEFAULT_QK_LEARNING_RATE = 0.5         # shipped data: loss falls at every step, no step halved
FEATURE_SHARE = 0.5                    # a meaning counts in a column's words when it adds this much to a score
DEFAULT_QK_STEPS = 150
DEFAULT_QK_INIT_SCALE = 0.1            # entries of the untrained W_Q, W_K: normal, this standard deviation
DEFAULT_QK_SEED = 0
DEFAULT_FRAMES = 51                    # states kept for the page's playback (steps 0, 3, 6, ... 150)
MAX_QK_STEPS = 10000
MAX_HALVINGS = 30


# --------------------------------------------------------------------------- the corpus

@dataclass(frozen=True)
class SenseSentence:
    """One sentence of the task: its tokens, the sense of the word and the deciding context word.

    ``index`` is the position of the ambiguous word, ``clue_index`` the first
    position of ``clue``; ``split`` is "train" or "held_out".
    """

    text: str
    tokens: tuple[str, ...]
    sense: str
    clue: str
    show: bool
    split: str
    index: int
    clue_index: int

    @property
    def label(self) -> int:
        """+1 for water, -1 for money."""
        return 1 if self.sense == SENSES[0] else -1


@dataclass(frozen=True)
class SenseCorpus:
    """The sentences of ``data/senses.json``: a training set and a held-out set that is never trained on."""

    word: str
    train: tuple[SenseSentence, ...]
    held_out: tuple[SenseSentence, ...]
    source: str = field(default="", compare=False)

    @property
    def sentences(self) -> tuple[SenseSentence, ...]:
        return self.train + self.held_out

    @property
    def shown(self) -> tuple[SenseSentence, ...]:
        """The sentences marked ``"show": true`` (the held-out set when none is marked)."""
        marked = tuple(s for s in self.sentences if s.show)
        return marked or self.held_out


def _parse_sentence(where, item, split, word, vocab) -> SenseSentence:
    if not isinstance(item, dict):
        raise ValueError(f"{where} must be an object with 'text', 'sense' and 'clue'")
    text = item.get("text")
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{where}.text must be a non-empty string, got {text!r}")
    try:
        tokens = tuple(tokenize(text))
    except ValueError as e:
        raise ValueError(f"{where}.text {text!r}: {e}") from None
    unknown = [t for t in tokens if t not in vocab]
    if unknown:
        raise ValueError(f"{where}.text {text!r} uses words that are not in the toy vocabulary "
                         f"(their vectors would carry no meaning): {', '.join(map(repr, unknown))}")
    if tokens.count(word) != 1:
        raise ValueError(f"{where}.text {text!r} must contain the word {word!r} exactly once, "
                         f"found it {tokens.count(word)} times")
    sense = item.get("sense")
    if sense not in SENSES:
        raise ValueError(f"{where}.sense must be one of {', '.join(map(repr, SENSES))}, got {sense!r}")
    clue = item.get("clue")
    if not isinstance(clue, str) or clue not in tokens or clue == word:
        raise ValueError(f"{where}.clue must be a word of {text!r} other than {word!r}, got {clue!r}")
    show = item.get("show", False)
    if not isinstance(show, bool):
        raise ValueError(f"{where}.show must be true or false, got {show!r}")
    return SenseSentence(text=text, tokens=tokens, sense=sense, clue=clue, show=show, split=split,
                         index=tokens.index(word), clue_index=tokens.index(clue))


def parse_sense_corpus(d: dict, *, model: SentenceModel | None = None, source: str = "") -> SenseCorpus:
    """Check a parsed ``senses.json`` and build a ``SenseCorpus``.

    Refused, with a ``ValueError`` that names the field: a wrong format tag; a
    word that is not in the vocabulary; an empty ``train`` or ``held_out``; a
    sentence without the word (or with it twice), with a word the vocabulary
    does not know, with a sense other than "water" or "money", or whose clue is
    not one of its words; the same sentence twice (compared as tokens, so case
    and punctuation do not hide a repeat); a training set without both senses.

    Parameters
    ----------
    d : dict
        The file's JSON, parsed.
    model : SentenceModel, optional
        The toy model (default: ``load_sentence_model()``).
    source : str, default ""
        Where the corpus came from, kept in the result.

    Returns
    -------
    corpus : SenseCorpus
    """
    m = load_sentence_model() if model is None else model
    if not isinstance(d, dict):
        raise ValueError("the sense corpus must be a JSON object")
    if d.get("format") != FORMAT:
        raise ValueError(f"format must be {FORMAT!r}, got {d.get('format')!r}")
    word = d.get("word")
    if not isinstance(word, str) or word not in m.vocab:
        raise ValueError(f"word must be a word of the toy vocabulary, got {word!r}")
    if "senses" in d and list(d["senses"]) != list(SENSES):
        raise ValueError(f"senses must be {list(SENSES)} (the sense plane's x and y axes), got {d['senses']!r}")
    seen: dict[tuple[str, ...], str] = {}
    parts = {}
    for split in ("train", "held_out"):
        items = d.get(split)
        if not isinstance(items, list) or not items:
            raise ValueError(f"{split} must be a non-empty list of sentences")
        out = []
        for i, item in enumerate(items):
            where = f"{split}[{i}]"
            s = _parse_sentence(where, item, split, word, m.vocab)
            if s.tokens in seen:
                raise ValueError(f"{where} {s.text!r} repeats {seen[s.tokens]}: every sentence must be different")
            seen[s.tokens] = where
            out.append(s)
        parts[split] = tuple(out)
    if {s.sense for s in parts["train"]} != set(SENSES):
        raise ValueError(f"train must hold sentences of both senses ({', '.join(SENSES)})")
    return SenseCorpus(word=word, train=parts["train"], held_out=parts["held_out"], source=source)


@lru_cache(maxsize=8)
def _load(path: str | None) -> SenseCorpus:
    p = data_path("senses.json") if path is None else Path(path)
    try:
        d = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path or 'senses.json'} is not valid JSON: {e}") from None
    return parse_sense_corpus(d, source=str(p))


def load_sense_corpus(path: str | Path | None = None) -> SenseCorpus:
    """The task's sentences: the shipped ``data/senses.json`` or another file (checked, cached).

    Parameters
    ----------
    path : str or Path, optional
        A corpus file in the format of ``data/senses.json`` (default: that file).

    Returns
    -------
    corpus : SenseCorpus
    """
    return _load(None if path is None else str(path))


# --------------------------------------------------------------------------- the model

@dataclass(frozen=True)
class _Batch:
    """Sentences padded to one length: X (S, n, d), mask (S, n), word index b (S,), label y (S,),
    value points xy (S, n, 2), the even spread's point ``even`` (S, 2) (the mean of a sentence's points) and
    the centred sense values u = (water - money) - their sentence's mean (S, n); padding has x = 0, u = 0."""

    x: np.ndarray
    mask: np.ndarray
    b: np.ndarray
    y: np.ndarray
    xy: np.ndarray
    even: np.ndarray
    u: np.ndarray


def _value_projection(m: SentenceModel) -> np.ndarray:
    """(d_model, 2): x -> x W_V P, a token's point in the sense plane (the meaning head's W_V)."""
    sp = m.sense_plane
    return m.heads[sp.head].w_v @ sp.value_projection


def _padded(token_lists, indices, labels, m: SentenceModel) -> _Batch:
    xs = [encode(list(t), model=m)[0] for t in token_lists]
    n = max(x.shape[0] for x in xs)
    x = np.zeros((len(xs), n, m.d_model))
    mask = np.zeros((len(xs), n), dtype=bool)
    for i, xi in enumerate(xs):
        x[i, :xi.shape[0]] = xi
        mask[i, :xi.shape[0]] = True
    xy = x @ _value_projection(m)
    even = xy.sum(axis=1) / mask.sum(axis=1)[:, None]
    u = np.where(mask, (xy[..., 0] - xy[..., 1]) - (even[:, 0] - even[:, 1])[:, None], 0.0)
    return _Batch(x=x, mask=mask, b=np.array(indices), y=np.array(labels, dtype=float), xy=xy, even=even, u=u)


def _batch(sentences, m: SentenceModel) -> _Batch:
    return _padded([s.tokens for s in sentences], [s.index for s in sentences], [s.label for s in sentences], m)


def _bank_rows(bt: _Batch, w_q, w_k):
    """(a, q, K): bank's weights a (S, n), its query q (S, d_k) and the keys K (S, n, d_k)."""
    q = bt.x[np.arange(bt.x.shape[0]), bt.b] @ w_q
    k = bt.x @ w_k
    s = np.einsum("se,sne->sn", q, k) * (1.0 / math.sqrt(w_q.shape[1]))
    a = softmax(s, axis=1, mask=bt.mask, out=s)      # padding gets weight 0
    return a, q, k


def _loss(bt: _Batch, z) -> float:
    return float(np.mean(np.logaddexp(0.0, -bt.y * READOUT_SCALE * z)))


def undecided(z) -> np.ndarray:
    """Whether each sense number is a tie: |z| <= UNDECIDED_WITHIN.

    Parameters
    ----------
    z : float or array-like
        Sense numbers z.

    Returns
    -------
    tie : ndarray of bool, the shape of ``z``
    """
    return np.abs(np.asarray(z, dtype=float)) <= UNDECIDED_WITHIN


def _scores(bt: _Batch, z) -> np.ndarray:
    """Per sentence: 1 right, 0 wrong, 1/2 undecided."""
    return np.where(undecided(z), 0.5, (np.sign(z) == bt.y).astype(float))


def _eval(bt: _Batch, w_q, w_k, grad=True):
    """(loss, accuracy, undecided count, dL/dW_Q, dL/dW_K); see the module docstring for the formulas."""
    a, q, k = _bank_rows(bt, w_q, w_k)
    z = np.einsum("sn,sn->s", a, bt.u)
    loss, acc, ties = _loss(bt, z), float(np.mean(_scores(bt, z))), int(np.sum(undecided(z)))
    if not grad:
        return loss, acc, ties, None, None
    S, c = bt.x.shape[0], math.sqrt(w_q.shape[1])
    margin = bt.y * READOUT_SCALE * z
    dz = -bt.y * READOUT_SCALE * np.exp(-np.logaddexp(0.0, margin)) / S   # -(1/S) y beta sigma(-y beta z)
    g = dz[:, None] * a * (bt.u - z[:, None])                             # G_sj, rows sum to 0
    xb = bt.x[np.arange(S), bt.b]
    d_wq = xb.T @ np.einsum("sn,sne->se", g, k) / c
    d_wk = np.einsum("sn,snd->sd", g, bt.x).T @ q / c
    return loss, acc, ties, d_wq, d_wk


def _projections(w_q, w_k, m: SentenceModel):
    shape = (m.d_model, m.d_k)
    out = []
    for name, w in (("W_Q", w_q), ("W_K", w_k)):
        a = _checks.finite_array(name, w, min_ndim=2, max_ndim=2)
        if a.shape != shape:
            raise ValueError(f"{name} must be a {shape[0]} x {shape[1]} matrix (d_model x d_k), got shape {a.shape}")
        out.append(a)
    return out


def _sentences(sentences) -> list[SenseSentence]:
    if isinstance(sentences, SenseSentence):
        sentences = [sentences]
    try:
        items = list(sentences)
    except TypeError:
        items = None
    if not items or not all(isinstance(s, SenseSentence) for s in items):
        raise ValueError("sentences must be a non-empty list of SenseSentence (e.g. load_sense_corpus().train)")
    return items


def qk_loss_and_grad(w_q, w_k, sentences, *,
                     model: SentenceModel | None = None) -> tuple[float, np.ndarray, np.ndarray]:
    """The task's loss and its gradient with respect to W_Q and W_K.

        L = (1/S) sum_s log(1 + exp(-y_s beta z_s)),   z_s = sum_j a_sj c_sj,
        c_sj = (water_sj - money_sj) - (their mean over sentence s),
        dL/dW_Q = sum_s x_sb^T (sum_j G_sj k_sj) / sqrt(d_k),
        dL/dW_K = sum_s (sum_j G_sj x_sj)^T q_sb / sqrt(d_k),
        G_sj = dL/ds_sj = -(1/S) y_s beta sigma(-y_s beta z_s) a_sj (c_sj - z_s).

    Parameters
    ----------
    w_q, w_k : array-like of shape (d_model, d_k)
        The projections (10 x 2 for the shipped model).
    sentences : list of SenseSentence
        The S sentences, e.g. ``load_sense_corpus().train``.
    model : SentenceModel, optional
        The toy model (default: ``load_sentence_model()``); its meaning head's W_V is used.

    Returns
    -------
    loss : float
        L.
    grad_q, grad_k : ndarray of shape (d_model, d_k)
        dL/dW_Q and dL/dW_K; they cover every row, position rows included.
    """
    m = load_sentence_model() if model is None else model
    wq, wk = _projections(w_q, w_k, m)
    loss, _, _, gq, gk = _eval(_batch(_sentences(sentences), m), wq, wk)
    return loss, gq, gk


@dataclass(frozen=True)
class SenseReadout:
    """Bank's attention in one sentence and where its output lands.

    ``weights`` (n,) is bank's row of A; ``value_xy`` (n, 2) each word's point in
    the sense plane; ``point`` = weights @ value_xy; ``even`` = the mean of
    value_xy (where an even spread lands); ``z`` = (point - even)_x - (point -
    even)_y; ``p_water`` = sigma(beta z); ``sense`` is "water", "money" or
    "undecided" (|z| <= UNDECIDED_WITHIN).
    """

    tokens: tuple[str, ...]
    index: int
    weights: np.ndarray
    value_xy: np.ndarray
    point: np.ndarray
    even: np.ndarray
    z: float
    p_water: float
    sense: str


def sense_readout(text: str, w_q, w_k, *, word: str = "bank", model: SentenceModel | None = None) -> SenseReadout:
    """Run the head on one sentence and read the sense of ``word`` from its output (see the module docstring).

    The word must occur exactly once.  Words missing from the vocabulary get
    the made-up vectors of ``attention.word_vector``.

    Parameters
    ----------
    text : str
        The sentence.
    w_q, w_k : array-like of shape (d_model, d_k)
        The projections.
    word : str, default "bank"
        The ambiguous word.
    model : SentenceModel, optional
        The toy model (default: ``load_sentence_model()``).

    Returns
    -------
    readout : SenseReadout
        The word's weights, where its output lands in the sense plane, z and the sense.
    """
    m = load_sentence_model() if model is None else model
    wq, wk = _projections(w_q, w_k, m)
    tokens = tuple(tokenize(text))
    if tokens.count(word) != 1:
        raise ValueError(f"text must contain the word {word!r} exactly once, found it {tokens.count(word)} times")
    b = tokens.index(word)
    bt = _padded([tokens], [b], [0.0], m)
    a = _bank_rows(bt, wq, wk)[0][0]
    xy, even = bt.xy[0], bt.even[0]
    point = a @ xy
    z = float(a @ bt.u[0])
    sense = "undecided" if undecided(z) else "water" if z > 0 else "money"
    return SenseReadout(tokens=tokens, index=b, weights=a, value_xy=xy, point=point, even=even, z=z,
                        p_water=1.0 / (1.0 + math.exp(-READOUT_SCALE * z)), sense=sense)


# --------------------------------------------------------------------------- training

@dataclass(frozen=True)
class QKTrajectory:
    """The path of gradient descent on W_Q and W_K, one entry per step (entry 0: untrained).

    ``w_q``, ``w_k``: (steps + 1, d_model, d_k).  ``loss`` and
    ``train_accuracy`` are on the training sentences, ``held_out_loss`` and
    ``held_out_accuracy`` on the held-out ones (never trained on), all at each
    entry's W.  An accuracy counts an undecided sentence as half right;
    ``train_undecided`` and ``held_out_undecided`` count those sentences.
    ``step_size`` is the step that led to each entry (0 at entry 0; the
    learning rate unless the step was halved).
    """

    step: np.ndarray
    w_q: np.ndarray
    w_k: np.ndarray
    loss: np.ndarray
    train_accuracy: np.ndarray
    held_out_loss: np.ndarray
    held_out_accuracy: np.ndarray
    train_undecided: np.ndarray
    held_out_undecided: np.ndarray
    step_size: np.ndarray
    learning_rate: float
    seed: int
    init_scale: float
    trained_rows: tuple[str, ...]
    corpus: SenseCorpus = field(repr=False, compare=False)
    model: SentenceModel = field(repr=False, compare=False)

    @property
    def steps(self) -> int:
        return int(self.step[-1])

    def frames(self, count: int = DEFAULT_FRAMES) -> np.ndarray:
        """``count`` entry numbers spread evenly from 0 to the last step (both included)."""
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 2:
            raise ValueError(f"count must be a whole number >= 2, got {count!r}")
        return np.unique(np.round(np.linspace(0, self.steps, min(int(count), self.steps + 1))).astype(int))

    def readout(self, sentence: SenseSentence | str, entry: int = -1) -> SenseReadout:
        """``sense_readout`` of a sentence with the projections of one entry (default: the last)."""
        text = sentence.text if isinstance(sentence, SenseSentence) else sentence
        return sense_readout(text, self.w_q[entry], self.w_k[entry], word=self.corpus.word, model=self.model)

    def clue_weights(self, sentences=None, entries=None) -> np.ndarray:
        """Bank's weight on each sentence's deciding word (its ``clue``, summed over the clue's occurrences):
        an (entries, sentences) array, at every entry (default) or the ones given, for ``sentences`` (default:
        the corpus's, training sentences first)."""
        sents = self.corpus.sentences if sentences is None else _sentences(sentences)
        idx = self.step if entries is None else np.asarray(entries, dtype=int)
        bt = _batch(sents, self.model)
        is_clue = np.zeros(bt.mask.shape)
        for i, s in enumerate(sents):
            is_clue[i, :len(s.tokens)] = [t == s.clue for t in s.tokens]
        return np.array([np.sum(_bank_rows(bt, self.w_q[e], self.w_k[e])[0] * is_clue, axis=1) for e in idx])

    def to_plain(self, frames: int = DEFAULT_FRAMES) -> dict:
        """JSON-ready data (lists and numbers only) for the page's playback.

        Per step (every step): ``loss``, ``train_accuracy``, ``held_out_loss``,
        ``held_out_accuracy``, ``train_undecided``, ``held_out_undecided``.  Per
        frame (``frames`` evenly spread steps, listed in ``frame_steps``):
        ``w_q`` and ``w_k`` (d_model x d_k).  Per shown sentence: its tokens,
        ``x`` = encode(tokens), ``value_xy`` = x ``value_projection`` and, per
        frame, bank's row ``weights``, its output ``point`` and its weight on the
        deciding word, ``clue_weight``.  The browser can recompute every row:
        a = softmax((x_b W_Q)(X W_K)^T / sqrt(d_k)), point = a value_xy.
        """
        idx = self.frames(frames)
        m, sents = self.model, self.corpus.shown
        bt = _batch(sents, m)
        a = np.stack([_bank_rows(bt, self.w_q[i], self.w_k[i])[0] for i in idx])     # (frames, S, n)
        points = np.einsum("fsn,snc->fsc", a, bt.xy)
        clue = self.clue_weights(sents, idx)
        shown = []
        for j, s in enumerate(sents):
            n = len(s.tokens)
            shown.append({"text": s.text, "tokens": list(s.tokens), "split": s.split, "sense": s.sense,
                          "clue": s.clue, "index": s.index, "x": bt.x[j, :n].tolist(),
                          "value_xy": bt.xy[j, :n].tolist(), "weights": a[:, j, :n].tolist(),
                          "point": points[:, j].tolist(), "clue_weight": clue[:, j].tolist()})
        return {
            "word": self.corpus.word, "senses": list(SENSES), "readout_scale": READOUT_SCALE,
            "undecided_within": UNDECIDED_WITHIN, "feature_share": FEATURE_SHARE,
            "d_k": m.d_k, "model_dims": list(m.model_dims), "trained_rows": list(self.trained_rows),
            "value_projection": _value_projection(m).tolist(),
            "learning_rate": self.learning_rate, "seed": self.seed, "init_scale": self.init_scale,
            "steps": self.steps, "train_size": len(self.corpus.train), "held_out_size": len(self.corpus.held_out),
            "loss": self.loss.tolist(), "train_accuracy": self.train_accuracy.tolist(),
            "held_out_loss": self.held_out_loss.tolist(), "held_out_accuracy": self.held_out_accuracy.tolist(),
            "train_undecided": self.train_undecided.tolist(), "held_out_undecided": self.held_out_undecided.tolist(),
            "frame_steps": idx.tolist(), "w_q": self.w_q[idx].tolist(), "w_k": self.w_k[idx].tolist(),
            "sentences": shown,
        }


def _whole(name, value, lo, hi):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise ValueError(f"{name} must be a whole number from {lo} to {hi}, got {value!r}")
    return int(value)


def untrained_projections(*, seed: int = DEFAULT_QK_SEED, init_scale: float = DEFAULT_QK_INIT_SCALE,
                          model: SentenceModel | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The seeded start: W_Q then W_K drawn from numpy's default_rng(seed).

    Entries are normal(0, init_scale) on the rows that read the word vector, 0 on
    the position rows.

    Parameters
    ----------
    seed : int, 0 <= seed < 2^32, default 0
        Seed of numpy's default_rng.
    init_scale : float > 0, default 0.1
        Standard deviation of the entries.
    model : SentenceModel, optional
        The toy model (default: ``load_sentence_model()``).

    Returns
    -------
    w_q, w_k : ndarray of shape (d_model, d_k)
    """
    m = load_sentence_model() if model is None else model
    sd = _whole("seed", seed, 0, 2 ** 32 - 1)
    sc = _checks.positive("init_scale", init_scale)
    rng = np.random.default_rng(sd)
    nw = len(m.dims)
    w = []
    for _ in range(2):
        a = np.zeros((m.d_model, m.d_k))
        a[:nw] = rng.normal(0.0, sc, (nw, m.d_k))
        w.append(a)
    return w[0], w[1]


def _descend(train: _Batch, w_q, w_k, state, rows, lr):
    """One step of ``train_qk`` from (w_q, w_k), whose ``_eval`` is ``state`` = (loss, accuracy, ties, g_q, g_k).

    The step size is the largest of lr, lr/2, ... (``MAX_HALVINGS`` halvings) that does not raise the training
    loss, applied to the rows marked in ``rows``; when none helps, no step is taken (size 0).  Returns the new
    w_q, w_k, their ``_eval`` and the step size.
    """
    t = lr
    for _ in range(MAX_HALVINGS + 1):
        nq, nk = w_q - t * rows * state[3], w_k - t * rows * state[4]
        trial = _eval(train, nq, nk)
        if trial[0] <= state[0]:
            return nq, nk, trial, t
        t *= 0.5
    return w_q, w_k, state, 0.0                     # no smaller step helps either: stay


def train_qk(corpus: SenseCorpus | None = None, *, learning_rate: float = DEFAULT_QK_LEARNING_RATE,
             steps: int = DEFAULT_QK_STEPS, seed: int = DEFAULT_QK_SEED, init_scale: float = DEFAULT_QK_INIT_SCALE,
             model: SentenceModel | None = None) -> QKTrajectory:
    """Gradient descent on W_Q and W_K from ``untrained_projections``, on the training sentences only.

        W_{k+1} = W_k - eta dL/dW (W_k)      on the word rows; position rows stay 0,

    with eta = ``learning_rate``, halved (up to ``MAX_HALVINGS`` times) for a
    step that would raise the training loss.  The defaults (eta = 0.5, 150
    steps, seed 0, init_scale 0.1) are the page's.

    Parameters
    ----------
    corpus : SenseCorpus, optional
        The sentences (default: ``load_sense_corpus()``).
    learning_rate : float > 0, default 0.5
        eta.
    steps : int, default 150
        Number of steps, from 0 to ``MAX_QK_STEPS``.
    seed, init_scale
        As in ``untrained_projections``.
    model : SentenceModel, optional
        The toy model (default: ``load_sentence_model()``).

    Returns
    -------
    trajectory : QKTrajectory
        Every step's W_Q, W_K, step size, training loss and accuracy, and held-out loss and accuracy.
    """
    m = load_sentence_model() if model is None else model
    c = load_sense_corpus() if corpus is None else corpus
    if not isinstance(c, SenseCorpus):
        raise ValueError(f"corpus must be a SenseCorpus (see load_sense_corpus), got {type(corpus).__name__}")
    lr = _checks.positive("learning_rate", learning_rate)
    n_steps = _whole("steps", steps, 0, MAX_QK_STEPS)
    w_q, w_k = untrained_projections(seed=seed, init_scale=init_scale, model=m)
    train, held = _batch(c.train, m), _batch(c.held_out, m)
    rows = np.zeros((m.d_model, 1))
    rows[:len(m.dims)] = 1.0                        # which rows learn: the word rows
    state = _eval(train, w_q, w_k)
    wqs, wks, states, sizes = [w_q], [w_k], [state], [0.0]
    for _ in range(n_steps):  # a loop over training steps
        w_q, w_k, state, t = _descend(train, w_q, w_k, state, rows, lr)
        wqs.append(w_q)
        wks.append(w_k)
        states.append(state)
        sizes.append(t)
    held_eval = [_eval(held, a, b, grad=False) for a, b in zip(wqs, wks)]
    return QKTrajectory(step=np.arange(len(wqs)), w_q=np.array(wqs), w_k=np.array(wks),
                        loss=np.array([e[0] for e in states]), train_accuracy=np.array([e[1] for e in states]),
                        held_out_loss=np.array([e[0] for e in held_eval]),
                        held_out_accuracy=np.array([e[1] for e in held_eval]),
                        train_undecided=np.array([e[2] for e in states]),
                        held_out_undecided=np.array([e[2] for e in held_eval]), step_size=np.array(sizes),
                        learning_rate=lr, seed=int(seed), init_scale=float(init_scale),
                        trained_rows=m.dims, corpus=c, model=m)


# --------------------------------------------------------------------------- what was learned

EVEN_SPREAD = 0.1   # untrained weights within 10 % of an equal share are "almost even" (LearnedWords.summary)


@dataclass(frozen=True)
class WordAttention:
    """How much of its attention the ambiguous word gives another word, before and after training.

    ``before`` and ``after`` are means, over the ``count`` sentences that hold
    ``word``, of the weight on it (summed over its occurrences in a sentence).
    """

    word: str
    count: int
    before: float
    after: float


@dataclass(frozen=True)
class LearnedWords:
    """Which words became "similar" to the ambiguous word for this task.

    ``words``: every word of the sentences, the one it attends to most after
    training first.  ``preference_before`` / ``preference_after``: for each
    meaning dimension, how much one unit of it in a key adds to the word's
    score, c = x_word W_Q W_K^T / sqrt(d_k) (the position rows of W_K are 0,
    so position adds nothing).  ``spread_before``: how far from an equal share
    the untrained weights stray, max over sentences and positions of
    |a_j * n - 1| (a_j: the weight on position j of a sentence of n words).
    """

    word: str
    sentences: int
    words: tuple[WordAttention, ...]
    preference_before: dict
    preference_after: dict
    spread_before: float = float("nan")

    def summary(self, top: int = 4) -> str:
        """A few plain sentences for the page: the words looked at most and least, and the learned rule
        (``paragraphs`` joined by spaces)."""
        return " ".join(self.paragraphs(top))

    def paragraphs(self, top: int = 4) -> tuple[str, ...]:
        """The summary in three short paragraphs: before training; after training, the words looked at most
        and least; the learned rule.

        "Least" lists the most frequent words that get under 0.01 after
        training (the lowest ``top`` words when none does).
        """
        if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
            raise ValueError(f"top must be a whole number >= 1, got {top!r}")
        ws = [w for w in self.words if w.word != self.word]
        own = next((w for w in self.words if w.word == self.word), None)
        most = _listing([f"{w.word} ({w.after:.2f})" for w in ws[:top]])
        tiny = sorted((w for w in ws if w.after < 0.01), key=lambda w: (-w.count, w.word))
        if self.spread_before <= EVEN_SPREAD:
            before = (f"Before training, {self.word} spreads its attention almost evenly: in every sentence each "
                      f"word gets within {max(1, round(100 * self.spread_before))} % of an equal share.")
        else:
            lo, hi = min(w.before for w in ws), max(w.before for w in ws)
            before = (f"Before training, {self.word} already weighs the words unequally: on average each word gets "
                      f"between {lo:.2f} and {hi:.2f} of its attention.")
        after = f"After training, it looks most at {most}"
        if tiny:
            after += f"; {_listing([w.word for w in tiny[:top]])} get almost nothing (under 0.01)"
        else:
            after += f", and least at {_listing([f'{w.word} ({w.after:.2f})' for w in ws[::-1][:top]])}"
        if own is not None:
            after += f"; on itself it puts {own.after:.2f} (before: {own.before:.2f})"
        after += f". These are averages over {self.sentences} sentences."
        out = [before, after]
        pref = sorted(self.preference_after.items(), key=lambda kv: -kv[1])
        up = [f"{k} ({_signed(v)})" for k, v in pref if v >= FEATURE_SHARE]
        down = [f"{k} ({_signed(v)})" for k, v in pref[::-1] if v <= -FEATURE_SHARE]
        if up or down:
            parts = ([f"rises with {_listing(up)}"] if up else []) + ([f"falls with {_listing(down)}"] if down else [])
            out.append(f"What it learned: a word's score {', and '.join(parts)}.")
        return tuple(out)


def _signed(v: float) -> str:
    """One decimal, always signed, with the typographic minus (as app/ui/text.py writes numbers)."""
    s = f"{v:+.1f}"
    return "\u2212" + s[1:] if s.startswith("-") else s


def _listing(items) -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


FROM_SHARE = 0.25   # a meaning puts a query's or key's value in a column when its term is this share of the value


@dataclass(frozen=True)
class SharedColumn:
    """Column j (from 0) of the queries and keys, between one query word and one key word.

    ``query`` = (x_word W_Q)_j and ``key`` = (x_other W_K)_j; ``score`` = query * key / sqrt(d_k), this column's
    part of the word's score for the other word (the columns' parts add up to the score).  ``query_from`` and
    ``key_from``: the meanings d whose terms x_d W[d, j] have the value's sign and at least ``FROM_SHARE`` of its
    size, largest first (what put the value there).  ``looks_for``: the meanings a key needs to score high in
    this column with the word's query, those with query * W_K[d, j] / sqrt(d_k) >= ``FEATURE_SHARE``, largest
    first (the page labels the column with them).  Sign-free: flipping a column of both W_Q and W_K changes
    ``query`` and ``key`` but none of the others.
    """

    column: int
    query: float
    key: float
    score: float
    query_from: tuple[str, ...]
    key_from: tuple[str, ...]
    looks_for: tuple[str, ...]


def _vector(word: str, m: SentenceModel) -> np.ndarray:
    return encode([word], model=m)[0][0]


def _from(x, w_col, value, names) -> tuple[str, ...]:
    terms = [(float(x[d] * w_col[d]), names[d]) for d in range(len(names))]
    keep = [(t, n) for t, n in terms if t * value > 0 and abs(t) >= FROM_SHARE * abs(value)]
    return tuple(n for _, n in sorted(keep, key=lambda tn: -abs(tn[0])))


def shared_columns(w_q, w_k, word: str, other: str, *,
                   model: SentenceModel | None = None) -> tuple[SharedColumn, ...]:
    """What ``word``'s query and ``other``'s key share, column by column (see ``SharedColumn``).

    Both words are read at position 0, so only their meaning counts (the
    position rows of the trained W_Q and W_K are 0).

    Parameters
    ----------
    w_q, w_k : array-like of shape (d_model, d_k)
        The projections.
    word : str
        The word whose query is read.
    other : str
        The word whose key is read.
    model : SentenceModel, optional
        The toy model (default: ``load_sentence_model()``).

    Returns
    -------
    columns : tuple of SharedColumn
        One per column of the projections.
    """
    m = load_sentence_model() if model is None else model
    wq, wk = _projections(w_q, w_k, m)
    xw, xo, names, c = _vector(word, m), _vector(other, m), m.dims, math.sqrt(wq.shape[1])
    q, k = xw @ wq, xo @ wk
    out = []
    for j in range(wq.shape[1]):
        pref = [(float(q[j] * wk[d, j] / c), names[d]) for d in range(len(names))]
        looks = tuple(n for v, n in sorted(pref, key=lambda vn: -vn[0]) if v >= FEATURE_SHARE)
        out.append(SharedColumn(column=j, query=float(q[j]), key=float(k[j]), score=float(q[j] * k[j] / c),
                                query_from=_from(xw, wq[:, j], q[j], names), key_from=_from(xo, wk[:, j], k[j], names),
                                looks_for=looks))
    return tuple(out)


def _two(v: float) -> str:
    """Two decimals and the typographic minus (as the page writes numbers)."""
    s = f"{v:.2f}"
    return "\u2212" + s[1:] if s.startswith("-") else s


def shared_summary(w_q, w_k, word: str, other: str, *, model: SentenceModel | None = None) -> str:
    """One or two plain sentences: which column ``word``'s query and ``other``'s key share, and why.

    The column is the one that adds most to the score; it is "shared" when it
    adds at least ``FEATURE_SHARE``.  What it adds is stated with its factors:
    q_j k_j, divided by sqrt(d_k).  The sentences name the meanings that put
    the query and the key there.

    Parameters
    ----------
    w_q, w_k, word, other, model
        As in ``shared_columns``.

    Returns
    -------
    text : str
    """
    cols = shared_columns(w_q, w_k, word, other, model=model)
    top = max(cols, key=lambda col: col.score)
    total = sum(col.score for col in cols)
    cap = word[:1].upper() + word[1:]
    if top.score < FEATURE_SHARE:
        return (f"{cap}'s query and {other}'s key share no column yet: together they add {_two(total)} to "
                f"{word}'s score for {other}.")
    dk = len(cols)
    text = (f"{cap}'s query and {other}'s key share column {top.column + 1} ({_two(top.query)} and "
            f"{_two(top.key)}). Their product, {_two(top.query * top.key)}, divided by \u221a{dk} (a key has {dk} "
            f"numbers), adds {_two(top.score)} to {word}'s score for {other}.")
    parts = ([f"{word}'s query gets there from {_listing(top.query_from)}"] if top.query_from else []) + \
            ([f"{other}'s key from {_listing(top.key_from)}"] if top.key_from else [])
    if parts:
        rest = "; ".join(parts)
        text += f" {rest[:1].upper()}{rest[1:]}."
    return text


def _preference(w_q, w_k, word, m: SentenceModel) -> dict:
    x = encode([word], model=m)[0][0]
    c = (x @ w_q) @ w_k.T / math.sqrt(w_q.shape[1])
    return {name: float(v) for name, v in zip(m.dims, c[:len(m.dims)])}


def learned_words(trajectory: QKTrajectory, *, split: str = "all") -> LearnedWords:
    """Which words the ambiguous word attends to after training, against before (entry 0).

    For every word w of the chosen sentences, the mean over the sentences that
    contain w of bank's total weight on w, with the untrained and the trained
    projections; sorted by the trained weight, largest first (ties:
    alphabetical).  Also the learned preference per meaning dimension (see
    ``LearnedWords``).

    Parameters
    ----------
    trajectory : QKTrajectory
        A training run, from ``train_qk``.
    split : {"all", "train", "held_out"}, default "all"
        The sentences read.

    Returns
    -------
    words : LearnedWords
    """
    if not isinstance(trajectory, QKTrajectory):
        raise ValueError(f"trajectory must be a QKTrajectory (see train_qk), got {type(trajectory).__name__}")
    c, m = trajectory.corpus, trajectory.model
    choices = {"all": c.sentences, "train": c.train, "held_out": c.held_out}
    if split not in choices:
        raise ValueError(f"split must be one of {', '.join(map(repr, choices))}, got {split!r}")
    sents = choices[split]
    bt = _batch(sents, m)
    totals: dict[str, list] = {}
    spread = 0.0
    for e, key in ((0, 0), (-1, 1)):
        a = _bank_rows(bt, trajectory.w_q[e], trajectory.w_k[e])[0]
        for s, row in zip(sents, a):
            if key == 0:
                spread = max(spread, float(np.max(np.abs(np.asarray(row)[:len(s.tokens)] * len(s.tokens) - 1))))
            per = {}
            for t, v in zip(s.tokens, row):
                per[t] = per.get(t, 0.0) + float(v)
            for t, v in per.items():
                totals.setdefault(t, [[], []])[key].append(v)
    words = [WordAttention(word=t, count=len(b), before=float(np.mean(b)), after=float(np.mean(a)))
             for t, (b, a) in totals.items()]
    words.sort(key=lambda w: (-w.after, w.word))
    return LearnedWords(word=c.word, sentences=len(sents), words=tuple(words),
                        preference_before=_preference(trajectory.w_q[0], trajectory.w_k[0], c.word, m),
                        preference_after=_preference(trajectory.w_q[-1], trajectory.w_k[-1], c.word, m),
                        spread_before=spread)


__all__ = [
    "SENSES", "READOUT_SCALE", "DEFAULT_QK_LEARNING_RATE", "DEFAULT_QK_STEPS", "SenseSentence", "SenseCorpus",
    "parse_sense_corpus", "load_sense_corpus", "qk_loss_and_grad", "SenseReadout", "sense_readout",
    "untrained_projections", "train_qk", "QKTrajectory", "WordAttention", "LearnedWords", "learned_words",
    "UNDECIDED_WITHIN", "FEATURE_SHARE", "undecided", "SharedColumn", "shared_columns", "shared_summary",
]
