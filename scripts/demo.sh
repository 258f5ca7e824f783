#!/usr/bin/env bash
# The main job: build cuzk, then set up, prove and verify the synthetic
# PoRep-shaped circuit (2^K constraints, K=14 unless CUZK_DEMO_K is set) with
# the cuzk command (CPU, bellperson files), then prove a batch through the
# proving engine on the GPU when one is present (else the CPU), every proof
# verified, and print the timings and the micro-benchmark of the arithmetic.
set -euo pipefail
cd "$(dirname "$0")/.."
k=${CUZK_DEMO_K:-14}
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j"$(nproc)"
bin=build/release
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
spec="synthetic:k=$k"
echo "== setup: $spec =="
"$bin/cuzk" setup --circuit "$spec" --params "$work/demo.params" --vk "$work/demo.vk"
echo "== prove =="
"$bin/cuzk" prove --circuit "$spec" --params "$work/demo.params" --proof "$work/proof.bin" --public "$work/public.json"
echo "== verify =="
"$bin/cuzk" verify --vk "$work/demo.vk" --proof "$work/proof.bin" --public "$work/public.json"
"$bin/cuzk" inspect "$work/demo.vk" "$work/proof.bin"
echo "== the engine: 4 proofs of 2 partitions each (GPU when present, else CPU), each proof verified =="
"$bin/cuzk-bench" batch --circuit "$spec" -n 4 -j 2
echo "== arithmetic micro-benchmark =="
"$bin/cuzk-bench" micro
