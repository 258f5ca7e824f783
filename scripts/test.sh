#!/usr/bin/env bash
# Checks the include layering and the format (.clang-format), builds cuzk and runs every test: a Release build,
# an ASan+UBSan build, the engine's concurrency tests under TSan, and the fuzz targets for a bounded time. The
# JavaScript oracles come from npm lockfiles: @noble/curves in tests/oracle, snarkjs and circom2 in tests/snarkjs,
# @grpc/grpc-js in tests/daemon. Ends with one summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
fuzz_seconds=${CUZK_FUZZ_SECONDS:-10}
passed=0
failed=0
stage_name=""
stage_start=$SECONDS

# Prints how long the stage before took, then the next stage's heading (CI's time limit is watched per stage).
stage() { # heading ("": none, the last stage ended)
  if [ -n "$stage_name" ]; then echo "-- ${stage_name}: $((SECONDS - stage_start)) s"; fi
  stage_name=$1
  stage_start=$SECONDS
  if [ -n "$1" ]; then echo "== $1 =="; fi
}

stage "JavaScript oracles (npm ci)"
(cd tests/oracle && npm ci --no-audit --no-fund --loglevel=error)
(cd tests/snarkjs && npm ci --no-audit --no-fund --loglevel=error)
(cd tests/daemon && npm ci --no-audit --no-fund --loglevel=error)
export CUZK_REQUIRE_ORACLE=1

run_ctest() { # build-dir label
  run_ctest_only "$1" "$2" ""
}

run_ctest_only() { # build-dir label regex ("": every test)
  local log
  log=$(mktemp)
  set +e
  (cd "$1" && ctest --output-on-failure -j"$jobs" ${3:+-R "$3"}) 2>&1 | tee "$log"
  set -e
  local line total fail
  line=$(grep -E "tests passed, [0-9]+ tests failed out of [0-9]+" "$log" | tail -n 1)
  if [ -z "$line" ]; then
    echo "test.sh: $2: ctest printed no summary"
    failed=$((failed + 1))
  else
    total=$(echo "$line" | sed -E 's/.*out of ([0-9]+).*/\1/')
    fail=$(echo "$line" | sed -E 's/.*tests passed, ([0-9]+) tests failed.*/\1/')
    passed=$((passed + total - fail))
    failed=$((failed + fail))
  fi
  rm -f "$log"
}

stage "Include layering (scripts/check-layers.sh)"
if scripts/check-layers.sh; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
fi

stage "Format (scripts/check-format.sh against .clang-format)"
if scripts/check-format.sh; then
  passed=$((passed + 1))
else
  echo "scripts/check-format.sh --fix formats the files listed above"
  failed=$((failed + 1))
fi

stage "Release build and tests"
# The GPU code is compiled (and its tests skip without a GPU); Hopper machine code only, to save time.
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
cmake --build build/release -j"$jobs"
# The daemon's PoRep C2 test proves real 2 KiB C1s: it needs the 2 KiB parameters, made once here (about a
# minute on two cores) and reused by later runs in the same build directory.
porep_params=$PWD/build/release/porep-params
if [ ! -f "$porep_params/porep-2k.params" ] || [ ! -f "$porep_params/porep-2k.vk" ]; then
  mkdir -p "$porep_params"
  build/release/cuzk setup --circuit porep:2KiB --params "$porep_params/porep-2k.params" \
    --vk "$porep_params/porep-2k.vk"
fi
CUZK_POREP_PARAMS_DIR=$porep_params run_ctest build/release release

stage "AddressSanitizer + UndefinedBehaviorSanitizer build and tests"
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DCUZK_SANITIZE=ON -DCUZK_CUDA=OFF >/dev/null
cmake --build build/asan -j"$jobs"
# The Release run compares 1,000 fresh oracle cases per operation; here fewer keep the run short.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 CUZK_ORACLE_COUNT=200 CUZK_ORACLE_PAIRINGS=20 \
  run_ctest build/asan asan

stage "ThreadSanitizer: the engine's, the residency's and the device cache's concurrency tests"
cmake -S . -B build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DCUZK_TSAN=ON -DCUZK_CUDA=OFF -DCUZK_GRPC=OFF >/dev/null
cmake --build build/tsan -j"$jobs" --target test_engine test_residency test_device_cache
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" run_ctest_only build/tsan tsan "^(test_engine|test_residency|test_device_cache)$"

stage "Fuzz targets, ${fuzz_seconds}s each"
if scripts/fuzz.sh "$fuzz_seconds"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
fi

stage ""
echo "cuzk tests: ${passed} passed, ${failed} failed, ${SECONDS} s"
[ "$failed" -eq 0 ]
