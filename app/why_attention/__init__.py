"""Why attention won, and when a lag feature does as well: view.py and engine.js."""
