# beaconfix: `make run` starts the daemon on the demo venue, `make test` builds and runs every test.
# Both install the system packages the build needs when they are missing (Debian; run as root).

SWIFT     ?= swift
DB        ?= beaconfix.sqlite
APT_DEPS  := libsqlite3-dev libblas-dev pkg-config

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
	$(SWIFT) build -c release

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

run: release
	@echo "positiond is not built yet (see the daemon issue)."
