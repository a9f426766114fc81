"""Why attention won, and when a lag feature does as well: view.py and engine.js.

The folder is named for what it teaches; the section's name in links, tour files and ``--sections`` is "ideas".
"""
