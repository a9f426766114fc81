"""The routing section's sentences in the sweep (W_Q and W_K learned: app/routing/): the readout's lines
(RoutingLines.readoutLines), what the word's query and the other word's key share (attention.learn_qk.shared_summary,
twin RoutingHead.sharedSummary) and the status line (RoutingLines.statusText), over every shown sentence at every
recorded frame of the path the page plays (view.trajectory(), FRAMES) and a few typed sentences, with the claims that
check them against the numpy core: attention.learn_qk's readouts, shared_columns, losses and the senses it reads.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cache

import numpy as np

import attention
from attention import learn_qk
from app.routing import view as RV
from tests.app.sweep.claims import NUM, bump_group, claim, swap
from tests.app.sweep.states import same_at_digits

# Typed sentences: the placeholder, the word twice, the word alone, a word the vocabulary lacks, no word at all.
TYPED = ("the bank by the lake", "the bank and the bank by the river", "bank", "the zorblat bank sat",
         "the river is wide")


@cache
def path():
    return RV.trajectory()


@cache
def plain() -> dict:
    return path().to_plain(frames=RV.FRAMES)


def frames() -> list[int]:
    return [int(k) for k in path().frames(RV.FRAMES)]


@dataclass(frozen=True)
class Said:
    """A sentence the routing section reads at a recorded frame: a shown one (``shown``: its place among the corpus's
    shown sentences) or a typed one (``typed``)."""

    frame: int
    shown: int = -1
    typed: str = ""

    @property
    def step(self) -> int:
        return frames()[self.frame]

    @property
    def own(self) -> bool:
        return self.shown < 0

    @property
    def sentence(self):
        return None if self.own else path().corpus.shown[self.shown]

    @property
    def word(self) -> str:
        return path().corpus.word

    @property
    def tokens(self) -> tuple:
        return tuple(attention.tokenize(self.typed)) if self.own else self.sentence.tokens

    @property
    def index(self) -> int:
        return self.tokens.index(self.word) if self.word in self.tokens else -1

    @property
    def r(self) -> dict:
        return readout(self)

    def other(self) -> str | None:
        """The word the ambiguous word looks at most, itself left out (texts.js topOther; None: no other word)."""
        if self.index < 0 or len(self.tokens) < 2:
            return None
        w = np.array(self.r["weights"])
        w[self.index] = -1.0
        return self.tokens[int(np.argmax(w))]

    def columns(self, other: str):
        tr = path()
        return learn_qk.shared_columns(tr.w_q[self.step], tr.w_k[self.step], self.word, other, model=tr.model)

    def case(self) -> dict:
        """The readout's inputs as texts.js drawReadout hands them to RoutingLines.readoutLines."""
        s = self.sentence
        base = {"word": self.word, "tokens": list(self.tokens), "index": self.index,
                "count": self.tokens.count(self.word), "own": self.own, "sense": None if s is None else s.sense,
                "clue": None if s is None else s.clue, "split": None if s is None else s.split}
        r = self.r
        if self.index >= 0:
            base["even"] = r["even"]
        p = {"readout_scale": learn_qk.READOUT_SCALE, "undecided_within": learn_qk.UNDECIDED_WITHIN}
        return {"s": base, "row": r.get("weights"), "point": r.get("point"), "p": p}


@cache
def readout(s: Said) -> dict:
    """The core's reading of the ambiguous word (its first occurrence) at the step: weights, point, even, z, P(water)
    and the sense; learn_qk.sense_readout where the word occurs once, else the same head by the core's
    dot_product_attention over encode(tokens)."""
    tr, word = path(), path().corpus.word
    if s.index < 0:
        return {}
    if s.tokens.count(word) == 1:
        r = tr.readout(s.sentence if not s.own else s.typed, entry=s.step)
        return {"weights": r.weights.tolist(), "point": r.point.tolist(), "even": r.even.tolist(), "z": r.z,
                "p_water": r.p_water, "sense": r.sense}
    x = attention.encode(list(s.tokens), model=tr.model)[0]
    xy = x @ learn_qk._value_projection(tr.model)
    out, a = attention.dot_product_attention(x @ tr.w_q[s.step], x @ tr.w_k[s.step], xy)
    point, even = out[s.index], xy.mean(axis=0)
    z = float((point[0] - even[0]) - (point[1] - even[1]))
    sense = "undecided" if learn_qk.undecided(z) else "water" if z > 0 else "money"
    return {"weights": a[s.index].tolist(), "point": point.tolist(), "even": even.tolist(), "z": z,
            "p_water": 1 / (1 + math.exp(-learn_qk.READOUT_SCALE * z)), "sense": sense}


def said() -> list[Said]:
    """Every shown sentence at every recorded frame, and the typed ones."""
    n = len(path().corpus.shown)
    return ([Said(f, shown=j) for j in range(n) for f in range(len(frames()))]
            + [Said(f, typed=t) for t in TYPED for f in range(len(frames()))])


# ---- the readout's lines -----------------------------------------------------------------------------------------

QUOTED = r"\u201c(?P<{}>[^\u201d]+)\u201d"
NAMES = r"(?P<names>\u201c[^\u201d]+\u201d(?:(?:, | and )\u201c[^\u201d]+\u201d)*)(?:, at (?P<places>\d+) places)?"


def _at(m, s: Said) -> list[int]:
    """The places whose weight is the largest share as shown (ties to the digits shown)."""
    return [j for j, v in enumerate(s.r["weights"]) if same_at_digits(m["share"], v)]


def _largest(m, s: Said) -> bool:
    """The largest share at the digits shown, and the words that get it, once each, with how many places when a
    word gets it at more than one (or every word, when all get it)."""
    row, at = s.r["weights"], _at(m, s)
    if not same_at_digits(m["share"], max(row)):
        return False
    names = m.groupdict().get("names")
    if names is None:            # "every word gets ..."
        return len(at) == len(row)
    words = re.findall(r"\u201c([^\u201d]+)\u201d", names)
    distinct = {s.tokens[j] for j in at}
    places = m["places"]
    return (sorted(words) == sorted(distinct) and len(words) == len(distinct) and len(at) < len(row)
            and (places is None) == (len(at) == len(distinct)) and (places is None or int(places) == len(at)))


def _even(s: Said) -> bool:
    """Nearly even: no word gets half as much again as an even share."""
    return max(s.r["weights"]) < 1.5 / len(s.tokens)


def _word(m, s: Said) -> bool:
    return m["w"] == s.word and s.index >= 0


def _verdict(m, s: Said) -> bool:
    sent, sense = s.sentence, s.r["sense"]
    want = "Undecided, half right" if sense == "undecided" else "Right" if sense == sent.sense else "Not right yet"
    split = "a training sentence" if sent.split == "train" else "held out, never trained on"
    return (m["verdict"] == want and m["sense"] == sent.sense and m["clue"] == sent.clue and m["split"] == split
            and sent.clue in s.tokens)


def _moved(m, s: Said) -> bool:
    r = s.r
    p = r["p_water"] if r["sense"] == "water" else 1 - r["p_water"]
    return (same_at_digits(m["z"], abs(r["z"])) and m["dir"] == ("water" if r["z"] > 0 else "money")
            and m["sense"] == r["sense"] and same_at_digits(m["pct"], 100 * p))


def _flip_verdict(t: str) -> str:
    return ("Not right yet" + t[len("Right"):]) if t.startswith("Right:") else "Right:" + t.split(":", 1)[1]


READOUT = [
    claim("readout: no ambiguous word in the sentence",
          QUOTED.format("w").join(["There is no ", r" in this sentence, so nothing here asks which bank is meant\."]),
          lambda m, s: m["w"] == s.word and s.word not in s.tokens,
          "the word named is another", swap("no \u201cbank\u201d", "no \u201criver\u201d")),
    claim("readout: where the word looks most",
          QUOTED.format("w") + rf" looks most at {NAMES}, with (?P<share>\d\.\d\d) of its weight(?P<each> each)?\.",
          lambda m, s: (_word(m, s) and not _even(s) and _largest(m, s)
                        and (m["each"] is not None) == (len(_at(m, s)) > 1)),
          "the share moves by one unit in its last digit", bump_group("share")),
    claim("readout: nearly even, every word the same",
          QUOTED.format("w") + r" spreads its weight almost evenly: every word gets (?P<share>\d\.\d\d)\.",
          lambda m, s: _word(m, s) and _even(s) and _largest(m, s),
          "the share moves by one unit in its last digit", bump_group("share")),
    claim("readout: nearly even, the largest share named",
          QUOTED.format("w")
          + rf" spreads its weight almost evenly \(largest share (?P<share>\d\.\d\d), on {NAMES}\)\.",
          lambda m, s: _word(m, s) and _even(s) and _largest(m, s),
          "the share moves by one unit in its last digit", bump_group("share")),
    claim("readout: the output moved towards a sense",
          rf"Its output moved (?P<z>{NUM}) towards (?P<dir>water|money) from where an even spread lands: "
          r"(?P<sense>water|money) \((?P<pct>\d+) %\)\.",
          lambda m, s: s.index >= 0 and _moved(m, s),
          "towards water for towards money, and back",
          lambda t: t.replace("towards water", "towards money") if "towards water" in t
          else t.replace("towards money", "towards water")),
    claim("readout: undecided",
          rf"Its output is within (?P<tol>{NUM}) of where an even spread lands: undecided\.",
          lambda m, s: (s.index >= 0 and same_at_digits(m["tol"], learn_qk.UNDECIDED_WITHIN)
                        and s.r["sense"] == "undecided" and abs(s.r["z"]) <= learn_qk.UNDECIDED_WITHIN),
          "the margin moves by one unit in its last digit", bump_group("tol")),
    claim("readout: the word appears more than once",
          QUOTED.format("w") + r" appears (?P<count>\d+) times; the framed row is the first\.",
          lambda m, s: _word(m, s) and int(m["count"]) == s.tokens.count(s.word) > 1,
          "the count moves by one", bump_group("count")),
    claim("readout: the verdict, the sense and its deciding word",
          r"(?P<verdict>Right|Not right yet|Undecided, half right): here it is the (?P<sense>water|money) sense, "
          rf"decided by {QUOTED.format('clue')} \((?P<split>a training sentence|held out, never trained on)\)\.",
          lambda m, s: not s.own and _verdict(m, s),
          "\"Right\" for \"Not right yet\" (or for the others)", _flip_verdict),
]

# ---- what the word's query and the other word's key share --------------------------------------------------------

@dataclass(frozen=True)
class Shared:
    """What ``word``'s query and ``other``'s key share at a step (texts.js drawWeights, view.shared)."""

    step: int
    other: str

    @property
    def word(self) -> str:
        return path().corpus.word

    @property
    def cols(self):
        return shared_cols(self.step, self.other)

    @property
    def top(self):
        return max(self.cols, key=lambda c: c.score)

    def case(self) -> dict:
        tr = path()
        return {"word": self.word, "other": self.other, "wq": tr.w_q[self.step].tolist(),
                "wk": tr.w_k[self.step].tolist()}


@cache
def shared_cols(step: int, other: str):
    tr = path()
    return learn_qk.shared_columns(tr.w_q[step], tr.w_k[step], tr.corpus.word, other, model=tr.model)


def shared_python(s: Shared) -> str:
    tr = path()
    return learn_qk.shared_summary(tr.w_q[s.step], tr.w_k[s.step], s.word, s.other, model=tr.model)


def shared_states() -> list[Shared]:
    """Every (step, other word) the page writes the summary for: each sentence's top other word at each frame, and
    the trained path's with its opening sentence's word (view.shared)."""
    seen = {Shared(x.step, x.other()) for x in said() if x.other() is not None}
    seen.add(Shared(path().steps, RV.shared()[0]))
    return sorted(seen, key=lambda s: (s.step, s.other))


def _names(m, s: Shared) -> bool:
    cap = s.word[:1].upper() + s.word[1:]
    return m["Word"] == cap and m["other"] == s.other


def _dk(s: Shared) -> int:
    return path().w_q.shape[2]


def _product(m, s: Shared) -> bool:
    """The product of the column's query and key values, √d_k, and what it adds to the score (q k / √d_k), at the
    digits shown, of the column that adds most."""
    t = s.top
    return (m["word"] == s.word and m["other"] == s.other and int(m["dk"]) == _dk(s) == len(s.cols)
            and t.score >= learn_qk.FEATURE_SHARE and same_at_digits(m["prod"], t.query * t.key)
            and same_at_digits(m["s"], t.query * t.key / math.sqrt(_dk(s))) and same_at_digits(m["s"], t.score))


def _listing(items) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _from(m, s: Shared) -> bool:
    """The meanings that put the query's and the key's values there: the core's query_from and key_from, each part
    said exactly when the core names some."""
    t, cap = s.top, lambda w: w[:1].upper() + w[1:]
    if t.score < learn_qk.FEATURE_SHARE:
        return False
    if m["Other"] is not None:            # the key's part alone
        return m["Other"] == cap(s.other) and not t.query_from and m["kf2"] == _listing(t.key_from) != ""
    return (m["Word"] == cap(s.word) and bool(t.query_from) and m["qf"] == _listing(t.query_from)
            and (m["kf"] is None) == (not t.key_from)
            and (m["kf"] is None or (m["other"] == s.other and m["kf"] == _listing(t.key_from))))


SHARED = [
    claim("shared: the column, the query's and the key's values",
          rf"(?P<Word>\w+)'s query and (?P<other>[^']+)'s key share column (?P<col>\d+) \((?P<q>{NUM}) and "
          rf"(?P<k>{NUM})\)\.",
          lambda m, s: (_names(m, s) and int(m["col"]) == s.top.column + 1 and s.top.score >= learn_qk.FEATURE_SHARE
                        and same_at_digits(m["q"], s.top.query) and same_at_digits(m["k"], s.top.key)),
          "the key's value moves by one unit in its last digit", bump_group("k")),
    claim("shared: the product, divided by √d_k, adds to the score",
          rf"Their product, (?P<prod>{NUM}), divided by \u221a(?P<dk>\d+) \(a key has (?P=dk) numbers\), adds "
          rf"(?P<s>{NUM}) to (?P<word>\w+)'s score for (?P<other>.+)\.",
          lambda m, s: _product(m, s),
          "what it adds moves by one unit in its last digit", bump_group("s")),
    claim("shared: the meanings that put the values there",
          r"(?:(?P<Word>\w+)'s query gets there from (?P<qf>[^;]+?)(?:; (?P<other>[^;]+?)'s key from (?P<kf>.+))?"
          r"|(?P<Other>[^;]+?)'s key from (?P<kf2>.+))\.",
          _from, "another meaning named first", lambda t: t.replace(" from ", " from people and ", 1)),
    claim("shared: no column yet, and what the columns add together",
          rf"(?P<Word>\w+)'s query and (?P<other>[^']+)'s key share no column yet: together they add (?P<t>{NUM}) to "
          r"(?P<word>\w+)'s score for (?P=other)\.",
          lambda m, s: (_names(m, s) and m["word"] == s.word and s.top.score < learn_qk.FEATURE_SHARE
                        and same_at_digits(m["t"], sum(c.score for c in s.cols))),
          "the total moves by one unit in its last digit", bump_group("t")),
]


# ---- the status line ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Status:
    """The status line at a recorded frame; ``shown``: the shown sentence whose playback holds there (-1: none)."""

    frame: int
    shown: int = -1

    @property
    def step(self) -> int:
        return frames()[self.frame]

    def moment(self):
        if self.shown < 0:
            return None
        s = path().corpus.shown[self.shown]
        return {"clue": s.clue, "share": RV.HOLD_SHARE, "weight": plain()["sentences"][self.shown]["clue_weight"][
            self.frame]}


def status_states() -> list[Status]:
    holds = [(RV.hold_frames()[j], j) for j in range(len(path().corpus.shown))]
    return [Status(f) for f in range(len(frames()))] + [Status(f, j) for f, j in holds if f >= 0]


@cache
def counts(step: int, split: str) -> dict:
    """Right, undecided and wrong sentences of a split at a step, by the core's reading of each."""
    tr = path()
    sents = tr.corpus.train if split == "train" else tr.corpus.held_out
    senses = [tr.readout(s, entry=step).sense for s in sents]
    right = sum(r == s.sense for r, s in zip(senses, sents))
    ties = senses.count("undecided")
    return {"right": right, "undecided": ties, "wrong": len(sents) - right - ties}


def _counted(words: str, c: dict) -> bool:
    """"20 right, 3 undecided, 17 wrong": the core's counts, a part left out exactly when it is 0 (right: always)."""
    got = {k: int(n) for n, k in re.findall(r"(\d+) (right|undecided|wrong)", words)}
    return (re.fullmatch(r"\d+ right(?:, \d+ undecided)?(?:, \d+ wrong)?", words) is not None
            and got == {k: v for k, v in c.items() if v or k == "right"})


@cache
def clue_first(shown: int) -> int:
    """The first recorded frame where the shown sentence's deciding word gets HOLD_SHARE of the word's weight,
    by the core's clue_weights (-1: never)."""
    tr = path()
    w = tr.clue_weights([tr.corpus.shown[shown]], tr.frames(RV.FRAMES))[:, 0]
    hit = np.flatnonzero(w >= RV.HOLD_SHARE)
    return int(hit[0]) if len(hit) else -1


def _moment(m, st: Status) -> bool:
    tr = path()
    if st.shown < 0 or m["w"] != tr.corpus.word:
        return False
    s = tr.corpus.shown[st.shown]
    weight = tr.clue_weights([s], [st.step])[0, 0]
    return (m["clue"] == s.clue and clue_first(st.shown) == st.frame and m["share"] == "half"
            and RV.HOLD_SHARE == 0.5 and weight >= 0.5 and same_at_digits(m["cw"], weight))


STATUS = [
    claim("status: the step and its losses",
          rf"Step (?P<k>\d+) of (?P<n>\d+): loss (?P<loss>{NUM}) training, (?P<held>{NUM}) held out\.",
          lambda m, st: (int(m["k"]) == st.step and int(m["n"]) == path().steps
                         and same_at_digits(m["loss"], path().loss[st.step])
                         and same_at_digits(m["held"], path().held_out_loss[st.step])),
          "the training loss moves by one unit in its last digit", bump_group("loss")),
    claim("status: right, undecided and wrong sentences",
          r"Training: (?P<train>[^;]+); held out: (?P<held>[^;]+)\.",
          lambda m, st: _counted(m["train"], counts(st.step, "train")) and _counted(m["held"], counts(st.step,
                                                                                                         "held_out")),
          "the training sentences right move by one",
          lambda t: re.sub(r"Training: (\d+)", lambda g: f"Training: {int(g[1]) + 1}", t, count=1)),
    claim("status: the moment the deciding word first gets half the weight",
          QUOTED.format("w").join(["Here ", " first gives "]) + QUOTED.format("clue") +
          rf" (?P<share>half|{NUM}) of its weight or more \((?P<cw>{NUM})\)\.",
          _moment, "the weight moves by one unit in its last digit", bump_group("cw")),
]

for c in READOUT + SHARED + STATUS:
    if hasattr(c.mutate, "group"):
        c.mutate.pattern = c.pattern
