"""``attention-explorable serve`` as a class meets it: real server processes on 127.0.0.1, hostile requests,
a burst of students, slow training beside quick requests, forked workers and nginx in front.

These tests assert behaviour (answers, notices, nothing logged at ERROR, the server still serving); the
timings live in tests/bench/bench_live.py.  The endpoints' numbers are checked in tests/app/test_live.py.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from urllib.parse import parse_qsl, urlencode

import pytest
from tornado.httpclient import AsyncHTTPClient, HTTPClientError

import attention
from tests.app.serverutil import LiveServer, Nginx, assert_loopback_only, need_nginx, run, url_cases

TIMEOUT = 120   # generous for a busy CI machine; no test here asserts a time


@pytest.fixture(scope="module")
def live():
    with LiveServer() as srv:
        yield srv


def get(url: str, **headers):
    req = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as r:
            return r.status, r.read(), r.headers
    except urllib.error.HTTPError as e:
        return e.code, e.read(), e.headers


async def _many(urls, concurrency=50):
    client = AsyncHTTPClient(force_instance=True, max_clients=concurrency)
    try:
        async def one(u):
            try:
                r = await client.fetch(u, request_timeout=TIMEOUT, raise_error=False,
                                       headers={"Accept-Encoding": "gzip"})
                return r.code, r.body
            except (HTTPClientError, OSError) as e:
                return -1, repr(e).encode()
        return await asyncio.gather(*(one(u) for u in urls))
    finally:
        client.close()


def test_hostile_links_and_values_get_the_page_or_a_reason_never_an_error(live):
    """Each hostile query string opens the page (the browser parses it, tests/browser covers the notices),
    and sent to the endpoints gets an answer: 200 with notices or 400 with one sentence, never a 500."""
    mark = live.log_mark()
    cases = url_cases(60, seed=3)
    urls = [f"{live.base}/?{c}" for c in cases]
    for c in cases:
        pairs = parse_qsl(c, keep_blank_values=True)
        urls.append(live.api("dataset") + "?" + c)
        urls.append(live.api("sentence", text=pairs[-1][1] if pairs else c))
        urls.append(live.api("train", lr=pairs[0][1] if pairs else "", seed=7))
    replies = run(_many(urls))
    bad = [(u, code) for u, (code, _) in zip(urls, replies) if code not in (200, 400)]
    assert bad == []
    for u, (code, body) in zip(urls, replies):
        if "/api/" in u:
            reply = json.loads(body)
            assert code == 200 or set(reply) == {"error"}, (u, reply)
    assert live.error_lines(mark) == [] and live.tracebacks(mark) == 0


def test_a_long_training_run_leaves_the_other_students_served(live):
    """n = 2000 trained on h (about a second or two) runs beside the event loop: 40 datasets asked for meanwhile
    all come back, and the training's path arrives too."""
    slow = live.api("train", fn="wave", n=2000, seed=1, lr="2")
    quick = [live.api("dataset", fn="bump", n=60, seed=s) for s in range(40)]
    replies = run(_many([slow] + quick))
    assert [code for code, _ in replies] == [200] * 41
    assert len(json.loads(replies[0][1])["columns"]["h"]) > 1
    y = json.loads(replies[5][1])["y"]
    assert y == pytest.approx(attention.make_dataset("bump", 60, 0.3, 4).y.tolist())


def test_a_class_arriving_at_once_gets_the_same_page(live):
    codes_bodies = run(_many([live.url] * 60, concurrency=60))
    assert {code for code, _ in codes_bodies} == {200}
    assert len({body for _, body in codes_bodies}) == 1


def test_the_server_listens_on_loopback_only_by_default(live):
    assert_loopback_only(live.port)


def test_forked_workers_share_one_port_and_one_page():
    with LiveServer(cli_args=("--num-procs", "2")) as srv:
        replies = run(_many([srv.url] * 20 + [srv.api("dataset", seed=s) for s in range(20)], concurrency=20))
        assert {code for code, _ in replies} == {200}
        assert len({body for _, body in replies[:20]}) == 1
        assert srv.log_text().count("ready on") == 2   # one line per worker
        assert srv.error_lines() == []


def test_two_workers_behind_nginx_answer_any_request(live):
    """app/deploy/nginx.conf in front of two live workers: pages and endpoints through nginx, both workers used,
    and a pinned worker that is gone does not matter (nothing is kept per visit)."""
    need_nginx()
    with LiveServer() as second:
        workers = [live, second]
        marks = [w.log_mark() for w in workers]
        nginx = Nginx([w.port for w in workers]).start(probe_path="/")
        try:
            urls = [nginx.base + "/"] * 10 + [nginx.base + "/api/dataset?" + urlencode({"seed": s}) for s in range(30)]
            replies = run(_many(urls, concurrency=10))
            assert {code for code, _ in replies} == {200}
            used = {ln.split('" 200 ', 1)[1].split()[0] for ln in nginx.access_log().splitlines() if '" 200 ' in ln}
            assert used == {f"127.0.0.1:{w.port}" for w in workers}
            status, body, _ = get(nginx.base + "/api/sentence?" + urlencode({"text": "bank by the river"}),
                                  Cookie="explorable_worker=127.0.0.1:1")
            assert status == 200 and json.loads(json.loads(body)["plain"])["tokens"][0] == "bank"
        finally:
            nginx.cleanup()
        assert [ln for w, m in zip(workers, marks) for ln in w.error_lines(m)] == []


def test_a_busy_port_is_one_line_and_exit_2(live, capsys):
    from app.cli import main

    assert main(["serve", "--port", str(live.port)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"cannot listen on 127.0.0.1:{live.port}" in err
