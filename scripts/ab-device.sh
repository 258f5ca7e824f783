#!/usr/bin/env bash
# A/B of gpu_tune switches on one binary, on the H200 machine, in under 9.5 minutes: builds cuzk-bench (Release,
# sm_90), then runs each batch under setting A and setting B alternately while the time allows, and prints each run's
# steady line (cuzk-bench batch: s between prove_start ends, the start and the drain left out).
#   scripts/ab-device.sh 'ENV_A' 'ENV_B' 'BATCH ARGS' ['BATCH ARGS' ...]
#   e.g. scripts/ab-device.sh 'CUZK_GPU_TURN_SPLIT=1' 'CUZK_GPU_TURN_SPLIT=0' \
#            '--circuit snap:32GiB -n 2 -j 2' '--circuit porep:32GiB -n 2 -j 2 --partition-workers 3'
# ENV_A / ENV_B: space-separated VAR=VALUE pairs ('' for the defaults). Each run is cut at 150 s and none starts
# after 450 s. Logs under $OUT (else build-ab/logs).
set -u -o pipefail
[ $# -ge 3 ] || { echo "usage: $0 'ENV_A' 'ENV_B' 'BATCH ARGS' ['BATCH ARGS' ...]"; exit 2; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build-ab
LOGDIR=${OUT:-$BUILD/logs}
mkdir -p "$LOGDIR"
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
elapsed() { echo $(($(date +%s) - T0)); }
A=$1 B=$2
shift 2
{ cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCUZK_GRPC=OFF \
    -DCUZK_WERROR=OFF && make -C "$BUILD" -j16 cuzk-bench; } >"$LOGDIR/build.log" 2>&1 || {
    echo "BUILD FAILED"; grep -E "error" "$LOGDIR/build.log" | head -20; exit 1; }
echo "build: $(elapsed) s"
summary=()
run=0
for round in 1 2; do
    for args in "$@"; do
        for side in A B; do
            [ "$(elapsed)" -gt 450 ] && break 3
            env_set=$A
            [ $side = B ] && env_set=$B
            run=$((run + 1))
            log="$LOGDIR/run$run-$side.log"
            # shellcheck disable=SC2086 # the settings and arguments are word lists
            env $env_set timeout 150 "$BUILD/cuzk-bench" batch $args >"$log" 2>&1
            rc=$?
            line=$(grep -E "^steady" "$log" | head -1)
            summary+=("round $round, $side ($env_set) $args: rc=$rc; ${line:-no steady line}")
        done
    done
done
echo "== ab-device summary ($(elapsed) s): A = '$A', B = '$B'"
for s in "${summary[@]}"; do echo "  $s"; done
