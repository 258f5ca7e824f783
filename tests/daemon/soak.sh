#!/usr/bin/env bash
# The daemon's soak (soak.mjs): N jobs from several concurrent clients with faults, a SIGKILL and a restart,
# under a small memory budget.
#   soak.sh DAEMON_BINARY PROTO_DIR CUZK_BINARY [JOBS|-] [sanitized]
# JOBS defaults to CUZK_SOAK_JOBS or 150 (the CI run, under a minute on 2 cores); 1000 for the long run.
# "sanitized" (an ASan build): 80 jobs by default, the RSS and latency bounds reported only, and the daemon's
# exit status at SIGTERM (LeakSanitizer) checked.
# CUZK_SOAK_SEED repeats a run (the seed is printed). PoRep C2 of 2 KiB C1s joins the mix when
# CUZK_SOAK_POREP_PARAMS_DIR (not CI's CUZK_POREP_PARAMS_DIR: on 2 cores one 2 KiB C2 takes 20-40 s, which the
# CI run cannot afford) holds porep-2k.params and porep-2k.vk (their proofs are then also checked with
# `cuzk verify --porep`; CUZK_SOAK_POREP_WEIGHT, default 0.1, is its share against the synthetic kinds' 10);
# without it the mix is the synthetic kinds. Without node and the npm packages it exits
# 77 (skipped) unless CUZK_REQUIRE_ORACLE=1.
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
args=(--daemon "$daemon_bin" --proto "$proto" --jobs "$jobs" --clients "${CUZK_SOAK_CLIENTS:-4}")
[ -n "${CUZK_SOAK_SEED:-}" ] && args+=(--seed "$CUZK_SOAK_SEED")
[ "$mode" = "sanitized" ] && args+=(--sanitized)
# Long runs get more time; the driver stops by itself at the limit either way.
limit=$((120 + jobs * 2))
# PoRep proofs take 20-40 s each here, one at a time under the budget.
[ -n "${CUZK_SOAK_POREP_PARAMS_DIR:-}" ] && limit=$((limit + 600 + jobs * 10))
args+=(--time-limit "${CUZK_SOAK_TIME_LIMIT:-$limit}")
work=""
params=${CUZK_SOAK_POREP_PARAMS_DIR:-}
if [ -n "$params" ]; then
  [ -f "$params/porep-2k.params" ] && [ -f "$params/porep-2k.vk" ] ||
    { echo "FAIL: CUZK_SOAK_POREP_PARAMS_DIR=$params has no porep-2k.params and porep-2k.vk" >&2; exit 1; }
  work=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-soak-c1.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  for s in 1 2 3; do
    "$cuzk" porep seal --sector-size 2KiB --out "$work/c1-$s.json" --seed "$s" >/dev/null ||
      { echo "FAIL: cuzk porep seal --seed $s" >&2; exit 1; }
  done
  # The 2 KiB parameters are ~1.1 GB in memory and one 2 KiB partition's working set ~0.35 GB: the budget holds
  # them and little more, so partitions wait for it.
  args+=(--porep "$params" "$work" --cuzk "$cuzk" --budget "${CUZK_SOAK_BUDGET:-1600MiB}"
    --porep-weight "${CUZK_SOAK_POREP_WEIGHT:-0.1}")
else
  args+=(--budget "${CUZK_SOAK_BUDGET:-4MiB}")
fi
node "$here/soak.mjs" "${args[@]}"
