# funnel: build, test, demo and benchmark. `make test` and `make demo` work on a fresh
# Debian/Ubuntu machine with a Swift toolchain: they install what is missing first.
SWIFT ?= swift
SHELL := /bin/bash
APT_PACKAGES := postgresql libpq-dev zlib1g-dev pkg-config
# Only the HTML screenshot test needs a browser (414 MB): `make test` installs it, `make demo` not.
TEST_APT_PACKAGES := chromium
TEST_LOG := .build/test-output.log
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
RELEASE_BIN := .build/release/funnel
BENCH_EVENTS ?= 10000000

.PHONY: all deps test-deps build release test check fuzz schema demo bench bench-deps cdnow citus citus-cluster clean

all: build

## deps: install the system packages funnel needs (PostgreSQL server, libpq, zlib) when missing.
## test-deps: the same for the packages only the tests need (chromium).
deps: PACKAGES := $(APT_PACKAGES)
test-deps: PACKAGES := $(TEST_APT_PACKAGES)
deps test-deps:
	@missing=""; \
	for pkg in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$pkg 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$pkg"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi
	@command -v $(SWIFT) >/dev/null || { echo "Swift is not installed: get a Swift 6 toolchain from swift.org"; exit 1; }

# SwiftPM caches its build plan, and the EmbedSQL plugin's list of sql/ files with it: a newly
# added SQL file would not be embedded until the plan is made again. Dropping the cached plan
# costs about a second.
FORGET_PLAN := rm -f .build/debug.yaml .build/release.yaml

## build: debug build of the funnel binary (.build/debug/funnel).
build: deps
	$(FORGET_PLAN)
	$(SWIFT) build

release: deps
	$(FORGET_PLAN)
	$(SWIFT) build -c release

## test: install what is missing, build, and run the whole test suite against a real PostgreSQL.
## The whole output goes to $(TEST_LOG); the terminal gets the failures, the skipped tests with
## their reason, the totals and the ten slowest tests.
## The DuckDB baseline's Python (bench-deps, from PyPI) is set up when it can be: one test holds
## funnel's headline figures against DuckDB's from scratch, and is skipped without it. So is the
## CDNOW sample (make cdnow): the BG/NBD and Gamma-Gamma reproduction tests are skipped without it.
## The Citus tests run when the Citus extension is installed (make citus) and are skipped without it.
test: deps test-deps
	$(FORGET_PLAN)
	@PIP_DEFAULT_TIMEOUT=20 PIP_RETRIES=1 $(MAKE) --no-print-directory bench-deps \
	  || echo "note: no DuckDB (make bench-deps failed): the test against DuckDB's figures is skipped"
	@PIP_DEFAULT_TIMEOUT=20 PIP_RETRIES=1 $(MAKE) --no-print-directory cdnow \
	  || echo "note: no CDNOW sample (make cdnow failed): the BG/NBD and Gamma-Gamma reproduction tests are skipped"
	$(SWIFT) build --build-tests
	@ls /usr/lib/postgresql/*/lib/citus.so >/dev/null 2>&1 \
	  || echo "note: the Citus extension is not installed (make citus, docs/citus.md): the Citus tests are skipped"
	@echo "running the tests (whole output in $(TEST_LOG))"
	@$(SWIFT) test --skip-build 2>&1 | tee $(TEST_LOG) \
	  | grep --line-buffered -v -E '^◇ |^✔ (Test|Suite) "|^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:+]+ (trace|debug|info|notice) |^Test Suite .* (started|passed)|^Test Case .* (started|passed)' \
	  ; status=$${PIPESTATUS[0]}; \
	echo "slowest tests:"; \
	sed -n -E 's/^✔ Test "(.*)" passed after ([0-9.]+) seconds\./\2 s  \1/p' $(TEST_LOG) | sort -rn | head -10 | sed 's/^/  /'; \
	exit $$status

## schema: write sql/schema.sql again, the current schema as DDL read back from a migrated database
## (a test fails while it differs from what the migrations build).
schema: deps
	$(FORGET_PLAN)
	$(SWIFT) build --build-tests
	FUNNEL_WRITE_SCHEMA=1 $(SWIFT) test --skip-build --filter schemaSnapshot

## check: the unit tests alone, which need no database (the core's maths and funnels, the readers
## and validation, the generator, the renderers); `make test` runs them with the integration tests.
UNIT_TESTS := ^(FunnelCoreTests|FunnelGenerateTests|FunnelIngestUnitTests|FunnelReportsUnitTests|FunnelPipelineTests|FunnelSQLTests)\.
check: deps
	$(FORGET_PLAN)
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter '$(UNIT_TESTS)'

## fuzz: the CSV and NDJSON readers' mutation fuzzing for FUZZ_SECONDS per format (make test runs it
## for a few seconds). A failure names its seed (FUNNEL_FUZZ_SEED replays it) and keeps its input.
FUZZ_SECONDS ?= 600
fuzz: deps
	$(FORGET_PLAN)
	$(SWIFT) build --build-tests
	FUNNEL_FUZZ_SECONDS=$(FUZZ_SECONDS) $(SWIFT) test --skip-build --filter ReaderFuzzTests

## demo: the main job on the embedded PostgreSQL (see README): generate a realistic data set,
## ingest it, compute, and write every report format into $(DEMO_DIR)/reports.
DEMO_DIR ?= funnel-demo
demo: release
	$(RELEASE_BIN) demo --dir $(DEMO_DIR)

## bench-deps: the peers' Python: a venv in $(BENCH_VENV) with the duckdb and chdb (ClickHouse
## in-process) modules (from PyPI). Only `make bench` needs it; python3-venv is installed when missing.
BENCH_VENV := .venv-bench
bench-deps:
	@python3 -c 'import ensurepip, venv' 2>/dev/null || { \
	  echo "installing: python3-venv"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3-venv; }
	@[ -x $(BENCH_VENV)/bin/python ] || python3 -m venv $(BENCH_VENV)
	@$(BENCH_VENV)/bin/python -c 'import duckdb' 2>/dev/null || $(BENCH_VENV)/bin/pip install --quiet duckdb
	@$(BENCH_VENV)/bin/python -c 'import duckdb; print("duckdb", duckdb.__version__, "in $(BENCH_VENV)")'
	@$(BENCH_VENV)/bin/python -c 'import chdb' 2>/dev/null || $(BENCH_VENV)/bin/pip install --quiet chdb \
	  || echo "note: no chdb (ClickHouse in-process) from PyPI: funnel bench query skips ClickHouse"
	@$(BENCH_VENV)/bin/python -c 'import chdb; print("chdb", chdb.__version__, "in $(BENCH_VENV)")' 2>/dev/null || true

## bench: the benchmarks, each figure beside its baseline (the history's import three times beside
## its limit, for a median); last, the daily run and a funnel query over 10M events, each beside DuckDB.
bench: release bench-deps
	$(RELEASE_BIN) bench generate
	$(RELEASE_BIN) bench ingest --events $(BENCH_EVENTS) --history-runs 3
	$(RELEASE_BIN) bench compute
	$(RELEASE_BIN) bench daily --duckdb-python $(BENCH_VENV)/bin/python
	$(RELEASE_BIN) bench query --duckdb-python $(BENCH_VENV)/bin/python

## cdnow: the CDNOW sample (2,357 customers, Fader, Hardie & Lee 2005) into $(CDNOW_DIR), for the
## tests that reproduce the published BG/NBD and Gamma-Gamma fits. It comes from the PyPI package
## lifetimes 0.11.3 (only its two data files are kept) and is not in the repository: its licence
## is unclear. FUNNEL_CDNOW_DIR points the tests at another copy.
CDNOW_DIR := .cache/cdnow
CDNOW_FILES := CDNOW_sample.txt cdnow_customers_summary.csv
cdnow:
	@if [ -f $(CDNOW_DIR)/CDNOW_sample.txt ] && [ -f $(CDNOW_DIR)/cdnow_customers_summary.csv ]; then \
	  echo "CDNOW sample in $(CDNOW_DIR)"; \
	else \
	  mkdir -p $(CDNOW_DIR) && \
	  { pip download --no-deps --quiet -d $(CDNOW_DIR) lifetimes==0.11.3 2>/dev/null \
	    || python3 -m pip download --no-deps --quiet -d $(CDNOW_DIR) lifetimes==0.11.3; } && \
	  python3 -c 'import glob, sys, zipfile; d = sys.argv[1]; w = zipfile.ZipFile(sorted(glob.glob(d + "/*ifetimes-0.11.3*.whl"))[-1]); [open(d + "/" + n, "wb").write(w.read("lifetimes/datasets/" + n)) for n in sys.argv[2:]]; print("CDNOW sample in", d)' \
	    $(CDNOW_DIR) $(CDNOW_FILES) && \
	  rm -f $(CDNOW_DIR)/*ifetimes-0.11.3*.whl \
	  || { echo "note: could not fetch the CDNOW sample (pip download lifetimes==0.11.3 from PyPI)"; exit 1; }; \
	fi

## citus: build and install the Citus extension (distributed PostgreSQL) into the system PostgreSQL
## when it is missing, from the released source in $(CITUS_ARCHIVE) (sha256 checked), installing
## its pinned build dependencies first. Users install Citus from the Citus project's packages or
## use a managed service (docs/citus.md); `make test` skips the Citus tests without it.
CITUS_ARCHIVE ?= ../shared/vendor/citus-13.2.2.tar.gz
CITUS_SHA256 := c8fc76dc8294636a52b1a0dd75a20d8b4a36937df6443e30ca84d8d0464a6bb9
citus: deps
	@scripts/install-citus.sh $(CITUS_ARCHIVE) $(CITUS_SHA256)

clean:
	rm -rf .build
