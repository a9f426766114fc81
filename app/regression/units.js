// The regression section on your own data, in the data's units: the units a dataset's tag carries, the caption's
// words in them, and the axes and sliders relabelled (app/regression/data.py units_models builds the tickers
// and formatters they are given).

const RegressionUnits = (function (U, T) {
  "use strict";

  const setWidget = U.setWidget;
  const { unitText, lengthText } = T;

  const D = typeof AttnUserData !== "undefined" ? AttnUserData : null;   // ui/userdata.js, on the page

  function unitsWords(c, q, h) {
    const u = c.units;
    return { x_name: u.xName, query: unitText(D.toUnits(u.scale, q), u.span), h: lengthText(D.hToUnits(u.scale, h)) };
  }

  function unitsOf(a, meta) {
    return { scale: meta.scale, xName: meta.x_name || "x", yName: meta.y_name || "y", span: meta.span };
  }

  // ---- the axes and sliders in the data's units -------------------------------------------------------------

  function axisOf(fig, side) { return (fig[side] || []).find((m) => m && m.ticker !== undefined) || null; }

  // What the page built (tickers, formatters, labels), kept once, to put back when the shipped data return.
  function builtAxes(a) {
    const keep = (axis, label) => axis && { axis, ticker: axis.ticker, formatter: axis.formatter, label: axis.axis_label,
                                            units: label };
    const [main, weights, spread, enth, bias] = a.figs, m = a.units;
    return { x: [keep(axisOf(main, "below"), m.x_label), keep(axisOf(weights, "below"), m.x_label),
                 keep(axisOf(spread, "below"), m.qx_label)].filter(Boolean),
             h: [keep(axisOf(enth, "below"), m.h_label), keep(axisOf(bias, "below"), m.h_label)].filter(Boolean),
             y: [keep(axisOf(main, "left"), m.y_label)].filter(Boolean),
             query: a.w_query.format, logh: a.w_logh.format };
  }

  // Your data: labels name the columns (PlainText models: a name is never read as markup or TeX); where x was
  // scaled, round numbers of the data's units are placed and written (view.py units_models).  Axes repaint once.
  function relabel(a, c) {
    const u = c.units, m = a.units, b = c.axes || (c.axes = builtAxes(a)), scaled = !!(u && u.scale.scaled);
    // the same tickers and formatters read a new dataset's scale from its tag: draw them again when it changes
    const key = u ? a.ds.tags[0] : null, fresh = key !== c.unitsKey;
    c.unitsKey = key;
    if (u) {
      setWidget(m.x_label, "text", u.xName);
      setWidget(m.y_label, "text", u.yName);
      setWidget(m.qx_label, "text", `query ${u.xName}`);
      setWidget(m.h_label, "text", `bandwidth h\u00b7\u221aT (${u.xName})`);
    }
    const put = (k, ticker, formatter) => {
      setWidget(k.axis, "axis_label", u ? k.units : k.label);
      setWidget(k.axis, "ticker", scaled ? ticker : k.ticker);
      setWidget(k.axis, "formatter", scaled ? formatter : k.formatter);
      if (fresh && scaled) k.axis.setv({ formatter }, { check_eq: false });
    };
    for (const k of b.x) put(k, m.x_ticker, m.x_format);
    for (const k of b.h) put(k, m.h_ticker, m.h_format);
    for (const k of b.y) setWidget(k.axis, "axis_label", u ? k.units : k.label);
    for (const [w, f] of [[a.w_query, u ? m.q_slider : b.query], [a.w_logh, u ? m.h_slider : b.logh]]) {
      if (w.format === f && !(fresh && u)) continue;
      w.format = f;
      w.setv({ title: w.title }, { check_eq: false });   // a slider writes its value anew on a title change only
    }
    if (globalThis.AttnDescribe && !c.unitsDescribed) {   // the figures' descriptions say their ranges in the units too
      c.unitsDescribed = true;
      const now = (f) => (v) => (c.units && c.units.scale.scaled ? f(c.units, v) : "");
      AttnDescribe.units(m.x_format, now((u, v) => unitText(D.toUnits(u.scale, v), u.span)));
      AttnDescribe.units(m.h_format, now((u, v) => lengthText(D.hToUnits(u.scale, v))));
    }
    U.publish(a.ds.document, "units", u ? { key, scaled, x_ticker: m.x_ticker, x_format: m.x_format,
                                            h_ticker: m.h_ticker, h_format: m.h_format, x_label: m.x_label,
                                            y_label: m.y_label, h_label: m.h_label } : null);
  }

  return { unitsOf, unitsWords, relabel };
})(AttnCommon, RegressionText);
