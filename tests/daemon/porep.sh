#!/usr/bin/env bash
# PoRep C2 through cuzk-daemon end to end: 2 KiB C1 outputs sealed by `cuzk porep seal` (raw and enveloped),
# proved by the daemon (Prove, Submit/Await, Cancel) and checked with `cuzk verify --porep`.
#   porep.sh DAEMON_BINARY PROTO_DIR CUZK_BINARY
# It needs the 2 KiB PoRep parameters, porep-2k.params and porep-2k.vk: from CUZK_POREP_PARAMS_DIR, or made
# here by `cuzk setup --circuit porep:2KiB` when CUZK_SLOW_TESTS=1 (minutes: 2.7 million constraints).
# Otherwise, or without node and the npm packages, it exits 77 (skipped).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
[ $# -eq 3 ] || { echo "usage: $0 DAEMON_BINARY PROTO_DIR CUZK_BINARY" >&2; exit 2; }
daemon_bin=$1
proto=$2
cuzk=$3
command -v node >/dev/null 2>&1 && [ -f "$here/node_modules/@grpc/grpc-js/package.json" ] ||
  { echo "daemon porep test: skipped, no node or npm packages (cd tests/daemon && npm ci)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-porep.XXXXXX")
trap 'rm -rf "$work"' EXIT
params=${CUZK_POREP_PARAMS_DIR:-}
if [ -z "$params" ]; then
  if [ "${CUZK_SLOW_TESTS:-0}" != "1" ]; then
    echo "daemon porep test: skipped (set CUZK_POREP_PARAMS_DIR to a directory with porep-2k.params/.vk, or" \
      "CUZK_SLOW_TESTS=1 to make them)"
    exit 77
  fi
  params="$work"
  "$cuzk" setup --circuit porep:2KiB --params "$params/porep-2k.params" --vk "$params/porep-2k.vk" ||
    { echo "FAIL: cuzk setup --circuit porep:2KiB" >&2; exit 1; }
fi
[ -f "$params/porep-2k.params" ] && [ -f "$params/porep-2k.vk" ] ||
  { echo "FAIL: $params has no porep-2k.params and porep-2k.vk" >&2; exit 1; }
# The daemon runs with srs.mapped, which writes its cache beside the .params: links in the work directory keep
# a given CUZK_POREP_PARAMS_DIR untouched.
if [ "$params" != "$work" ]; then
  mkdir -p "$work/params" && ln -s "$(cd "$params" && pwd)"/porep-2k.{params,vk} "$work/params/" &&
    params="$work/params" || { echo "FAIL: cannot link the parameters into $work" >&2; exit 1; }
fi
"$cuzk" porep seal --sector-size 2KiB --out "$work/c1.json" --seed 7 &&
  "$cuzk" porep seal --sector-size 2KiB --out "$work/c1-envelope.json" --seed 8 --envelope ||
  { echo "FAIL: cuzk porep seal" >&2; exit 1; }
exec node "$here/daemon.test.mjs" "$daemon_bin" "$proto" --porep "$params" "$work" "$cuzk"
