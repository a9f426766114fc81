"""Every function the core exports documents its parameters and results in numpydoc form.

"Exported" means named in ``attention.__all__`` or in the ``__all__`` of one of
its modules.  Each such function's docstring has a one-line summary, a
"Parameters" section that names every parameter of its signature (and no
other), and a "Returns" section with at least one entry, as numpydoc (and
scikit-learn) write them:

    Parameters
    ----------
    x : array-like of shape (n,)
        What x is.

The sections are read the way numpydoc reads them: a title line, then a line
of dashes as long as the title; entries start at the docstring's left margin
and their descriptions are indented.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

import attention

PACKAGE_DIR = Path(attention.__file__).parent


def _modules_the_package_imports() -> list[str]:
    tree = ast.parse((PACKAGE_DIR / "__init__.py").read_text(encoding="utf-8"))
    return sorted({n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 1 and n.module})


def _exported_functions() -> dict[str, object]:
    found = {}
    for name in ["attention"] + [f"attention.{m}" for m in _modules_the_package_imports()]:
        mod = importlib.import_module(name)
        for export in getattr(mod, "__all__", ()):
            obj = getattr(mod, export)
            if inspect.isfunction(obj):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


EXPORTED = _exported_functions()


def sections(doc: str) -> dict[str, list[str]]:
    """numpydoc sections of a cleaned docstring (``inspect.getdoc``): title -> the lines under it."""
    lines = doc.splitlines()
    out, title = {}, None
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and re.fullmatch(r"-{3,}", nxt.strip() or "x") and len(nxt.strip()) == len(line.strip()):
            title = line.strip()
            out[title] = []
        elif title is not None and not re.fullmatch(r"-{3,}", line.strip() or "x"):
            out[title].append(line)
    return out


def entries(section: list[str]) -> list[str]:
    """The entry lines of a section: those at the left margin."""
    return [ln for ln in section if ln.strip() and not ln[0].isspace()]


def documented_names(section: list[str]) -> list[str]:
    names = []
    for ln in entries(section):
        head = ln.split(" : ")[0] if " : " in ln else ln
        names += [n.strip().lstrip("*") for n in head.split(",") if n.strip()]
    return names


def test_the_sections_parser_reads_numpydoc():
    doc = inspect.getdoc(attention.softmax)
    got = sections(doc)
    assert {"Parameters", "Returns"} <= set(got)
    assert documented_names(got["Parameters"]) == ["scores", "axis", "mask", "out", "shifted"]
    assert documented_names(got["Returns"]) == ["weights"]
    assert documented_names(["a, b : float", "    both", "*parts : str", "    pieces"]) == ["a", "b", "parts"]


def test_every_module_the_package_draws_from_declares_its_exports():
    missing = [m for m in _modules_the_package_imports() if not hasattr(importlib.import_module(f"attention.{m}"),
                                                                          "__all__")]
    assert missing == []
    for m in _modules_the_package_imports():
        mod = importlib.import_module(f"attention.{m}")
        assert [n for n in mod.__all__ if not hasattr(mod, n)] == [], m


def test_the_package_exports_functions():
    assert len(EXPORTED) >= 60
    assert "attention.kernels.softmax" in EXPORTED


@pytest.mark.parametrize("name", sorted(EXPORTED))
def test_exported_function_has_numpydoc_parameters_and_returns(name):
    fn = EXPORTED[name]
    doc = inspect.getdoc(fn)
    assert doc, f"{name} has no docstring"
    assert doc.splitlines()[0].strip(), f"{name}: the docstring starts with a one-line summary"
    got = sections(doc)
    params = [p for p in inspect.signature(fn).parameters if p != "self"]
    if params:
        assert "Parameters" in got, f"{name}: no Parameters section"
        assert documented_names(got["Parameters"]) == params, f"{name}: Parameters must list {params} in order"
    assert "Returns" in got, f"{name}: no Returns section"
    assert entries(got["Returns"]), f"{name}: the Returns section is empty"
    if "Parameters" in got and "Returns" in got:
        assert list(got).index("Parameters") < list(got).index("Returns"), f"{name}: Parameters come first"
