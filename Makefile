# One command does all the set-up: every target below creates $(VENV) when needed.
PYTHON ?= python3.11
VENV   ?= .venv
# pip alone installs the newest Bokeh and Panel that pyproject.toml allows; this file pins the lowest supported
# ones, so `make test` tests them (README, Tests and CI).  CONSTRAINTS= installs the newest instead, e.g.
#   make test PYTHON=python3.13 VENV=.venv-313 CONSTRAINTS=
CONSTRAINTS ?= constraints/lowest.txt
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PORT   ?= 5006

.PHONY: serve test test-fast test-newest bench html screenshot readout clean

$(STAMP): pyproject.toml $(CONSTRAINTS)
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "make: $(PYTHON) not found; run 'make PYTHON=python3 ...'"; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]' $(if $(CONSTRAINTS),-c $(CONSTRAINTS))
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

# The other end of the supported range, in its own venv: Python 3.13 with the newest Bokeh and Panel pip finds
# (.ci/run runs it after `make test`).  It runs the core's tests, the doctests of attention/ and app/ and the
# tokenizer's parity with the browser, not the whole suite, to stay within 90 s.  Python 3.13 is python3.13 on
# the PATH, else pyenv's newest 3.13.  pip keeps no cache here, so the wheels are kept in $(WHEELS) (a folder a
# month, so a new release is picked up within a month): a second run installs without the network.
NEWEST_PYTHON ?= $(shell python3.13 -c 'import sys; print(sys.executable)' 2>/dev/null || \
                   ls -d $${PYENV_ROOT:-$$HOME/.pyenv}/versions/3.13*/bin/python3.13 2>/dev/null | sort -V | tail -n 1)
NEWEST_VENV   ?= .venv-newest
NEWEST_TESTS  ?= tests/core attention app tests/browser/test_words_parity.py \
                 --ignore=tests/core/test_bench_smoke.py --ignore=tests/core/test_packaging.py
WHEELS        ?= $(HOME)/.cache/attention-explorable/wheels-$(shell date +%Y-%m)
NEWEST_PIP    := $(NEWEST_VENV)/bin/python -m pip install --quiet --no-index --find-links $(WHEELS) -e '.[test-core]'

$(NEWEST_VENV)/.installed: pyproject.toml
	@[ -n "$(NEWEST_PYTHON)" ] || { echo "make: no Python 3.13 found; run 'make test-newest NEWEST_PYTHON=...'"; exit 2; }
	$(NEWEST_PYTHON) -m venv $(NEWEST_VENV)
	$(NEWEST_PIP) 2>/dev/null || { $(NEWEST_VENV)/bin/python -m pip download --quiet -d $(WHEELS) \
	    '.[test-core]' 'setuptools>=68' wheel && $(NEWEST_PIP); }
	@touch $@

test-newest: $(NEWEST_VENV)/.installed  ## Python 3.13, the newest Bokeh and Panel: the core, doctests, tokenizer parity
	@$(NEWEST_VENV)/bin/python -c 'import sys, bokeh, panel; print("test-newest: Python", sys.version.split()[0], \
	    "bokeh", bokeh.__version__, "panel", panel.__version__)'
	$(NEWEST_VENV)/bin/python -m pytest -n 2 --dist loadfile $(NEWEST_TESTS)

bench: $(STAMP)  ## benchmarks: JSON report in tests/bench/results/latest.json and a table
	$(BIN)/python -m tests.bench

html: $(STAMP)  ## the single offline HTML file
	$(BIN)/attention-explorable export attention-explorable.html

screenshot: $(STAMP)  ## the README's screenshots, from the real page
	$(BIN)/python -m tests.browser.screenshot

readout: $(STAMP)
	$(BIN)/attention-explorable readout --query 3.2 --bandwidth 0.62

clean:
	rm -rf $(VENV) $(NEWEST_VENV) build *.egg-info .pytest_cache .hypothesis
