# AgentHub: `make run` runs the app, `make test` runs every test.
GO ?= go
export PATH := /usr/local/go/bin:$(PATH)

.PHONY: run build test deps vet bench

build:
	$(GO) build -o agenthub .

run: build
	./agenthub serve

# npm packages of the interop tests (the official @a2a-js/sdk client), installed from the lockfile.
deps:
	npm ci --prefix backend/interop/js --no-audit --no-fund

vet:
	$(GO) vet ./...

# Everything: vet, the whole Go suite (unit, browser-free end-to-end, kill -9, interop with the official
# SDKs), then the concurrent packages again under the race detector.
test: deps vet
	$(GO) test -count=1 ./...
	$(GO) test -count=1 -race ./backend/...

# Benchmarks print AgentHub beside a2a-go's own in-memory server under the same load.
bench:
	$(GO) test ./backend/server -run '^$$' -bench . -benchtime 3s -count 3
