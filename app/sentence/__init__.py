"""The self-attention section: view.py (the Bokeh models), engine.js (runs in the browser)."""
