"""The live server (app/live): its endpoints against the numpy core, and the page and its HTTP behaviour.

The endpoints are plain functions (``app.live.api``); the server routes to them (``app.live.server``), tested
here in-process with tornado's test client.  The browser side is in tests/browser/test_live.py.
"""

from __future__ import annotations

import gzip
import json
import re
from urllib.parse import urlencode

import numpy as np
import pytest
from tornado.testing import AsyncHTTPTestCase

import attention
from app.learning.view import BANDWIDTH_LR_PRESETS, bandwidth_trajectory_for
from app.live import api
from app.live.page import live_page
from app.live.server import allowed_hosts, make_app


def q(**kw):
    return {k: [str(v)] for k, v in kw.items()}


# -- the endpoints -------------------------------------------------------------------------------------------

def test_dataset_is_the_cores_seeded_dataset():
    status, reply = api.dataset(q(fn="step", n=80, noise=0.4, seed=7))
    d = attention.make_dataset("step", 80, 0.4, 7)
    assert status == 200 and reply["notices"] == []
    np.testing.assert_allclose(reply["x"], d.x)
    np.testing.assert_allclose(reply["y"], d.y)
    assert reply["values"] == {"fn": "step", "n": 80, "noise": 0.4, "seed": 7}
    assert json.loads(reply["meta"])["name"] == "generated"


def test_dataset_defaults_and_clamps_with_notices_that_name_the_value():
    status, reply = api.dataset(q(n=5000, noise="abc", fn="<b>x</b>"))
    assert status == 200
    assert reply["values"]["n"] == attention.datasets.MAX_GENERATED_N
    assert reply["values"]["noise"] == 0.3 and reply["values"]["fn"] == "wave"   # the defaults
    text = " ".join(reply["notices"])
    assert "n=5000" in text and "noise" in text and "fn" in text
    assert len(reply["x"]) == attention.datasets.MAX_GENERATED_N


def test_dataset_ignores_keys_it_does_not_use():
    status, reply = api.dataset(q(query=3, seed=2))
    assert status == 200 and reply["values"]["seed"] == 2 and reply["notices"] == []


def test_train_is_the_learning_sections_path():
    lr = BANDWIDTH_LR_PRESETS[1]
    status, reply = api.train(q(fn="bump", n=40, noise=0.2, seed=3, lr=lr))
    d = attention.make_dataset("bump", 40, 0.2, 3)
    want = bandwidth_trajectory_for(d.x, d.y, lr)
    assert status == 200
    for key in ("h", "loss", "grad"):
        np.testing.assert_allclose(reply["columns"][key], want[key])
    tag = json.loads(reply["tag"])
    assert tag["lr"] == lr and tag["dataset"] == api.dataset(q(fn="bump", n=40, noise=0.2, seed=3))[1]["meta"]


@pytest.mark.parametrize("lr", [None, "fast", "1e9"])
def test_train_refuses_an_unknown_learning_rate_by_name(lr):
    status, reply = api.train(q(seed=1) if lr is None else q(seed=1, lr=lr))
    assert status == 400 and reply["error"].startswith("lr must be one of")


def test_sentence_is_the_cores_analysis():
    status, reply = api.sentence(q(text="the bank by the river"))
    assert status == 200
    assert json.loads(reply["plain"]) == json.loads(json.dumps(attention.analyze_sentence("the bank by the river")
                                                               .to_plain()))


@pytest.mark.parametrize("text, reason", [("", "empty"), ("?!", "empty"), ("word " * 40, "at most 32"),
                                          ("x" * 501, "500 characters")])
def test_a_sentence_the_page_cannot_use_gives_the_reason(text, reason):
    status, reply = api.sentence(q(text=text))
    assert status == 400 and reason in reply["error"] and "previous sentence stays" in reply["error"]


def test_no_text_at_all_is_a_clear_refusal():
    status, reply = api.sentence({})
    assert status == 400 and "no text" in reply["error"]


# -- the server ----------------------------------------------------------------------------------------------

def test_hosts_on_loopback_are_not_checked_and_elsewhere_are_only_those_named():
    assert allowed_hosts("127.0.0.1", 5006, ["x.org"]) is None
    assert allowed_hosts("0.0.0.0", 8080, ["class.example.org"]) == {"class.example.org", "class.example.org:8080"}
    assert allowed_hosts("0.0.0.0", 80, ["class.example.org:80"]) == {"class.example.org", "class.example.org:80"}


class LiveServerTest(AsyncHTTPTestCase):
    hosts = None

    def get_app(self):
        return make_app(self.hosts)

    def get(self, path, **headers):
        return self.fetch(path, headers=headers, decompress_response=False)


class TestThePage(LiveServerTest):
    def test_every_visit_gets_the_same_page_gzipped_and_a_reload_costs_a_304(self):
        page = live_page()
        r = self.get("/", **{"Accept-Encoding": "gzip"})
        assert r.code == 200 and r.headers["Content-Encoding"] == "gzip"
        assert gzip.decompress(r.body) == page.html
        assert r.headers["ETag"] == page.etag and r.headers["Cache-Control"] == "no-cache"
        again = self.get("/", **{"If-None-Match": page.etag})
        assert again.code == 304 and again.body == b""
        plain = self.get("/main")
        assert plain.code == 200 and plain.body == page.html and "Content-Encoding" not in plain.headers

    def test_the_page_is_the_live_page_and_fetches_nothing_from_elsewhere(self):
        html = live_page().html.decode()
        assert '<meta name="viewport"' in html and "AttnLive" in html and "generator_go" in html
        # no element loads anything: every script is inline (the browser tests watch the requests themselves)
        assert re.findall(r"<script\b[^>]*\ssrc=", html) == [] and re.findall(r"<link\b[^>]*\shref=\"http", html) == []
        r = self.get("/")
        assert "connect-src 'self'" in r.headers["Content-Security-Policy"]
        assert r.headers["X-Content-Type-Options"] == "nosniff" and "Server" not in r.headers

    def test_endpoints_answer_json_and_refusals_say_why(self):
        r = self.get("/api/dataset?" + urlencode({"fn": "step", "n": 30, "seed": 5}))
        assert r.code == 200 and r.headers["Content-Type"].startswith("application/json")
        np.testing.assert_allclose(json.loads(r.body)["y"], attention.make_dataset("step", 30, 0.3, 5).y)
        r = self.get("/api/train?" + urlencode({"seed": 5, "lr": "nope"}))
        assert r.code == 400 and "lr must be one of" in json.loads(r.body)["error"]
        r = self.get("/api/sentence?" + urlencode({"text": "<script>alert(1)</script> bank"}))
        assert r.code == 200 and "script" in json.loads(json.loads(r.body)["plain"])["tokens"]

    def test_nothing_else_is_served(self):
        for path in ("/api/", "/api/admin", "/admin", "/static/js/bokeh.min.js", "/../etc/passwd", "/main/x"):
            r = self.get(path)
            assert r.code == 404, path
            assert b"Traceback" not in r.body
        assert self.fetch("/api/dataset", method="POST", body="x").code == 405


class TestAPublicServer(LiveServerTest):
    hosts = allowed_hosts("0.0.0.0", 8080, ["class.example.org:8080"])

    def test_requests_for_another_host_are_refused(self):
        assert self.get("/", Host="class.example.org:8080").code == 200
        for host in ("evil.example.com", "class.example.org:9999", "localhost:8080"):
            r = self.get("/api/dataset", Host=host)
            assert r.code == 403 and b"Unknown host" in r.body, host


def test_one_dataset_and_rate_is_trained_once_even_when_asked_for_at_once(monkeypatch):
    """A class opening one shared link (n = 2000 trains for seconds) costs one training, not one per student."""
    import threading

    from app.live import api as live_api

    calls = []
    real = live_api._train_columns

    def counted(x, y, lr):
        calls.append(lr)
        return real(x, y, lr)

    monkeypatch.setattr(live_api, "_train_columns", counted)
    args = q(fn="wave", n=61, noise=0.25, seed=12345, lr=BANDWIDTH_LR_PRESETS[0])
    replies = []
    threads = [threading.Thread(target=lambda: replies.append(live_api.train(args))) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(replies) == 6 and all(r == replies[0] for r in replies) and replies[0][0] == 200
    assert calls == [BANDWIDTH_LR_PRESETS[0]]
    live_api.train(q(fn="wave", n=61, noise=0.25, seed=12345, lr=BANDWIDTH_LR_PRESETS[2]))   # another rate: trained
    assert len(calls) == 2
