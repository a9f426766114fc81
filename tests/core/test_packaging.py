"""The wheel carries the data files and the browser sources, and the installed package finds them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The wheel of a clean copy of the sources: setuptools builds in ./build and keeps what is there, so a wheel of
    the checkout itself would carry files deleted since its last build (app/live did)."""
    src = tmp_path_factory.mktemp("src") / "attention-explorable"
    # (and none of what .gitignore keeps out of the sources: the venvs, .venv-newest or one per Python, hold
    # hundreds of MB, and tests/engines/node_modules, which CI installs before the tests, thousands of files)
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", ".venv", ".venv-*", "build", "*.egg-info",
                                                             "__pycache__", ".pytest_cache", ".hypothesis",
                                                             "artifacts", "node_modules"))
    out = tmp_path_factory.mktemp("wheel")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    (whl,) = out.glob("attention_explorable-*.whl")
    return whl


def _shipped_sources() -> list[str]:
    """Every data file (data/ is installed as attention_data), every browser source and deploy config of app/ and
    the core's JS twins in attention/, as the wheel names them."""
    data = [f"attention_data/{p.relative_to(ROOT / 'data').as_posix()}" for p in (ROOT / "data").rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"]
    app = [p.relative_to(ROOT).as_posix() for ext in ("*.js", "*.conf") for p in (ROOT / "app").rglob(ext)]
    core = [p.relative_to(ROOT).as_posix() for p in (ROOT / "attention").rglob("*.js")]
    return data + app + core


def test_wheel_contains_data_and_browser_sources(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = _shipped_sources()
    for needed in ("attention_data/senses.json", "attention_data/tours/lesson.json",
                   "attention_data/tours/tour.schema.json", "attention_data/tours/examples/routing.json",
                   "attention_data/examples/temperatures.csv", "attention/words.js", "attention/generator.js",
                   "attention/train.js", "attention/kernels.js", "attention/mirror.js", "app/ui/worker.js", "app/ui/loader.js", "app/routing/engine.js"):
        assert needed in shipped, needed                      # the list below is the repository's own
    for needed in shipped + ["app/delivery/main.py", "app/delivery/plugin.py", "app/delivery/export.py",
                             "app/ui/share.py", "attention/kernels.py", "attention/lags.py", "attention/sequence.py",
                             "attention/learn_qk.py"]:
        assert needed in names, needed
    assert not [n for n in names if n.startswith("app/live/")]   # gone from the sources, gone from the wheel


def test_installed_package_runs_the_readout_from_another_directory(wheel, tmp_path):
    target = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
                        str(wheel)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = dict(os.environ, PYTHONPATH=str(target))
    code = ("import attention, app.delivery.cli, sys; "
            "assert attention.__file__.startswith(sys.argv[1]), attention.__file__;"
            "sys.exit(app.delivery.cli.main(['readout', '--query', '3.2', '--bandwidth', '0.62', '--json']))")
    r = subprocess.run([sys.executable, "-c", code, str(target)], cwd=elsewhere, env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert (round(out["max_weight"], 3), round(out["entropy_bits"], 2), round(out["effective_points"], 1),
            round(out["prediction"], 2), round(out["true_value"], 2)) == (0.163, 3.35, 10.2, -0.30, -0.43)
