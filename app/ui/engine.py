"""Engine wiring every section shares: the JS an engine is made of, and the models it is handed.

The JavaScript every section shares (the core's formulas, the theme, BokehJS's door, the page's helpers and bus,
the tokenizer, the generator, the trainer, the Web Worker's runner, your own data's parser, the share buttons)
is one library, shipped once per page: ``library_source()``, each file of ``LIBRARY`` once, in the order they
use one another, each module left on ``globalThis`` by its name.  The twins of the numpy core (numbers.js,
kernels.js, mirror.js, words.js, generator.js, train.js) sit beside their originals in attention/, the others here in
app/ui/.  The offline file and the served page run it as the page's own script, before anything else
(app/delivery/export.py); a notebook's document carries it once, in the ``code`` of one ``CustomJS`` model
(``library_model``), which an engine runs the first time it is called and finds already run after that.

An engine is one Bokeh ``CustomJS`` whose code is the section's own ``engine.js`` and one call,
``<Name>.handle(cb_obj, {args})``, after ``LOAD_LIBRARY``; ``engine_callback`` hands it the document's library.
No section's engine includes another's: sections talk through Python attributes and, in the browser, the
page-level bus of common.js (``publish``/``subscribe``).

Two names every engine file uses: ``U`` is the shared library (``AttnCommon``: the theme's, the page's and the
formats' helpers), and a function's ``(a, c)`` are the engine's models by their names (``a``: the ``args`` the
section's view hands its ``CustomJS``, figures, sources and widgets) and its state between calls (``c``: what it
computed and remembers, kept per page by ``U.pageState``).
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import re
from functools import lru_cache
from pathlib import Path

from bokeh.models import CustomJS

import attention
from attention.charclasses import browser_table

from app.state import FALSE_WORDS, INTEGER, MAX_SHOWN, NUMBER, TRUE_WORDS

UI = Path(__file__).resolve().parent
CORE = Path(attention.__file__).resolve().parent   # the numpy core, whose JS twins sit beside their originals

@lru_cache(maxsize=None)
def read_js(path: Path) -> str:
    r"""The text of one JS file as the page ships it: without its whole-line ``//`` comments, which are a
    third of the engines' code (the page carries the shared library once, in its own script).  No JS file of the app
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


# The shared files (each a path: a twin of the core in attention/, beside its original), each with the module it
# defines, in the order they use one another (a file uses only the modules before it).
LIBRARY = ((CORE / "numbers.js", "AttnNumbers"), (CORE / "kernels.js", "AttnKernels"), (CORE / "mirror.js", "AttnMirror"), (UI / "theme.js", "Theme"),
           (UI / "bokehjs.js", "AttnBokeh"), (UI / "format.js", "AttnFormat"), (UI / "common.js", "AttnCommon"),
           (UI / "describe.js", "AttnDescribe"),
           (CORE / "words.js", "AttnWords"), (CORE / "generator.js", "AttnGenerator"),
           (CORE / "train.js", "AttnTrain"), (UI / "worker.js", "AttnWorker"), (UI / "userwords.js", "AttnUserWords"),
           (UI / "userparse.js", "AttnUserParse"), (UI / "userdata.js", "AttnUserData"), (UI / "share.js", "AttnShare"),
           (UI / "audiograph.js", "AttnAudio"), (UI / "frame.js", "AttnFrame"))
# The same files by their names, unique across the folders (LIBRARY_FILES["mirror.js"] is attention/mirror.js).
LIBRARY_FILES = {path.name: path for path, _ in LIBRARY}
LIBRARY_FLAG = "__attnLibrary"   # set on globalThis once the library has run
LIBRARY_TEXT = "__attnLibraryText"   # the library's own text, which a Web Worker's modules are cut from
# An engine's first line: the document's library, run once (a page's own script has run it already).
LOAD_LIBRARY = (f"if (globalThis.{LIBRARY_FLAG} !== true) "
                f"{{ globalThis.{LIBRARY_TEXT} = library.code; new Function(library.code)(); }}\n")


@lru_cache(maxsize=None)
def library_source() -> str:
    """Every shared file once, each module then left on ``globalThis`` (an engine finds it there by its name),
    and the flag that says the library has run.  Each file sits between two marks, ``/*<attn:Name>*/`` and
    ``/*</attn:Name>*/``, so that a Web Worker is built from the text of the modules it needs
    (``AttnWorker.modules`` in ui/worker.js): the library's text is kept on ``globalThis`` (set by
    ``LOAD_LIBRARY``, or read from the page's own script as it runs).

    >>> src = library_source()
    >>> marks = [(src.count(f"/*<attn:{name}>*/"), src.count(f"/*</attn:{name}>*/")) for _, name in LIBRARY]
    >>> marks == [(1, 1)] * len(LIBRARY)
    True
    >>> src.index("const AttnMirror") < src.index("const AttnWords") < src.rstrip().index("__attnLibrary = true")
    True
    >>> len(LIBRARY_FILES) == len(LIBRARY) and all(p.is_file() for p in LIBRARY_FILES.values())
    True
    """
    text = (f"globalThis.{LIBRARY_TEXT} = globalThis.{LIBRARY_TEXT} || (typeof document !== 'undefined' && "
            f"document.currentScript ? document.currentScript.textContent : '');\n")
    parts = [(unicode_table_js() if path.name == "words.js" else "") + f"/*<attn:{module}>*/\n" + read_js(path) +
             f"/*</attn:{module}>*/\nglobalThis.{module} = {module};\n" for path, module in LIBRARY]
    return text + "".join(parts) + f"globalThis.{LIBRARY_FLAG} = true;\n"


_LIBRARY: contextvars.ContextVar = contextvars.ContextVar("attention_explorable_library", default=None)


def library_model():
    """A document's one library model: a ``CustomJS`` that no event runs, whose ``code`` is the library."""
    return CustomJS(code=library_source(), name="attn_library")


@contextlib.contextmanager
def one_library():
    """Within this block, every engine made (``engine_callback``) shares one library model (yielded): the
    composition builds a page's sections inside one (app/sections.py)."""
    model = library_model()
    token = _LIBRARY.set(model)
    try:
        yield model
    finally:
        _LIBRARY.reset(token)


def engine_callback(args: dict, code: str):
    """An engine: a ``CustomJS`` with ``args`` and ``code`` (``engine_code``), handed the document's library (a
    section built on its own, outside the composition, gets a library of its own)."""
    library = _LIBRARY.get() or library_model()
    return CustomJS(args={**args, "library": library}, code=code)


def engine_code(section_js, handler: str, arg_names) -> str:
    """The code of a section's engine: the library's loading line, the section's JS files in order (one path, or
    a list of them: an engine split by concern, each file a module the later ones use), then the call.

    >>> code = engine_code(UI / "share.js", "AttnShare.handle", ["a"])
    >>> code.startswith(LOAD_LIBRARY) and code.rstrip().endswith("AttnShare.handle(cb_obj, {a});")
    True
    >>> engine_code([UI / "share.js", UI / "worker.js"], "AttnShare.handle", []).index("const AttnWorker") > 0
    True
    """
    files = [section_js] if isinstance(section_js, (str, Path)) else list(section_js)
    body = "".join(read_js(Path(f)) for f in files)
    return LOAD_LIBRARY + body + f"\n{handler}(cb_obj, {{{', '.join(arg_names)}}});\n"


def unicode_table_js() -> str:
    """The tokenizer's character classes as attention/words.js reads them (``AttnUnicode``), which an engine puts just
    before words.js: data/unicode_classes.json as ``attention.charclasses`` reads it.

    >>> unicode_table_js().startswith('const AttnUnicode = {"unicode":"14.0.0","classes":{"blank":"oo 2 6 ')
    True
    """
    return f"const AttnUnicode = {json.dumps(browser_table(), separators=(',', ':'))};\n"


@lru_cache(maxsize=None)
def module_uses(module: str) -> tuple[str, ...]:
    """The library modules a module is built from: the arguments its file hands its function at its end
    (``})(AttnKernels);``), those of ``LIBRARY`` only.

    >>> module_uses("AttnMirror"), module_uses("AttnKernels")
    (('AttnKernels',), ())
    """
    path = dict((m, f) for f, m in LIBRARY)[module]
    found = re.search(r"\}\)\(([\w, ]*)\);\s*$", read_js(path))
    args = [a.strip() for a in found.group(1).split(",")] if found else []
    return tuple(a for a in args if a in {m for _, m in LIBRARY})


def worker_modules(*names) -> list[str]:
    """The library modules a Web Worker runs, in the library's order: these, and the modules each is built from
    (``module_uses``), so that a module split by concern still runs in a worker under its one name (ui/worker.js
    ``modules`` finds their text in the library, which the page carries once); a name not in ``LIBRARY`` is
    refused.

    >>> worker_modules("AttnMirror")
    ['AttnKernels', 'AttnMirror']
    """
    known = [module for _, module in LIBRARY]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"not in the library: {', '.join(unknown)}")
    wanted, todo = set(), list(names)
    while todo:
        n = todo.pop()
        if n not in wanted:
            wanted.add(n)
            todo.extend(module_uses(n))
    return [m for m in known if m in wanted]


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
    """The deep link's rules, from app/state.py, for ``parseQuery`` in format.js (one definition each).

    >>> url_rules()["shown_max"]
    40
    """
    return {"number": NUMBER.pattern, "integer": INTEGER.pattern, "true_words": list(TRUE_WORDS),
            "false_words": list(FALSE_WORDS), "shown_max": MAX_SHOWN}
