# AgentHub: `make run` opens the desktop app, `make test` runs every test. Both install what a fresh
# Debian 12 machine lacks first (apt packages through build/setup-debian.sh, which uses sudo when
# not root; npm packages from the lockfiles).
GO ?= go
export PATH := /usr/local/go/bin:$(PATH)

# The desktop window is compiled in with these tags (webkit2_41: Debian 12 ships WebKitGTK 4.1).
DESKTOP_TAGS := desktop,production,webkit2_41

# The release version `make dist` stamps into every artifact (x.y.z: the Windows installer wants numbers).
VERSION ?= 0.1.0

.PHONY: run serve build headless frontend setup deps test bench bench-memory dist \
	bench-channels bench-knowledge suite-vet suite-frontend-unit suite-go suite-go-postgres suite-go-race suite-e2e suite-desktop-smoke suite-deb suite-windows

# The app: the desktop window, with the hub and the demo agent running while it is open.
run: build
	./agenthub

# The same binary headless: the hub, the demo agent, and the UI at the printed "ui:" URL.
serve: build
	./agenthub serve

# One binary for both: the window (no command) and `agenthub serve`. -trimpath as in the release
# build (build/package-deb.sh), so both share the Go build cache instead of compiling WebKit's cgo twice.
build: setup frontend
	$(GO) build -trimpath -tags $(DESKTOP_TAGS) -ldflags "-s -w" -o agenthub .

# The release artifacts in dist/, VERSION stamped: the .deb, the Windows x64 installer, a Linux
# tarball, and SHA256SUMS (build/dist.sh).
dist: frontend
	bash build/setup-debian.sh nsis
	VERSION=$(VERSION) bash build/dist.sh

# A binary without the window, for machines without GTK/WebKit: it only serves.
headless: frontend
	$(GO) build -o agenthub .

frontend: frontend/node_modules
	npm --prefix frontend run build

frontend/node_modules: frontend/package-lock.json
	npm --prefix frontend ci --no-audit --no-fund
	touch $@

setup:
	bash build/setup-debian.sh

# npm packages of the tests: the official @a2a-js/sdk client (interop), playwright-core (browser).
deps: setup frontend/node_modules
	npm ci --prefix backend/interop/js --no-audit --no-fund
	npm ci --prefix frontend/e2e --no-audit --no-fund

# Every suite runs, even after one fails; the last line counts them.
SUITES := vet frontend-unit go go-postgres go-race e2e desktop-smoke deb windows
test: deps
	@pass=0; fail=0; failed=""; \
	for s in $(SUITES); do \
	  echo "=== suite $$s"; \
	  if $(MAKE) --no-print-directory suite-$$s; then pass=$$((pass+1)); else fail=$$((fail+1)); failed="$$failed $$s"; fi; \
	done; \
	if [ -n "$$failed" ]; then echo "failed suites:$$failed"; fi; \
	echo "$$pass passed, $$fail failed"; [ $$fail -eq 0 ]

suite-vet:
	$(GO) vet ./...
	$(GO) vet -tags $(DESKTOP_TAGS) ./app/ .

suite-frontend-unit:
	npm --prefix frontend test

# The whole Go suite: unit, gateway, kill -9 durability, interop with the official SDKs.
suite-go:
	$(GO) test -count=1 ./...

# The whole Go suite again with every hub database in PostgreSQL (the team hub's storage): each test
# binary starts its own throwaway cluster from Debian's postgresql package (backend/store/storetest).
suite-go-postgres:
	AGENTHUB_TEST_DATABASE=postgres $(GO) test -count=1 ./...

# The concurrent packages again under the race detector. checkptr (which -race turns on) aborts
# inside Cayley's boltdb/bolt, the knowledge graph's store; the race detector itself stays on.
suite-go-race:
	$(GO) test -count=1 -race -gcflags=all=-d=checkptr=0 ./backend/...

# A real browser clicking through the UI of the real binary (`agenthub serve`).
suite-e2e: build
	npm --prefix frontend/e2e test

# The real window under Xvfb: it paints, and its hub answers.
suite-desktop-smoke: build
	BIN=./agenthub bash build/desktop-smoke.sh

# The .deb installed on this machine (root or sudo): a first run of the installed binary to a streamed
# reply (timed from the install), its entry and icons, the desktop smoke test, then dpkg -r.
suite-deb: frontend
	bash build/setup-debian.sh desktop-file-utils
	VERSION=$(VERSION) bash build/deb-check.sh

# The Windows x64 build cross-compiled, its installer listed, and installed/uninstalled under wine64
# when Debian's wine64 installs here.
suite-windows: frontend
	bash build/setup-debian.sh nsis p7zip-full file
	bash build/setup-debian.sh wine64 || echo "suite-windows: wine64 did not install; the installer is checked by its listing only"
	VERSION=$(VERSION) bash build/windows-check.sh

# The throughput tables: AgentHub's durable stack beside a2a-go's own in-memory server, same executors,
# interleaved, three rounds: first as users run it (the agenthub binary, a2a-go's server and the load
# generator as three processes; 1/32/128 clients; about 1.5 minutes; BENCH_PROFILE=FILE keeps the hub
# process's CPU profile), then in one process at 1/8/32/128 clients (about 2.5 minutes on 2 cores).
bench:
	$(GO) test ./backend/bench -run '^$$' -bench '^(BenchmarkAsRun|BenchmarkThroughput)$$' -benchtime 1x -timeout 25m

# Heap and WAL at 10k and 100k stored tasks (a few minutes).
bench-memory:
	$(GO) test ./backend/bench -run '^$$' -bench '^BenchmarkMemoryAtScale$$' -benchtime 1x -timeout 30m

# Channels (issue 11): publish over JSON-RPC with 1/8/64 publishers and Service.Publish alone, each
# interleaved with a bare peer; stream latency to 100 SSE subscribers; history pages in a channel of
# 1M events; one and two replicas on PostgreSQL beside an embedded NATS JetStream (issue 25). About 4
# minutes; CHANNELS_BENCH=publish,storage,stream,history,replicas picks sections, CHANNELS_BENCH_EVENTS
# sizes the history channel.
bench-channels:
	$(GO) test ./backend/channels -run '^$$' -bench '^BenchmarkChannels$$' -benchtime 1x -timeout 40m

# Knowledge graph (issue 12): the service (hub.db + Cayley bolt) beside Cayley's memstore at 100k
# statements (section local); then, on a throwaway PostgreSQL cluster, the hub's design (log and
# statements in PostgreSQL, each replica's bolt index fed from the log) beside Cayley's own SQL
# backend (section sql, issue 25; about 2.5 minutes, most of it the two loads). KG_BENCH=local or
# KG_BENCH=sql runs one; KG_BENCH_1M=1 adds 1M to both (many minutes more).
bench-knowledge:
	$(GO) test ./backend/knowledge -run '^$$' -bench '^BenchmarkKnowledge(SQL)?$$' -benchtime 1x -timeout 90m
