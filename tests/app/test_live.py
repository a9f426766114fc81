"""The live page's endpoints (app/live/api.py) against the numpy core: plain functions, no server.

Nothing serves them any more (the page at / is app/plugin.py's, tested in tests/app/test_plugin.py); they stay
until the browser computes what they computed.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import attention
from app.learning.view import BANDWIDTH_LR_PRESETS, bandwidth_trajectory_for
from app.live import api


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
