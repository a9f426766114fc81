# One command does all the set-up: every target below creates .venv when needed.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PORT   ?= 5006

.PHONY: serve test test-fast bench html screenshot readout clean

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "make: $(PYTHON) not found; run 'make PYTHON=python3 ...'"; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

serve: $(STAMP)  ## start the explorable on http://localhost:$(PORT)
	$(BIN)/attention-explorable serve --port $(PORT)

# three processes (pytest-xdist), each taking a whole test file at a time; TEST_PROCS=1 for one process.
# Three on two cores: a test process waits on its Chromium and its servers much of the time, so with two the
# cores sat partly idle; three, with the longest files first (tests/conftest.py), finished in 12 min 34 s
# against 16 min 22 s that morning with two (the cores 93 % busy; README, Tests and CI).
TEST_PROCS ?= 3

test: $(STAMP)  ## every test, browser tests included when Chromium is present
	$(BIN)/python -m pytest -n $(TEST_PROCS) --dist loadfile

test-fast: $(STAMP)  ## the core and app tests without a browser
	$(BIN)/python -m pytest -m "not browser and not engines"

bench: $(STAMP)  ## benchmarks: JSON report in tests/bench/results/latest.json and a table
	$(BIN)/python -m tests.bench

html: $(STAMP)  ## the single offline HTML file
	$(BIN)/attention-explorable export attention-explorable.html

screenshot: $(STAMP)  ## the README's screenshots, from the real page
	$(BIN)/python -m tests.browser.screenshot

readout: $(STAMP)
	$(BIN)/attention-explorable readout --query 3.2 --bandwidth 0.62

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
