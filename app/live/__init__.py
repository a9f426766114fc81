"""The live page: what ``attention-explorable serve`` shows a class.

The offline file's page is built once per server process (``page.py``) and handed to every visit
as the same bytes; the browser runs it, and asks three JSON endpoints (``api.py``, routed by
``server.py``) for what only Python can do: the seeded generator, a typed sentence, and training on a
generated dataset (``bridge.js``).  No Bokeh session is opened, so a visit costs the server almost
nothing, and any process behind a load balancer can answer any request.
"""
