#!/usr/bin/env bash
# Device check of the one MSM over the point type (issue 21, src/gpu/msm.cu), on the H200 machine, in under 9 minutes:
#   scripts/msm-device.sh BEFORE_TREE        (e.g. .devrun/before, a `git archive main` tree; logs under $OUT)
# 1. Builds BEFORE (cuzk-bench) and AFTER (this tree: cuzk-bench and every test_gpu_*) at once, Release, sm_90,
#    -j8 each, without the daemon.
# 2. AFTER: every test_gpu_* (each bounded).
# 3. BEFORE and AFTER alternately: cuzk-bench gpu-msm --from 24 --log 26 --runs 5; gpu-g2 --runs 5 --check;
#    batch --circuit synthetic:k=27 --stages 3 --cpu-reps 0 --fake-setup; then gpu-msm and gpu-g2 once more each
#    while the time allows. MSM_DEVICE_POREP32=1: instead, batch --circuit porep:32GiB -n 3 -j 2
#    --partition-workers 3 before and after (set MSM_DEVICE_LIMIT=590 for it). MSM_DEVICE_REUSE=1 keeps builds
#    already in build-msm/ (a warm machine).
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] && [ -d "$1" ] || { echo "usage: $0 BEFORE_TREE"; exit 2; }
BEFORE=$(cd "$1" && pwd)
LOGDIR=${OUT:-$ROOT/build-msm/logs}
mkdir -p "$LOGDIR"
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
LIMIT=${MSM_DEVICE_LIMIT:-530} # seconds: every step ends by then
elapsed() { echo $(($(date +%s) - T0)); }
summary=()

nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv,noheader 2>&1 | tee "$LOGDIR/nvidia-smi.txt"
echo "after: $(git -C "$ROOT" log -1 --format='%h %s' 2>/dev/null)" | tee "$LOGDIR/trees.txt"

tests=$(cd "$ROOT/tests/gpu" && ls test_gpu_*.c | sed 's/\.c$//' | tr '\n' ' ')
build() { # tree build-dir log targets...
    local tree=$1 dir=$2 log=$3
    shift 3
    [ -x "$dir/cuzk-bench" ] && [ -n "${MSM_DEVICE_REUSE:-}" ] && return 0
    { cmake -S "$tree" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCUZK_GRPC=OFF \
        -DCUZK_WERROR=OFF && make -C "$dir" -j8 "$@"; } >"$log" 2>&1
}
BB=$ROOT/build-msm/before
BA=$ROOT/build-msm/after
build "$BEFORE" "$BB" "$LOGDIR/build-before.log" cuzk-bench &
pb=$!
build "$ROOT" "$BA" "$LOGDIR/build-after.log" cuzk-bench $tests &
pa=$!
wait $pa
ra=$?
wait $pb
rb=$?
summary+=("build: after rc=$ra, before rc=$rb, $(elapsed) s")
if [ $ra -ne 0 ]; then
    echo "AFTER BUILD FAILED"; grep -E "error" "$LOGDIR/build-after.log" | head -20; tail -20 "$LOGDIR/build-after.log"
fi
if [ $rb -ne 0 ]; then
    echo "BEFORE BUILD FAILED"; grep -E "error" "$LOGDIR/build-before.log" | head -20; tail -20 "$LOGDIR/build-before.log"
fi

# The tests of the changed code first.
if [ $ra -eq 0 ]; then
    for name in test_gpu_msm test_gpu_g2 test_gpu_prove \
        $(echo $tests | tr ' ' '\n' | grep -v '^test_gpu_\(msm\|g2\|prove\)$'); do
        if [ "$(elapsed)" -gt $((LIMIT - 200)) ]; then summary+=("$name NOT RUN (time)"); continue; fi
        t0=$(date +%s)
        timeout 150 "$BA/tests/$name" >"$LOGDIR/$name.log" 2>&1
        rc=$?
        case $rc in 0) r=PASS ;; 77) r=SKIP ;; *) r="FAIL(rc=$rc)"; tail -15 "$LOGDIR/$name.log" ;; esac
        summary+=("$name $r $(($(date +%s) - t0)) s: $(grep -E "checks|failed" "$LOGDIR/$name.log" | tail -1)")
    done
fi

bench() { # tag build-dir timeout args...
    local tag=$1 dir=$2 to=$3
    shift 3
    [ -x "$dir/cuzk-bench" ] || { summary+=("$tag: no cuzk-bench"); return; }
    local t0=$(date +%s)
    timeout "$to" "$dir/cuzk-bench" "$@" >"$LOGDIR/$tag.log" 2>&1
    summary+=("$tag: rc=$? in $(($(date +%s) - t0)) s")
}

left() { echo $((LIMIT - $(elapsed))); }
# A step starts when half its time limit is left, and is cut at the LIMIT mark.
step() { # tag build-dir timeout args...
    local tag=$1 dir=$2 to=$3 l
    shift 3
    l=$(left)
    if [ "$l" -lt $((to / 2)) ]; then summary+=("$tag NOT RUN (time)"); return; fi
    [ "$l" -lt "$to" ] && to=$l
    bench "$tag" "$dir" "$to" "$@"
}
run_pair() { # name timeout args...
    local name=$1 to=$2
    shift 2
    step "$name-before" "$BB" "$to" "$@"
    step "$name-after" "$BA" "$to" "$@"
}
if [ -n "${MSM_DEVICE_POREP32:-}" ]; then
    # The 32 GiB PoRep batch before and after instead (issue 21's last measurement): ~2 min each.
    run_pair porep32 150 batch --circuit porep:32GiB -n 3 -j 2 --partition-workers 3
else
    run_pair msm1 90 gpu-msm --from 24 --log 26 --runs 5
    run_pair g2-1 60 gpu-g2 --runs 5 --check
    run_pair batch 120 batch --circuit synthetic:k=27 --stages 3 --cpu-reps 0 --fake-setup
    run_pair msm2 90 gpu-msm --from 24 --log 26 --runs 5
    run_pair g2-2 60 gpu-g2 --runs 5 --check
fi

echo
echo "== msm-device summary ($(elapsed) s) =="
for s in "${summary[@]}"; do echo "  $s"; done
for f in "$LOGDIR"/msm?-*.log; do
    [ -f "$f" ] && { echo "  $(basename "$f" .log):"; sed -n '/^points/,$p' "$f" | sed 's/^/    /'; }
done
for f in "$LOGDIR"/g2-?-*.log; do
    [ -f "$f" ] && { echo "  $(basename "$f" .log):"; sed -n '/^variant/,$p' "$f" | sed 's/^/    /'; }
done
for f in "$LOGDIR"/porep32-*.log; do
    [ -f "$f" ] && { echo "  $(basename "$f" .log):"; grep -E "^throughput|^steady|^prover/|^synth/|^prover busy|^peak" "$f" | sed 's/^/    /'; }
done
for f in "$LOGDIR"/batch-*.log; do
    [ -f "$f" ] && { echo "  $(basename "$f" .log):"; grep -iE "prove_start|median|B_G2|MSM|error|fail" "$f" | tail -12 | sed 's/^/    /'; }
done
