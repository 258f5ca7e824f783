#!/usr/bin/env bash
# WindowPoSt (and WinningPoSt with CUZK_SLOW_TESTS=1) through cuzk-daemon end to end: two sealed 2 KiB sectors
# (cuzk porep seal --sector-dir), their vanilla proofs (cuzk post vanilla), parameters from cuzk setup in the
# daemon's param_cache, PreloadSRS, Prove with the fields Curio sends, the proof checked with cuzk verify-post.
#   post.sh DAEMON_BINARY PROTO_DIR CUZK_BINARY
# Without node and the npm packages it exits 77 (skipped).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
[ $# -eq 3 ] || { echo "usage: $0 DAEMON_BINARY PROTO_DIR CUZK_BINARY" >&2; exit 2; }
daemon_bin=$1
proto=$2
cuzk=$3
command -v node >/dev/null 2>&1 && [ -f "$here/node_modules/@grpc/grpc-js/package.json" ] ||
  { echo "daemon post test: skipped, no node or npm packages (cd tests/daemon && npm ci)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-post.XXXXXX")
trap 'rm -rf "$work"' EXIT
r=0102030405060708091011121314151617181920212223242526272829303132
run() { "$@" >"$work/log" 2>&1 || { echo "FAIL: $*" >&2; cat "$work/log" >&2; exit 1; }; }
run "$cuzk" setup --circuit wpost:2KiB --params "$work/wpost-2k.params" --vk "$work/wpost-2k.vk" --backend cpu
run "$cuzk" porep seal --sector-size 2KiB --out "$work/c1.json" --seed 7 --sector-dir "$work/s1"
run "$cuzk" porep seal --sector-size 2KiB --out "$work/c2.json" --seed 8 --sector-dir "$work/s2"
run "$cuzk" post vanilla --sector-dir "$work/s1" --sector-dir "$work/s2" --registered-proof 10 --randomness "$r" \
  --out "$work/w.json" --info "$work/w-info.json"
if [ "${CUZK_SLOW_TESTS:-0}" = 1 ]; then
  run "$cuzk" setup --circuit winning:2KiB --params "$work/winning-2k.params" --vk "$work/winning-2k.vk" --backend cpu
  run "$cuzk" post vanilla --sector-dir "$work/s1" --registered-proof 0 --randomness "$r" --out "$work/g.json" \
    --info "$work/g-info.json"
fi
exec node "$here/daemon.test.mjs" "$daemon_bin" "$proto" --post "$work" "$work" "$cuzk"
