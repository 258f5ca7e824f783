#!/usr/bin/env bash
# The main job: build cuzk, then set up, prove and verify the synthetic
# PoRep-shaped circuit (2^K constraints, K=14 unless CUZK_DEMO_K is set), and
# print the per-stage timings and the micro-benchmark of the arithmetic.
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
echo "== arithmetic micro-benchmark =="
"$bin/cuzk-bench" micro
