"""The offline file: what goes in, where it may fetch from, and how it is written."""

from __future__ import annotations

import os
import re

import pytest

from app import cli
from app.export import export_html, write_atomic
from app.state import ExplorableState


@pytest.fixture(scope="module")
def page_html():
    import panel  # noqa: F401  (as in a notebook: Panel's extensions are registered with Bokeh)

    return export_html(ExplorableState(query=2.5, bandwidth=0.3))


def test_everything_is_inline_and_no_outside_host_is_referenced(page_html):
    assert "<script src=" not in page_html.replace("<script src=\"data:", "")
    assert not re.search(r'<link[^>]+href="https?:', page_html)
    assert "cdn.bokeh.org" not in page_html and "cdn.holoviz.org" not in page_html
    assert 'rel="icon" href="data:,"' in page_html          # no favicon request either


def test_the_file_stays_within_three_megabytes(page_html):
    assert len(page_html.encode("utf-8")) <= 3_000_000


def test_written_through_a_temporary_file_and_readable_by_a_web_server(tmp_path):
    target = write_atomic(tmp_path / "lecture.html", "<html></html>")
    assert target.read_text() == "<html></html>"
    assert os.stat(target).st_mode & 0o044 == 0o044          # group and others may read it
    assert [p.name for p in tmp_path.iterdir()] == ["lecture.html"]


def test_a_failed_write_leaves_nothing_behind(tmp_path, monkeypatch):
    def boom(*_args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        write_atomic(tmp_path / "lecture.html", "<html></html>")
    assert list(tmp_path.iterdir()) == []


def test_export_to_an_unwritable_place_exits_2_with_one_line(tmp_path, capsys):
    assert cli.main(["export", str(tmp_path / "missing" / "lecture.html"), "--sections", "regression"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("attention-explorable export: error: cannot write") and "\n" not in err
    assert not (tmp_path / "missing").exists()


def test_export_writes_the_requested_state(tmp_path, capsys):
    out = tmp_path / "lecture.html"
    assert cli.main(["export", str(out), "--sections", "regression", "--query", "2.5", "--present"]) == 0
    html = out.read_text(encoding="utf-8")
    assert '["initial",{"type":"map","entries":[["query",2.5]' in html   # the engine's opening state
    assert "wrote" in capsys.readouterr().out
