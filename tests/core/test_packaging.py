"""The wheel carries the data files and the browser sources, and the installed package finds them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    (whl,) = out.glob("attention_explorable-*.whl")
    return whl


def test_wheel_contains_data_and_browser_sources(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("attention_data/datasets/default.json", "attention_data/sentences.json",
                   "attention_data/metric2d.json", "app/ui/mirror.js", "app/ui/common.js", "app/ui/theme.js",
                   "app/regression/engine.js", "app/main.py", "attention/kernels.py", "app/sentence/engine.js",
                   "app/learning/engine.js", "app/ideas/engine.js", "attention/lags.py", "attention/sequence.py",
                   "app/deploy/nginx.conf", "app/ui/share.py", "app/ui/share.js",
                   "attention_data/notebooks/lecture.ipynb", "attention_data/tours/regression.json",
                   "app/tour/tour.js", "app/live/bridge.js", "app/live/server.py"):
        assert needed in names, needed


def test_installed_package_runs_the_readout_from_another_directory(wheel, tmp_path):
    target = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
                        str(wheel)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = dict(os.environ, PYTHONPATH=str(target))
    code = ("import attention, app.cli, sys; assert attention.__file__.startswith(sys.argv[1]), attention.__file__;"
            "sys.exit(app.cli.main(['readout', '--query', '3.2', '--bandwidth', '0.62', '--json']))")
    r = subprocess.run([sys.executable, "-c", code, str(target)], cwd=elsewhere, env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert (round(out["max_weight"], 3), round(out["entropy_bits"], 2), round(out["effective_points"], 1),
            round(out["prediction"], 2), round(out["true_value"], 2)) == (0.163, 3.35, 10.2, -0.30, -0.43)
