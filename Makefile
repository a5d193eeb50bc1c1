# recruitd: `make dev` runs the whole service locally, `make test` runs every test against real
# Postgres and Temporal. Both start what they need; see README.md.

GO ?= go
TEMPORAL_CLI_VERSION := v1.5.1
GOTESTFLAGS ?= -count=1 -timeout 20m
# Build bin/recruitd and bin/temporal side by side: on a cold machine their module downloads
# overlap each other's compilation.
MAKEFLAGS += -j2

.PHONY: dev test bench build vet fmt clean chromium FORCE

## dev: build, then run Postgres, Temporal (with Web UI), api, mcp and worker; Ctrl-C stops all
dev: bin/recruitd bin/temporal
	./bin/recruitd dev

## test: the whole suite against a throwaway Postgres cluster and Temporal dev server
test: bin/recruitd bin/temporal node_modules/.package-lock.json chromium
	./bin/recruitd stack -- $(GO) test $(GOTESTFLAGS) ./...

## bench: load scenarios against a throwaway stack, reported as ratios of the Temporal floor
bench: bin/recruitd bin/temporal
	./bin/recruitd bench jobs
	./bin/recruitd bench partner --duration 60s
	./bin/recruitd bench assessment --duration 60s --rate 20
	./bin/recruitd bench mcp
	./bin/recruitd bench import
	./bin/recruitd bench hrsuite
	./bin/recruitd bench interview

build: bin/recruitd

bin/recruitd: FORCE
	$(GO) build -o bin/recruitd ./cmd/recruitd

# The official MCP TypeScript client, which the tests drive the tool server with. npm ci writes
# node_modules/.package-lock.json, so a lock file newer than the install reinstalls.
node_modules/.package-lock.json: package-lock.json
	@command -v npm >/dev/null || { echo "npm not found: install Node.js 20 (Debian: apt-get install nodejs npm)"; exit 1; }
	npm ci --no-audit --no-fund

# Debian's chromium, which the browser tests drive headless (internal/browsertest): installed
# when missing and this user may install packages (root, or sudo without a password), else the
# command to run. The tests install it the same way when run without make.
CHROMIUM_INSTALL := apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
chromium:
	@command -v chromium >/dev/null || [ -x /usr/bin/chromium ] || { \
	  if [ "$$(id -u)" = 0 ]; then sudo=; elif sudo -n true 2>/dev/null; then sudo="sudo -n"; else \
	    echo "chromium not found: the browser tests need Debian's chromium; install it as root with"; \
	    echo "  $(CHROMIUM_INSTALL)"; exit 1; fi; \
	  echo "installing Debian's chromium (not found; the browser tests drive it), once"; \
	  $$sudo apt-get update -qq && \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq chromium; }

# The Temporal CLI (dev server and Web UI). Later versions cannot be `go install`ed.
bin/temporal:
	@echo "building the Temporal CLI $(TEMPORAL_CLI_VERSION) into bin/ (a few minutes, once)"
	GOBIN=$(CURDIR)/bin $(GO) install github.com/temporalio/cli/cmd/temporal@$(TEMPORAL_CLI_VERSION)

vet:
	$(GO) vet ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin/recruitd .test

FORCE:
