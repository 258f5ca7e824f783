#!/usr/bin/env bash
# The main job: build cuzk (with the GPU backend when the CUDA toolkit is present)
# and run the demonstration of the library with timings.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j"$(nproc)"
build/release/cuzk-bench micro
