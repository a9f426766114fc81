"""Every sentence builder of the page, Python and JavaScript, rendered in the sweep's states.

``python_texts(s)`` and ``Builders.js_texts(states)`` return, for each state, the texts the page shows in it by
builder name; the JavaScript builders run in an embedded V8 (tests/js/v8.py) from the page's own files.  The sweep
holds the two to each other character for character where both exist, and checks every sentence of either.
"""

from __future__ import annotations

import json
from pathlib import Path

from app.regression import text
from tests.app.sweep import states as S
from tests.js.v8 import FILES, HERE as JS_HERE, Twins

# The builders, by their paths from the root, after the library's pure files (which hold the ideas' engine already).
BUILDER_FILES = tuple(f for f in ("app/regression/text.js", "app/ideas/engine.js") if f not in FILES)
LIMITS = {"one_sample": text.ONE_SAMPLE_WEIGHT, "near_uniform": text.NEAR_UNIFORM_FRACTION,
          "sharp_weight": text.SHARP_WEIGHT, "sharp_share": text.SHARP_SHARE, "flat_tol": text.FLAT_TOL}


def regression_python(s) -> dict:
    """The regression section's texts in a state: the caption, the limit notices and the words under the error
    plot (app/regression/text.py)."""
    units = s.units_words()
    return {"caption": text.caption(s.r, kernel=s.kernel, bandwidth=s.h, temperature=s.t, key_norm=s.shown_tilt,
                                    units=units),
            "notices": text.limit_notices(s.r, s.heaviest, s.curve, s.shown_tilt, at=s.at()),
            "errors": text.error_words(S.H_GRID, *s.errors(), s.marker, s.h_text())}


def regression_case(s) -> dict:
    """One state as the JavaScript builders take it."""
    d = s.data
    case = {"r": s.r.as_dict(), "kernel": s.kernel, "h": s.h, "t": s.t, "tilt": s.shown_tilt, "q": s.q,
            "x": s.x.tolist(), "y": s.y.tolist(), "w": s.w.tolist(), "curve": s.curve, "limits": LIMITS,
            "units": s.units_words(), "hs": S.H_GRID.tolist(), "loo": s.errors()[0].tolist(),
            "err": None if s.errors()[1] is None else s.errors()[1].tolist(), "words": text.ERROR_WORDS}
    if d.units:
        sc = d.scale
        case.update(scale={"scaled": sc.scaled, "x0": sc.x0, "span": sc.span, "u0": sc.u0, "uspan": sc.uspan},
                    span=d.span, x_name=d.own.x_name)
    return case


class Builders:
    """The JavaScript builders in one V8, loaded once."""

    def __init__(self, folder: Path | None = None):
        self.js = Twins(folder, files=FILES + BUILDER_FILES, harness=JS_HERE / "sentences.js", entry="sentences")

    def regression(self, states, batch=40) -> list[dict]:
        out = []
        for i in range(0, len(states), batch):
            out += self.js("regression", [regression_case(s) for s in states[i:i + batch]])
        return out

    def learning(self, starts) -> list[str]:
        """LearningText.startSentence at each start, from the mirror's typical focus (tests/app/sweep/learning.py)."""
        from app.learning import text as LT, view as LV
        return self.js("learning", {"cases": [s.case() for s in starts], "grid": list(LV.FOCUS_GRID),
                                    "limits": LT.FOCUS_LIMITS})

    def refusals(self, paths) -> list[list[str]]:
        """AttnTrain.trainColumns's messages (refusalText) on each path's dataset at its rate."""
        return self.js("refusals", [r.case() for r in paths])

    def shared(self, states) -> list[str]:
        """RoutingHead.sharedSummary at each (step, other word) (tests/app/sweep/routing.py)."""
        from attention import learn_qk
        from app.routing import view as RV
        from tests.app.sweep import routing as RS
        m = RS.path().model
        return self.js("shared", {"cases": [s.case() for s in states], "model": json.loads(RV._words_model_json()),
                                  "names": list(m.dims), "share": learn_qk.FEATURE_SHARE,
                                  "from_share": learn_qk.FROM_SHARE})

    def readout(self, said, batch=200) -> list[list[str]]:
        """RoutingLines.readoutLines for each sentence at its frame."""
        out = []
        for i in range(0, len(said), batch):
            out += self.js("readout", [s.case() for s in said[i:i + batch]])
        return out

    def status(self, states) -> list[str]:
        """RoutingLines.statusText at each frame, with its moment, as the page joins it (texts.js drawStatus)."""
        from tests.app.sweep import routing as RS
        p = {k: v for k, v in RS.plain().items() if k not in ("sentences", "w_q", "w_k")}
        return self.js("status", {"plain": p, "frames": [[st.frame, st.moment()] for st in states]})

    def sentence(self, rows, batch=300) -> list[list[str]]:
        """SentenceRowText's readout table and line for each row (tests/app/sweep/sentence.py), from the page's
        own analysis of the sentence."""
        from app.sentence import view as SV
        out = []
        for i in range(0, len(rows), batch):
            out += self.js("sentence", {"cases": [r.case() for r in rows[i:i + batch]], "model": SV.browser_model()})
        return out

    def ideas(self) -> tuple[list[str], list[str]]:
        """Ideas.graphCaption at each of tests/app/sweep/ideas.py's lengths, and Ideas.errorsHtml for every period."""
        from app.ideas import view as IV
        from tests.app.sweep import ideas as I
        res = IV.lag_results()
        out = self.js("ideas", {"lengths": I.LENGTHS, "results": [res[str(p)] for p in IV.PERIODS]})
        return out["graph"], out["errors"]

    def close(self):
        self.js.close()
