"""The layers meet only in order: every module of app/ (``__init__.py`` included) and every JS module of app/ and
attention/ belongs to exactly one layer, and imports (a JS module: is handed, its ``})(...)`` arguments) only from
its own layer or a lower one:

    the core (attention/) -> state, contract and ui (app/state.py, app/contract.py, app/ui/, and your own data's
    reader, app/userdata/)
    -> the sections (app/<folder>/, each its contract's) and the tour (app/tour/), side by side
    -> the composition (app/sections.py) -> the deliveries (app/delivery/, and app/__init__.py, their door)

Side by side means apart: no section imports another or the tour, the tour imports no section.  The import graph
has no circle.  Every import counts, at the top of a module or inside a function: one inside a function still
ties the two modules together, only later.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("core", "shared", "sections and tour", "composition", "deliveries")


def section_folders() -> dict[str, str]:
    """Each section's folder under app/, from its contract (the folder its builder lives in), by section name."""
    from app.sections import CATALOGUE

    return {c.name: c.build.__module__.split(".")[1] for c in CATALOGUE}


FOLDERS = section_folders()
SECTIONS = tuple(FOLDERS)


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
    by_folder = {folder: name for name, folder in FOLDERS.items()}
    return by_folder.get(parts[1]) if len(parts) > 1 and parts[0] == "app" else None


def layer_of(module: str, folders=None) -> tuple[int, str] | None:
    """(layer, room) of a module by its dotted name: the room tells apart the modules of one layer that stay
    apart (each section, the tour); None for a module of no layer."""
    folders = FOLDERS.values() if folders is None else folders
    parts = module.split(".")
    if parts[0] == "attention":
        return 0, "core"
    if parts[0] != "app":
        return None
    if module in ("app.state", "app.contract") or parts[1:2] in (["ui"], ["userdata"]):
        return 1, "shared"
    if parts[1:2] == ["tour"]:
        return 2, "tour"
    if len(parts) > 1 and parts[1] in folders:
        return 2, parts[1]
    if module == "app.sections":
        return 3, "composition"
    if module == "app" or parts[1:2] == ["delivery"]:
        return 4, "deliveries"
    return None


def wrong_imports(graph: dict[str, set[str]], folders=None) -> list[str]:
    """Every module of no layer, and every import against the layers' order or between two rooms of one layer."""
    out = []
    for module in sorted(graph):
        mine = layer_of(module, folders)
        if mine is None:
            out.append(f"{module}: in no layer")
            continue
        for t in sorted(graph[module]):
            theirs = layer_of(t, folders)
            if theirs is None:
                continue   # said once, as a module
            if theirs[0] > mine[0] or (theirs[0] == mine[0] == 2 and theirs[1] != mine[1]):
                out.append(f"{module} ({LAYERS[mine[0]]}) -> {t} ({LAYERS[theirs[0]]})")
    return out


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


def test_every_module_is_in_one_layer_and_imports_only_its_own_or_lower_ones(graph):
    assert {m for m in graph if m.startswith("app")} >= {"app", "app.state", "app.contract", "app.sections"}
    assert wrong_imports(graph) == []
    assert {section_of(t) for t in graph["app.sections"]} >= set(SECTIONS)   # the composition imports each one


def test_the_layer_check_finds_a_module_of_no_layer_and_an_import_against_the_order(tmp_path):
    """Named mutations: a bottom file importing a section (as app/state.py did before issue 50), a section
    importing another and the tour, and a folder that is no section."""
    pkg = tmp_path / "app"
    for d in ("", "ui", "tour", "one", "two", "stray", "delivery"):
        (pkg / d).mkdir(parents=True, exist_ok=True)
        (pkg / d / "__init__.py").write_text("")
    (pkg / "state.py").write_text("from app.one.view import V\n")
    (pkg / "one" / "view.py").write_text("from app.two import x\nfrom app.tour import t\nfrom app.ui import u\n")
    (pkg / "sections.py").write_text("from app.one.view import V\n")
    (pkg / "delivery" / "cli.py").write_text("from app.sections import S\n")
    g = import_graph(tmp_path, packages=("app",))
    assert wrong_imports(g, folders=("one", "two")) == [
        "app.one.view (sections and tour) -> app.tour (sections and tour)",
        "app.one.view (sections and tour) -> app.two (sections and tour)",
        "app.state (shared) -> app.one.view (sections and tour)",
        "app.stray: in no layer",
    ]




# ---- the page's JavaScript: each module is handed, as its ``})(...)`` arguments, only modules of its own layer
# and room or of a lower layer ---------------------------------------------------------------------------------

MODULE = re.compile(r"^const (\w+) = \(function \(([\w, ]*)\) \{", re.M)
HANDED = re.compile(r"^\}\)\(([\w,\s]*)\);", re.M)
# Modules the page writes from Python rather than ships as a file: the core's character classes (app/ui/engine.py).
WRITTEN = {"AttnUnicode": "attention.charclasses"}


def js_modules(root: Path = ROOT) -> dict[str, tuple[str, list[str]]]:
    """Every JS module of app/ and attention/: its name -> (the dotted name of its file's folder and file, the
    modules it is handed)."""
    out = {}
    for f in sorted([*(root / "attention").glob("*.js"), *(root / "app").rglob("*.js")]):
        text = f.read_text(encoding="utf-8")
        names, handed = MODULE.findall(text), HANDED.findall(text)
        assert len(names) == len(handed), f"{f}: {len(names)} modules, {len(handed)} argument lists"
        where = ".".join(f.relative_to(root).with_suffix("").parts)
        for (name, _params), args in zip(names, handed):
            out[name] = (where, [a.strip() for a in args.split(",") if a.strip()])
    return out


def wrong_handing(modules: dict, folders=None) -> list[str]:
    out = []
    files = {name: where for name, (where, _) in modules.items()} | WRITTEN
    for name, (where, args) in sorted(modules.items()):
        mine = layer_of(where, folders)
        if mine is None:
            out.append(f"{name} ({where}): in no layer")
            continue
        for a in args:
            theirs = layer_of(files[a], folders) if a in files else None
            if theirs is None:
                out.append(f"{name} ({where}) is handed {a}, which no file of a layer defines")
            elif theirs[0] > mine[0] or (theirs[0] == mine[0] == 2 and theirs[1] != mine[1]):
                out.append(f"{name} ({where}, {LAYERS[mine[0]]}) is handed {a} ({files[a]}, {LAYERS[theirs[0]]})")
    return out


def test_every_javascript_module_is_handed_only_its_own_or_lower_layers_modules():
    modules = js_modules()
    assert {"AttnCommon", "AttnMirror", "AttnTourSteps", "RegressionText"} <= set(modules)
    assert wrong_handing(modules) == []


def test_the_javascript_check_finds_a_module_handed_against_the_order():
    """Named mutations: the shared library handed a section's module, a section handed another's and the tour's,
    the core handed the page's."""
    modules = {"AttnCommon": ("app.ui.common", ["RegressionText"]), "RegressionText": ("app.regression.text", []),
               "SentenceState": ("app.sentence.state", ["RegressionText", "AttnTourSteps"]),
               "AttnTourSteps": ("app.tour.steps", ["AttnCommon"]), "AttnMirror": ("attention.mirror", ["AttnCommon"])}
    assert wrong_handing(modules, folders=("regression", "sentence")) == [
        "AttnCommon (app.ui.common, shared) is handed RegressionText (app.regression.text, sections and tour)",
        "AttnMirror (attention.mirror, core) is handed AttnCommon (app.ui.common, shared)",
        "SentenceState (app.sentence.state, sections and tour) is handed RegressionText (app.regression.text, "
        "sections and tour)",
        "SentenceState (app.sentence.state, sections and tour) is handed AttnTourSteps (app.tour.steps, "
        "sections and tour)",
    ]


# ---- the tour knows no section by name -------------------------------------------------------------------------

def section_literals(folder: Path, sections) -> list[str]:
    """Every string literal of the folder's Python (on its syntax tree: not docstrings) and JavaScript (quoted in
    its source: '...', "..." or `...`, comments left out) that equals a section's name."""
    out = []
    for f in sorted(folder.glob("*.py")):
        tree = ast.parse(f.read_text(encoding="utf-8"))
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
                and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        out += [f"{f.name}:{n.lineno}: {n.value!r}" for n in ast.walk(tree)
                if isinstance(n, ast.Constant) and n.value in sections and id(n) not in docs]
    for f in sorted(folder.glob("*.js")):
        for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            code = re.sub(r"//.*$", "", line) if not line.lstrip().startswith("//") else ""
            out += [f"{f.name}:{i}: {m[2]!r}" for m in re.finditer(r"([\"'`])(\w+)\1", code) if m[2] in sections]
    return out


def test_the_tour_names_no_section():
    """The tour asks every section the same questions through its contract: no string equal to a section's name
    in app/tour/, Python or JavaScript."""
    assert section_literals(ROOT / "app" / "tour", SECTIONS) == []


def test_the_literal_check_finds_a_section_named_in_python_and_javascript(tmp_path):
    """Named mutations: the tour's old special cases (a step's default section, tour.js's branch)."""
    (tmp_path / "model.py").write_text('"""A regression step."""\nsection: str = "regression"\n')
    (tmp_path / "tour.js").write_text('// "regression" in a comment\nif (step.section !== "regression") go();\n')
    assert section_literals(tmp_path, ("regression",)) == ["model.py:2: 'regression'", "tour.js:2: 'regression'"]
