#!/usr/bin/env bash
# The main job: build cuzk, then a Filecoin PoRep C2 end to end with the cuzk command:
#   seal a random 2 KiB sector and write its C1 output (cuzk porep seal),
#   Groth16 parameters for the PoRep partition circuit from fresh toxic waste (cuzk setup --circuit porep:2KiB),
#   prove every partition through the proving engine, on the GPU when one is present, else the CPU
#   (cuzk prove --porep),
#   verify the proof against the C1's public inputs (cuzk verify --porep),
# printing the time of each step; then a batch through the engine on the synthetic circuit and the arithmetic
# micro-benchmark. CUZK_DEMO_SECTOR=8MiB runs the PoRep steps on 8 MiB (a longer setup); CUZK_DEMO_K sets the
# synthetic circuit's size (2^14 by default).
set -euo pipefail
cd "$(dirname "$0")/.."
sector=${CUZK_DEMO_SECTOR:-2KiB}
k=${CUZK_DEMO_K:-14}
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j"$(nproc)"
bin=build/release
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

timings=()
step() { # name command...
  local name=$1
  shift
  echo "== $name =="
  local t0 ms
  t0=$(date +%s%N)
  "$@"
  ms=$((($(date +%s%N) - t0) / 1000000))
  printf -- "-- %s: %d.%03d s\n" "$name" $((ms / 1000)) $((ms % 1000))
  timings+=("$(printf "%-28s %6d.%03d s" "$name" $((ms / 1000)) $((ms % 1000)))")
}

step "seal $sector" "$bin/cuzk" porep seal --sector-size "$sector" --out "$work/c1.json"
step "setup porep:$sector" "$bin/cuzk" setup --circuit "porep:$sector" --params "$work/porep.params" \
  --vk "$work/porep.vk"
# --trusted: the parameters were made by the step above, so the subgroup check of every base (minutes on a small
# CPU for the ~1 GB file) is skipped; the verifying key is always checked.
step "prove --porep" "$bin/cuzk" prove --porep "$work/c1.json" --params "$work/porep.params" --vk "$work/porep.vk" \
  --out "$work/proof.bin" --trusted
step "verify --porep" "$bin/cuzk" verify --porep "$work/c1.json" --vk "$work/porep.vk" --proof "$work/proof.bin"
echo "== PoRep C2 $sector =="
printf '%s\n' "${timings[@]}"

echo "== the engine: 4 proofs of 2 partitions each of synthetic:k=$k (GPU when present, else CPU), each verified =="
"$bin/cuzk-bench" batch --circuit "synthetic:k=$k" -n 4 -j 2
echo "== arithmetic micro-benchmark =="
"$bin/cuzk-bench" micro
