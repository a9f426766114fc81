"""The source tree stays readable: no Python or JavaScript function in app/ or attention/ runs over 60 lines, no
JavaScript file over 400, and every file the code's comments and docstrings name exists.

A function's length is its full extent, from its first decorator (or its ``def``) to its last line, docstring,
comments and blank lines included: what a reader scrolls through.  Nested functions count inside their parent
and on their own.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("app", "attention")
MAX_LINES = 60

def _sources(*suffixes: str) -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*")
                  if p.suffix in suffixes and "__pycache__" not in p.parts and p.is_file())


def function_lengths(path: Path, root: Path = ROOT) -> dict[str, int]:
    """``relative/path.py::name`` (``Class.method``, ``outer.inner``) -> the function's full extent in lines."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = path.relative_to(root).as_posix()
    out = {}

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                out[f"{rel}::{prefix}{child.name}"] = child.end_lineno - first + 1
                walk(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            else:
                walk(child, prefix)

    walk(tree, "")
    return out


def long_functions() -> dict[str, int]:
    found = {}
    for path in _sources(".py"):
        found.update({name: n for name, n in function_lengths(path).items() if n > MAX_LINES})
    return found


def test_the_length_counts_decorators_docstrings_and_nested_functions(tmp_path):
    src = tmp_path / "m.py"
    src.write_text('import functools\n\n\n@functools.lru_cache\ndef f():\n    """Doc."""\n\n'
                   '    def g():\n        return 1\n    return g\n\n\nclass C:\n    def m(self):\n        pass\n')
    assert function_lengths(src, tmp_path) == {"m.py::f": 7, "m.py::f.g": 2, "m.py::C.m": 2}


def test_no_python_function_in_app_or_attention_is_over_60_lines():
    too_long = long_functions()
    assert too_long == {}, f"split these into named pieces of at most {MAX_LINES} lines: {too_long}"


# ---- JavaScript ---------------------------------------------------------------------------------------------
# The page's JS is parsed by tree-sitter's JavaScript grammar (a real parser: template literals, regular
# expressions and arrow functions are read as the browser reads them).  A file is one module,
# ``const Name = (function (...) { ... })(...);``: that wrapper holds the module's private names and is not a
# function a reader reads as one, so it is not counted; every function inside it is, nested ones on their own
# and inside their parent.

MAX_JS_FILE_LINES = 400
JS_FUNCTIONS = {"function_declaration", "function_expression", "arrow_function", "method_definition",
                "generator_function_declaration", "generator_function"}
# Known to be over, to split; these lists can only shrink (the test fails on a name not listed, or listed and
# now short enough).
KNOWN_LONG_JS_FUNCTIONS = set()
KNOWN_LONG_JS_FILES = set()


def _js_parser():
    import tree_sitter_javascript
    from tree_sitter import Language, Parser
    return Parser(Language(tree_sitter_javascript.language()))


def _js_name(node) -> str:
    field = {"function_declaration": "name", "method_definition": "name", "generator_function_declaration": "name"}
    if node.type in field:
        return node.child_by_field_name("name").text.decode()
    parent = node.parent
    for kind, key in (("variable_declarator", "name"), ("pair", "key"), ("assignment_expression", "left")):
        if parent is not None and parent.type == kind:
            return parent.child_by_field_name(key).text.decode()
    return f"(function at line {node.start_point[0] + 1})"


def _is_module_wrapper(node) -> bool:
    """``const Name = (function () {...})(...)`` at the top of the file."""
    up = node.parent
    if up is not None and up.type == "parenthesized_expression":
        up = up.parent
    chain = [up, up and up.parent, up and up.parent and up.parent.parent]
    return (chain[0] is not None and chain[0].type == "call_expression" and chain[1] is not None
            and chain[1].type == "variable_declarator" and chain[2] is not None
            and chain[2].parent is not None and chain[2].parent.type == "program")


def js_function_lengths(path: Path, root: Path = ROOT) -> dict[str, int]:
    """``relative/path.js::name`` -> the function's extent in lines (the longest, if a name is used twice)."""
    tree = _js_parser().parse(path.read_bytes())
    rel = path.relative_to(root).as_posix()
    assert not tree.root_node.has_error, f"{rel} does not parse as JavaScript"
    out, stack = {}, [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in JS_FUNCTIONS and not _is_module_wrapper(node):
            key = f"{rel}::{_js_name(node)}"
            out[key] = max(out.get(key, 0), node.end_point[0] - node.start_point[0] + 1)
        stack.extend(node.children)
    return out


def test_the_js_length_counts_functions_inside_a_module_but_not_its_wrapper(tmp_path):
    src = tmp_path / "m.js"
    src.write_text("const M = (function (U) {\n  function f(a) {\n    const re = /}/g, s = `${a}}`;\n"
                   "    return (x) => {\n      return x;\n    };\n  }\n  return { f, g: function () {} };\n"
                   "})(AttnCommon);\n")
    assert js_function_lengths(src, tmp_path) == {"m.js::f": 6, "m.js::(function at line 4)": 3, "m.js::g": 1}


def test_no_js_function_is_over_60_lines_and_no_js_file_over_400():
    lengths = {}
    for path in _sources(".js"):
        lengths.update(js_function_lengths(path))
    long_functions_ = {name for name, n in lengths.items() if n > MAX_LINES}
    long_files = {p.relative_to(ROOT).as_posix() for p in _sources(".js")
                  if len(p.read_text(encoding="utf-8").splitlines()) > MAX_JS_FILE_LINES}
    assert long_functions_ - KNOWN_LONG_JS_FUNCTIONS == set(), f"split into pieces of at most {MAX_LINES} lines"
    assert long_files - KNOWN_LONG_JS_FILES == set(), f"split by concern into files of at most {MAX_JS_FILE_LINES}"
    assert KNOWN_LONG_JS_FUNCTIONS - long_functions_ == set(), "now short enough: take it off the known list"
    assert KNOWN_LONG_JS_FILES - long_files == set(), "now short enough: take it off the known list"


# A path under one of the project's folders, written anywhere in the text (not a URL's path, a regular
# expression's #data or a longer path that merely ends so).
PATH = re.compile(r"(?<![\w#/.@:-])((?:app|attention|data|tests|tools)/[\w./*-]*[\w*])")
# A bare file name, such as common.js, which must be some file of the project.
BARE = re.compile(r"(?<![\w./-])([\w-]+\.(?:py|js))\b(?![\w(])")
# File names written as examples, not as the project's files.
EXAMPLES = {"a.js"}


def resolves(path: str) -> bool:
    """Whether ``path`` names something in the project: a file or folder, a glob that matches one, or a module
    and one of its names (``app/ui/layout.Block`` is ``Block`` in app/ui/layout.py)."""
    if "*" in path:
        return any(ROOT.glob(path))
    if (ROOT / path).exists():
        return True
    parts = path.split(".")
    return any((ROOT / (".".join(parts[:i]) + ".py")).is_file() for i in range(len(parts) - 1, 0, -1))


def _project_file_names() -> set[str]:
    skip = {".git", ".venv", "node_modules", "__pycache__"}
    return {p.name for p in ROOT.rglob("*") if not skip.intersection(p.relative_to(ROOT).parts)}


def named_paths() -> list[tuple[str, int, str]]:
    """(file, line, path) for every project path and every bare .py or .js file name written in app/ and
    attention/ (code, comments and docstrings alike)."""
    out = []
    for f in _sources(".py", ".js", ".css", ".html"):
        for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            out += [(f.relative_to(ROOT).as_posix(), i, m.group(1)) for m in PATH.finditer(line)]
            out += [(f.relative_to(ROOT).as_posix(), i, m.group(1)) for m in BARE.finditer(line)]
    return out


def test_the_path_patterns_find_paths_and_skip_what_is_not_one():
    line = ('see app/state.py, app/ui/layout.Block, common.js and data/datasets/*.json; '
            'not /^#data/.test(h), http://x/app/y.py, c.cfg or self.css')
    assert [m.group(1) for m in PATH.finditer(line)] == ["app/state.py", "app/ui/layout.Block",
                                                         "data/datasets/*.json"]
    assert [m.group(1) for m in BARE.finditer(line)] == ["common.js"]
    assert resolves("app/state.py") and resolves("app/ui/layout.Block") and resolves("data/datasets/*.json")
    assert not resolves("app/theme.py") and not resolves("app/explorable.js")


def test_every_file_that_app_and_attention_name_exists():
    names = _project_file_names()
    missing = [f"{f}:{i}: {p}" for f, i, p in named_paths()
               if not (resolves(p) if "/" in p else p in names or p in EXAMPLES)]
    assert missing == []
