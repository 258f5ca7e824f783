#!/usr/bin/env bash
# Device check of the GPU memory cap (issue 22, parts 1 and 2), on the H200 machine, in under 9 minutes:
#   scripts/cap-device.sh            (logs under $OUT, else build-cap/logs)
# 1. Builds (Release, sm_90, -j16) cuzk-bench and the GPU tests; runs test_gpu_mem, _plan, _tune.
# 2. cuzk-bench batch --circuit porep:32GiB -n 2 -j 2 --partition-workers 3 --gpu-memory-limit 24G (~110 s), the
#    same with --abc host (1.767-1.811 s a partition against the default's 1.782-1.790 in the eighteenth session),
#    then -n 2 --gpu-memory-limit 16G --abc host (~120 s), when the time allows. Before them, the 24 GiB batch again
#    with CUZK_GPU_TRACE (its summaries: the bus's and each stream's busy time a partition). No CUZK_GPU_PROFILE: it
#    synchronizes after every MSM round and slows what it measures (run one batch with it for the plan's and
#    partitions' lines).
# 3. The other GPU tests (test_gpu_prove first) in the time left (the whole script stays under ~9.5 minutes).
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build-cap
LOGDIR=${OUT:-$BUILD/logs}
mkdir -p "$LOGDIR"
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
elapsed() { echo $(($(date +%s) - T0)); }
summary=()

nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv,noheader 2>&1 | tee "$LOGDIR/nvidia-smi.txt"


tests=$(cd "$ROOT/tests/gpu" && ls test_gpu_*.c | sed 's/\.c$//' | tr '\n' ' ')
{ cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCUZK_WERROR=OFF &&
    make -C "$BUILD" -j16 cuzk-bench $tests; } >"$LOGDIR/build.log" 2>&1 || {
    echo "BUILD FAILED at $(elapsed) s"; grep -E "error" "$LOGDIR/build.log" | head -20; tail -20 "$LOGDIR/build.log"; exit 1; }
summary+=("build: $(elapsed) s")

run_test() { # name timeout
    local name=$1 to=$2 t0=$(date +%s)
    timeout "$to" "$BUILD/tests/$name" >"$LOGDIR/$name.log" 2>&1
    local rc=$? r
    case $rc in 0) r=PASS ;; 77) r=SKIP ;; *) r="FAIL(rc=$rc)"; tail -15 "$LOGDIR/$name.log" ;; esac
    summary+=("$name $r $(($(date +%s) - t0)) s")
}
# The cap's own tests first, then the two benchmarks, then the other GPU tests while the time allows.
for name in test_gpu_mem test_gpu_plan test_gpu_tune; do run_test $name 100; done
grep -E "seam:|peak|2\^" "$LOGDIR/test_gpu_mem.log" | sed 's/^/  mem: /'

bench() { # name limit timeout proofs extra-args [env...]
    local name=$1 lim=$2 to=$3 n=$4 extra=$5
    shift 5
    local t0=$(date +%s)
    env "$@" timeout "$to" "$BUILD/cuzk-bench" batch --circuit porep:32GiB -n "$n" -j 2 --partition-workers 3 \
        --gpu-memory-limit "$lim" $extra >"$LOGDIR/$name.log" 2>&1
    local rc=$?
    summary+=("$name: rc=$rc in $(($(date +%s) - t0)) s (timeout $to s)")
    grep -E "gpu plan:" "$LOGDIR/$name.log" | sort | uniq -c | head -8 | sed "s/^/  $name: /"
    grep -vE "^gpu (msm|ntt|batch|aff|h |g2)" "$LOGDIR/$name.log" | grep -iE "^steady|s/proof|proofs|error|fail|partition|busy|peak|throughput" | tail -14 | sed "s/^/  $name: /"
}
bench batch-24G 24G 140 2 ""
# The same with the trace (events only, no syncs): how busy the bus and each stream are in the MSM stage.
left=$((540 - $(elapsed)))
if [ $left -gt 120 ]; then
    rm -f "$LOGDIR/24G.trace"
    bench batch-24G-trace 24G $((left > 140 ? 140 : left)) 2 "" CUZK_GPU_TRACE="$LOGDIR/24G.trace"
    grep summary "$LOGDIR/24G.trace" | tail -12 | sed 's/^/  trace: /'
fi
left=$((540 - $(elapsed)))
[ $left -gt 120 ] && bench batch-24G-abc-host 24G $((left > 140 ? 140 : left)) 2 "--abc host"
# 16 GiB: a, b, c on the device (the default) cannot fit beside the matrices (the planned error, test_gpu_mem);
# from the host the H step keeps three vectors.
left=$((540 - $(elapsed)))
[ $left -gt 130 ] && bench batch-16G-abc-host 16G $((left > 150 ? 150 : left)) 2 "--abc host"

for name in test_gpu_prove test_gpu_abc test_gpu_ntt test_gpu_g2 $(echo $tests | tr ' ' '\n' | grep -v '^test_gpu_\(mem\|plan\|tune\|prove\|abc\|ntt\|g2\)$'); do
    left=$((550 - $(elapsed)))
    if [ $left -lt 10 ]; then summary+=("$name NOT RUN (time)"); continue; fi
    run_test $name $left
done

echo
echo "== cap-device summary ($(elapsed) s) =="
for s in "${summary[@]}"; do echo "  $s"; done
