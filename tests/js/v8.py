"""The page's pure JavaScript (the files with no DOM) in an embedded V8, for the twin tests of tests/js.

The engine is ``mini-racer`` from PyPI (V8 with its own ICU data, in the test extra of pyproject.toml), not
Node: pip installs it with the rest, so ``make test-fast`` needs no root, no apt and no browser on any machine,
and every machine runs the same V8 and the same Unicode data (the wheel's), whatever its system's ICU.  What
it lacks is the browser's APIs (TextEncoder, Blob, CompressionStream), so the own-data links and files stay
with tests/browser/test_userdata_parity.py.

``Twins(folder)`` loads the files as the engines join them (app/ui/engine.py: the text ``read_js`` ships, the
Unicode table just before words.js), from where they sit (attention/ and app/ui/) or from ``folder``, a test's
mutated copy of them; then the model and the config the page hands them, and tests/js/harness.js.
``twins(name, cases)`` runs one function of the harness on a batch and returns plain JSON (typed arrays as
lists; NaN and the infinities kept).
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

from py_mini_racer import MiniRacer

from app import userdata
from app.sentence.data import browser_model
from app.ui.engine import read_js, unicode_table_js

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
# By their paths from the project's root (two sections each have a text.js), in the library's order (app/ui/engine.py
# LIBRARY): the mirror needs kernels.js, common.js format.js, generator.js the mirror and common.js, words.js the
# mirror, userdata.js userwords.js and userparse.js.
FILES = ("attention/numbers.js", "attention/kernels.js", "attention/mirror.js", "app/ui/format.js", "app/ui/common.js", "attention/words.js",
         "attention/generator.js", "attention/train.js", "app/ui/userwords.js", "app/ui/userparse.js",
         "app/ui/userdata.js", "app/ui/audiograph.js", "app/ui/frame.js",
         # sections' pure files (no DOM at load or in the functions tested), after the library they use; the
         # regression's readouts for the tour and the ideas' numbers touch the page only in functions not tested
         "app/learning/starttext.js", "app/routing/head.js", "app/routing/lines.js", "app/sentence/rowtext.js",
         "app/regression/readouts.js", "app/ideas/engine.js",
         # the tour's pure files: what opening a step does, a link's step, the presenter's keys (common.js)
         "app/tour/steps.js", "app/tour/dock.js")

# Out of V8 as JSON text that Python's json reads back: typed arrays become arrays, and NaN and the infinities
# (which JSON.stringify would write as null) their bare names, which json.loads takes.
OUT = r"""
function __twinsOut(value) {
  return JSON.stringify(value, (k, v) => ArrayBuffer.isView(v) && !(v instanceof DataView) ? Array.from(v)
    : typeof v === "number" && !Number.isFinite(v) ? "\u0001" + String(v) : v)
    .replace(/"\\u0001(NaN|Infinity|-Infinity)"/g, "$1");
}
"""


def joined(files, folder: Path | None = None) -> str:
    """The files (paths from the root) as an engine joins them: the text ``read_js`` ships, the Unicode table just
    before words.js; from where they sit, or from ``folder``, a test's mutated copy of them."""
    base = Path(folder) if folder is not None else ROOT
    return "\n".join((unicode_table_js() if f.endswith("/words.js") else "") + read_js(base / f) for f in files)


def copy_sources(folder: Path, files=FILES) -> Path:
    """The JS files (paths from the root) copied into ``folder``, at the same paths, to be mutated there."""
    for f in files:
        (folder / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / f, folder / f)
    return folder


class Twins:
    def __init__(self, folder: Path | None = None, files=FILES, harness: Path = HERE / "harness.js", entry="twins"):
        self.entry = entry
        # MiniRacer runs V8 on an event loop: the running one if the thread has one, else its own thread's.
        # Playwright's sync API leaves its loop marked as running between calls (tests/conftest.py), and V8 would
        # then wait on a loop that never turns: it gets its own.
        borrowed = asyncio._get_running_loop()
        asyncio._set_running_loop(None)
        try:
            self.ctx = MiniRacer()
        finally:
            asyncio._set_running_loop(borrowed)
        globals_ = (f"const MODEL = {json.dumps(browser_model())};\n"
                    f"const CFG = {json.dumps(userdata.config())};\n")
        shims = (HERE / "urlsearchparams.js").read_text(encoding="utf-8")   # a browser API format.js reads a link with
        self.ctx.eval(joined(files, folder) + "\n" + globals_ + OUT + shims + harness.read_text(encoding="utf-8"))

    def __call__(self, name: str, cases=None):
        arg = json.dumps(cases)     # as a JS literal, which takes NaN and the infinities, as JSON.parse would not
        return json.loads(self.ctx.eval(f"__twinsOut({self.entry}[{json.dumps(name)}]({arg}))"))

    def close(self):
        self.ctx.close()
