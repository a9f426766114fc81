"""The layers meet only where app/contract.py says: the import graph of app/ has no circle, no section imports
another, the tour and the shared layer (app/ui/) import no section, the deliveries reach the sections only
through the composition (app/sections.py), and the core (attention/) imports nothing of the page.

Every import counts, at the top of a module or inside a function: one inside a function still ties the two
modules together, only later.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Each section's folder under app/, and the section's name in links, tours and --sections (the same, since issue 50).
FOLDERS = {"regression": "regression", "sentence": "sentence", "ideas": "ideas", "learning": "learning",
           "routing": "routing"}
SECTIONS = tuple(FOLDERS.values())
DELIVERIES = tuple(f"app.delivery.{m}" for m in ("page", "plugin", "export", "cli", "main", "serving"))


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _targets(node, module: str, is_package: bool, known: set) -> list[str]:
    """The project's modules an import statement names (``from . import text`` names app.x.text)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = module if is_package else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    base = (f"{base}.{node.module}" if base else node.module) if node.module else base
    if not node.level:
        base = node.module or ""
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]


def import_graph(root: Path = ROOT, packages=("app", "attention")) -> dict[str, set[str]]:
    """module -> the project's modules it imports (anywhere in it)."""
    paths = [p for pkg in packages for p in (root / pkg).rglob("*.py") if "__pycache__" not in p.parts]
    known = {_module_name(p, root) for p in paths}
    graph = {}
    for p in paths:
        module, is_package = _module_name(p, root), p.name == "__init__.py"
        found = set()
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found |= {t for t in _targets(node, module, is_package, known) if t in known and t != module}
        graph[module] = found
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan's algorithm), each sorted."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def section_of(module: str) -> str | None:
    parts = module.split(".")
    return FOLDERS.get(parts[1]) if len(parts) > 1 and parts[0] == "app" else None


@pytest.fixture(scope="module")
def graph():
    return import_graph()


def test_the_graph_finds_imports_inside_functions_and_relative_ones(tmp_path):
    pkg = tmp_path / "app"
    (pkg / "sec").mkdir(parents=True)
    for f in ("__init__.py", "sec/__init__.py", "sec/text.py", "state.py"):
        (pkg / f).write_text("")
    (pkg / "sec" / "view.py").write_text("from . import text\n\ndef f():\n    from ..state import X\n")
    (pkg / "state.py").write_text("def g():\n    from app.sec.view import f\n")
    g = import_graph(tmp_path, packages=("app",))
    assert g["app.sec.view"] == {"app.sec.text", "app.state"} and g["app.state"] == {"app.sec.view"}
    assert circles(g) == [["app.sec.view", "app.state"]]


def test_the_import_graph_has_no_circle(graph):
    assert circles(graph) == []


def test_no_section_imports_another_and_the_tour_and_the_shared_layer_import_none(graph):
    wrong = []
    for module, targets in graph.items():
        mine = section_of(module)
        layer = "tour" if module.startswith("app.tour") else "ui" if module.startswith("app.ui") else None
        for t in targets:
            theirs = section_of(t)
            if theirs and (layer or (mine and theirs != mine)):
                wrong.append(f"{module} -> {t}")
            if layer == "ui" and t.startswith("app.tour"):
                wrong.append(f"{module} -> {t}")
    assert wrong == []


def test_the_deliveries_reach_the_sections_only_through_the_composition(graph):
    wrong = [f"{d} -> {t}" for d in DELIVERIES for t in graph[d] if section_of(t)]
    assert wrong == []
    assert {section_of(t) for t in graph["app.sections"]} >= set(SECTIONS)   # the composition imports each one


def test_the_core_imports_nothing_of_the_page(graph):
    assert [f"{m} -> {t}" for m, ts in graph.items() if m.startswith("attention") for t in ts
            if t.startswith("app")] == []


def test_the_cores_javascript_twins_use_only_core_files():
    """Each JS file of attention/ is handed only modules defined in attention/ (its ``})(...)`` arguments)."""
    import re
    from pathlib import Path

    core = Path(__file__).resolve().parents[2] / "attention"
    defined = {re.search(r"^const (Attn\w+) = ", f.read_text(encoding="utf-8"), re.M).group(1): f.name
               for f in core.glob("*.js")}
    defined["AttnUnicode"] = "attention/charclasses.py"   # the core's character classes, which the page writes as JS
    used = {}
    for f in core.glob("*.js"):
        found = re.search(r"\}\)\(([\w, ]*)\);\s*(?:globalThis[^\n]*\s*)?$", f.read_text(encoding="utf-8"))
        used[f.name] = [a.strip() for a in found.group(1).split(",") if a.strip()] if found else []
    assert {name: [m for m in mods if m not in defined] for name, mods in used.items() if
            any(m not in defined for m in mods)} == {}
    assert used["train.js"] == ["AttnNumbers"] and "AttnNumbers" in used["generator.js"]
