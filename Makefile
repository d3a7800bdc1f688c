# arena: the two commands a new machine needs are `make demo` and `make test`.
GO       ?= go
FUZZTIME ?= 5s
PKGS     := ./...

DEMO     ?= everything-at-once

.PHONY: demo test unit downstream kube kube-tools fuzz bench lint schema serve containers agentd-image bench-containers

## demo: a built-in scenario through the CLI, against the fake cluster in virtual time
demo:
	$(GO) run ./cmd/arena run $(DEMO) --seed 7

## test: lint, every package under the race detector, the downstream and kube modules, then each fuzz target briefly
test: lint unit downstream kube fuzz

# The container tests run in real time against Docker: they run alone, after
# the rest, so that two cores busy with race-instrumented packages do not
# stretch the agents' restarts and elections past the scenarios' gates.
unit:
	$(GO) test -race -count=1 $$($(GO) list $(PKGS) | grep -v '/containers')
	$(GO) test -race -count=1 ./containers/...

## downstream: examples/downstream, a module of its own that imports arena by its path (replace ../..)
downstream:
	cd examples/downstream && $(GO) vet ./... && $(GO) test -race -count=1 ./...

## kube: the kube module (its own go.mod, client-go): vet, then its tests under the race detector on the kubetest control plane (skipped without `make kube-tools` unless ARENA_REQUIRE_KUBE=1)
kube:
	cd kube && $(GO) vet ./... && $(GO) test -race -count=1 ./...

## kube-tools: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok built from source (kube/tools) into $$ARENA_KUBE_TOOLS or ~/.cache/arena-kube-tools/<versions>, once per version
kube-tools:
	GO=$(GO) kube/tools/build.sh

# Each fuzz target runs on its own (go test allows one -fuzz pattern per package).
fuzz:
	$(GO) test -run='^$$' -fuzz='^FuzzParseDuration$$' -fuzztime=$(FUZZTIME) .
	$(GO) test -run='^$$' -fuzz='^FuzzActionValidate$$' -fuzztime=$(FUZZTIME) .
	$(GO) test -run='^$$' -fuzz='^FuzzLoadScenario$$' -fuzztime=$(FUZZTIME) .
	$(GO) test -run='^$$' -fuzz='^FuzzValidateScenario$$' -fuzztime=$(FUZZTIME) .
	$(GO) test -run='^$$' -fuzz='^FuzzMetaKeyDecode$$' -fuzztime=$(FUZZTIME) .
	$(GO) test -run='^$$' -fuzz='^FuzzRoundTrip$$' -fuzztime=$(FUZZTIME) ./internal/sse

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

## schema: regenerate scenarios/scenario.schema.json from the Go types (a test checks it is current)
schema:
	$(GO) run ./internal/schemagen/genschema scenarios/scenario.schema.json

## bench: the benchmarks, with allocations
bench:
	$(GO) test -run='^$$' -bench=. -benchmem $(PKGS)

## lint: gofmt and go vet
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
