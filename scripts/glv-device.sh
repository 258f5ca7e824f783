#!/usr/bin/env bash
# Device A/B of GLV for the H MSM (the default; CUZK_GPU_GLV=0 turns it off), on the H200 machine, in under 9.5
# minutes:
#   scripts/glv-device.sh            (logs under $OUT, else build-glv/logs)
# 1. Builds (Release, sm_90, -j16) cuzk-bench, test_gpu_msm and test_gpu_prove; runs test_gpu_msm (test_msm_glv
#    among its checks) and test_gpu_prove with GLV and with CUZK_GPU_GLV=0.
# 2. cuzk-bench gpu-msm at 2^27, plain and --glv (device time, median of 5, each checked against the plain XYZZ MSM).
# 3. cuzk-bench batch --circuit snap:32GiB -n 3 -j 2 with GLV, then without (same call), then
#    porep:32GiB -n 2 -j 2 --partition-workers 3 the same two ways, while the time allows. No CUZK_GPU_PROFILE.
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build-glv
LOGDIR=${OUT:-$BUILD/logs}
mkdir -p "$LOGDIR"
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
END=560
elapsed() { echo $(($(date +%s) - T0)); }
summary=()

{ cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCUZK_GRPC=OFF \
    -DCUZK_WERROR=OFF && make -C "$BUILD" -j16 cuzk-bench test_gpu_msm test_gpu_prove; } >"$LOGDIR/build.log" 2>&1 || {
    echo "BUILD FAILED at $(elapsed) s"; grep -E "error" "$LOGDIR/build.log" | head -20; exit 1; }
summary+=("build: $(elapsed) s")

run() { # name timeout command... : its rc and last line in the summary
    local name=$1 to=$2 t0=$(date +%s)
    shift 2
    local left=$((END - $(elapsed)))
    if [ "$left" -lt 30 ]; then summary+=("$name NOT RUN (time)"); return; fi
    [ "$to" -gt "$left" ] && to=$left
    timeout "$to" "$@" >"$LOGDIR/$name.log" 2>&1
    summary+=("$name: rc=$? in $(($(date +%s) - t0)) s: $(grep -E 'checks|^steady' "$LOGDIR/$name.log" | tail -1)")
}
run test_gpu_msm 90 "$BUILD/tests/test_gpu_msm"
run test_gpu_prove 60 "$BUILD/tests/test_gpu_prove"
run test_gpu_prove-glv0 60 env CUZK_GPU_GLV=0 "$BUILD/tests/test_gpu_prove"
for v in "" --glv; do
    run "gpu-msm-27$v" 60 "$BUILD/cuzk-bench" gpu-msm --from 27 --log 27 --runs 5 --device-only --check $v
    grep -A1 "^points" "$LOGDIR/gpu-msm-27$v.log" | tail -1 | sed "s/^/  gpu-msm$v: /"
done
S=(--circuit snap:32GiB -n 3 -j 2)
P=(--circuit porep:32GiB -n 2 -j 2 --partition-workers 3)
run snap 115 "$BUILD/cuzk-bench" batch "${S[@]}"
run snap-glv0 115 env CUZK_GPU_GLV=0 "$BUILD/cuzk-bench" batch "${S[@]}"
run porep 110 "$BUILD/cuzk-bench" batch "${P[@]}"
run porep-glv0 110 env CUZK_GPU_GLV=0 "$BUILD/cuzk-bench" batch "${P[@]}"

echo
echo "== glv-device summary ($(elapsed) s) =="
for s in "${summary[@]}"; do echo "  $s"; done
