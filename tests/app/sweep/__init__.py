"""The sentence sweep: every sentence the page says, rendered over states and datasets by its Python and JavaScript
builders (``render``), cut into sentences and checked claim by claim against the numpy core (``claims``, ``states``).
tests/app/test_true_sentences.py runs it."""
