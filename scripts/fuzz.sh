#!/bin/sh
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for SECONDS (default 20).
# Usage: scripts/fuzz.sh [SECONDS]
# Exit status: 0 when no target found anything, 1 when one crashed or broke a property (its reproducer is left in
# build-fuzz/artifacts/ and the fuzzer's log in build-fuzz/logs/), 2 on a usage or build error.
# Environment: BUILD_DIR (default build-fuzz), JOBS (make -j, default 2).
set -u

seconds=${1:-20}
case $seconds in
'' | *[!0-9]*)
    echo "usage: $0 [SECONDS]" >&2
    exit 2
    ;;
esac
if [ "$seconds" -lt 1 ]; then
    echo "usage: $0 [SECONDS] (SECONDS >= 1)" >&2
    exit 2
fi

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-fuzz}
jobs=${JOBS:-2}

CC=clang cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCUZK_FUZZ=ON -DCUZK_SANITIZE=ON \
    -DCUZK_TESTS=OFF >"$build.cmake.log" 2>&1 || {
    cat "$build.cmake.log" >&2
    echo "fuzz.sh: cmake failed" >&2
    exit 2
}
rm -f "$build.cmake.log"
make -C "$build" -j"$jobs" cuzk_fuzz_targets >/dev/null || {
    echo "fuzz.sh: build failed" >&2
    exit 2
}

mkdir -p "$build/artifacts" "$build/logs"
failed=0
for src in "$root"/fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    bin=$build/fuzz/$name
    # New inputs go to the first directory (under the build dir); the committed seeds are only read.
    work=$build/corpus/$name
    mkdir -p "$work"
    seeds=$root/fuzz/corpus/$name
    [ -d "$seeds" ] || seeds=
    log=$build/logs/$name.log
    printf '%-18s %ss ... ' "$name" "$seconds"
    # -timeout: an input slower than 10 s is a hang, reported like a crash.
    if "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$build/artifacts/$name-" "$work" $seeds >"$log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        echo "ok (${runs:-?} runs)"
    else
        echo "FAILED (log: $log)"
        grep -E 'property broken|ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -n 10
        failed=1
    fi
done
exit $failed
