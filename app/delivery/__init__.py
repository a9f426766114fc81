"""The deliveries: the ways the page reaches a student.

``export`` writes the offline file (and what the served page sends), ``plugin`` serves that page at / of
``panel serve``, ``main`` is Panel's app at /main (a Python session per visit), ``page`` is the notebook component
(``from app import Explorable``), ``serving`` holds the server's settings, ``cli`` is the ``attention-explorable``
command and ``deploy/`` holds the nginx configurations.  They reach the sections only through the composition
(app/sections.py).
"""
