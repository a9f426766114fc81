"""Watch W_Q and W_K learn: view.py (the Bokeh models), engine.js (plays the path back), text.py (words).

The folder is named for what it teaches; the section's name in links, tour files and ``--sections`` is
"routing".
"""
