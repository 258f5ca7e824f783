#!/usr/bin/env bash
# SnapDeals partition witness synthesis on the device host's CPU cores (no GPU needed): `cuzk-bench synth --circuit
# snap:32GiB` of this tree at 16 and 8 threads, median of 5, with the witness's SHA-256 (equal digests: equal
# witnesses) and its check against the compiled shape; then PoRep's (porep:32GiB, 16 threads), which shares the
# gadgets and the r1cs layer.
#
# BASE=DIR (optional): a source tree of the previous version (main before this branch, e.g. `git archive main |
# tar -x -C .base` into a folder the run carries); it is built too, with this tree's tools/cuzk-bench/synth.c (the
# previous one has no snap:), and both are run alternately in the same run.
#
# Logs under $OUT (or /tmp/snapsynth-out). About 3 minutes on an H200 host with 16 cores, 6 with BASE.
set -euo pipefail
OUT=${OUT:-/tmp/snapsynth-out}
mkdir -p "$OUT"
JOBS=${JOBS:-16}

build() { # src dir tag
    cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=OFF -DCUZK_GRPC=OFF >"$OUT/cmake-$3.log" 2>&1
    cmake --build "$2" -j"$JOBS" --target cuzk-bench >"$OUT/build-$3.log" 2>&1
}

build . build/snapsynth-new new
BENCHES=("new:build/snapsynth-new/cuzk-bench")
if [ -n "${BASE:-}" ]; then
    cp tools/cuzk-bench/synth.c "$BASE/tools/cuzk-bench/synth.c"
    build "$BASE" build/snapsynth-base base
    BENCHES=("base:build/snapsynth-base/cuzk-bench" "${BENCHES[@]}")
fi
nproc >"$OUT/machine.txt"
lscpu | grep -E "Model name|^CPU\(s\)" >>"$OUT/machine.txt" || true

for round in 1 2; do
    for b in "${BENCHES[@]}"; do
        tag=${b%%:*} exe=${b#*:}
        check=--no-check
        [ "$round" = 1 ] && check=
        echo "== $tag round $round: snap:32GiB" | tee -a "$OUT/summary.txt"
        "$exe" synth --circuit snap:32GiB --threads 16,8 --reps 5 $check 2>&1 | tee "$OUT/snap-$tag-$round.log" |
            grep -E "^circuit|sha256|satisfies|^threads" | tee -a "$OUT/summary.txt"
    done
done
for b in "${BENCHES[@]}"; do
    tag=${b%%:*} exe=${b#*:}
    echo "== $tag: porep:32GiB" | tee -a "$OUT/summary.txt"
    "$exe" synth --circuit porep:32GiB --threads 16 --reps 3 --no-check 2>&1 | tee "$OUT/porep-$tag.log" |
        grep -E "^threads" | tee -a "$OUT/summary.txt"
done
