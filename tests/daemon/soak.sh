#!/usr/bin/env bash
# The daemon's soak (soak.mjs): N jobs from several concurrent clients with faults, a SIGKILL and a restart,
# under a small memory budget.
#   soak.sh DAEMON_BINARY PROTO_DIR CUZK_BINARY [JOBS|-] [sanitized]
# JOBS defaults to CUZK_SOAK_JOBS or 150 (the CI run); 1000 for the long run.
# "sanitized" (an ASan build): 80 jobs by default, the RSS and latency bounds reported only, and the daemon's
# exit status at SIGTERM (LeakSanitizer) checked.
# CUZK_SOAK_SEED repeats a run (the seed is printed). The mix: the synthetic kinds, and WindowPoSt and WinningPoSt
# of sealed 2 KiB sectors (their parameters from `cuzk setup` into a temporary directory, a few seconds; the vanilla
# proofs made once here by `cuzk post vanilla`; CUZK_SOAK_POST=0 leaves them out). PoRep C2 of 2 KiB C1s joins when
# CUZK_SOAK_POREP_PARAMS_DIR (not CI's CUZK_POREP_PARAMS_DIR: on 2 cores one 2 KiB C2 takes 20-40 s, which the CI
# run cannot afford) holds porep-2k.params and porep-2k.vk, and SnapDeals of a 2 KiB sector (`cuzk snap encode`)
# when CUZK_SOAK_SNAP_PARAMS_DIR holds snap-2k.params and snap-2k.vk (`cuzk setup --circuit snap:2KiB`: 1.7 M
# constraints, minutes on 2 cores; a proof takes about as long as PoRep's). CUZK_SOAK_WEIGHTS (e.g.
# "porep=2,wpost=1,winning=0.3,snap=0.5") sets the real kinds' shares against the synthetic kinds' 10.
# CUZK_SOAK_RSS_LOG=FILE logs the daemon's RSS, anonymous memory and threads every second.
# Without node and the npm packages it exits 77 (skipped) unless CUZK_REQUIRE_ORACLE=1.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
[ $# -ge 3 ] || { echo "usage: $0 DAEMON_BINARY PROTO_DIR CUZK_BINARY [JOBS|-] [sanitized]" >&2; exit 2; }
daemon_bin=$1
proto=$2
cuzk=$3
mode=${5:-}
jobs=${4:--}
if [ "$jobs" = "-" ]; then
  jobs=${CUZK_SOAK_JOBS:-150}
  [ "$mode" = "sanitized" ] && [ -z "${CUZK_SOAK_JOBS:-}" ] && jobs=80
fi
if ! command -v node >/dev/null 2>&1 || [ ! -f "$here/node_modules/@grpc/grpc-js/package.json" ]; then
  if [ "${CUZK_REQUIRE_ORACLE:-0}" = "1" ]; then
    echo "daemon soak: no node or npm packages and CUZK_REQUIRE_ORACLE=1 (cd tests/daemon && npm ci)" >&2
    exit 1
  fi
  echo "daemon soak: skipped, no node or npm packages (cd tests/daemon && npm ci)"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-soak-data.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/params" "$work/data"
run() { "$@" >"$work/log" 2>&1 || { echo "FAIL: $*" >&2; cat "$work/log" >&2; exit 1; }; }
porep=${CUZK_SOAK_POREP_PARAMS_DIR:-}
snap=${CUZK_SOAK_SNAP_PARAMS_DIR:-}
post=${CUZK_SOAK_POST:-1}
if [ -n "$porep" ]; then
  [ -f "$porep/porep-2k.params" ] && [ -f "$porep/porep-2k.vk" ] ||
    { echo "FAIL: CUZK_SOAK_POREP_PARAMS_DIR=$porep has no porep-2k.params and porep-2k.vk" >&2; exit 1; }
  ln -s "$(cd "$porep" && pwd)/porep-2k.params" "$(cd "$porep" && pwd)/porep-2k.vk" "$work/params/"
fi
if [ -n "$snap" ]; then
  [ -f "$snap/snap-2k.params" ] && [ -f "$snap/snap-2k.vk" ] ||
    { echo "FAIL: CUZK_SOAK_SNAP_PARAMS_DIR=$snap has no snap-2k.params and snap-2k.vk" >&2; exit 1; }
  ln -s "$(cd "$snap" && pwd)/snap-2k.params" "$(cd "$snap" && pwd)/snap-2k.vk" "$work/params/"
fi
# Three sealed 2 KiB sectors: their C1s for PoRep, the first two for WindowPoSt, the first for WinningPoSt and
# SnapDeals.
t0=$SECONDS
if [ -n "$porep" ] || [ -n "$snap" ] || [ "$post" = 1 ]; then
  for s in 1 2 3; do
    run "$cuzk" porep seal --sector-size 2KiB --out "$work/data/c1-$s.json" --seed "$s" --sector-dir "$work/s$s"
  done
fi
r=0102030405060708091011121314151617181920212223242526272829303132
if [ "$post" = 1 ]; then
  run "$cuzk" setup --circuit wpost:2KiB --params "$work/params/wpost-2k.params" --vk "$work/params/wpost-2k.vk" --backend cpu
  run "$cuzk" setup --circuit winning:2KiB --params "$work/params/winning-2k.params" --vk "$work/params/winning-2k.vk" --backend cpu
  run "$cuzk" post vanilla --sector-dir "$work/s1" --sector-dir "$work/s2" --registered-proof 10 --randomness "$r" \
    --out "$work/data/w.json" --info "$work/data/w-info.json"
  run "$cuzk" post vanilla --sector-dir "$work/s1" --registered-proof 0 --randomness "$r" --out "$work/data/g.json" \
    --info "$work/data/g-info.json"
fi
[ -n "$snap" ] && run "$cuzk" snap encode --sector-size 2KiB --out "$work/data/snap" --sector-dir "$work/s1" --seed 5
[ -z "$porep" ] && rm -f "$work"/data/c1-*.json
echo "daemon soak: inputs and parameters made in $((SECONDS - t0)) s"
args=(--daemon "$daemon_bin" --proto "$proto" --jobs "$jobs" --clients "${CUZK_SOAK_CLIENTS:-4}"
  --params "$work/params" --data "$work/data" --cuzk "$cuzk")
[ -n "${CUZK_SOAK_SEED:-}" ] && args+=(--seed "$CUZK_SOAK_SEED")
[ -n "${CUZK_SOAK_WEIGHTS:-}" ] && args+=(--weights "$CUZK_SOAK_WEIGHTS")
[ -n "${CUZK_SOAK_RSS_LOG:-}" ] && args+=(--rss-log "$CUZK_SOAK_RSS_LOG")
[ "$mode" = "sanitized" ] && args+=(--sanitized)
# Long runs get more time; the driver stops by itself at the limit either way.
limit=$((120 + jobs * 2))
# PoRep and SnapDeals proofs take 20-40 s each here, one at a time under the budget.
[ -n "$porep$snap" ] && limit=$((limit + 600 + jobs * 10))
args+=(--time-limit "${CUZK_SOAK_TIME_LIMIT:-$limit}")
# The budget: the synthetic kinds' partitions wait for 4 MiB of working sets; each real kind adds its parameter
# set and one partition's working set (witness and a, b, c over the evaluation domain), so that every set in
# memory at once plus the largest partition still fits: WindowPoSt + WinningPoSt 2 KiB 58.1 MiB of parameters
# and 14.8 MiB for a WinningPoSt partition; PoRep 2 KiB 1063 MiB and ~470 MiB; SnapDeals 2 KiB 625 MiB and
# ~245 MiB. With less, the engine's best partition can wait for room that only the parameter sets held by the
# jobs queued behind it could give: the engine then fails that job (CUZK_ERR_NOMEM, after 2 s with nothing in
# flight), which the soak would count as an unexpected failure (docs/DAEMON.md, Tests).
budget=4
[ "$post" = 1 ] && budget=$((budget + 76))
[ -n "$porep" ] && budget=$((budget + 1600))
[ -n "$snap" ] && budget=$((budget + 900))
args+=(--budget "${CUZK_SOAK_BUDGET:-${budget}MiB}")
node "$here/soak.mjs" "${args[@]}"
