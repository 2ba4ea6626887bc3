# beaconfix: `make run` starts the daemon on the demo venue, `make test` builds and runs every test.
# Both install the system packages the build needs when they are missing (Debian; run as root).

SWIFT     ?= swift
DB        ?= beaconfix.sqlite
# libjs-leaflet: the map page's Leaflet, served by positiond from /usr/share/javascript/leaflet.
APT_DEPS  := libsqlite3-dev libblas-dev pkg-config libjs-leaflet
# Tests run optimised: the accuracy tests tune every shared dataset (cross-validation over the whole search
# space), which takes seconds optimised and many minutes in a debug build. The tests import the modules
# plainly and reach what they check through `package` access, so nothing is built with -enable-testing;
# `make run` builds with the same flags so the two share one build.
# --disable-sandbox: the benchmark plugin (scripts/benchmark-smoke.sh) must run with it, and SwiftPM puts it
# on every compiler command, so a build without it shares not one module with the benchmarks' build in the
# same folder (each would recompile all of them, SwiftNIO to beaconfix, about 10 minutes on 2 cores).
RELEASE   := -c release --disable-sandbox

.PHONY: deps build test run release clean-db

## Install the Debian packages the build links against, only those missing.
deps:
	@missing=""; \
	for package in $(APT_DEPS); do \
		dpkg -s $$package >/dev/null 2>&1 || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "Installing:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build $(RELEASE)

# The tests run beside a throwaway PostgreSQL (the store's second engine): started, handed to them as
# BEACONFIX_TEST_POSTGRES, stopped and removed by scripts/with-postgres.sh.
test: deps
	$(SWIFT) build $(RELEASE) --build-tests
	scripts/with-postgres.sh $(SWIFT) test $(RELEASE) --skip-build

HOST ?= 127.0.0.1
PORT ?= 8080

## Build in release, load venues/demo-hall into $(DB) when it is absent (recording tunes it), start positiond.
run: release
	@if [ ! -f $(DB) ]; then \
		echo "Loading venues/demo-hall into $(DB)"; \
		.build/release/survey venue import --db $(DB) venues/demo-hall/venue.json && \
		.build/release/survey record --db $(DB) --venue demo-hall venues/demo-hall/survey.jsonl | sed -n '1p;/tuned at/p'; \
	fi
	@echo
	@echo "positiond listens on http://$(HOST):$(PORT). In another terminal, locate a sample of the demo walk:"
	@echo
	@echo "  curl -s -X POST http://$(HOST):$(PORT)/v1/venues/demo-hall/locate -H 'Content-Type: application/json' -d @venues/demo-hall/locate-request.json"
	@echo
	@echo "The live map, in a browser: http://$(HOST):$(PORT)/venues/demo-hall/map"
	@echo
	@exec .build/release/positiond --db $(DB) --host $(HOST) --port $(PORT)
