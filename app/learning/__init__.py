"""Learning the kernel: view.py (the Bokeh models), engine.js (plays the paths back), text.py (words)."""
