"""The benchmark harness runs and writes a well-formed report (times are not checked)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_quick_core(tmp_path):
    out = tmp_path / "report.json"
    proc = subprocess.run([sys.executable, "-m", "tests.bench", "--quick", "--only", "core", "--output", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["quick"] is True and report["errors"] == []
    assert [m["module"] for m in report["modules"]] == ["bench_core"]
    for key in ("platform", "cpu_count", "python", "numpy", "date", "threads"):
        assert key in report["machine"]
    rows = report["rows"]
    for r in rows:
        assert {"section", "name", "median_us", "p95_us", "n_runs"} <= set(r)
        assert r["median_us"] > 0 and r["p95_us"] >= r["median_us"] and r["n_runs"] >= 1
        if "meets_target" in r:
            assert isinstance(r["meets_target"], bool) and r["target"]
    names = " / ".join(r["name"] for r in rows)
    for part in ("prediction curve: 400 queries", "every readout (readout)", "Python loops",
                 "dot_product_attention, n = 1024", "inline softmax"):
        assert part in names
    scaling = sorted(r["n"] for r in rows if "n" in r)
    assert scaling == [64, 128, 256, 512, 1024, 2048]
    ratios = [r for r in rows if "ratio" in r]
    assert len(ratios) == 3 and all(r["ratio"] > 0 for r in ratios)
    # the Markdown table on standard output
    table = [line for line in proc.stdout.splitlines() if line.startswith("|")]
    assert table[0] == "| section | benchmark | median | p95 | target | met |"
    assert len(table) == 2 + len(rows)


def test_bench_unknown_module_is_an_argument_error(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "tests.bench", "--quick", "--only", "nope",
                           "--output", str(tmp_path / "r.json")], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and "bench_nope" in proc.stderr
    assert not (tmp_path / "r.json").exists()


def test_bench_class_of_sessions_quick():
    """The class benchmark of bench_server (a real server, 2 sessions for 1 s) runs and reports sane rows.

    In a subprocess: it drives its own asyncio loop, which must not meet the browser tests' loop."""
    code = ("import json; from tests.bench.bench_server import class_rows; "
            "print(json.dumps(class_rows(True)))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-3000:]
    load, arrival, rss = json.loads(proc.stdout.strip().splitlines()[-1])
    assert load["errors"] == 0 and load["n_runs"] >= 2 and 0 < load["median_us"] <= load["p95_us"]   # each moved
    assert "sessions open 2/2" in load["note"] and load["rss_mb"] > 0
    assert arrival["n_runs"] == 2 and arrival["arrival_s"] > 0
    assert rss["mb_per_session"] > 0 and isinstance(rss["meets_target"], bool)


def test_bench_live_protocol_quick():
    """bench_live's protocol-level rows (one live server: 100 arriving, 10 regenerating for 2 s, 100 hostile links)
    run and report sane rows; the browser rows are left out, so no Chromium is needed.  In a subprocess, as above."""
    code = ("import json; from tests.bench.bench_live import protocol_rows; "
            "print(json.dumps(protocol_rows(True)))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    arrival, regenerate, hostile = json.loads(proc.stdout.strip().splitlines()[-1])
    for r in (arrival, regenerate, hostile):
        assert r["section"] == "live server"
        assert 0 < r["median_us"] <= r["p95_us"], r
    assert arrival["errors"] == 0 and arrival["n_runs"] == 100 and 0 < arrival["last_s"]
    assert isinstance(arrival["meets_target"], bool) and isinstance(arrival["rss_per_open_page_kb"], float)
    assert regenerate["errors"] == 0 and regenerate["n_runs"] >= 10 and regenerate["server_cpu"] > 0   # each reloaded
    assert hostile["n_runs"] == 100 and hostile["problems"] == 0, hostile["note"]
    assert hostile["error_lines"] == 0 and hostile["tracebacks"] == 0 and hostile["meets_target"] is True
    assert hostile["counts"]["page"] == 100
