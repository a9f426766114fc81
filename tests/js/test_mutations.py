"""Named mutations of the pure JS twins fail the twin checks, without a browser.

Each mutation changes one operator or constant on a path the reference outputs cover, in a copy of the page's
JS files (tests/js/v8.py copy_sources); the mutated file's checks (tests/js/twins.py CHECKS) then run on the copy
and one of them must fail with a difference from Python.  A mutation names its place by the text it changes,
which must occur once in the file and not in a comment: if the file is rewritten, the test says which mutation
to name again.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from app.ui.engine import read_js
from tests.js.twins import CHECKS
from tests.js.v8 import ROOT, Twins, copy_sources


class Mutation(NamedTuple):
    file: str
    name: str
    old: str
    new: str


MUTATIONS = [
    # attention/kernels.js, the core's formulas at one query (the kernels' scores, which attention/mirror.js builds on)
    Mutation("attention/kernels.js", "the Gaussian's exponent: (d - d_min)(d + d_min) becomes (d + d_min)(d + d_min)",
             "s[j] = ((s[j] - near) * (s[j] + near)) * f;", "s[j] = ((s[j] + near) * (s[j] + near)) * f;"),
    Mutation("attention/kernels.js", "the bandwidth's square in the Gaussian becomes a cube",
             "const f = -0.5 / (h * h);", "const f = -0.5 / (h * h * h);"),
    Mutation("attention/kernels.js", "the dot kernel's scale 2^(1/4) / h becomes 2^(1/2) / h",
             "const c = 2.0 ** 0.25 / h", "const c = 2.0 ** 0.5 / h"),
    # attention/mirror.js, the core's formulas over many queries and bandwidths, and the heads
    Mutation("attention/mirror.js", "leave-one-out keeps each sample's own score",
             "s[i] = -Infinity;", "s[i] = 0;"),
    Mutation("attention/mirror.js", "the variance takes the noise, not its square",
             "variance[g] = noise * noise * (v / n);", "variance[g] = noise * (v / n);"),
    Mutation("attention/mirror.js", "dot-product attention divides by d instead of sqrt(d)",
             "const scale = 1.0 / (Math.sqrt(d) * temperature);", "const scale = 1.0 / (d * temperature);"),
    # attention/words.js, the tokenizer and the heads
    Mutation("attention/words.js", "a character class's runs end one code point later (every class boundary)",
             "ends.push(cp - 1);", "ends.push(cp);"),
    Mutation("attention/words.js", "NFKC becomes NFC (full-width letters and ligatures kept as they are)",
             '.normalize("NFKC")', '.normalize("NFC")'),
    Mutation("attention/words.js", "a capital sigma before a space is not final",
             "return k === cps.length || !cased(cps[k]);", "return k === cps.length;"),
    Mutation("attention/words.js", "at most 33 tokens", "const MAX_TOKENS = 32;", "const MAX_TOKENS = 33;"),
    Mutation("attention/words.js", "the unknown words' rounding takes a half away from zero, not to even",
             "return (r - y === 0.5 && r % 2 !== 0 ? r - 1 : r) / 100;", "return r / 100;"),
    Mutation("attention/words.js", "the heads ignore the causal mask",
             "M.dotProductAttention(q, k, v, causal, t)", "M.dotProductAttention(q, k, v, false, t)"),
    # ui/userparse.js, your own data read from a text
    Mutation("app/ui/userparse.js", "a decimal comma is read as a thousands separator",
             'value: Number(t.replace(",", ".")), comma: true', 'value: Number(t.replace(",", "")), comma: true'),
    Mutation("app/ui/userparse.js", "a semicolon is tried before a tab as the separator",
             'const SEPARATORS = ["\\t", ";", ","];', 'const SEPARATORS = [";", "\\t", ","];'),
    Mutation("app/ui/userparse.js", "the minus sign U+2212 is not read as a minus",
             'const t = cell.startsWith("\\u2212") ? "-" + cell.slice(1) : cell;', "const t = cell;"),
    Mutation("app/ui/userparse.js", "one point more than the limit is kept",
             "if (points.length === max) {", "if (points.length === max + 1) {"),
    # ui/userwords.js, what the reader says
    Mutation("app/ui/userwords.js", "a thousand bytes are still written in bytes",
             "if (size < 1000) return", "if (size <= 1000) return"),
    # ui/userdata.js, your own data on the page: x scaled onto the sliders
    Mutation("app/ui/userdata.js", "x is scaled from its largest value, not its smallest",
             "return { scaled: true, x0: lo,", "return { scaled: true, x0: hi,"),
    Mutation("app/ui/userdata.js", "a value on the sliders goes back to your units without the span",
             "return s.x0 + (u - s.u0) / s.uspan * s.span;", "return s.x0 + (u - s.u0) / s.uspan;"),
    # attention/generator.js and attention/train.js
    Mutation("attention/generator.js", "xoshiro128** rotates by 8 instead of 7",
             "rotl(Math.imul(s1, 5) >>> 0, 7)", "rotl(Math.imul(s1, 5) >>> 0, 8)"),
    # app/ui/audiograph.js, the weights as tones
    Mutation("app/ui/audiograph.js", "the pan runs from right to left",
             "pan: Math.min(1, Math.max(-1, 2 * (at[b] - lo) / (hi - lo) - 1)),",
             "pan: Math.min(1, Math.max(-1, 1 - 2 * (at[b] - lo) / (hi - lo))),"),
    Mutation("app/ui/audiograph.js", "a stretch of x keeps its last sample's weight, not their sum",
             "w[b] += ws[i];", "w[b] = ws[i];"),
    # app/ui/frame.js, the keys a framed page leaves to its host
    Mutation("app/ui/frame.js", "a focused slider's arrows go to the deck",
             "if (ARROWS.includes(key)) return kind === null;", "if (ARROWS.includes(key)) return kind !== \"text\";"),
    Mutation("app/ui/frame.js", "with keys=tour, a key the tour turns with still goes to the deck",
             'if (kind === "text" || taken) return false;', 'if (kind === "text") return false;'),
    Mutation("attention/train.js", "the slope of the leave-one-out loss loses its factor 4",
             "grad: (-4.0 / n) * rt", "grad: (-1.0 / n) * rt"),
    Mutation("attention/mirror.js", "the median of an even count takes the upper middle value",
             "(s[m - 1] + s[m]) / 2", "s[m]"),
    # app/learning/starttext.js, where training starts in words
    Mutation("app/learning/starttext.js", "the words follow the largest weight unrounded, not as shown",
             "shown = Number(ws)", "shown = w"),
    # app/routing/lines.js, the routing readout in words
    Mutation("app/routing/lines.js", "a tie is a tie of the exact weights, not of the digits shown",
             "if (fixed(row[j], 2) === shown) at.push(j);", "if (row[j] === row[top]) at.push(j);"),
    # app/tour/steps.js and dock.js, the tour's decisions (issue 46)
    Mutation("app/tour/steps.js", "presentation mode shows a step only when it is turned to, not when a link opens it",
             'const show = !!now.presenting && !(how === "start" && !now.named && now.prepared);',
             'const show = !!now.presenting && how === "turn";'),
    Mutation("app/tour/steps.js", "a presentation page opened in a prepared state loses it to step 1's",
             'const show = !!now.presenting && !(how === "start" && !now.named && now.prepared);',
             "const show = !!now.presenting;"),
    Mutation("app/tour/steps.js", "a step whose control is hidden is not made ready",
             "now.hidden > 0 &&", "now.hidden > 1 &&"),
    Mutation("app/tour/dock.js", "Shift is not told apart: Shift+Space turns forward",
             "t.shift === !!e.shiftKey", "true"),
    # attention/numbers.js and app/ui/format.js: the numbers as Python writes them, a link read as Python reads it
    Mutation("attention/numbers.js", "a true decimal tie rounds away from zero, not to even",
             "Math.floor(m) % 2 === 0 &&", "Math.floor(m) % 2 === 5 &&"),
    Mutation("app/ui/format.js", "a key given twice keeps its first value",
             'const raw = vals[vals.length - 1].replace(WS, "");', 'const raw = vals[0].replace(WS, "");'),
    Mutation("app/ui/format.js", "a true-or-false word is read with its capitals",
             "const low = raw.toLowerCase();", "const low = raw;"),
    # app/regression/readouts.js: a tour step's regression numbers
    Mutation("app/regression/readouts.js", "the effective share divides by n - 1",
             "effective_share: r.effective_points / r.n,", "effective_share: r.effective_points / (r.n - 1),"),
    # app/ideas/engine.js: the dependency graphs and the lag panel
    Mutation("app/ideas/engine.js", "the caption's pairs count each word with itself",
             "const pairs = n * (n - 1) / 2,", "const pairs = n * (n + 1) / 2,"),
    Mutation("app/ideas/engine.js", "the nodes shrink from 12 words, not from 13",
             "const size = n <= G.node_px_up_to ?", "const size = n < G.node_px_up_to ?"),
]


def test_every_checked_twin_is_mutated():
    """Each pure JS file held to its Python twin (tests/js/twins.py CHECKS) has a named mutation its checks catch."""
    assert {m.file for m in MUTATIONS} == set(CHECKS)


@pytest.mark.parametrize("m", MUTATIONS, ids=lambda m: f"{m.file}: {m.name}")
def test_a_named_mutation_fails_the_twin_checks(m, tmp_path):
    folder = copy_sources(tmp_path)
    path = folder / m.file
    source = path.read_text(encoding="utf-8")
    assert source.count(m.old) == 1, f"name the mutation {m.name!r} again: {m.old!r} is not once in {m.file}"
    path.write_text(source.replace(m.old, m.new), encoding="utf-8")
    assert read_js(path) != read_js(ROOT / m.file), "the mutation changes a comment only"
    js = Twins(folder)
    try:
        caught = None
        for check in CHECKS[m.file]:
            try:
                check(js)
            except AssertionError:
                caught = check.__name__
                break
    finally:
        js.close()
    assert caught, f"no twin check of {m.file} fails when {m.name}"
