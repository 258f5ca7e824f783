#!/usr/bin/env bash
# Device check of the GPU memory cap (issue 22), on the H200 machine, in under 9.8 minutes:
#   scripts/cap-device.sh            (logs under $OUT, else build-cap/logs)
#   CAP_DEVICE_16G=1 scripts/cap-device.sh   (the 16 GiB pair instead of the 24 GiB ones)
# 1. Builds (Release, sm_90, -j16) cuzk-bench and the GPU tests; runs test_gpu_mem, _plan, _tune.
# 2. The A/B of the nineteenth session's four MSM-stage switches (tune.h: CUZK_GPU_QUERIES_ABOVE, _H_FIRST,
#    _WITNESS_PACK=2, _B2_OVERLAP; off by default), in one call: cuzk-bench batch --circuit porep:32GiB -n 2 -j 2
#    --partition-workers 3 --gpu-memory-limit 24G (~100-110 s each, setup included), the default and the four on,
#    twice each in turn (twentieth session: 1.783/1.789 against 1.738/1.769 s a partition). With CAP_DEVICE_16G=1:
#    the 16 GiB cap (--abc host) without and with the three that act there (twentieth session, with all four on
#    by default: 1.997 s a partition off against 2.066 on, so they stay off). No CUZK_GPU_PROFILE: it synchronizes
#    after every MSM round and slows what it measures; CUZK_GPU_TRACE=FILE gives each partition's device spans
#    without syncs (GPU-NOTES).
# 3. The other GPU tests (test_gpu_prove first) in the time left (the whole script stays under ~9.8 minutes: give
#    the device call 600 s).
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
# The cap's own tests first, then the benchmarks, then the other GPU tests while the time allows.
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
ON4="CUZK_GPU_QUERIES_ABOVE=1 CUZK_GPU_H_FIRST=1 CUZK_GPU_WITNESS_PACK=2 CUZK_GPU_B2_OVERLAP=1"
if [ "${CAP_DEVICE_16G:-0}" = 1 ]; then
    THREE="CUZK_GPU_QUERIES_ABOVE=1 CUZK_GPU_H_FIRST=1 CUZK_GPU_B2_OVERLAP=1"
    runs=("16G-default 16G --abc host" "16G-three 16G --abc host $THREE")
else
    runs=("24G-default 24G" "24G-four 24G $ON4" "24G-default-2 24G" "24G-four-2 24G $ON4")
fi
for r in "${runs[@]}"; do
    set -- $r
    name=$1 lim=$2
    shift 2
    extra=""
    if [ "${1:-}" = "--abc" ]; then extra="--abc $2"; shift 2; fi
    left=$((575 - $(elapsed)))
    if [ $left -lt 110 ]; then summary+=("$name NOT RUN (time)"); continue; fi
    bench "$name" "$lim" $((left > 130 ? 130 : left)) 2 "$extra" "$@"
done

for name in test_gpu_prove test_gpu_abc test_gpu_ntt test_gpu_g2 $(echo $tests | tr ' ' '\n' | grep -v '^test_gpu_\(mem\|plan\|tune\|prove\|abc\|ntt\|g2\)$'); do
    left=$((585 - $(elapsed)))
    if [ $left -lt 10 ]; then summary+=("$name NOT RUN (time)"); continue; fi
    run_test $name $left
done

echo
echo "== cap-device summary ($(elapsed) s) =="
for s in "${summary[@]}"; do echo "  $s"; done
