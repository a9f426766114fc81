"""A toy sixth section, built the way a real one is (state, contract, view, engine), to show that a section is one
folder and one line in a catalogue: tests/app/test_toy_section.py hands it to a ``Catalogue`` after the learning
section, and the page, the tour and the link take it from its contract alone."""
