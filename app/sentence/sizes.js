// The self-attention section's sizes: the matrix's cells, frame and box for a sentence's length, and the plots set
// to them.

const SentenceSizes = (function (U, State) {
  "use strict";

  const clamp = U.clamp, setWidget = U.setWidget;
  const { putRange, sameArray } = State;

  // ---- sizes ---------------------------------------------------------------------------

  // Sizes that follow the sentence's length.  Python (app/sentence/sizes.py geometry) computes the same numbers for
  // the opening sentence on a wide screen, so on a desktop nothing changes when the page starts.
  function sizes(n, longest, present, innerWidth, G, innerHeight) {
    const i = present ? 1 : 0, big = present ? G.present_scale : 1;
    // cells fill about G.room px (less on a narrow screen), never under G.cell_range[0]: a long sentence scrolls
    const room = Math.min(G.room, innerWidth - G.room_margin);
    let cell = Math.round(clamp(Math.floor(room / (n + 1)), G.cell_range[0], G.cell_range[1]) * big);
    // ... and fit the screen's height too (a small projector in presentation mode)
    if (innerHeight !== undefined && isFinite(innerHeight))
      cell = Math.max(G.cell_range[0], Math.min(cell, Math.floor((innerHeight - G.height_margin[i]) / n)));
    const extra = G.sums_pad + G.sums_px[i] / cell;   // room for the row sums
    const frameWidth = Math.round((n + extra) * cell);
    // the box around the matrix: as wide as the plot (labels and colour bar included), at most the screen
    const px = G.char_px[i], narrow = innerWidth < G.narrow_width;
    const want = frameWidth + longest * px + G.labels_px[i] - (narrow ? G.narrow_px : 0);
    const box = Math.round(Math.max(G.box_min, Math.min(want, innerWidth - G.screen_margin)));
    return { cell, extra, frameWidth, frameHeight: n * cell, box, narrow,
             heatVertical: longest * px > cell - G.label_pad, barsVertical: longest * px > G.bars_px / n - G.label_pad };
  }

  // Layout changes are expensive (BokehJS lays out the matrix's block and paints the matrix at once for each),
  // so the sizes are set silently and the block is laid out once, after the new data is in (flush): that
  // layout's paint is the matrix's only one.
  function geometry(a, c) {
    const n = c.n;
    const longest = Math.max(...c.plain.tokens.map((t) => Array.from(t).length));
    // In a short frame the cells share the height the frame leaves the matrix's block (app/ui/embed.js), less what
    // the block shows besides them (its title and labels): measured once drawn, G.embed_labels before.
    const G = c.cfg.geometry, i = c.present ? 1 : 0, framed = globalThis.AttnEmbed && AttnEmbed.embedded() === "sentence";
    const drawn = framed ? AttnEmbed.height("sentence-matrix") : 0, cells = a.heat.frame_height || 0;
    const labels = drawn > cells && cells > 0 ? drawn - cells : G.embed_labels[i];
    const high = framed ? AttnEmbed.room("sentence-matrix") - labels + G.height_margin[i] : window.innerHeight || Infinity;
    const g = sizes(n, longest, c.present, window.innerWidth || 1280, c.cfg.geometry, high);
    c.cell = g.cell;
    a.heat.x_range.setv({ start: -0.5, end: n - 0.5 + g.extra });
    a.heat.y_range.setv({ start: n - 0.5, end: -0.5 });
    putRange(c, a.bars_fig.x_range, -0.5, n - 0.5);   // (with their data: flush)
    for (const f of a.mini_figs) {
      putRange(c, f.x_range, -0.5, n - 0.5);
      putRange(c, f.y_range, n - 0.5, -0.5);
    }
    const ticks = Array.from({ length: n }, (_, i) => i);
    if (!sameArray(a.ticker.ticks, ticks)) a.ticker.ticks = ticks;
    setWidget(a.heat.above[0], "major_label_orientation", g.heatVertical ? Math.PI / 2 : "horizontal");
    setWidget(a.bars_fig.below[0], "major_label_orientation", g.barsVertical ? Math.PI / 2 : "horizontal");
    const view = U.findView(a.matrix_box);
    let relayout = false;
    const quietly = (m, props) => {
      const diff = {};
      for (const [k, v] of Object.entries(props)) if (m[k] !== v) diff[k] = v;
      if (Object.keys(diff).length) { m.setv(diff, { silent: view !== null }); relayout = true; }
    };
    quietly(a.heat, { frame_width: g.frameWidth, frame_height: g.frameHeight });
    // a phone: the cells print their weights and the note under the matrix says rows are queries
    for (const bar of a.heat.right.filter((m) => m.color_mapper !== undefined)) quietly(bar, { visible: !g.narrow });
    const rows = a.heat.left[0];
    if (c.rowsTitle === undefined) c.rowsTitle = rows.axis_label;   // as the page was built
    quietly(rows, { axis_label: g.narrow ? null : c.rowsTitle });
    quietly(a.matrix_box, { width: g.box });
    if (relayout && view) c.relayout = () => U.relayoutWhenReady(a.matrix_box, a.heat);
    a.fmt.change.emit();   // the tokens changed: redraw the tick labels even when n did not
  }

  return { sizes, geometry };
})(AttnCommon, SentenceOnPage);
