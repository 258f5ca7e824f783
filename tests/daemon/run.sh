#!/usr/bin/env bash
# CTest driver of the daemon's end-to-end test: runs daemon.test.mjs (Node, @grpc/grpc-js) against the
# cuzk-daemon binary. Exits 77 (skipped) when node or the npm packages are missing, unless
# CUZK_REQUIRE_ORACLE=1, when that is a failure. Install the packages with: (cd tests/daemon && npm ci)
#   run.sh DAEMON_BINARY PROTO_DIR
set -u
here="$(cd "$(dirname "$0")" && pwd)"
if [ $# -ne 2 ]; then
  echo "usage: $0 DAEMON_BINARY PROTO_DIR" >&2
  exit 2
fi
missing=""
command -v node >/dev/null 2>&1 || missing="node"
if [ -z "$missing" ]; then
  for p in @grpc/grpc-js @grpc/proto-loader; do
    [ -f "$here/node_modules/$p/package.json" ] || missing="$missing $here/node_modules/$p"
  done
fi
if [ -n "$missing" ]; then
  if [ "${CUZK_REQUIRE_ORACLE:-0}" = "1" ]; then
    echo "daemon test: missing $missing and CUZK_REQUIRE_ORACLE=1 (run: cd tests/daemon && npm ci)" >&2
    exit 1
  fi
  echo "daemon test: skipped, missing $missing (run: cd tests/daemon && npm ci)"
  exit 77
fi
exec node "$here/daemon.test.mjs" "$1" "$2"
