# pi-rpc build, test and check targets. GOTOOLCHAIN=local keeps the go line where it is.
export GOTOOLCHAIN := local
GO ?= go
LINT := $(GO) tool -modfile=devtools/go.mod golangci-lint
BIN := bin

.PHONY: all build test test-go test-ts check lint generate check-generated bench demo clean

all: build

build:
	$(GO) build -o $(BIN)/ ./cmd/...

## test: build, then the whole Go suite under the race detector, then the TypeScript client.
test: build test-go test-ts

test-go:
	$(GO) test -race ./...
	$(GO) test -race -count=5 ./core/...

test-ts:
	@if [ -f clients/ts/package.json ]; then cd clients/ts && npm ci --no-audit --no-fund && npm test; fi

## check: formatting, vet, tidy modules, lint, generated files fresh.
check: lint check-generated
	@out=$$(gofmt -l $$(git ls-files '*.go') 2>/dev/null); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) mod tidy -diff

lint:
	$(LINT) run ./...

generate:
	$(GO) generate ./...

# Generated files are checked by tests that regenerate them in memory and compare (see
# protocol/schema_test.go once it exists), so a stale file fails both check and test.
check-generated:
	@true

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

demo: build
	@if [ -d cmd/demo ]; then $(GO) run ./cmd/demo; else echo "demo: not built yet (the JSON-RPC server issue adds it)"; fi

clean:
	rm -rf $(BIN)
