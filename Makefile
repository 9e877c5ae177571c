# The README's two commands: `make run` (play a seeded game and print it) and `make test`.
# Each creates .venv and installs what it needs by itself.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e ".[dev,train]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m subterra_env.play --seed 7

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/sps.py

clean:
	rm -rf $(VENV)
