"""The ``attention-explorable`` command line: ``readout``, and the command ``serve`` runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import attention
from app.delivery import cli
from app.regression.text import caption

ROOT = Path(__file__).resolve().parents[2]
KEYS = {"query", "bandwidth", "temperature", "kernel", "dataset", "n", "max_weight", "entropy_bits",
        "effective_points", "prediction", "true_value", "nearest_neighbor_prediction", "global_mean"}


def run(argv, capsys):
    """Run the CLI in-process; return (exit code, stdout, stderr)."""
    try:
        code = cli.main(argv)
    except SystemExit as e:           # argparse exits on its own errors
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


def test_readout_json_matches_the_core(capsys):
    code, out, err = run(["readout", "--query", "3.2", "--bandwidth", "0.62", "--json"], capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert len(lines) == 1
    got = json.loads(lines[0])
    assert set(got) == KEYS
    d = attention.load_dataset()
    r = attention.readout(3.2, d.x, d.y, bandwidth=0.62, true_function=d.true_function)
    assert got == {**r.as_dict(), "bandwidth": 0.62, "temperature": 1.0, "kernel": "gaussian", "dataset": "default"}
    # the worked example
    assert round(got["max_weight"], 3) == 0.163 and round(got["entropy_bits"], 2) == 3.35
    assert round(got["effective_points"], 1) == 10.2 and round(got["prediction"], 2) == -0.30
    assert round(got["true_value"], 2) == -0.43 and got["n"] == 24


def test_readout_json_with_every_option(capsys):
    argv = ["readout", "--query", "2", "--bandwidth", "0.4", "--temperature", "2", "--kernel", "dot",
            "--key-norm", "0.3", "--dataset", "bump", "--json"]
    code, out, _ = run(argv, capsys)
    assert code == 0
    got = json.loads(out)
    d = attention.load_dataset("bump")
    r = attention.readout(2.0, d.x, d.y, kernel="dot", bandwidth=0.4, temperature=2.0,
                          key_scale=attention.key_norm_tilt(d.x, 0.3), true_function=d.true_function)
    assert got == {**r.as_dict(), "bandwidth": 0.4, "temperature": 2.0, "kernel": "dot", "dataset": "bump"}


def test_readout_text_is_the_caption(capsys):
    code, out, err = run(["readout", "--query", "3.2", "--bandwidth", "0.62"], capsys)
    assert code == 0 and err == ""
    d = attention.load_dataset()
    r = attention.readout(3.2, d.x, d.y, bandwidth=0.62, true_function=d.true_function)
    assert out == caption(r, kernel="gaussian", bandwidth=0.62, temperature=1.0) + "\n"
    assert out.count("\n") == 1
    for part in ("x = 3.20", "24 samples", "h = 0.62", "0.163", "10.2 effective points",
                 "prediction is \u22120.30", "true value \u22120.43"):
        assert part in out
    assert "T =" not in out


def test_caption_mentions_temperature_and_kernel(capsys):
    code, out, _ = run(["readout", "--query", "1", "--bandwidth", "0.5", "--temperature", "3", "--kernel", "dot"],
                       capsys)
    assert code == 0
    assert "T = 3" in out and "dot-product" in out


@pytest.mark.parametrize("argv, words", [
    (["readout", "--query", "3.2", "--bandwidth", "-1"], "--bandwidth"),
    (["readout", "--query", "3.2", "--bandwidth", "0"], "--bandwidth"),
    (["readout", "--query", "nan", "--bandwidth", "0.62"], "--query"),
    (["readout", "--query", "3.2", "--bandwidth", "nan"], "--bandwidth"),
    (["readout", "--query", "3.2", "--bandwidth", "inf"], "--bandwidth"),
    (["readout", "--query", "3.2", "--bandwidth", "0.62", "--temperature", "-2"], "--temperature"),
    (["readout", "--query", "abc", "--bandwidth", "0.62"], "--query"),
    (["readout", "--query", "3.2", "--bandwidth", "0.62", "--dataset", "nope"], "dataset"),
    (["readout", "--query", "3.2", "--bandwidth", "0.62", "--kernel", "rbf"], "--kernel"),
    (["readout", "--bandwidth", "0.62"], "--query"),
    (["readout", "--query", "3.2"], "--bandwidth"),
    (["readout", "--query", "3.2", "--bandwidth", "0.62", "--json", "--bogus"], "--bogus"),
    (["export", "/tmp/never-written.html", "--dataset", "generated"], "?dataset=generated&fn="),
    (["serve", "--num-procs", "0"], "--num-procs"),
    (["serve", "--num-procs", "two"], "--num-procs"),
    (["serve", "--unused-session-lifetime", "-5"], "--unused-session-lifetime"),
    (["serve", "--check-unused-sessions", "1.5"], "--check-unused-sessions"),
    (["serve", "--port", "70000"], "--port"),
    (["serve", "--address", "0.0.0.0"], "--allow-host"),
    (["serve", "--basic-auth", "pw"], "--cookie-secret"),
    (["serve", "--oauth-provider", "github"], "--cookie-secret"),
    (["serve", "--basic-auth"], "--basic-auth"),
    (["serve", "--prefix"], "--prefix"),
    (["serve", "--log-level", "loud"], "--log-level"),
    (["serve", "--tour", "/nonexistent/tour.json"], "--tour"),
    (["serve", "--sessions"], "--sessions"),          # gone: that is `panel serve app/delivery/main.py` itself
    (["serve", "--bogus", "--", "--dev"], "--bogus"),  # only what follows -- goes to panel serve unread
    (["nonsense"], "nonsense"),
    ([], "command"),
])
def test_bad_arguments_exit_2_with_one_line(argv, words, capsys, monkeypatch):
    for var in cli.COOKIE_SECRET_VARIABLES:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(os, "execv", lambda *a: pytest.fail(f"serve started a server for {argv}"))
    code, out, err = run(argv, capsys)
    assert code == 2
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert "error" in err and words in err
    assert "Traceback" not in err


def test_subprocess(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    ok = subprocess.run([sys.executable, "-m", "app.delivery.cli", "readout", "--query", "3.2", "--bandwidth", "0.62",
                         "--json"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert set(json.loads(ok.stdout)) == KEYS
    bad = subprocess.run([sys.executable, "-m", "app.delivery.cli", "readout", "--query", "3.2", "--bandwidth", "-1"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def _cmd(*argv):
    return cli.serve_command(cli.parse_args(["serve", *argv]))


def test_serve_runs_panel_serve_with_the_page_at_root():
    cmd = _cmd("--port", "5101")
    i = cmd.index("serve")
    assert cmd[:i + 1] == [sys.executable, "-m", "panel", "serve"]
    assert cmd[i + 1] == str(ROOT / "app" / "delivery" / "main.py")
    assert cmd[cmd.index("--plugins") + 1] == "app.delivery.plugin"
    assert cmd[cmd.index("--port") + 1] == "5101" and cmd[cmd.index("--address") + 1] == "127.0.0.1"
    assert cmd[cmd.index("--log-level") + 1] == "warning" and cmd[cmd.index("--num-procs") + 1] == "1"
    for flag in ("--index", "--basic-auth", "--prefix", "--admin", "--show", "--dev", "--autoreload"):
        assert flag not in cmd


def test_serve_passes_panels_own_flags_on_named_or_after_the_double_dash():
    cmd = _cmd("--prefix", "/course", "--basic-auth", "users.json", "--cookie-secret", "s3", "--admin",
               "--use-xheaders", "--ssl-certfile", "c.pem", "--ssl-keyfile", "k.pem", "--num-procs", "2",
               "--", "--oauth-optional", "--index", "main")
    assert cmd[-3:] == ["--oauth-optional", "--index", "main"]   # as given, last
    for flag, value in (("--prefix", "/course"), ("--basic-auth", "users.json"), ("--cookie-secret", "s3"),
                        ("--ssl-certfile", "c.pem"), ("--ssl-keyfile", "k.pem"), ("--num-procs", "2")):
        assert cmd[cmd.index(flag) + 1] == value, flag
    assert "--admin" in cmd and "--use-xheaders" in cmd
    # every flag serve passes on by name is one panel serve knows
    from panel.command.serve import Serve

    known = {a[0] if isinstance(a[0], str) else a[0][0] for a in Serve.args}
    assert {flag for flag, _m, _h in cli.PANEL_FLAGS} <= known


def test_a_cookie_secret_in_the_environment_is_enough(monkeypatch):
    monkeypatch.setenv("PANEL_COOKIE_SECRET", "from-the-environment")
    assert "--cookie-secret" not in _cmd("--basic-auth", "pw")


def test_the_page_url_follows_address_prefix_and_tls():
    url = lambda *a: cli.page_url(cli.parse_args(["serve", *a]))  # noqa: E731
    assert url() == "http://localhost:5006/"
    assert url("--address", "0.0.0.0", "--allow-host", "x:1", "--port", "80", "--prefix", "course/") == \
        "http://localhost:80/course/"
    assert url("--address", "10.0.0.5", "--allow-host", "x:1", "--ssl-certfile", "c.pem") == "https://10.0.0.5:5006/"


def test_show_opens_the_page_once_the_port_answers(monkeypatch):
    import socket
    import webbrowser

    opened = []
    monkeypatch.setattr(webbrowser, "open", opened.append)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        assert cli.open_when_listening(f"http://127.0.0.1:{port}/", timeout=1) is False and opened == []
        s.listen()
        assert cli.open_when_listening(f"http://127.0.0.1:{port}/course/", timeout=10) is True
    assert opened == [f"http://127.0.0.1:{port}/course/"]


def test_serve_becomes_panel_serve_and_show_waits_for_it_beside(monkeypatch, capsys):
    import subprocess

    ran = {}
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):   # serve sets them for the server
        monkeypatch.setenv(var, os.environ.get(var, "1"))
    monkeypatch.setattr(os, "execv", lambda exe, cmd: ran.setdefault("cmd", cmd))
    monkeypatch.setattr(subprocess, "Popen", lambda cmd, **kw: ran.setdefault("helper", cmd))
    assert cli.main(["serve", "--port", "5999", "--show", "--prefix", "course", "--", "--dev"]) == 0
    assert ran["cmd"] == _cmd("--port", "5999", "--prefix", "course", "--", "--dev") and "--show" not in ran["cmd"]
    assert ran["helper"][-1] == "http://localhost:5999/course/" and "open_when_listening" in ran["helper"][-2]
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "http://localhost:5999/course/" in out and "/course/main" in out


# ---- export --data: your own data as the file's opening dataset ------------------------------------------

EXAMPLE = ROOT / "data" / "examples" / "temperatures.csv"
CARRIED = r'<script type="application/json" id="attn-data">(.*?)</script>'


# --sections regression leaves the lesson's later steps out of the file, and says so (not an error)
LEFT_OUT = ("attention-explorable export: notice: left out 14 steps of learning, sentence, routing, ideas "
            "(steps 8-21): their sections are not in this file\n")


def _carried(path: Path):
    import re

    from app import userdata

    found = re.findall(CARRIED, path.read_text(encoding="utf-8"), re.S)
    return [userdata.from_embedded(t) for t in found]


def test_export_with_data_carries_them_exactly(tmp_path, capsys):
    from app import userdata

    out = tmp_path / "year.html"
    code, stdout, err = run(["export", str(out), "--sections", "regression", "--data", str(EXAMPLE),
                             "--x", "day", "--y", "temp_c"], capsys)
    assert (code, err) == (0, LEFT_OUT)
    assert stdout.splitlines()[0] == f"notice: 365 points of temp_c against day from {EXAMPLE}"
    [got] = _carried(out)
    want = userdata.read_csv_file(EXAMPLE)
    assert got.x.tolist() == want.x.tolist() and got.y.tolist() == want.y.tolist()
    assert (got.x_name, got.y_name) == ("day", "temp_c")


def test_export_with_data_picks_columns_and_says_what_it_did(tmp_path, capsys):
    data = tmp_path / "wide.csv"
    data.write_text("station;day;temp_c\nA;1;3,5\nA;2;NA\nA;3;4,25\n", encoding="utf-8")
    out = tmp_path / "wide.html"
    code, stdout, err = run(["export", str(out), "--sections", "regression", "--data", str(data), "--y", "3"],
                            capsys)
    assert (code, err) == (0, LEFT_OUT)
    [got] = _carried(out)
    assert got.x.tolist() == [1.0, 3.0] and got.y.tolist() == [3.5, 4.25] and got.y_name == "temp_c"
    notices = [line[len("notice: "):] for line in stdout.splitlines() if line.startswith("notice: ")]
    from app import userdata

    assert notices[1:] == list(userdata.read_csv_file(data, y="3").notices)
    assert any("decimal points" in n for n in notices) and any("missing value" in n for n in notices)


def test_a_name_cannot_end_the_carried_data(tmp_path, capsys):
    data = tmp_path / "evil.csv"
    data.write_text('"</script><script>alert(1)</script>",y\n1,2\n2,3\n', encoding="utf-8")
    out = tmp_path / "evil.html"
    assert run(["export", str(out), "--sections", "regression", "--data", str(data)], capsys)[0] == 0
    page = out.read_text(encoding="utf-8")
    assert "<script>alert(1)" not in page
    [got] = _carried(out)
    assert got.x_name == "</script><script>alert(1)</script>"


@pytest.mark.parametrize("make, argv, words", [
    (lambda p: p.write_bytes(b"PK\x03\x04" + bytes(range(256))), [], "not text but a binary file"),
    (lambda p: p.write_text("day,temp_c\n", encoding="utf-8"), [], "header row (line 1) but no data"),
    (lambda p: p.write_text("day,temp_c\n1,2\n2,warm\n", encoding="utf-8"), [], "Line 3"),
    (lambda p: p.write_text("day,temp_c\n1,2\n2,3\n", encoding="utf-8"), ["--x", "dya"], "no column \u201cdya\u201d"),
    (lambda p: p.write_text("day,temp_c\n1,2\n2,3\n", encoding="utf-8"), ["--sections", "sentence"],
     "--data opens the regression section"),
    (lambda p: p.write_text("day,temp_c\n1,2\n2,3\n", encoding="utf-8"), ["--dataset", "bump"],
     "--data and --dataset"),
    (None, [], "cannot read it"),
])
def test_export_with_a_bad_data_file_exits_2_with_one_line(make, argv, words, tmp_path, capsys):
    data = tmp_path / "data.csv"
    if make is not None:
        make(data)
    out = tmp_path / "out.html"
    code, stdout, err = run(["export", str(out), "--data", str(data), *argv], capsys)
    assert code == 2 and stdout == ""
    assert err.startswith("attention-explorable export: error: ") and err.count("\n") == 1, err
    assert words in err and "Traceback" not in err
    assert not out.exists()


def test_a_50_megabyte_data_file_is_refused_before_it_is_read(tmp_path, capsys, monkeypatch):
    data = tmp_path / "huge.csv"
    with open(data, "wb") as f:
        f.truncate(50_000_000)            # sparse: 50 MB by its size, nothing written
    opened = []
    real_open = open
    monkeypatch.setattr("builtins.open", lambda p, *a, **k: (opened.append(str(p)), real_open(p, *a, **k))[1])
    code, _, err = run(["export", str(tmp_path / "out.html"), "--sections", "regression", "--data", str(data)], capsys)
    assert code == 2 and "This file is 50 MB; the page reads files up to 16 MB." in err
    assert str(data) not in opened


class _Pipe:
    """A pipe fed by a thread, named /dev/fd/N as ``--data <(...)`` and ``--data /dev/stdin`` from a pipe name it."""

    def __init__(self, data: bytes):
        import threading

        self.r, self.w = os.pipe()
        self.path = f"/dev/fd/{self.r}"
        self.feeder = threading.Thread(target=self._feed, args=(data,))
        self.feeder.start()

    def _feed(self, data):
        try:
            while data:
                data = data[os.write(self.w, data[:65536]):]
        except BrokenPipeError:       # the reader stopped at the limit
            pass
        finally:
            os.close(self.w)

    def close(self):
        os.close(self.r)
        self.feeder.join()


def test_data_from_a_pipe_is_read(tmp_path, capsys):
    from app import userdata

    out = tmp_path / "piped.html"
    pipe = _Pipe(EXAMPLE.read_bytes())
    try:
        code, stdout, err = run(["export", str(out), "--sections", "regression", "--data", pipe.path], capsys)
    finally:
        pipe.close()
    assert (code, err) == (0, LEFT_OUT), err
    assert stdout.splitlines()[0] == f"notice: 365 points of temp_c against day from {pipe.path}"
    [got] = _carried(out)
    assert got.y.tolist() == userdata.read_csv_file(EXAMPLE).y.tolist()


@pytest.mark.parametrize("data, words", [
    (b"", "This file is empty."),
    (b"x,y\n" + b"1,2\n" * 4_100_000, "This holds more than 16 MB; the page reads files up to 16 MB."),
])
def test_a_pipe_that_is_empty_or_too_long_exits_2_with_one_line(data, words, tmp_path, capsys):
    pipe = _Pipe(data)
    try:
        code, stdout, err = run(["export", str(tmp_path / "out.html"), "--sections", "regression", "--data", pipe.path],
                                capsys)
    finally:
        pipe.close()
    assert (code, stdout, err) == (2, "", f"attention-explorable export: error: --data {pipe.path}: {words}\n")


def test_x_or_y_without_data_is_refused(tmp_path, capsys):
    code, _, err = run(["export", str(tmp_path / "out.html"), "--x", "day"], capsys)
    assert code == 2 and "--x picks a column of --data FILE" in err
