# optimist — see README.md. demo, test, lint, fuzz and bench need Go alone
# (the embedded DynamoDB engine). conformance and test-dynamodb-local also
# need Java 17+ and npm: they run AWS DynamoDB Local, the reference.

GO ?= go
GOBIN := $(shell $(GO) env GOPATH)/bin
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(GOBIN)/staticcheck
BENCHSTAT := $(GOBIN)/benchstat
# FUZZTIME is an execution count, not a duration: with a duration, Go 1.26's
# fuzz coordinator can report "context deadline exceeded" as a failure when
# the deadline lands while a worker is busy (golang/go#75804, fixed in 1.27).
# A count has no deadline, so a loaded machine only makes the run slower.
FUZZTIME ?= 100000x
# FUZZSMOKE is the count of make fuzz-smoke, CI's short fuzz run (.ci/run,
# a step of its own after make test): each target
# starts its workers and runs its corpus; the long run stays in make fuzz.
# make test runs the seed corpora as ordinary tests, not the fuzzer: each
# target would build an instrumented binary of its own.
FUZZSMOKE ?= 5000x

.PHONY: demo test test-long lint fuzz fuzz-smoke bench tools conformance test-dynamodb-local test-guregu sim

## demo: the voting example against the embedded DynamoDB engine (ARGS="-voters 200")
demo:
	$(GO) run ./examples/voting $(ARGS)

## test: gofmt, vet, staticcheck, the whole suite with the race detector (fuzz targets on their seed corpora), the bench and otel modules' checks
# The simulation tests run here over their own few seeds (TestSimDigest: 5,
# each twice at GOMAXPROCS 1 and 2; TestSimFIFO: 6), and in make sim over SEEDS.
test: lint
	$(GO) test -race -count=1 ./...
	cd bench && $(GO) vet ./... && $(GO) test -count=1 -run . ./...
	cd otel && $(GO) vet ./... && $(GO) test -race -count=1 ./...

## test-long: the whole suite with the race detector and the heavy tests' full counts (OPTIMIST_LONG=1: every crash point, units of 1,000 items, 5,000 pages over the wire, 4 minutes of reader isolation, four times the random values of the mapper's codec and keytmpl's property tests), then make fuzz
test-long:
	OPTIMIST_LONG=1 $(GO) test -race -count=1 -timeout 60m ./...
	$(MAKE) fuzz

## lint: gofmt, go vet, staticcheck
lint: tools
	@unformatted=$$(gofmt -l .); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...
	cd bench && $(STATICCHECK) ./...
	cd otel && $(STATICCHECK) ./...

## sim: the simulation tests of dynamolocal over SEEDS seeds each (default 1000); replay one with -sim.seed=N
# TestSimDigest runs each seed twice at GOMAXPROCS 1 and 2 and wants one
# digest: a seed replays the same history, whatever the load. TestSimLocks
# (lease and FIFO locks: fences, takeover bound) and TestSimFIFO (FIFO
# order among six waiters with pauses, crashes and lost answers) are the
# locks' workloads. The suite is CPU-bound (about 6 CPU-minutes at 1000
# seeds), so a loaded machine takes several times that in wall time: hence
# the long timeout.
SEEDS ?= 1000
sim:
	$(GO) test -count=1 -timeout 90m -run 'TestSim' ./dynamolocal/ -sim.seeds=$(SEEDS)

## conformance: the differential suite, the embedded engine against AWS DynamoDB Local (Java 17+, npm)
conformance:
	$(GO) run ./internal/tools/withdynamodblocal -- $(GO) test -tags conformance -count=1 -timeout 45m ./internal/conformance/ ./internal/cond/ ./dynamolocal/

## test-dynamodb-local: the whole suite against AWS DynamoDB Local instead of the embedded engine
test-dynamodb-local:
	OPTIMIST_ENGINE=dynamodb-local $(GO) test -count=1 ./...

## test-guregu: guregu/dynamo v2's own test suite (downloaded by the go command) against the embedded engine; OPTIMIST_ENGINE=dynamodb-local runs it against DynamoDB Local
test-guregu:
	$(GO) run ./internal/tools/guregutest $(ARGS)

## fuzz: run each fuzz target briefly (FUZZTIME executions each, default 100000x; CI runs FUZZSMOKE)
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParseTag$$' -fuzztime $(FUZZTIME) ./mapper
	$(GO) test -run '^$$' -fuzz '^FuzzRoundTrip$$' -fuzztime $(FUZZTIME) ./mapper
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) ./mapper
	$(GO) test -run '^$$' -fuzz '^FuzzParsePath$$' -fuzztime $(FUZZTIME) ./update
	$(GO) test -run '^$$' -fuzz '^FuzzRequest$$' -fuzztime $(FUZZTIME) ./internal/engine
	$(GO) test -run '^$$' -fuzz '^FuzzFastValue$$' -fuzztime $(FUZZTIME) ./internal/engine
	$(GO) test -run '^$$' -fuzz '^FuzzFastItem$$' -fuzztime $(FUZZTIME) ./internal/engine
	$(GO) test -run '^$$' -fuzz '^FuzzFastBatchTables$$' -fuzztime $(FUZZTIME) ./internal/engine
	$(GO) test -run '^$$' -fuzz '^FuzzBatchWriteDecodeFast$$' -fuzztime $(FUZZTIME) ./internal/engine
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeFast$$' -fuzztime $(FUZZTIME) ./internal/engine
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./internal/cond

## fuzz-smoke: make fuzz with FUZZSMOKE executions per target (default 5000x), as CI runs it after make test
fuzz-smoke:
	$(MAKE) fuzz FUZZTIME=$(FUZZSMOKE)

## bench: side-by-side benchmarks against peers, summarised by benchstat
bench: tools
	cd bench && $(GO) test -run '^$$' -bench . -benchmem -count 10 ./... | tee bench.txt
	$(BENCHSTAT) -col /impl bench/bench.txt

tools: $(STATICCHECK)

$(STATICCHECK):
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

$(BENCHSTAT):
	$(GO) install golang.org/x/perf/cmd/benchstat@latest

bench: $(BENCHSTAT)
