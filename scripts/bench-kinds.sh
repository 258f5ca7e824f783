#!/usr/bin/env bash
# The Filecoin proof kinds at full size through the engine, in process, on a GPU machine: WinningPoSt, a WindowPoSt
# partition (2349 sectors), a SnapDeals proof (16 partitions) of 32 GiB sectors, each from synthetic vanilla proofs
# validated as the daemon validates Curio's, with parameters set up in memory (no 50 GB files), every proof verified.
# And WinningPoSt's latency at CRITICAL priority: alone on an idle engine (critical), and while a 32 GiB PoRep batch
# runs in the same engine (mixed: ~1 min of setup, then 6 PoRep proofs and a WinningPoSt every 2 s; ~3 min).
#   scripts/bench-kinds.sh [build-dir] [kinds...]     (kinds: winning wpost snap critical mixed; default the first
#                                                      three)
# Logs go to $OUT (when set, e.g. on the lent device machine) or to the build directory.
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build-gpu}
shift || true
KINDS=${*:-winning wpost snap}
LOGDIR=${OUT:-$BUILD}
JOBS=$(nproc 2>/dev/null || echo 2)
export PATH=$PATH:/usr/local/cuda/bin
mkdir -p "$LOGDIR"

if [ -z "${CUZK_NO_BUILD:-}" ]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >"$LOGDIR/cmake.log" 2>&1 &&
        cmake --build "$BUILD" -j"$JOBS" --target cuzk-bench >"$LOGDIR/build.log" 2>&1 || {
        echo "BUILD FAILED (see $LOGDIR/build.log)"
        tail -20 "$LOGDIR/build.log"
        exit 1
    }
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "nvidia-smi: not available"

status=0
for kind in $KINDS; do
    case $kind in
    winning) args=(--circuit winning:32GiB -n 10 -j 1) ;;
    wpost) args=(--circuit wpost:32GiB -n 4 -j 1) ;;
    snap) args=(--circuit snap:32GiB -n 2 -j 1) ;;
    critical) args=(--critical winning:32GiB --critical-count 10 --critical-every 0.5) ;;
    mixed) args=(--circuit porep:32GiB -n 6 -j 2 --partition-workers 3 --critical winning:32GiB --critical-every 2.0
                 --timeline "$LOGDIR/timeline-mixed.log") ;;
    *) echo "unknown kind $kind"; status=1; continue ;;
    esac
    echo "== $kind: cuzk-bench batch ${args[*]}"
    "$BUILD/cuzk-bench" batch "${args[@]}" >"$LOGDIR/bench-$kind.log" 2>&1 || status=1
    # The critical stream's lines too: its header, one row per proof and the summary.
    grep -E "^batch: .*(constraints|vanilla)|^throughput|^steady|^prover/partition|^synth/partition|^prover busy|^peak RSS" \
        "$LOGDIR/bench-$kind.log" || tail -5 "$LOGDIR/bench-$kind.log"
    grep -E "^critical|^ +# |^ +[0-9]+ +[0-9]+\.[0-9]+ " "$LOGDIR/bench-$kind.log"
done
exit $status
