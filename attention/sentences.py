"""Self-attention over a real sentence, with hand-made toy embeddings.

A sentence of n tokens becomes a matrix X (n x d_model): each row is the
token's word vector (a few named meaning dimensions, from
``data/sentences.json``) followed by features of its position i:

    x_i = [word_vector(token_i), i, i^2, 1].

Every head h has its own projections and gives one n x n attention matrix:

    Q_h = X W_Q^h,  K_h = X W_K^h,  V_h = X W_V^h,
    A_h = softmax(Q_h K_h^T / (sqrt(d_k) T))      (rows sum to 1; causal: j > i masked)
    out_h = A_h V_h                               (row i: weighted average of the values)
    output = concat_h(out_h) W_O.

Row i of A_h is one kernel-regression query: token i asks, every other token
answers with its key, and the answer is the weighted average of their values.

The "sense plane" is a fixed linear map P (d_v x 2) of a head's value space
onto two readable axes (water / nature, money / finance).  Because out_h[i]
is a convex combination of the rows of V_h, the point out_h[i] P lies inside
the convex hull of the points V_h[j] P: arrows from the values to the output
show exactly how the average is formed.

This module imports numpy and the standard library only.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

import numpy as np

from . import _checks, charclasses
from .datasets import data_path
from .selfattention import dot_product_attention

MAX_TOKENS = 32
MAX_HEADS = 4
FORMAT = "attention-explorable sentences 1"
SENSES = ("water", "money", "mixed")

# Position features the data file may list, by name: index i -> value.
POSITION_FEATURES = {
    "position": lambda i: i,
    "position squared": lambda i: i * i,
    "constant": lambda i: np.ones_like(i),
}


# --------------------------------------------------------------------------- tokens

def tokenize(text: str) -> list[str]:
    """Split a sentence into tokens, by fixed and predictable rules.

    1. The text is normalised with Unicode NFKC (so full-width letters become
       plain ones) and lowercased.
    2. Every punctuation, symbol, control or space character (Unicode
       categories P*, S*, C* and Z*: ``. , ! ? ' " - ( ) < > = $ ...``) is
       replaced by a space, so punctuation is dropped and also separates
       words: ``"river."`` -> ``river``, ``"don't"`` -> ``don``, ``t``.
    3. The text is split at the spaces.  Letters, marks and digits are kept.

    The categories, and the Cased and Case_Ignorable properties that decide
    a final sigma, are Unicode 14.0's whatever Python runs this: they come
    from the shipped table ``data/unicode_classes.json`` (attention.charclasses),
    which the browser reads too.  A code point that Unicode 14.0 does not
    assign becomes a space before step 1, so the tokens are the same on every
    supported Python.

    Raises ``ValueError`` when nothing is left ("sentence is empty ...") and
    when there are more than ``MAX_TOKENS`` (32) tokens; the message gives
    the count.  A long sentence is refused, never cut short.

    Parameters
    ----------
    text : str
        The sentence.

    Returns
    -------
    tokens : list of str
        1 to ``MAX_TOKENS`` lowercase tokens, in order.
    """
    if not isinstance(text, str):
        raise ValueError(f"sentence must be a string, got {type(text).__name__}")
    cleaned = charclasses.separators_to_spaces(charclasses.fold(text))
    tokens = [t for t in cleaned.split(" ") if t]
    if not tokens:
        raise ValueError("sentence is empty (no words left once punctuation is removed); type a few words")
    if len(tokens) > MAX_TOKENS:
        raise ValueError(f"sentence has {len(tokens)} tokens; at most {MAX_TOKENS} are allowed")
    return tokens


# --------------------------------------------------------------------------- model

@dataclass(frozen=True)
class Head:
    """One attention head: its projections (d_model x d_k, d_model x d_k, d_model x d_v)."""

    name: str
    description: str
    qk_columns: tuple[str, ...]
    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray


@dataclass(frozen=True)
class SensePlane:
    """The 2-D plane of the sense plot.

    A head's value or output vector v (length d_v) is drawn at ``v @ value_projection``;
    a combined output o (length d_out, after W_O) at ``o @ output_projection``.
    ``head`` is the index of the head the plot shows by default.
    """

    head: int
    head_name: str
    x_label: str
    y_label: str
    value_projection: np.ndarray   # (d_v, 2)
    output_projection: np.ndarray  # (d_out, 2)


@dataclass(frozen=True)
class Preset:
    """A ready-made sentence.  ``clue``: the word the meaning head should pick for
    "bank" (or None); ``sense``: where the output of "bank" should land
    ("water", "money", "mixed" or None)."""

    text: str
    note: str
    clue: str | None = None
    sense: str | None = None


@dataclass(frozen=True)
class SentenceModel:
    """Everything in ``data/sentences.json``, as read-only numpy arrays."""

    dims: tuple[str, ...]
    dim_meanings: tuple[str, ...]
    position_features: tuple[str, ...]
    position_meanings: tuple[str, ...]
    vocab: Mapping[str, np.ndarray]
    heads: tuple[Head, ...]
    value_columns: tuple[str, ...]
    output_columns: tuple[str, ...]
    w_o: np.ndarray                 # (heads * d_v, d_out)
    sense_plane: SensePlane
    presets: tuple[Preset, ...]
    unknown_scale: float
    source: str = field(default="", compare=False)

    @property
    def model_dims(self) -> tuple[str, ...]:
        """Names of the d_model columns of X: the meaning dims, then the position features."""
        return self.dims + self.position_features

    @property
    def d_model(self) -> int:
        return len(self.dims) + len(self.position_features)

    @property
    def d_k(self) -> int:
        return int(self.heads[0].w_q.shape[1])

    @property
    def d_v(self) -> int:
        return int(self.heads[0].w_v.shape[1])

    @property
    def head_names(self) -> tuple[str, ...]:
        return tuple(h.name for h in self.heads)

    @property
    def w_q(self) -> np.ndarray:
        """All heads' W_Q stacked: (heads, d_model, d_k)."""
        return np.stack([h.w_q for h in self.heads])

    @property
    def w_k(self) -> np.ndarray:
        """All heads' W_K stacked: (heads, d_model, d_k)."""
        return np.stack([h.w_k for h in self.heads])

    @property
    def w_v(self) -> np.ndarray:
        """All heads' W_V stacked: (heads, d_model, d_v)."""
        return np.stack([h.w_v for h in self.heads])


def _frozen(a) -> np.ndarray:
    a = np.array(a, dtype=float)
    a.setflags(write=False)
    return a


def _matrix(where: str, value, shape: tuple[int | None, int | None]) -> np.ndarray:
    want = " x ".join("?" if s is None else str(s) for s in shape)
    try:
        a = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{where} must be a {want} matrix: a list of rows of numbers, "
                         f"all rows the same length") from None
    if a.ndim != 2 or any(s is not None and got != s for got, s in zip(a.shape, shape)):
        raise ValueError(f"{where} must be a {want} matrix, got shape {a.shape}")
    if a.shape[1] == 0 or not np.all(np.isfinite(a)):
        raise ValueError(f"{where} must hold finite numbers and at least one column")
    return _frozen(a)


def _text(where: str, value, *, optional=False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where} must be a non-empty string, got {value!r}")
    return value


def _named_list(where: str, value) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if not isinstance(value, list) or not value:
        raise ValueError(f"{where} must be a non-empty list")
    names, meanings = [], []
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise ValueError(f"{where}[{i}] must be an object with 'name' and 'meaning'")
        names.append(_text(f"{where}[{i}].name", item.get("name")))
        meanings.append(_text(f"{where}[{i}].meaning", item.get("meaning")))
    if len(set(names)) != len(names):
        raise ValueError(f"{where} has repeated names: {names}")
    return tuple(names), tuple(meanings)


def _dims(d: dict) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The meaning dims and the position features: (dims, their meanings, feature names, their meanings)."""
    dims, dim_meanings = _named_list("dims", d.get("dims"))
    pos = d.get("position")
    if not isinstance(pos, dict):
        raise ValueError("position must be an object with a list of 'features'")
    pos_names, pos_meanings = _named_list("position.features", pos.get("features"))
    for name in pos_names:
        if name not in POSITION_FEATURES:
            raise ValueError(f"position.features: unknown feature {name!r}; "
                             f"known: {', '.join(map(repr, POSITION_FEATURES))}")
    if "model_dims" in d and list(d["model_dims"]) != list(dims + pos_names):
        raise ValueError("model_dims must list the dims' names followed by the position features' names")
    return dims, dim_meanings, pos_names, pos_meanings


def _vocab(vocab_in, n_dims: int) -> dict[str, np.ndarray]:
    """word -> its read-only meaning vector; every word a single lowercase token."""
    if not isinstance(vocab_in, dict) or not vocab_in:
        raise ValueError("vocab must be a non-empty object: word -> vector")
    vocab = {}
    for word, vec in vocab_in.items():
        try:
            ok = tokenize(word) == [word]
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"vocab word {word!r} is not a single lowercase token, so no sentence could use it")
        if not isinstance(vec, list) or len(vec) != n_dims:
            raise ValueError(f"vocab[{word!r}] must be a list of {n_dims} numbers (one per dim), got {vec!r}")
        vocab[word] = _matrix(f"vocab[{word!r}]", [vec], (1, n_dims))[0]
    return vocab


def _heads(heads_in, d_model: int) -> tuple[Head, ...]:
    """The heads, with W_Q, W_K and W_V of d_model rows; every head's d_k and d_v the first head's."""
    if not isinstance(heads_in, list) or not 1 <= len(heads_in) <= MAX_HEADS:
        raise ValueError(f"heads must be a list of 1 to {MAX_HEADS} heads")
    heads = []
    for i, h in enumerate(heads_in):
        if not isinstance(h, dict):
            raise ValueError(f"heads[{i}] must be an object")
        name = _text(f"heads[{i}].name", h.get("name"))
        first = heads[0] if heads else None
        w_q = _matrix(f"heads[{i}].w_q", h.get("w_q"), (d_model, first.w_q.shape[1] if first else None))
        w_k = _matrix(f"heads[{i}].w_k", h.get("w_k"), (d_model, w_q.shape[1]))
        w_v = _matrix(f"heads[{i}].w_v", h.get("w_v"), (d_model, first.w_v.shape[1] if first else None))
        cols = h.get("qk_columns", [f"q/k {c}" for c in range(w_q.shape[1])])
        if not isinstance(cols, list) or len(cols) != w_q.shape[1]:
            raise ValueError(f"heads[{i}].qk_columns must name the {w_q.shape[1]} columns of W_Q and W_K")
        heads.append(Head(name=name, description=_text(f"heads[{i}].description", h.get("description")),
                          qk_columns=tuple(map(str, cols)), w_q=w_q, w_k=w_k, w_v=w_v))
    names = [h.name for h in heads]
    if len(set(names)) != len(names):
        raise ValueError(f"head names must be different, got {names}")
    return tuple(heads)


def _outputs(d: dict, n_heads: int, d_v: int) -> tuple[list, np.ndarray, list]:
    """(value_columns, W_O, output_columns): names for W_V's columns, W_O (n_heads d_v x d_out), its columns."""
    value_columns = d.get("value_columns")
    if not isinstance(value_columns, list) or len(value_columns) != d_v:
        raise ValueError(f"value_columns must name the {d_v} columns of W_V")
    w_o = _matrix("w_o", d.get("w_o"), (n_heads * d_v, None))
    output_columns = d.get("output_columns")
    if not isinstance(output_columns, list) or len(output_columns) != w_o.shape[1]:
        raise ValueError(f"output_columns must name the {w_o.shape[1]} columns of W_O")
    return value_columns, w_o, output_columns


def _sense_plane(sp, names: list[str], d_v: int, d_out: int) -> SensePlane:
    """The sense plane: a head named in ``names``, two labels and the (d_v, 2) and (d_out, 2) projections."""
    if not isinstance(sp, dict):
        raise ValueError("sense_plane must be an object")
    if sp.get("head") not in names:
        raise ValueError(f"sense_plane.head must be one of {names}, got {sp.get('head')!r}")
    return SensePlane(head=names.index(sp["head"]), head_name=sp["head"],
                      x_label=_text("sense_plane.x_label", sp.get("x_label")),
                      y_label=_text("sense_plane.y_label", sp.get("y_label")),
                      value_projection=_matrix("sense_plane.value_projection", sp.get("value_projection"), (d_v, 2)),
                      output_projection=_matrix("sense_plane.output_projection", sp.get("output_projection"),
                                                (d_out, 2)))


def _presets(presets_in) -> tuple[Preset, ...]:
    """The preset sentences, each with an optional clue (one of its tokens) and sense."""
    if not isinstance(presets_in, list) or not presets_in:
        raise ValueError("presets must be a non-empty list")
    presets = []
    for i, p in enumerate(presets_in):
        if not isinstance(p, dict):
            raise ValueError(f"presets[{i}] must be an object")
        text = _text(f"presets[{i}].text", p.get("text"))
        tokens = tokenize(text)
        clue = _text(f"presets[{i}].clue", p.get("clue"), optional=True)
        if clue is not None and clue not in tokens:
            raise ValueError(f"presets[{i}].clue {clue!r} is not a token of {text!r}")
        sense = p.get("sense")
        if sense is not None and sense not in SENSES:
            raise ValueError(f"presets[{i}].sense must be one of {SENSES} or null, got {sense!r}")
        presets.append(Preset(text=text, note=_text(f"presets[{i}].note", p.get("note")), clue=clue, sense=sense))
    return tuple(presets)


def parse_sentence_model(d: dict, source: str = "") -> SentenceModel:
    """Check a parsed ``sentences.json`` and build a ``SentenceModel``.

    Every inconsistency (a vector of the wrong length, a matrix of the wrong
    shape, an unknown head name, ...) raises ``ValueError`` naming the field.
    The parts are checked in the file's order: dims and position features,
    vocabulary, heads, value and output columns with W_O, sense plane,
    presets, and the scale of unknown words.

    Parameters
    ----------
    d : dict
        The file's JSON, parsed.
    source : str, default ""
        Where the model came from, kept in the result.

    Returns
    -------
    model : SentenceModel
    """
    if not isinstance(d, dict):
        raise ValueError("the sentence model must be a JSON object")
    if d.get("format") != FORMAT:
        raise ValueError(f"format must be {FORMAT!r}, got {d.get('format')!r}")
    dims, dim_meanings, pos_names, pos_meanings = _dims(d)
    vocab = _vocab(d.get("vocab"), len(dims))
    heads = _heads(d.get("heads"), len(dims) + len(pos_names))
    d_v = heads[0].w_v.shape[1]
    value_columns, w_o, output_columns = _outputs(d, len(heads), d_v)
    plane = _sense_plane(d.get("sense_plane"), [h.name for h in heads], d_v, w_o.shape[1])
    presets = _presets(d.get("presets"))
    scale = (d.get("unknown_words") or {}).get("scale", 0.3)
    scale = _checks.positive("unknown_words.scale", scale)
    return SentenceModel(dims=dims, dim_meanings=dim_meanings, position_features=pos_names,
                         position_meanings=pos_meanings, vocab=MappingProxyType(vocab), heads=heads,
                         value_columns=tuple(map(str, value_columns)), output_columns=tuple(map(str, output_columns)),
                         w_o=w_o, sense_plane=plane, presets=presets, unknown_scale=scale, source=source)


@lru_cache(maxsize=8)
def _load(path: str | None) -> SentenceModel:
    p = data_path("sentences.json") if path is None else Path(path)
    try:
        d = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path or 'sentences.json'} is not valid JSON: {e}") from None
    return parse_sentence_model(d, source=str(p))


def load_sentence_model(path: str | Path | None = None) -> SentenceModel:
    """The toy sentence model: the shipped ``data/sentences.json`` or another file.

    Loaded once and cached; the arrays are read-only.

    Parameters
    ----------
    path : str or Path, optional
        A model file in the format of ``data/sentences.json`` (default: that file).

    Returns
    -------
    model : SentenceModel
    """
    return _load(None if path is None else str(path))


def _model(model: SentenceModel | None) -> SentenceModel:
    return load_sentence_model() if model is None else model


# --------------------------------------------------------------------------- vectors

def unknown_word_vector(word: str, n_dims: int, scale: float = 0.3) -> np.ndarray:
    """A fixed pseudo-random vector for a word that is not in the vocabulary.

    The bytes come from SHA-256 of the word's UTF-8 encoding (then SHA-256 of
    that digest, and so on, when more than 16 coordinates are needed).  Each
    coordinate takes 2 bytes b (big-endian, 0..65535):

        v = round(scale * (2 b / 65535 - 1), 2)        in [-scale, scale].

    The result depends on the word only: the same in every run, process and
    machine (Python's ``hash()`` is not used).

    Parameters
    ----------
    word : str
        The token.
    n_dims : int
        Length of the vector.
    scale : float, default 0.3
        The coordinates' bound.

    Returns
    -------
    vector : ndarray of shape (n_dims,)
    """
    data = word.encode("utf-8", errors="surrogatepass")
    stream = b""
    block = hashlib.sha256(data).digest()
    while len(stream) < 2 * n_dims:
        stream += block
        block = hashlib.sha256(block).digest()
    b = np.array([int.from_bytes(stream[2 * i:2 * i + 2], "big") for i in range(n_dims)], dtype=float)
    return np.round(scale * (2.0 * b / 65535.0 - 1.0), 2)


def word_vector(word: str, *, model: SentenceModel | None = None) -> np.ndarray:
    """The meaning vector (length ``len(model.dims)``) of one token.

    A vocabulary word gets its vector from the data file; any other word gets
    ``unknown_word_vector(word)``.  Pass the token as ``tokenize`` returns it
    (lowercase): the lookup is exact.

    Parameters
    ----------
    word : str
        One token.
    model : SentenceModel, optional
        The toy model (default: ``load_sentence_model()``).

    Returns
    -------
    vector : ndarray of shape (len(model.dims),)
        A new array.
    """
    if not isinstance(word, str) or not word:
        raise ValueError(f"word must be a non-empty string, got {word!r}")
    m = _model(model)
    if word in m.vocab:
        return np.array(m.vocab[word])
    return unknown_word_vector(word, len(m.dims), m.unknown_scale)


def position_features(n: int, *, model: SentenceModel | None = None) -> np.ndarray:
    """The (n, p) position block of X: row i holds the listed features of i (i, i^2, 1).

    Parameters
    ----------
    n : int
        Number of positions.
    model : SentenceModel, optional
        The toy model (default: ``load_sentence_model()``).

    Returns
    -------
    features : ndarray of shape (n, p)
        One column per position feature the model lists.
    """
    m = _model(model)
    i = np.arange(n, dtype=float)
    return np.stack([POSITION_FEATURES[name](i) for name in m.position_features], axis=1)


def encode(tokens, *, model: SentenceModel | None = None) -> tuple[np.ndarray, list[str]]:
    """X (n, d_model) for a list of tokens, and the unknown words.

    Row i is ``[word_vector(tokens[i]), position features of i]`` (appended,
    not added, so meaning and position stay in separate columns).

    Parameters
    ----------
    tokens : list of str
        1 to ``MAX_TOKENS`` tokens, as ``tokenize`` returns them.
    model : SentenceModel, optional
        The toy model (default: ``load_sentence_model()``).

    Returns
    -------
    X : ndarray of shape (n, d_model)
    unknown : list of str
        The tokens missing from the vocabulary, in order of first appearance, each once.
    """
    if isinstance(tokens, str) or not all(isinstance(t, str) and t for t in tokens):
        raise ValueError("tokens must be a list of non-empty strings (use tokenize(text) first)")
    tokens = list(tokens)
    if not tokens:
        raise ValueError("sentence is empty: there are no tokens")
    if len(tokens) > MAX_TOKENS:
        raise ValueError(f"sentence has {len(tokens)} tokens; at most {MAX_TOKENS} are allowed")
    m = _model(model)
    words = np.stack([word_vector(t, model=m) for t in tokens])
    x = np.concatenate([words, position_features(len(tokens), model=m)], axis=1)
    unknown = list(dict.fromkeys(t for t in tokens if t not in m.vocab))
    return x, unknown


# --------------------------------------------------------------------------- analysis

@dataclass(frozen=True)
class SentenceAnalysis:
    """Every number the self-attention section draws, for one sentence.

    Shapes: n tokens, h heads.  q, k: (h, n, d_k); v: (h, n, d_v);
    weights: (h, n, n); head_outputs: (h, n, d_v); concat: (n, h d_v);
    output: (n, d_out).  Sense-plane points: value_xy and output_xy (h, n, 2),
    one plane per head (the heads share the value columns the plane reads),
    and combined_xy (n, 2) for the output after W_O.
    """

    text: str
    tokens: list[str]
    unknown: list[str]
    temperature: float
    causal: bool
    head_names: tuple[str, ...]
    x: np.ndarray
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    weights: np.ndarray
    head_outputs: np.ndarray
    concat: np.ndarray
    output: np.ndarray
    sense_head: int
    value_xy: np.ndarray
    output_xy: np.ndarray
    combined_xy: np.ndarray
    model: SentenceModel = field(repr=False, compare=False)

    @property
    def n(self) -> int:
        return len(self.tokens)

    def to_plain(self) -> dict:
        """JSON-ready dict (lists and numbers only) for the browser.

        The page can recompute any head's weights for another temperature T
        or mask from q and k alone: A = softmax(q k^T / (sqrt(d_k) T)), then
        out = A v, point = out @ value_projection, and combined output
        concat_h(out_h) @ w_o, drawn at @ output_projection.
        """
        m, sp = self.model, self.model.sense_plane
        return {
            "text": self.text, "tokens": list(self.tokens), "unknown": list(self.unknown),
            "temperature": self.temperature, "causal": self.causal,
            "d_k": m.d_k, "d_v": m.d_v,
            "heads": [{"name": h.name, "description": h.description, "qk_columns": list(h.qk_columns),
                       "q": self.q[i].tolist(), "k": self.k[i].tolist(), "v": self.v[i].tolist(),
                       "weights": self.weights[i].tolist()}
                      for i, h in enumerate(m.heads)],
            "value_columns": list(m.value_columns), "output_columns": list(m.output_columns),
            "w_o": m.w_o.tolist(),
            "sense_plane": {"head": sp.head, "head_name": sp.head_name, "x_label": sp.x_label,
                            "y_label": sp.y_label, "value_projection": sp.value_projection.tolist(),
                            "output_projection": sp.output_projection.tolist()},
        }


def analyze_sentence(text: str, *, temperature: float = 1.0, causal: bool = False,
                     model: SentenceModel | None = None) -> SentenceAnalysis:
    """Run every head of the toy model on one sentence.

        X = encode(tokenize(text));   Q_h = X W_Q^h, K_h = X W_K^h, V_h = X W_V^h
        A_h = softmax(Q_h K_h^T / (sqrt(d_k) T))   (``dot_product_attention``, head axis first)
        out_h = A_h V_h;   concat = [out_1 ... out_H];   output = concat W_O
        value_xy = V_h P,  output_xy = out_h P,  combined_xy = output P_out

    Parameters
    ----------
    text : str
        The sentence.
    temperature : float > 0, default 1.0
        T: it sharpens (< 1) or flattens (> 1) every row.
    causal : bool, default False
        True masks the future (j > i), making the upper triangle 0.
    model : SentenceModel, optional
        The toy model (default: ``load_sentence_model()``).

    Returns
    -------
    analysis : SentenceAnalysis
        Every number the self-attention section draws.
    """
    if not isinstance(causal, (bool, np.bool_)):
        raise ValueError(f"causal must be True or False, got {causal!r}")
    t = _checks.positive("temperature", temperature)
    m = _model(model)
    tokens = tokenize(text)
    x, unknown = encode(tokens, model=m)
    q = np.einsum("nd,hde->hne", x, m.w_q)
    k = np.einsum("nd,hde->hne", x, m.w_k)
    v = np.einsum("nd,hde->hne", x, m.w_v)
    heads, weights = dot_product_attention(q, k, v, causal=bool(causal), temperature=t)
    n = len(tokens)
    concat = np.transpose(heads, (1, 0, 2)).reshape(n, -1)
    output = concat @ m.w_o
    sp = m.sense_plane
    return SentenceAnalysis(text=text, tokens=tokens, unknown=unknown, temperature=t, causal=bool(causal),
                            head_names=m.head_names, x=x, q=q, k=k, v=v, weights=weights,
                            head_outputs=heads, concat=concat, output=output, sense_head=sp.head,
                            value_xy=v @ sp.value_projection, output_xy=heads @ sp.value_projection,
                            combined_xy=output @ sp.output_projection, model=m)


__all__ = ["MAX_TOKENS", "MAX_HEADS", "Head", "SensePlane", "Preset", "SentenceModel", "SentenceAnalysis",
           "tokenize", "parse_sentence_model", "load_sentence_model", "unknown_word_vector", "word_vector",
           "position_features", "encode", "analyze_sentence"]
