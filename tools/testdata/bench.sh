#!/usr/bin/env bash
# Runs pi-rpc's grep/find benchmarks on a generated 50,000-file tree next to ripgrep and fd
# (Debian: apt-get install ripgrep fd-find; the fd binary is fdfind), warm cache.
# Usage: tools/testdata/bench.sh [tree-dir]   (default: $TMPDIR/pi-rpc-bench-tree)
set -euo pipefail
tree=${1:-${TMPDIR:-/tmp}/pi-rpc-bench-tree}
mkdir -p "$tree"
cd "$(dirname "$0")/../.."
export GOTOOLCHAIN=local PI_RPC_BENCH_TREE=$tree
go test ./tools/ -run '^$' -bench 'BenchmarkGrep|BenchmarkFind' -benchtime 10x -count 1 | grep -E '^Benchmark'
fd=$(command -v fdfind || command -v fd)
ms() { # mean wall ms of 10 runs of "$@" after one warm-up
	"$@" >/dev/null
	local s e
	s=$(date +%s%N)
	for _ in $(seq 10); do "$@" >/dev/null || true; done
	e=$(date +%s%N)
	echo $(((e - s) / 10000000))
}
rgopts=(--line-number --color=never --hidden)
echo "rg literal:            $(ms rg "${rgopts[@]}" --fixed-strings -- 'connection refused' "$tree") ms"
echo "rg literal ignorecase: $(ms rg "${rgopts[@]}" --fixed-strings --ignore-case -- 'CONNECTION REFUSED' "$tree") ms"
echo "rg alternation:        $(ms rg "${rgopts[@]}" -- 'refused|panicked|deadline' "$tree") ms"
echo "fd *.go:               $(ms "$fd" --glob --color=never --hidden -- '*.go' "$tree") ms"
echo "fd sub1*/*.md:         $(ms "$fd" --glob --color=never --hidden --full-path -- '**/sub1*/*.md' "$tree") ms"
