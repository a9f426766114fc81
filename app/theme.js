// The page's text sizes for presentation mode (app/theme.py holds the numbers).
//
// The sizes come from app/theme.py through each engine's config (cfg.theme):
// HTML text follows the CSS variables set on the document's roots, canvas text
// (titles, ticks, axis labels, legends, colour bars) is set on each figure.

const Theme = (function () {
  "use strict";

  function sizeFigure(fig, s) {
    if (fig.title && fig.title.text_font_size !== undefined && fig.title.text_font_size !== s.title)
      fig.title.text_font_size = s.title;
    for (const r of [...fig.left, ...fig.below, ...fig.right, ...fig.above, ...fig.center]) {
      if (r.type === "Legend") {
        if (r.label_text_font_size !== s.legend) r.label_text_font_size = s.legend;
      } else if (r.type === "ColorBar") {
        if (r.major_label_text_font_size !== s.tick) r.major_label_text_font_size = s.tick;
        if (r.title_text_font_size !== s.tick) r.title_text_font_size = s.tick;
      } else if (r.major_label_text_font_size !== undefined) {
        if (r.major_label_text_font_size !== s.tick) r.major_label_text_font_size = s.tick;
        if (r.axis_label_text_font_size !== s.axis_label) r.axis_label_text_font_size = s.axis_label;
      }
    }
  }

  // The page's look is page-wide: whichever section owns the presentation toggle applies it to every
  // figure of the document and to the CSS variables of its roots.  shared: the figures whose x axes line up.
  function apply(doc, cfg, present, shared) {
    const key = present ? "present" : "normal", s = cfg.sizes[key], vars = cfg.vars[key];
    if (!doc) return;
    for (const m of doc.all_models) if (m.title !== undefined && m.left !== undefined && m.below !== undefined) sizeFigure(m, s);
    const [left, right] = cfg.shared_x_borders[key];
    for (const fig of shared || []) {
      if (fig.min_border_left !== left) fig.min_border_left = left;
      if (fig.min_border_right !== right) fig.min_border_right = right;
    }
    for (const root of doc.roots()) {
      const st = root.styles || {};
      if (Object.keys(vars).some((k) => st[k] !== vars[k])) root.styles = Object.assign({}, st, vars);
    }
  }

  return { apply, sizeFigure };
})();
