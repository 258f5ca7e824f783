#!/usr/bin/env bash
# Device check of the GPU memory cap (issue 22, parts 1 and 2), on the H200 machine, in under 9 minutes:
#   scripts/cap-device.sh            (logs under $OUT, else build-cap/logs)
# 1. Applies to msm_g1.cu / msm_g2.cu the pure rename onto the allocation seam (src/gpu/mem.cuh) and their
#    free-memory query onto gpu_mem_free_for_scratch, in this copy only (the lead applies the same at merge), so that
#    the MSMs' scratch is counted and sized under the cap as well.
# 2. Builds (Release, sm_90, -j16) cuzk-bench and the GPU tests; runs test_gpu_mem, _plan, _tune.
# 3. cuzk-bench batch --circuit porep:32GiB -n 4 -j 2 --partition-workers 3 --gpu-memory-limit 24G (bounded to
#    ~230 s), and -n 2 --gpu-memory-limit 16G --abc host (~140 s), both with CUZK_GPU_PROFILE=1 (the plan's lines).
# 4. The other GPU tests (test_gpu_prove first) in the time left (the whole script stays under ~9.5 minutes).
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

for f in "$ROOT/src/gpu/msm_g1.cu" "$ROOT/src/gpu/msm_g2.cu"; do
    sed -i -E 's/\bcudaMallocAsync\(/gpu_malloc_async(/g; s/\bcudaFreeAsync\(/gpu_free_async(/g; s/\bcudaMalloc\(/gpu_malloc(/g; s/\bcudaFree\(/gpu_free(/g' "$f"
    perl -0pi -e 's/GPU_TRY\(cudaMemGetInfo\(&free_b, &total_b\)\);\s*GPU_TRY\(cudaDeviceGetDefaultMemPool\(&mpool, ctx->device\)\);\s*GPU_TRY\(cudaMemPoolGetAttribute\(mpool, cudaMemPoolAttrReservedMemCurrent, &reserved\)\);\s*GPU_TRY\(cudaMemPoolGetAttribute\(mpool, cudaMemPoolAttrUsedMemCurrent, &used\)\);\s*free_b \+= reserved > used \? \(size_t\)\(reserved - used\) : 0;/GPU_TRY(gpu_mem_free_for_scratch(ctx->device, &free_b));/g; s/size_t free_b = 0, total_b = 0, ngroups/size_t free_b = 0, ngroups/g; s/\n    uint64_t reserved = 0, used = 0;\n    cudaMemPool_t mpool;//g' "$f"
    line="$(basename "$f"): $(grep -c 'gpu_malloc_async\|gpu_free_async\|gpu_malloc(\|gpu_free(' "$f") seam calls, $(grep -c gpu_mem_free_for_scratch "$f") free queries"
    echo "$line" | tee -a "$LOGDIR/msm-rename.txt"
    summary+=("$line")
done

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
    grep -vE "^gpu (msm|ntt|batch|aff|h |g2)" "$LOGDIR/$name.log" | grep -iE "s/proof|proofs|error|fail|partition|busy|peak|throughput" | tail -14 | sed "s/^/  $name: /"
}
left=$((400 - $(elapsed)))
bench batch-24G 24G $((left > 230 ? 230 : (left < 60 ? 60 : left))) 4 "" CUZK_GPU_PROFILE=1
# 16 GiB: a, b, c on the device (the default) cannot fit beside the matrices (the planned error, test_gpu_mem);
# from the host the H step keeps three vectors.
left=$((540 - $(elapsed)))
[ $left -gt 30 ] && bench batch-16G-abc-host 16G $((left > 140 ? 140 : left)) 2 "--abc host" CUZK_GPU_PROFILE=1

for name in test_gpu_prove test_gpu_abc test_gpu_ntt test_gpu_g2 $(echo $tests | tr ' ' '\n' | grep -v '^test_gpu_\(mem\|plan\|tune\|prove\|abc\|ntt\|g2\)$'); do
    left=$((550 - $(elapsed)))
    if [ $left -lt 10 ]; then summary+=("$name NOT RUN (time)"); continue; fi
    run_test $name $left
done

echo
echo "== cap-device summary ($(elapsed) s) =="
for s in "${summary[@]}"; do echo "  $s"; done
