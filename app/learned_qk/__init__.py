"""Watch W_Q and W_K learn: view.py (the Bokeh models), engine.js (plays the path back), text.py (words)."""
