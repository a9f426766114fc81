"""Engine wiring every section shares: the JS an engine is made of, and the models it is handed.

An engine is one Bokeh ``CustomJS`` whose code is ``ui/mirror.js`` (the core's formulas), optionally
``ui/theme.js``, ``ui/common.js`` (the helpers every section shares), optionally ``ui/words.js`` (a
sentence's tokens and vectors, after the mirror it uses) and the section's own ``engine.js``, then one call, ``<Name>.handle(cb_obj, {args})``.  No section's engine includes
another's: sections talk through Python attributes and, in the browser, the page-level bus of
common.js (``publish``/``subscribe``).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from attention.charclasses import browser_table

from app.state import FALSE_WORDS, INTEGER, MAX_SHOWN, NUMBER, TRUE_WORDS

UI = Path(__file__).resolve().parent

@lru_cache(maxsize=None)
def read_js(path: Path) -> str:
    r"""The text of one JS file as the page ships it: without its whole-line ``//`` comments, which are a
    third of the engines' code (the page carries the shared files once per engine).  No JS file of the app
    has such a line inside a template literal (tests/app/test_export.py holds that).

    >>> import tempfile
    >>> f = Path(tempfile.mkdtemp()) / "a.js"
    >>> _ = f.write_text("// what it does\nconst a = 1;  // kept\n    // an indented note\nconst b = `x\ny`;\n")
    >>> print(read_js(f))
    const a = 1;  // kept
    const b = `x
    y`;
    <BLANKLINE>
    """
    text = Path(path).read_text(encoding="utf-8")
    return "".join(line for line in text.splitlines(keepends=True) if not line.lstrip().startswith("//"))


def engine_code(section_js: Path, handler: str, arg_names, *, theme: bool = False, mirror: bool = True,
                extra=()) -> str:
    """The code of a section's engine: the shared files, ``extra`` ones from ui/ (e.g. "generator.js",
    "words.js"), the section's ``engine.js``, then the call.

    >>> code = engine_code(UI / "common.js", "AttnCommon.clamp", ["a"], mirror=False)
    >>> code.rstrip().endswith("AttnCommon.clamp(cb_obj, {a});")
    True
    """
    if "words.js" in extra and not mirror:
        raise ValueError("ui/words.js needs mirror=True: it computes the heads with AttnMirror")
    files = ([UI / "mirror.js"] if mirror else []) + ([UI / "theme.js"] if theme else []) + [UI / "bokehjs.js",
                                                                                              UI / "common.js"]
    files += [UI / name for name in extra]
    files += [] if Path(section_js) in files else [Path(section_js)]
    parts = [unicode_table_js() + read_js(f) if f == UI / "words.js" else read_js(f) for f in files]
    return "\n".join(parts) + f"\n{handler}(cb_obj, {{{', '.join(arg_names)}}});\n"


def unicode_table_js() -> str:
    """The tokenizer's character classes as ui/words.js reads them (``AttnUnicode``), which an engine puts just
    before words.js: data/unicode_classes.json as ``attention.charclasses`` reads it.

    >>> unicode_table_js().startswith('const AttnUnicode = {"unicode":"14.0.0","classes":{"blank":"oo 2 6 ')
    True
    """
    return f"const AttnUnicode = {json.dumps(browser_table(), separators=(',', ':'))};\n"


def worker_sources(*names) -> list[str]:
    """The text of ui/ files a Web Worker runs (ui/worker.js builds the worker from them), in order."""
    return [read_js(UI / name) for name in names]


def engine_args(synced: dict, browser_only: dict) -> dict:
    """The models an engine is handed, by the names its engine.js uses, each registered with its sync flag.

    ``browser_only`` models are written by the engine alone, so they are marked ``syncable = False``:
    a served page sends none of their frame-by-frame changes over the websocket.  ``synced`` models
    (widgets, and sources Python fills) keep syncing.  A name given twice is refused.
    """
    both = set(synced) & set(browser_only)
    if both:
        raise ValueError(f"engine arguments given twice: {', '.join(sorted(both))}")
    for m in browser_only.values():
        for model in (m if isinstance(m, (list, tuple)) else [m]):
            model.syncable = False
    return {**synced, **browser_only}


def by_name(root) -> dict:
    """Every named model under ``root``, by name, from one walk of the model graph.

    Bokeh's ``select_one`` walks the whole graph (about 1200 models on the page) each time; a served page
    builds its document once per visit, so lookups go through one walk instead.

    >>> from bokeh.models import Div, Column
    >>> sorted(by_name(Column(Div(name="a"), Div(name="b"), Div())))
    ['a', 'b']
    """
    return {m.name: m for m in root.references() if getattr(m, "name", None)}


def url_rules() -> dict:
    """The deep link's rules, from app/state.py, for ``parseQuery`` in common.js (one definition each).

    >>> url_rules()["shown_max"]
    40
    """
    return {"number": NUMBER.pattern, "integer": INTEGER.pattern, "true_words": list(TRUE_WORDS),
            "false_words": list(FALSE_WORDS), "shown_max": MAX_SHOWN}
