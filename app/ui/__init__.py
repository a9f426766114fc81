"""What every section of the page shares: the look (theme.py, theme.js), the engine wiring (engine.py),
the JS helpers (common.js), the core's formulas in JS (mirror.js), the words every section writes
(text.py) and the "copy a link" button (share.py, share.js)."""
