# plait: two commands after cloning — `make demo` and `make test`. Each sets up
# what it needs (virtualenv, maturin, the extension) when run first.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
DEPS := $(VENV)/.deps-installed
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(abspath $(VENV))/bin:$(PATH)

.PHONY: demo lint test test-rust test-python develop develop-release bench clean

$(DEPS): requirements-dev.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	@# koladata is the reference the comparison tests run against; they skip
	@# cleanly when it cannot be installed.
	-$(PY) -m pip install --quiet koladata
	@# Ray runs kd.shard_map / kd.parallel.run on a cluster; its tests skip
	@# cleanly when it cannot be installed.
	-$(PY) -m pip install --quiet ray
	touch $(DEPS)

# Debug build of the extension, installed into the virtualenv.
develop: $(DEPS)
	$(VENV)/bin/maturin develop --quiet

develop-release: $(DEPS)
	$(VENV)/bin/maturin develop --quiet --release

demo: develop
	$(PY) examples/quickstart.py

# Formatting, clippy and ruff: all must be clean.
lint: $(DEPS)
	cargo fmt --all --check
	cargo clippy --workspace --all-targets --quiet -- -D warnings
	$(VENV)/bin/ruff check python scripts bench examples

test-rust:
	cargo test --workspace --quiet

test-python: develop
	$(PY) -m pytest python/tests -q

test: lint test-rust test-python

# Awkward Array and Polars, for the jagged-array comparison (the table runs
# without them, leaving their columns empty).
BENCH_DEPS := $(VENV)/.bench-deps-installed
$(BENCH_DEPS): bench/requirements.txt $(DEPS)
	-$(PY) -m pip install --quiet -r bench/requirements.txt
	touch $(BENCH_DEPS)

bench: develop-release $(BENCH_DEPS)
	$(PY) bench/run.py

clean:
	cargo clean
	rm -rf $(VENV)
