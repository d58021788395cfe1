#!/usr/bin/env bash
# Wine set-up of make test-windows and make wine-env (docs/testing.md, "Windows under Wine").
#
#   wine.sh prepare   install Wine and mingw from Debian if missing, make the prefix, the
#                     ProcessPrng stub, the os.RemoveAll overlay and the stand-in bash.exe;
#                     then print WINE=, WINEPREFIX= and OVERLAY= (one per line)
#   wine.sh env       prepare quietly, then print exactly WINE=<path> and WINEPREFIX=<dir>
#   wine.sh testbins  compile every package's Windows test binary (e2e aside), with the
#                     overlay, into $cache/testbin, and the programs tests run there
#                     (pi-rpc.exe, mock-openai.exe, demo.exe, mcp-testserver.exe); needs no Wine, so
#                     make check's check-cross runs it, and test finds them built
#   wine.sh test      prepare and testbins, then run every package's Windows test binary under
#                     Wine but what unix-only.tsv leaves out (saying why), then e2e's
#                     TestWindowsExe*
#
# Everything lives in $PI_RPC_WINE_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/pi-rpc/wine) and
# is rebuilt only when what it is made from changes (a stamp per piece; go's own build IDs for
# the binaries of testbin, which is why it is kept: go test -c into a fresh directory would
# link every test binary again). Nothing here goes into a shipped binary: the stub is a DLL of
# the prefix, the overlay is passed to go test -c alone (the test binaries), never to go build.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${PI_RPC_WINE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pi-rpc/wine}
prefix=$cache/prefix
testbin=$cache/testbin
export WINEPREFIX=$prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
# Debian's wine64 package puts the loader here; the wine package's /usr/bin/wine wrapper is
# not needed.
wine=/usr/lib/wine/wine64
mingw=x86_64-w64-mingw32-gcc
export GOTOOLCHAIN=local

log() { echo "wine.sh: $*" >&2; }

# install puts the Debian packages in place (as root, or with sudo) unless they are there.
install() {
	local need=()
	[ -x "$wine" ] || need+=(wine64)
	command -v "$mingw" >/dev/null || need+=(gcc-mingw-w64-x86-64-win32)
	[ ${#need[@]} -eq 0 ] && return
	local sudo=
	[ "$(id -u)" = 0 ] || sudo=sudo
	log "installing ${need[*]} from Debian"
	$sudo apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
}

# fresh name stamp...: true when the stamp file holds the hash of the rest (files or strings).
fresh() {
	local stamp=$1
	shift
	local want
	want=$(for f in "$@"; do if [ -f "$f" ]; then sha256sum "$f"; else echo "$f"; fi; done | sha256sum)
	[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && return 0
	echo "$want" >"$stamp.new"
	return 1
}
stamped() { mv "$1.new" "$1"; }

# makePrefix creates the Wine prefix (wineboot --init; about 20 s) with the ProcessPrng stub in
# its system32.
makePrefix() {
	mkdir -p "$cache"
	if ! fresh "$cache/prefix.stamp" "$("$wine" --version)"; then
		log "creating the Wine prefix $prefix"
		rm -rf "$prefix"
		"$wine" wineboot --init >/dev/null 2>&1
		# Wait for the wineserver to write the registry out before tests share the prefix.
		/usr/lib/wine/wineserver64 -w
		stamped "$cache/prefix.stamp"
		rm -f "$cache/stub.stamp" "$cache/bash.stamp"
	fi
	if ! fresh "$cache/stub.stamp" "$here/bcryptprimitives.c" "$here/bcryptprimitives.def"; then
		log "building the ProcessPrng stub bcryptprimitives.dll"
		"$mingw" -shared -O2 -s -o "$cache/bcryptprimitives.dll" \
			"$here/bcryptprimitives.c" "$here/bcryptprimitives.def" -ladvapi32
		cp "$cache/bcryptprimitives.dll" "$prefix/drive_c/windows/system32/bcryptprimitives.dll"
		stamped "$cache/stub.stamp"
	fi
}

# makeOverlay writes the go build -overlay that gives os.RemoveAll, on Windows only, the
# implementation Go uses where there is no openat (Remove of each entry by path), in place of
# the handle-relative one whose delete (NtSetInformationFile with
# FileDispositionInformationEx) Wine 8.0 does not implement. It is made from this GOROOT's own
# files, so it follows the Go version.
makeOverlay() {
	local src ov=$cache/overlay
	src=$(go env GOROOT)/src/os
	if fresh "$cache/overlay.stamp" "$src/removeall_at.go" "$src/removeall_noat.go" "$0"; then
		return
	fi
	log "writing the os.RemoveAll overlay"
	rm -rf "$ov" && mkdir -p "$ov"
	grep -q '^func removeAll(path string) error {$' "$src/removeall_at.go"
	grep -q '^//go:build (js && wasm) || plan9$' "$src/removeall_noat.go"
	sed 's/^func removeAll(path string) error {$/func removeAllAt(path string) error {/' \
		"$src/removeall_at.go" >"$ov/removeall_at.go"
	sed 's#^//go:build (js \&\& wasm) || plan9$#//go:build windows#' \
		"$src/removeall_noat.go" >"$ov/removeall_wine_windows.go"
	printf '{"Replace":{"%s":"%s","%s":"%s"}}\n' \
		"$src/removeall_at.go" "$ov/removeall_at.go" \
		"$src/removeall_wine_windows.go" "$ov/removeall_wine_windows.go" >"$ov/overlay.json"
	stamped "$cache/overlay.stamp"
}

# makeBash builds the stand-in bash (internal/winetest/bash, mvdan.cc/sh's interpreter) into the
# prefix where Git for Windows' installer puts bash.exe, so that internal/shellfind finds it
# the way it finds Git Bash on a user's machine. go build caches it; the copy is cheap.
makeBash() {
	local dir="$prefix/drive_c/Program Files/Git/bin"
	mkdir -p "$dir"
	(cd "$here/bash" && CGO_ENABLED=0 GOOS=windows GOARCH=amd64 GOFLAGS= go build -o "$cache/bash.exe" .)
	cmp -s "$cache/bash.exe" "$dir/bash.exe" || cp "$cache/bash.exe" "$dir/bash.exe"
}

prepare() {
	install
	makePrefix
	makeOverlay
	makeBash
}

# unixOnly prints unix-only.tsv's rows (package, test, why), without comments.
unixOnly() { grep -v '^#' "$here/unix-only.tsv" | grep .; }

# testPkgs prints the packages whose Windows test binaries make test-windows runs or
# check-cross compiles: every one but e2e, which drives a binary from Linux.
testPkgs() { GOOS=windows go list ./... | grep -v '/e2e$'; }

# testBins compiles every package's Windows test binary into $testbin, with the overlay (a
# test build: the overlay reaches no shipped binary), and builds there, without it and as
# make release builds them, the programs the tests run instead of building them with a Go
# toolchain the prefix lacks: PI_RPC_TEST_BIN names the directory to the tests
# (internal/testkit.Binary). go skips each link whose output in $testbin is up to date.
testBins() {
	makeOverlay
	cd "$here/../.."
	mkdir -p "$testbin"
	log "GOOS=windows go test -c of every package but e2e into $testbin (with the test overlay)"
	# shellcheck disable=SC2046 # a list of import paths
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 go test -c -overlay "$cache/overlay/overlay.json" \
		-o "$testbin/" $(testPkgs) 2>&1 | { grep -v 'no test files' || true; }
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 go build -o "$testbin/" \
		./cmd/pi-rpc ./cmd/mock-openai ./cmd/demo ./tools/mcp/internal/testserver/mcp-testserver
}

# runPkg import-path dir runs the package's test binary from testBins under Wine in the
# package's directory, as go test -exec would (without the tests $SKIP names), and prints
# go test's "ok" line, or the output and a "FAIL" line.
runPkg() {
	local pkg=$1 dir=$2 out rc=0 t0=$SECONDS
	local args=(-test.timeout=20m -test.paniconexit0)
	[ -z "${SKIP:-}" ] || args+=("-test.skip=$SKIP")
	out=$(cd "$dir" && "$here/exec.sh" "$testbin/${pkg##*/}.test.exe" "${args[@]}" 2>&1) || rc=$?
	if [ $rc -eq 0 ]; then
		printf 'ok  \t%s\t%ds\n' "$pkg" $((SECONDS - t0))
	else
		printf '%s\nFAIL\t%s\t%ds (exit %d)\n' "$out" "$pkg" $((SECONDS - t0)) $rc
	fi
	return $rc
}

# startServices starts the prefix's Windows services (services.exe, winedevice.exe,
# plugplay.exe, svchost.exe, rpcss.exe) with /dev/null as their stdin, stdout and stderr. The
# first Wine process of a wineserver starts them, and they inherit its Unix file descriptors
# and live as long as the wineserver: were that process a test binary, its stderr (the pipe
# test-windows reads its output from) would stay open after it exits, and the run would wait
# for it for ever (go test -exec gave up after two minutes: "Test I/O incomplete", seen on
# acp's test binary, the first one go test started).
startServices() { "$wine" cmd /c exit </dev/null >/dev/null 2>&1; }

# test runs the Windows test binaries of every package (but e2e, which drives a binary, and
# the packages unix-only.tsv leaves out) under Wine, two at a time as go test would on this
# machine, without the tests it lists, then the end-to-end tests of pi-rpc.exe. A wineserver
# is kept up for the run, so that each test binary does not start its own.
test() {
	prepare
	testBins
	cd "$here/../.."
	local excluded pkgs rc=0
	excluded=$(unixOnly | awk -F'\t' '$2 == "-" { print $1 }')
	# The packages with tests (as go list sees them for Windows) and their directories.
	pkgs=$(GOOS=windows go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{.Dir}}{{end}}' ./... |
		awk -v ex="$excluded" 'BEGIN { n = split(ex, a, "\n"); for (i = 1; i <= n; i++) out[a[i]] = 1 }
			$1 !~ /\/e2e$/ && !($1 in out)')
	unixOnly | while IFS=$'\t' read -r pkg name why; do
		if [ "$name" = - ]; then log "not run under Wine: $pkg: $why"; else log "not run under Wine: $pkg $name: $why"; fi
	done
	# One skip pattern for every package, so a listed test's name is left out of every
	# package; the names are anchored and distinct enough.
	SKIP=$(unixOnly | awk -F'\t' '$2 != "-" { print "^" $2 "$" }' | sort -u | paste -sd'|')
	# The test binaries see the directory of prebuilt programs as Wine maps it (Z:\...).
	PI_RPC_TEST_BIN="Z:${testbin//\//\\}"
	export SKIP WINE=$wine PI_RPC_TEST_BIN
	/usr/lib/wine/wineserver64 -p 2>/dev/null || true # (one already up for the prefix is fine)
	trap '/usr/lib/wine/wineserver64 -k 2>/dev/null || true' EXIT
	startServices
	log "the Windows test binaries of $(echo "$pkgs" | wc -l) packages under Wine ($prefix)"
	echo "$pkgs" | xargs -P 2 -L 1 "$here/wine.sh" run-package || rc=1
	log "e2e: pi-rpc.exe under Wine"
	PI_RPC_WINE=1 PI_RPC_WINE_EXE=$testbin/pi-rpc.exe go test -count=1 -timeout 20m -run '^TestWindowsExe' -v ./e2e || rc=1
	return $rc
}

case "${1:-}" in
prepare)
	prepare
	echo "WINE=$wine"
	echo "WINEPREFIX=$prefix"
	echo "OVERLAY=$cache/overlay/overlay.json"
	;;
env)
	prepare >/dev/null 2>&1 || { prepare >&2; exit 1; }
	echo "WINE=$wine"
	echo "WINEPREFIX=$prefix"
	;;
testbins)
	testBins
	;;
test)
	test
	;;
run-package) # (test's, through xargs)
	runPkg "$2" "$3"
	;;
*)
	echo "usage: $0 prepare|env|testbins|test" >&2
	exit 2
	;;
esac
