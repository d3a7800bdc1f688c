# arena: the two commands a new machine needs are `make demo` and `make test`.
GO       ?= go
# A count, not a duration: with a -fuzztime duration, Go 1.26's fuzz
# coordinator can fail a target with a bare "context deadline exceeded" at
# the deadline, no crasher written (go.dev/issue/75804, fixed in Go 1.27).
FUZZTIME ?= 20000x
PKGS     := ./...

DEMO     ?= everything-at-once

.PHONY: demo test unit downstream nats etcd raftsim raftsim-det agents arena-wasm kube browser kube-tools fuzz fuzz-long bench bench-compare lint schema serve serve-rss containers agentd-image bench-containers

## demo: a built-in scenario through the CLI, against the fake cluster in virtual time
demo:
	$(GO) run ./cmd/arena run $(DEMO) --seed 7

## test: lint, every package under the race detector, the downstream, NATS, etcd, raft-sim, kube and browser modules, each fuzz target briefly, then arena serve's peak memory under alias bodies
test: lint unit downstream nats etcd raftsim raftsim-det agents kube browser fuzz serve-rss

# The container tests run in real time against Docker: they run alone, after
# the rest, so that two cores busy with race-instrumented packages do not
# stretch the agents' restarts and elections past the scenarios' gates.
#
# The shrinker's proof on a day of virtual chaos runs a 6 h day under the race
# detector, which slows virtual runs twentyfold; the full 24 h one runs after,
# without it (a few seconds).
unit:
	$(GO) test -race -count=1 $$($(GO) list $(PKGS) | grep -v '/containers')
	$(GO) test -race -count=1 ./containers/...
	$(GO) test -count=1 -run '^TestShrinkSurvivalDay$$' -v ./shrink

## downstream: examples/downstream, a module of its own that imports arena by its path (replace ../..)
downstream:
	cd examples/downstream && $(GO) vet ./... && $(GO) test -race -count=1 ./...

## kube: the kube module (its own go.mod, client-go): vet, then its tests under the race detector on the kubetest control plane (skipped without `make kube-tools` unless ARENA_REQUIRE_KUBE=1)
kube:
	cd kube && $(GO) vet ./... && $(GO) test -race -count=1 ./...

## kube-tools: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok built from source (kube/tools) into $$ARENA_KUBE_TOOLS or ~/.cache/arena-kube-tools/<versions>, once per version
kube-tools:
	GO=$(GO) kube/tools/build.sh

## browser: the dashboard in headless Chromium (chromedp) against a real `arena serve`, a module of its own
## (browsertest); skips without Chromium unless ARENA_REQUIRE_BROWSER=1; screenshots to $$ARENA_REPORT_DIR (default reports/)
browser:
	cd browsertest && $(GO) vet ./... && \
	ARENA_REPORT_DIR=$${ARENA_REPORT_DIR:-$(CURDIR)/reports} $(GO) test -race -count=1 -v -timeout 10m ./...

## nats: examples/nats-cluster, a module of its own: a 3-node NATS JetStream cluster in Docker under
## arena (skips without a daemon unless ARENA_REQUIRE_DOCKER=1); prints arena's TTR beside the
## workload's own outage per fault
nats:
	cd examples/nats-cluster && $(GO) vet ./... && $(GO) test -race -count=1 -v -timeout 15m ./...

## raftsim: examples/raft-sim, a module of its own: hashicorp/raft (3 and 5 nodes) and an HTTP
## service with retrying clients on package sim's network in simulated time (testing/synctest):
## every scenario and an hour of survival under the race detector, then the simulated day of
## survival without it (the race detector slows a simulation about tenfold), its figures logged
raftsim:
	cd examples/raft-sim && $(GO) vet ./... && $(GO) test -race -count=1 ./... && \
		$(GO) test -count=1 -run '^TestSurvival$$' -v -timeout 15m ./

## agents: examples/agents, a module of its own: an orchestrator and workers on the OpenAI and
## Anthropic SDKs and go-sdk MCP sessions (scripted model and tool servers), in simulated time:
## the tables of what the SDKs return under each agent fault, the built-in agent scenarios, ten
## minutes of survival, under the race detector; then each planted bug caught and shrunk, and
## an hour of survival, without it, their figures logged
agents:
	cd examples/agents && $(GO) vet ./... && $(GO) test -race -count=1 ./... && \
		$(GO) test -count=1 -run '^(TestPlantedCaught|TestSurvival)$$' -v -timeout 15m ./ -args -agents.survival=1h

## raftsim-det: examples/raft-sim in deterministic mode (arena-wasm test: built for wasip1, run
## under wazero, every random bit and clock reading from the seed): identical reports and output
## across processes, other seeds other outcomes, the planted bug found by a sweep, replayed
## exactly and shrunk; the compiled module is cached under ~/.cache/arena/wazero
raftsim-det:
	cd examples/raft-sim && GOOS=wasip1 GOARCH=wasm $(GO) vet . && \
		$(GO) test -count=1 -run '^TestDeterministic$$' -v -timeout 30m . -args -raftsim.det

## arena-wasm: the deterministic runner, into $$GOPATH/bin (then: arena-wasm test ./...)
arena-wasm:
	$(GO) install ./cmd/arena-wasm

## etcd: examples/etcd-cluster, a module of its own: a 3-member etcd cluster in Docker (the etcd of
## `make kube-tools`, FROM scratch) under arena, its key-value history checked for linearizability
## (skips without a daemon or the binary unless ARENA_REQUIRE_DOCKER=1)
etcd:
	cd examples/etcd-cluster && $(GO) vet ./... && $(GO) test -race -count=1 -v -timeout 15m ./...

# Each fuzz target runs on its own (go test allows one -fuzz pattern per package).
# -fuzzminimizetime bounds the minimisation of each new input: by default it
# may take a minute, and a short run then does little else.
FUZZMINTIME ?= 2s
FUZZTARGETS := FuzzParseDuration:./clock FuzzVirtualClockOffset:./clock \
	FuzzActionValidate:./fault FuzzMetaKeyDecode:./fault FuzzFaultParams:./fault \
	FuzzActionEventJSON:./engine FuzzHealthEventJSON:./engine FuzzFaultOutcomeJSON:./engine FuzzLiftEventJSON:./engine FuzzActionID:./engine FuzzQueueSampleSlot:./engine \
	FuzzLoadScenario:./scenario FuzzValidateScenario:./scenario \
	FuzzHandler:./arenahttp FuzzRoundTrip:./internal/sse FuzzShrinkInput:./cmd/arena FuzzReadSurvival:./shrink FuzzStreamChecks:./history FuzzPlanSweep:./arenatest FuzzParseArgs:./wasmhost \
	FuzzToolMessages:./agentwire FuzzStreamFault:./agentwire FuzzMCPConn:./agentwire
fuzz:
	@set -e; for t in $(FUZZTARGETS); do \
		echo "fuzz $${t%%:*} ($(FUZZTIME))"; \
		$(GO) test -run='^$$' -fuzz="^$${t%%:*}\$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINTIME) $${t#*:}; \
	done

## fuzz-long: every fuzz target for 10 minutes, past any failure, then a table of executions and results (FUZZPARALLEL=N workers each)
fuzz-long:
	FUZZTARGETS="$(FUZZTARGETS)" FUZZTIME=$(or $(LONGFUZZTIME),10m) FUZZMINTIME=$(FUZZMINTIME) ./.ci/fuzz-long

## serve: the HTTP API over the fake cluster, on 127.0.0.1:8080 (package arenahttp; ARENA_API_KEY sets a key)
serve:
	$(GO) run ./cmd/arena serve

## containers: the container runtime and reference agent tests alone (Docker; they skip without a daemon unless ARENA_REQUIRE_DOCKER=1)
containers:
	$(GO) test -race -count=1 -v ./containers/... ./cmd/agentd/

## agentd-image: the reference agent image as arena-agentd:local (containers.WithAgentImage); FROM scratch, no registry
agentd-image:
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && \
	CGO_ENABLED=0 GOOS=linux $(GO) build -trimpath -ldflags='-s -w' -o $$tmp/agentd ./cmd/agentd && \
	cp containers/agentd.Dockerfile $$tmp/Dockerfile && docker build -q -t arena-agentd:local $$tmp

## bench-containers: injection latency of pause, kill and partition, Docker API vs docker CLI
bench-containers:
	$(GO) test -run='^$$' -bench=Injection -benchtime=50x ./containers/

## serve-rss: arena serve's peak RSS under 1 MiB alias bodies at the scenario routes' concurrency cap (64 at once; at most 256 MB, answers at most 64 KiB)
serve-rss:
	./.ci/serve-rss

## schema: regenerate scenarios/scenario.schema.json from the Go types (a test checks it is current)
schema:
	$(GO) run ./internal/schemagen/genschema scenarios/scenario.schema.json

## bench: the benchmarks, with allocations
bench:
	$(GO) test -run='^$$' -bench=. -benchmem $(PKGS)

## bench-compare: BASE=<rev> against the work tree, interleaved runs, benchstat tables (BENCH, BENCH_PKGS, COUNT, BENCHTIME)
bench-compare:
	@test -n "$(BASE)" || { echo "usage: make bench-compare BASE=<rev> [BENCH=pattern] [COUNT=6]"; exit 2; }
	./.ci/bench-compare $(BASE)

## lint: gofmt and go vet
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	GOOS=wasip1 GOARCH=wasm $(GO) vet ./arenatest ./internal/wasmguest ./clock ./engine
