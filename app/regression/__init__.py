"""The regression section: view.py (the Bokeh models), the JS modules view.py's ENGINE_JS lists (text.js to
engine.js, run in the browser), text.py (words)."""
