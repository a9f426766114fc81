"""The example lecture notebook (data/notebooks/lecture.ipynb) runs top to bottom in a real kernel.

nbclient runs it in this project's Python, as an instructor's Jupyter would; no browser is needed.
Its outputs must be self-contained (nothing for a browser to fetch from a CDN) and its table of
entropy against h must hold the core's numbers.
"""

from __future__ import annotations

import importlib.util
import os
import re

import pytest

import attention
from tests.browser.pageutil import ROOT

NOTEBOOK = ROOT / "data" / "notebooks" / "lecture.ipynb"
# the lists of files Panel's notebook loader fetches (they hold CDN addresses unless resources are inline)
LOADER_LISTS = re.compile(r"\b(js_urls|js_modules|css_urls|js_exports)\s*=\s*(\[[^\]]*\]|\{[^}]*\})")


def _need(module):
    if importlib.util.find_spec(module) is None:
        msg = f"{module} is not installed (pip install -e '.[test]')"
        if os.environ.get("CI") == "true":
            pytest.fail(msg)
        pytest.skip(msg)


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    for module in ("nbclient", "nbformat", "ipykernel"):
        _need(module)
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOK, as_version=4)
    workdir = tmp_path_factory.mktemp("lecture")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PANEL_", "BOKEH_"))}
    env["PYTHONPATH"] = str(ROOT)
    client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(workdir)}})
    client.execute(env=env)  # handed to the kernel manager's start_kernel
    return nb


def _text(output):
    if output.get("output_type") == "stream":
        return output.get("text", "")
    return "".join(v if isinstance(v, str) else "" for v in output.get("data", {}).values())


def test_every_code_cell_ran_without_an_error(executed):
    code = [c for c in executed.cells if c.cell_type == "code"]
    assert code and all(c.execution_count for c in code)
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]


def test_each_prepared_state_renders_the_component_with_everything_inline(executed):
    rendered = [c for c in executed.cells if c.cell_type == "code" and "Explorable(" in c.source
                and "import" not in c.source]
    assert len(rendered) >= 4
    for cell in rendered:
        assert any("application/vnd.holoviews_exec.v0+json" in o.get("data", {}) for o in cell.outputs), cell.source
    # pn.extension() after `from app import Explorable` loads BokehJS and Panel inline, not from a CDN
    first = executed.cells[1]
    assert "pn.extension()" in first.source
    loaded = "".join(_text(o) for o in first.outputs)
    assert "Bokeh" in loaded and len(loaded) > 1_000_000  # BokehJS itself is in the output
    lists = LOADER_LISTS.findall(loaded)
    assert {name for name, _ in lists} >= {"js_urls", "css_urls"}
    assert [(name, files) for name, files in lists if "http" in files] == []
    every = "".join(_text(o) for c in executed.cells if c.cell_type == "code" for o in c.outputs)
    assert not re.findall(r"<(?:script|link)\b[^>]*\b(?:src|href)=[\"']https?://", every)


def test_the_entropy_table_holds_the_cores_numbers(executed):
    table = next(c for c in executed.cells if c.cell_type == "code" and "entropy_bits" in c.source)
    lines = "".join(_text(o) for o in table.outputs).splitlines()
    rows = {float(line.split()[0]): line.split()[1:] for line in lines[1:]}
    d = attention.load_dataset("default")
    assert sorted(rows) == [0.05, 0.1, 0.2, 0.3, 0.62, 1.0, 2.0, 5.0, 20.0]
    for h, cols in rows.items():
        r = attention.readout(3.2, d.x, d.y, bandwidth=h)
        assert cols == [f"{r.max_weight:.3f}", f"{r.entropy_bits:.2f}", f"{r.effective_points:.1f}"], h
    assert rows[0.62] == ["0.163", "3.35", "10.2"]  # the README's worked example
