# Galla — two commands on a fresh machine: `make run` and `make test`.
# Both install the Debian packages they need first (only the missing ones).

SHELL := /bin/bash
GO ?= go
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Fyne's OpenGL/X11 build, the window test (Xvfb, screenshots), the hosted-checkout
# browser test (chromium) and a font for the receipt renderer's fallback.
# PostgreSQL for the store server's tests (each starts a throwaway cluster).
DEB_PACKAGES := gcc libc6-dev pkg-config libgl-dev libegl-dev libx11-dev libxcursor-dev \
	libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev libwayland-dev libxkbcommon-dev \
	xvfb xauth x11-utils imagemagick chromium postgresql

# An execution count, not a duration: a duration races the fuzz coordinator's own
# deadline in Go 1.26 (golang/go#75804) and fails with "context deadline exceeded"
# on a loaded machine without any failing input.
FUZZTIME ?= 3000x

.PHONY: all deps run test check fmt vet staticcheck depcheck unit fuzz window bench bench-start build package package-windows clean

all: test

deps:
	@missing=$$(for p in $(DEB_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi

build: deps
	$(GO) build -o bin/galla .

run: deps
	$(GO) run . $(ARGS)

test: deps check unit fuzz window

check: fmt vet staticcheck depcheck

fmt:
	@bad=$$(gofmt -l $$(find . -name '*.go' -not -path './.git/*')); \
	if [ -n "$$bad" ]; then echo "gofmt needed:"; echo "$$bad"; exit 1; fi

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) tool staticcheck ./...

depcheck:
	@bash scripts/depcheck.sh

unit:
	$(GO) test -race -count=1 ./...

# Every fuzz target runs briefly from its committed seeds (go test -fuzz takes one target at a time).
fuzz:
	@bash scripts/fuzz.sh $(FUZZTIME)

# The real binary under Xvfb with a fresh data directory: it must draw a window.
window:
	@bash scripts/window-test.sh

# Every benchmark of DESIGN.md section 7 (about a minute; each reports x-floor or
# x-budget, see docs/benchmarks.md).
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Cold start to the first frame against a bare Fyne window, under Xvfb (N starts each).
bench-start: deps
	@bash scripts/bench-start.sh

package: deps
	$(GO) tool fyne package --release

# Galla.exe for Windows, built on Debian with its mingw-w64 cross compiler.
package-windows: deps
	@dpkg-query -W -f='$${Status}\n' gcc-mingw-w64-x86-64 2>/dev/null | grep -q '^install ok installed' || \
		{ $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq gcc-mingw-w64-x86-64 >/dev/null; }
	$(GO) build -o bin/fyne fyne.io/tools/cmd/fyne
	GOOS=windows GOARCH=amd64 CC=x86_64-w64-mingw32-gcc CGO_ENABLED=1 CGO_LDFLAGS=-lssp bin/fyne package -os windows --release

clean:
	rm -rf bin
