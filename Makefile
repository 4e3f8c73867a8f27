# Two commands: `make demo` and `make test`. Both create .venv themselves from a fresh clone.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
EXTRAS := dev,postgres,mcp,encoder,adk,openai-agents,langgraph,docs
STAMP  := $(VENV)/.installed-$(EXTRAS)

.PHONY: demo test lint typecheck docs unit bench bench-smoke release clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[$(EXTRAS)]'
	touch $@

demo: $(STAMP)
	$(VENV)/bin/chronomem demo

test: lint typecheck docs unit

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# The manual (docs/, README.md as its home page) as a site in site/, strictly: a broken link or
# anchor, or a page missing from mkdocs.yml's nav, fails the build.
docs: $(STAMP)
	$(VENV)/bin/mkdocs build --strict --quiet

# The tests that load the whole machine first, by themselves (sixteen processes for a minute
# would starve the subprocesses other tests start, past their deadlines), then the rest on
# every core, up to 4 workers.
unit: $(STAMP)
	$(PY) -m pytest -m alone
	$(PY) -m pytest -m "not alone" --numprocesses auto --maxprocesses 4

# A release, checked and uploaded nowhere: sdist and wheel in dist/ (twine check --strict), the
# wheel installed alone in a fresh virtualenv, where `chronomem --version` and `chronomem serve`
# must run. It prints the `twine upload` line to publish what it checked.
release: $(STAMP)
	$(PY) scripts/release.py

$(VENV)/.installed-bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[$(EXTRAS),bench]'
	touch $@

bench: $(VENV)/.installed-bench
	$(PY) scripts/bench_chronica.py
	$(PY) scripts/bench_chronomem.py
	$(PY) scripts/benchmark_matrix.py --setup
	$(PY) scripts/benchmark_matrix.py

# The benchmark matrix at small sizes, so the script cannot rot: every matrix and peer runs.
bench-smoke: $(VENV)/.installed-bench
	$(PY) scripts/benchmark_matrix.py --setup
	$(PY) scripts/benchmark_matrix.py --quick

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache site dist
