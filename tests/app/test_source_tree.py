"""The source tree stays readable: no Python function in app/ or attention/ runs over 60 lines, and every file
the code's comments and docstrings name exists.

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
