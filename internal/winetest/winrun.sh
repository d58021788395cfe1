#!/usr/bin/env bash
# The "binary" e2e/windows_test.go gives the e2e harness: runs $PI_RPC_WINE_EXE (pi-rpc.exe)
# under Wine in $WINEPREFIX, with the arguments that are absolute Unix paths (--cwd,
# --session-dir, ...) and PI_RPC_HOME turned into the Windows paths Wine maps them to
# (/tmp/x is Z:\tmp\x), as a Windows editor would pass them. stdin, stdout and stderr are the
# harness's pipes, unchanged.
set -euo pipefail
: "${WINE:?}" "${WINEPREFIX:?}" "${PI_RPC_WINE_EXE:?}"
win() { printf 'Z:%s' "${1//\//\\}"; }
args=()
for a in "$@"; do
	case $a in
	/*) args+=("$(win "$a")") ;;
	*) args+=("$a") ;;
	esac
done
if [ -n "${PI_RPC_HOME:-}" ]; then PI_RPC_HOME=$(win "$PI_RPC_HOME"); fi
export PI_RPC_HOME WINEPREFIX WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
exec "$WINE" "$PI_RPC_WINE_EXE" "${args[@]}"
