#!/usr/bin/env bash
# A/B of gpu_tune switches (or of two builds), on the H200 machine, in under 9.5 minutes: builds cuzk-bench (Release,
# sm_90), then runs each batch under setting A and setting B alternately while the time allows, and prints each run's
# steady line (cuzk-bench batch: s between prove_start ends, the start and the drain left out).
#   scripts/ab-device.sh 'ENV_A' 'ENV_B' 'BATCH ARGS' ['BATCH ARGS' ...]
#   e.g. scripts/ab-device.sh 'CUZK_GPU_TURN_SPLIT=1' 'CUZK_GPU_TURN_SPLIT=0' \
#            '--circuit snap:32GiB -n 2 -j 2' '--circuit porep:32GiB -n 2 -j 2 --partition-workers 3'
# ENV_A / ENV_B: space-separated VAR=VALUE pairs ('' for the defaults). With one build and settings that act after
# the setup, each BATCH ARGS is one process of alternating rounds on one setup (cuzk-bench batch --rounds, A B B A
# ...: the setup, ~45 s at 32 GiB, paid once), cut when the time is up; else (two builds, or a variable read only at
# setup) each run is a process of its own, cut at 150 s, none starting after 450 s. Logs under $OUT (else
# build-ab/logs).
# Two builds: AB_BIN_A / AB_BIN_B name a cuzk-bench for that side (relative to the repository root), e.g. a carried
# build of an older commit against this tree's; with both set nothing is built on the device (~130 s saved). Build
# them here (Release, -DCMAKE_CUDA_ARCHITECTURES=90 -DCUZK_GRPC=OFF; an older commit through `git worktree add`) and
# carry them: they need only the system's libc and libstdc++.
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
BIN_A=${AB_BIN_A:+$ROOT/$AB_BIN_A} BIN_B=${AB_BIN_B:+$ROOT/$AB_BIN_B}
for bin in ${BIN_A:-} ${BIN_B:-}; do
    chmod +x "$bin" 2>/dev/null # a carried copy may come without its mode
    [ -x "$bin" ] || { echo "not an executable: $bin"; exit 2; }
done
if [ -z "${BIN_A:-}" ] || [ -z "${BIN_B:-}" ]; then
    { cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCUZK_GRPC=OFF \
        -DCUZK_WERROR=OFF && make -C "$BUILD" -j16 cuzk-bench; } >"$LOGDIR/build.log" 2>&1 || {
        echo "BUILD FAILED"; grep -E "error" "$LOGDIR/build.log" | head -20; exit 1; }
    echo "build: $(elapsed) s"
fi
one_build=$([ -z "${BIN_A:-}${BIN_B:-}" ] && echo 1)
BIN_A=${BIN_A:-$BUILD/cuzk-bench} BIN_B=${BIN_B:-$BUILD/cuzk-bench}
summary=()
run=0
# One build: rounds on one setup, when cuzk-bench takes both settings as rounds (it checks them before the setup).
rounds=
if [ -n "$one_build" ]; then
    ra=$(echo "$A" | xargs) rb=$(echo "$B" | xargs)
    ra=${ra:--} rb=${rb:--}
    rounds="$ra;$rb;$rb;$ra;$ra;$rb;$rb;$ra;$ra;$rb;$rb;$ra" order=ABBAABBAABBA
    # A tiny CPU batch takes them, or tells why not (a variable read only at setup: then a process a run).
    if ! "$BIN_A" batch --circuit synthetic:k=8 -n 1 -j 1 --backend cpu --rounds "$rounds" \
        >/dev/null 2>"$LOGDIR/rounds-check.log"; then
        echo "one process a run: $(grep -m1 'batch:' "$LOGDIR/rounds-check.log")"
        rounds=
    fi
fi
if [ -n "$rounds" ]; then
    k=0
    for args in "$@"; do
        k=$((k + 1))
        left=$((540 - $(elapsed)))
        [ $left -gt 60 ] || break
        log="$LOGDIR/rounds$k.log"
        # shellcheck disable=SC2086 # the arguments are a word list
        timeout $((left / ($# - k + 1))) "$BIN_A" batch $args --rounds "$rounds" >"$log" 2>&1
        rc=$?
        while IFS= read -r line; do summary+=("$args: $line"); done < <(
            awk -v order="$order" '/^round /{n++; r=$0; sub(/^round [0-9]+\/[0-9]+: /, "", r)}
                /^steady/{print "round " n ", " substr(order, n, 1) " = " r ": " $0}' "$log")
        summary+=("$args: rc=$rc (124: cut when the time was up)")
    done
    echo "== ab-device summary ($(elapsed) s): A = '$A', B = '$B', rounds on one setup"
    for s in "${summary[@]}"; do echo "  $s"; done
    exit 0
fi
for round in 1 2; do
    for args in "$@"; do
        for side in A B; do
            [ "$(elapsed)" -gt 450 ] && break 3
            env_set=$A bin=$BIN_A
            [ $side = B ] && env_set=$B bin=$BIN_B
            run=$((run + 1))
            log="$LOGDIR/run$run-$side.log"
            # shellcheck disable=SC2086 # the settings and arguments are word lists
            env $env_set timeout 150 "$bin" batch $args >"$log" 2>&1
            rc=$?
            line=$(grep -E "^steady" "$log" | head -1)
            summary+=("round $round, $side (${bin#"$ROOT"/} $env_set) $args: rc=$rc; ${line:-no steady line}")
        done
    done
done
echo "== ab-device summary ($(elapsed) s): A = '$A', B = '$B'"
for s in "${summary[@]}"; do echo "  $s"; done
