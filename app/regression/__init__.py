"""The regression section: view.py (the Bokeh models), engine.js (runs in the browser), text.py (words)."""
