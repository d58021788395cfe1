#!/usr/bin/env bash
# go test -exec wrapper of make test-windows: runs a Windows test binary (and its arguments)
# under Wine in the prefix wine.sh prepared. WINE and WINEPREFIX come from make.
set -euo pipefail
: "${WINE:?}" "${WINEPREFIX:?}"
export WINEPREFIX WINEDEBUG=${WINEDEBUG:--all} WINEDLLOVERRIDES="mscoree,mshtml="
exec "$WINE" "$@"
