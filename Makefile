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

.PHONY: all deps run test check fmt vet staticcheck depcheck unit fuzz window deb-test wine-test bench bench-start bench-500k build package package-deb package-windows package-macos clean

# The version lives in FyneApp.toml only; the release build stamps the commit and
# the date into galla --version (internal/version). SOURCE_DATE_EPOCH, when set,
# makes the date that of the commit (a reproducible build).
VERSION := $(shell sed -n 's/^[[:space:]]*Version[[:space:]]*=[[:space:]]*"\(.*\)".*/\1/p' FyneApp.toml)
BUILD_NO := $(shell sed -n 's/^[[:space:]]*Build[[:space:]]*=[[:space:]]*\([0-9]*\).*/\1/p' FyneApp.toml)
COMMIT := $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
DATE := $(shell date -u $(if $(SOURCE_DATE_EPOCH),-d @$(SOURCE_DATE_EPOCH)) +%Y-%m-%dT%H:%M:%SZ)
STAMP := -X=galla/internal/version.commit=$(COMMIT) -X=galla/internal/version.date=$(DATE)
# fyne package builds by itself: it takes -ldflags from GOFLAGS, one field each.
FYNE_GOFLAGS := $(foreach x,$(STAMP),-ldflags=$(x))
FYNE := bin/fyne$(if $(filter Windows_NT,$(OS)),.exe)

all: test

deps:
	@command -v dpkg-query >/dev/null || { echo "deps: not a Debian system; install Go and a C compiler yourself"; exit 0; }; \
	missing=$$(for p in $(DEB_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi

build: deps
	$(GO) build -o bin/galla .

run: deps
	$(GO) run . $(ARGS)

test: deps check unit fuzz window deb-test wine-test

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
	$(GO) test -race -count=1 -timeout 20m ./...

# Every fuzz target runs briefly from its committed seeds (go test -fuzz takes one target at a time).
fuzz:
	@bash scripts/fuzz.sh $(FUZZTIME)

# The real binary under Xvfb with a fresh data directory: it must draw a window.
window:
	@bash scripts/window-test.sh

# The .deb installed on this machine with dpkg -i, its window drawn under Xvfb,
# removed with dpkg -r leaving the user's data (scripts/deb-test.sh).
deb-test: package-deb
	@bash scripts/deb-test.sh bin/galla_$(VERSION)-$(BUILD_NO)_$(shell dpkg --print-architecture).deb $(VERSION)

# Every benchmark of DESIGN.md section 7 (about a minute; each reports x-floor or
# x-budget, see docs/benchmarks.md). The journal's append and the card checkout
# judge their budgets only at a fixed count of iterations (fsync drifts too much
# for a time-based count), so they run apart with it; so do the store's ingest,
# judged from 20 turns, and its day report and manager pages, judged from 100
# rounds (a second's worth of each is fewer). Every line runs, and the target
# fails at the end if any failed.
bench:
	@fail=0; \
	$(GO) test -run '^$$' -bench . -skip '^Benchmark(Append|CardCheckout|Ingest|StoreDayReport|ManagerPages)$$' -benchmem ./... || fail=1; \
	$(GO) test -run '^$$' -bench '^BenchmarkAppend$$' -benchtime=300x -benchmem ./pos/journal/ || fail=1; \
	$(GO) test -run '^$$' -bench '^BenchmarkCardCheckout$$' -benchtime=300x -benchmem ./internal/cli/ || fail=1; \
	$(GO) test -run '^$$' -bench '^BenchmarkIngest$$' -benchtime=40x -benchmem ./store/ || fail=1; \
	$(GO) test -run '^$$' -bench '^BenchmarkStoreDayReport$$' -benchtime=200x -benchmem ./store/ || fail=1; \
	$(GO) test -run '^$$' -bench '^BenchmarkManagerPages$$' -benchtime=100x -benchmem ./store/web/ || fail=1; \
	exit $$fail

# Cold start to the first frame against a bare Fyne window, under Xvfb (N starts each).
bench-start: deps
	@bash scripts/bench-start.sh

# The real binary on a data directory of 500 thousand events (the last 100
# days without a Z report) against a fresh one (docs/benchmarks.md).
bench-500k: deps
	@bash scripts/bench-500k.sh

# The Linux packages: the tarball of fyne package and the .deb (dpkg-deb), both
# from one stamped, stripped build. fyne package raises FyneApp.toml's Build by
# one after each package; the file is put back, so that the version and build
# change only when someone edits them.
package: deps package-deb $(FYNE)
	@mkdir -p bin && cp FyneApp.toml bin/FyneApp.toml.orig
	$(FYNE) package --os linux --exe bin/linux/galla --release; s=$$?; cp bin/FyneApp.toml.orig FyneApp.toml; exit $$s
	mv Galla.tar.xz bin/Galla-$(VERSION)-linux-$(shell $(GO) env GOARCH).tar.xz
	@ls -l bin/Galla-$(VERSION)-linux-*.tar.xz bin/galla_$(VERSION)-*.deb

$(FYNE): go.mod go.sum
	$(GO) build -o $(FYNE) fyne.io/tools/cmd/fyne

# Without -trimpath, so that make test's window test and this build share the
# compiled packages (Fyne's C parts take minutes): only the link differs.
bin/linux/galla: deps FORCE
	$(GO) build -ldflags "-s -w $(STAMP)" -o bin/linux/galla .

package-deb: bin/linux/galla
	@bash scripts/package-deb.sh bin/linux/galla $(VERSION) $(BUILD_NO) bin

# The Debian packages the Windows build needs (mingw-w64 and NSIS), and those its
# test under Wine adds. Wine's recommended packages (fonts, GStreamer, CUPS...)
# are left out: Galla draws its own text and needs none of them.
WINDOWS_PACKAGES := gcc-mingw-w64-x86-64 nsis
WINE_PACKAGES := $(WINDOWS_PACKAGES) wine wine64 xvfb xauth xdotool imagemagick
# Installs the missing ones of the Debian packages $(1) (without their
# recommendations), on Debian only.
define apt-install
@if command -v dpkg-query >/dev/null; then \
		for p in $(1); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || missing="$$missing $$p"; done; \
		if [ -n "$$missing" ]; then \
			echo "installing:" $$missing; \
			$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
		fi; \
	fi
endef

# The Windows installer: Galla.exe for 64-bit Windows (on Debian with its
# mingw-w64 cross compiler, on Windows with the native one; its icon, version and
# manifest by scripts/package-windows-exe.sh, mingw-w64's own libraries linked
# statically) inside an NSIS installer, then checked without running it: a PE
# file carrying the version (scripts/package-windows.sh). make wine-test runs it.
package-windows: deps
	$(if $(filter Windows_NT,$(OS)),,$(call apt-install,$(WINDOWS_PACKAGES)))
	$(if $(filter Windows_NT,$(OS)),,CC=x86_64-w64-mingw32-gcc CGO_LDFLAGS=-lssp) \
		bash scripts/package-windows-exe.sh $(VERSION) $(BUILD_NO) bin/windows/Galla.exe \
		-trimpath -tags release,migrated_fynedo -ldflags "$(STAMP) -linkmode=external -extldflags=-static -H=windowsgui -s -w"
	@bash scripts/package-windows.sh bin/windows/Galla.exe $(VERSION) $(BUILD_NO) bin

# The Windows installer under Debian's Wine, in a fresh prefix under Xvfb:
# installed silently, Galla.exe --version, its window found and captured
# (bin/windows/wine-window.png), a manager and a cash sale by its command line
# with the journal in %LOCALAPPDATA%\Galla, uninstalled leaving that journal
# (scripts/wine-test.sh).
wine-test: package-windows
	$(call apt-install,$(WINE_PACKAGES))
	@bash scripts/wine-test.sh bin/Galla-$(VERSION)-windows-amd64-setup.exe $(VERSION) bin/windows/wine-window.png

# The macOS packages, on a Mac (fyne package needs Xcode's tools): Galla.app and
# a .dmg of it. The release workflow signs and notarises them when its secrets
# are set (scripts/package-macos.sh).
package-macos: $(FYNE)
	@mkdir -p bin && cp FyneApp.toml bin/FyneApp.toml.orig
	GOFLAGS="$(FYNE_GOFLAGS)" $(FYNE) package -os darwin --release; s=$$?; cp bin/FyneApp.toml.orig FyneApp.toml; exit $$s
	@bash scripts/package-macos.sh Galla.app $(VERSION) bin

FORCE:

clean:
	rm -rf bin
