#!/usr/bin/env bash
# Builds cuzk for the GPU (Release, sm_90), runs the GPU tests and the GPU benchmarks (MSM, B_G2, Fp products),
# and prints a short table at the end. Run it on a machine with an NVIDIA GPU and nvcc:
#   scripts/gpu-check.sh [build-dir] [max log2 size, default 26]
# Logs go to $OUT (when set, e.g. on the lent device machine) or to the build directory.
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build-gpu}
LOG=${2:-26}
LOGDIR=${OUT:-$BUILD}
JOBS=$(nproc 2>/dev/null || echo 2)
export PATH=$PATH:/usr/local/cuda/bin

nvidia-smi --query-gpu=name,driver_version,clocks.sm,memory.used --format=csv,noheader 2>/dev/null || echo "nvidia-smi: not available"
if [ ! -x "$BUILD/tests/test_gpu_msm" ] || [ -z "${CUZK_NO_BUILD:-}" ]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >"$LOGDIR/cmake.log" 2>&1 &&
        make -C "$BUILD" -j"$JOBS" >"$LOGDIR/build.log" 2>&1 || {
        echo "BUILD FAILED (see $LOGDIR/build.log)"
        tail -20 "$LOGDIR/build.log"
        exit 1
    }
fi

status=0
tests=()
run_test() { # label log-name command... : runs it, records PASS / SKIP / FAIL under label
    local label=$1 log=$LOGDIR/$2.log rc
    shift 2
    "$@" >"$log" 2>&1
    rc=$?
    case $rc in
    0) tests+=("$label PASS") ;;
    77) tests+=("$label SKIP") ;;
    *) tests+=("$label FAIL(rc=$rc)"); status=1; tail -20 "$log" ;;
    esac
}

for t in "$BUILD"/tests/test_gpu_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    run_test "$name" "$name" "$t"
done

# The prover's turn in one stage (CUZK_GPU_TURN_SPLIT=0).
[ -x "$BUILD/tests/test_gpu_prove" ] &&
    run_test "test_gpu_prove (CUZK_GPU_TURN_SPLIT=0)" test_gpu_prove-split0 \
        env CUZK_GPU_TURN_SPLIT=0 "$BUILD/tests/test_gpu_prove"
# The H MSM without GLV (CUZK_GPU_GLV=0: resident H alone, as under a cap).
[ -x "$BUILD/tests/test_gpu_prove" ] &&
    run_test "test_gpu_prove (CUZK_GPU_GLV=0)" test_gpu_prove-glv0 env CUZK_GPU_GLV=0 "$BUILD/tests/test_gpu_prove"

bench="$BUILD/cuzk-bench"
if "$bench" gpu-ntt --help >/dev/null 2>&1; then
    echo "== gpu-ntt 2^27"
    "$bench" gpu-ntt --log 27 --reps 7 2>&1 | tee "$LOGDIR/gpu-ntt.log" || status=1
fi
if "$bench" gpu-msm --help >/dev/null 2>&1; then
    "$bench" gpu-msm --from 16 --log "$LOG" --runs 5 2>&1 | tee "$LOGDIR/gpu-msm.log" || status=1
    echo "== gpu-msm --glv 2^$LOG"
    "$bench" gpu-msm --from "$LOG" --log "$LOG" --runs 5 --glv --check --device-only 2>&1 |
        tee "$LOGDIR/gpu-msm-glv.log" || status=1
else
    echo "cuzk-bench has no gpu-msm subcommand (not registered in tools/cuzk-bench/main.c)"
fi

if "$bench" gpu-g2 --help >/dev/null 2>&1; then
    "$bench" gpu-g2 --runs 5 --check 2>&1 | tee "$LOGDIR/gpu-g2.log" || status=1
else
    echo "cuzk-bench has no gpu-g2 subcommand (not registered in tools/cuzk-bench/main.c)"
fi

if "$bench" gpu-fp --help >/dev/null 2>&1; then
    "$bench" gpu-fp --runs 5 2>&1 | tee "$LOGDIR/gpu-fp.log" || status=1
else
    echo "cuzk-bench has no gpu-fp subcommand (not registered in tools/cuzk-bench/main.c)"
fi

echo
echo "== gpu-check summary =="
for t in "${tests[@]}"; do echo "  $t"; done
[ -f "$LOGDIR/gpu-msm.log" ] && sed -n '/^points/,$p' "$LOGDIR/gpu-msm.log" | sed 's/^/  /'
[ -f "$LOGDIR/gpu-g2.log" ] && sed -n '/^variant/,$p' "$LOGDIR/gpu-g2.log" | sed 's/^/  /'
[ -f "$LOGDIR/gpu-fp.log" ] && sed -n '/^arith/,$p' "$LOGDIR/gpu-fp.log" | sed 's/^/  /'
exit $status
