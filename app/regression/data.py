"""The data the regression section shows: the shipped datasets as the page carries them, your own data handed
over from Python (the ``user_data`` source), and the tickers and formatters that write your data's units on the
axes and sliders (their JS computes in the browser; units.js puts them on)."""

from __future__ import annotations

import json

from bokeh.models import ColumnDataSource, CustomJSTicker, CustomJSTickFormatter, PlainText

import attention

from app import userdata

def dataset_payload(name: str) -> dict:
    d = attention.load_dataset(name)
    return {"x": d.x.tolist(), "y": d.y.tolist(), "function": d.function, "noise": d.noise,
            "description": d.description}


def dataset_meta(name: str, d) -> str:
    return json.dumps({"name": name, "function": d.function, "noise": d.noise, "description": d.description})


def user_data_source(data=None) -> ColumnDataSource:
    """The ``user_data`` source: your own data in their units (x, y) and their names (the tag), as a notebook
    hands them over (``data``: app.userdata.UserData or None) and as the page writes what it loaded."""
    src = ColumnDataSource({"x": [], "y": []}, name="user_data", tags=["{}"])
    set_user_data(src, data)
    return src


def set_user_data(src: ColumnDataSource, data) -> None:
    """Put ``data`` (UserData, or None for none) into the ``user_data`` source: the tag first, then the columns,
    whose change the page hears.  The tag's "key" tells the page a new hand-over from its own echo."""
    if data is None:
        src.tags = [json.dumps({"key": "none"})]
        src.data = {"x": [], "y": []}
        return
    key = userdata.data_key(data)
    src.tags = [json.dumps({"x_name": data.x_name, "y_name": data.y_name, "notices": list(data.notices),
                            "key": key, "from": "python"})]
    src.data = {"x": data.x.tolist(), "y": data.y.tolist()}


# Your own data's axes in their units.  The page keeps its x (0 ... 6: the sliders' scale) and h, and these
# tickers and formatters, put on the axes and sliders while such data is shown (units.js relabel), place
# round numbers of the data's units and write them.  The scale comes from the dataset source's tag.
_SCALE_JS = """
const tag = ds.tags[0] || "{}", memo = globalThis.__attnUnitsMemo;
let u = memo && memo.tag === tag ? memo.u : undefined;
if (u === undefined) {
  let meta = {};
  try { meta = JSON.parse(tag); } catch (e) { meta = {}; }
  u = meta.scale ? { s: meta.scale, name: meta.x_name || "x", span: meta.span || meta.scale.span } : null;
  globalThis.__attnUnitsMemo = { tag, u };
}
const s = u && u.s;
const nice = (raw) => { const p = 10 ** Math.floor(Math.log10(raw)), m = raw / p;
                        return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p; };
const digits = (step) => Math.min(12, Math.max(0, -Math.floor(Math.log10(step) + 1e-9)));
const write = (v, d) => { const t = (Math.abs(v) < 0.5 * 10 ** -d ? 0 : v).toFixed(d);
                          return t.startsWith("-") ? "\\u2212" + t.slice(1) : t; };
"""
_X_TICKS_JS = _SCALE_JS + """
if (!s) return [];
const lo = s.x0 + (cb_data.start - s.u0) / s.uspan * s.span, hi = s.x0 + (cb_data.end - s.u0) / s.uspan * s.span;
const step = nice((hi - lo) / 5), out = [];
for (let k = Math.ceil(lo / step); k * step <= hi; k++) out.push(s.u0 + (k * step - s.x0) / s.span * s.uspan);
return out;
"""
_X_LABEL_JS = _SCALE_JS + """
if (!s) return String(tick);
const v = s.x0 + (tick - s.u0) / s.uspan * s.span;
return write(v, digits(nice(Math.abs(ticks[1] - ticks[0]) / s.uspan * s.span || s.span / 600)));
"""
_Q_SLIDER_JS = _SCALE_JS + """
if (!s) return tick.toFixed(2);
const v = s.x0 + (tick - s.u0) / s.uspan * s.span;
return `${write(v, Math.min(12, Math.max(0, Math.ceil(-Math.log10(u.span / 600)))))} (${u.name})`;   // text.js unitText
"""
_H_TICKS_JS = _SCALE_JS + """
if (!s) return [];
const f = s.uspan / s.span, out = [];
for (let k = Math.ceil(Math.log10(cb_data.start / f) - 1e-9); 10 ** k * f <= cb_data.end * (1 + 1e-9); k++)
  out.push(10 ** k * f);
return out;
"""
_H_LABEL_JS = _SCALE_JS + """
if (!s) return String(tick);
const k = Math.round(Math.log10(tick * s.span / s.uspan));
return write(10 ** k, Math.max(0, -k));
"""
_H_SLIDER_JS = _SCALE_JS + """
const h = 10 ** tick;
if (!s) return h >= 100 ? h.toFixed(0) : h.toPrecision(3);
const v = h * s.span / s.uspan;
return `${write(v, Math.min(20, Math.max(0, 2 - Math.floor(Math.log10(v)))))} (${u.name})`;
"""


def units_models(ds: ColumnDataSource) -> dict:
    """The tickers and formatters that write your own data's units (see _SCALE_JS): x axes, h axes, the query
    and bandwidth sliders; and the axes' labels, as PlainText (a column's name is never read as TeX or markup)."""
    fmt = lambda code: CustomJSTickFormatter(args={"ds": ds}, code=code)  # noqa: E731
    return {"x_ticker": CustomJSTicker(args={"ds": ds}, major_code=_X_TICKS_JS), "x_format": fmt(_X_LABEL_JS),
            "h_ticker": CustomJSTicker(args={"ds": ds}, major_code=_H_TICKS_JS), "h_format": fmt(_H_LABEL_JS),
            "q_slider": fmt(_Q_SLIDER_JS), "h_slider": fmt(_H_SLIDER_JS),
            "x_label": PlainText(text="x"), "y_label": PlainText(text="y"), "qx_label": PlainText(text="query x"),
            "h_label": PlainText(text="bandwidth h\u00b7\u221aT")}
