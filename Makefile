# arena: the two commands a new machine needs are `make demo` and `make test`.
GO       ?= go
FUZZTIME ?= 5s
PKGS     := ./...

DEMO     ?= everything-at-once

.PHONY: demo test unit downstream fuzz bench lint schema serve

## demo: a built-in scenario through the CLI, against the fake cluster in virtual time
demo:
	$(GO) run ./cmd/arena run $(DEMO) --seed 7

## test: lint, every package under the race detector, the downstream module, then each fuzz target briefly
test: lint unit downstream fuzz

unit:
	$(GO) test -race -count=1 $(PKGS)

## downstream: examples/downstream, a module of its own that imports arena by its path (replace ../..)
downstream:
	cd examples/downstream && $(GO) vet ./... && $(GO) test -race -count=1 ./...

# Each fuzz target runs on its own (go test allows one -fuzz pattern per package).
fuzz:
	$(GO) test -run='^$$' -fuzz='^FuzzParseDuration$$' -fuzztime=$(FUZZTIME) .
	$(GO) test -run='^$$' -fuzz='^FuzzActionValidate$$' -fuzztime=$(FUZZTIME) .
	$(GO) test -run='^$$' -fuzz='^FuzzLoadScenario$$' -fuzztime=$(FUZZTIME) .
	$(GO) test -run='^$$' -fuzz='^FuzzValidateScenario$$' -fuzztime=$(FUZZTIME) .
	$(GO) test -run='^$$' -fuzz='^FuzzRoundTrip$$' -fuzztime=$(FUZZTIME) ./internal/sse

## serve: the HTTP API over the fake cluster, on 127.0.0.1:8080 (package arenahttp; ARENA_API_KEY sets a key)
serve:
	$(GO) run ./cmd/arena serve

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
