#!/usr/bin/env bash
# cuzk-bench batch --critical: a stream of CRITICAL proofs in the batch's engine (and alone, on an idle engine), on
# the CPU backend with tiny circuits; the summary line, every critical proof verified, the batch's own figures still
# there; bad --critical options refused with exit status 2. CUZK_SLOW_TESTS=1 adds WinningPoSt 2 KiB (the daemon's
# parse and validation of bincode vanilla proofs; ~10 s of setup on 2 cores).
#   bench_mixed.sh CUZK_BENCH_BINARY
set -u
[ $# -eq 1 ] || { echo "usage: $0 CUZK_BENCH_BINARY" >&2; exit 2; }
bench=$1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
summary='^critical: ([0-9]+) proofs, latency median [0-9]+\.[0-9]+ ms, p90 [0-9]+\.[0-9]+ ms, max [0-9]+\.[0-9]+ ms$'

# $1: what; $2: the output; $3: the least count of critical proofs, $4: the most. Every one verified, none failed.
check_text() {
    local what=$1 out=$2 least=$3 most=$4
    local line n
    line=$(echo "$out" | grep -E "$summary")
    [ -n "$line" ] || { fail "$what: no summary line in: $out"; return; }
    n=$(echo "$line" | sed -E "s/$summary/\\1/")
    [ "$n" -ge "$least" ] && [ "$n" -le "$most" ] || fail "$what: $n critical proofs, expected $least..$most"
    echo "$out" | grep -q "^critical: $n verified, 0 failed;" || fail "$what: not every critical proof verified: $out"
    [ "$(echo "$out" | grep -cE '^ +[0-9]+ .* yes +[0-9]+/[0-9]+/[0-9]+$')" -eq "$n" ] ||
        fail "$what: not one 'yes' row per critical proof: $out"
}

# Under a batch: the batch's figures (its 4 proofs only), then the stream's.
out=$("$bench" batch --circuit synthetic:k=12 -n 4 -j 2 --critical synthetic:k=8 --critical-every 0.05 \
    --backend cpu 2>/dev/null) || fail "mixed: exit $?"
echo "$out" | grep -q "^throughput .*(4 proofs in .*; 4 verified, 0 failed" || fail "mixed: the batch's line: $out"
check_text mixed "$out" 1 1000
# At most --critical-count; --json: the batch's object with a "critical" member.
out=$("$bench" batch --circuit synthetic:k=12 -n 4 -j 2 --critical synthetic:k=8 --critical-every 0 \
    --critical-count 2 --backend cpu --json 2>/dev/null) || fail "mixed --json: exit $?"
echo "$out" | grep -q '^{"proofs":4,"verified":4,"failed":0,' || fail "mixed --json: the batch: $out"
echo "$out" | grep -qE '"critical":\{"spec":"synthetic:k=8,seed=1","every_s":0.000,"proofs":([12]),"verified":\1,"failed":0,"latency_ms":\{"mean"' ||
    fail "mixed --json: the critical member: $out"
[ "$(echo "$out" | grep -o '"verified":1,"latency_ms"' | wc -l)" -ge 1 ] || fail "mixed --json: per proof: $out"

# Alone: an idle engine, exactly --critical-count proofs.
out=$("$bench" batch --critical synthetic:k=8 --critical-count 3 --critical-every 0.01 --backend cpu 2>/dev/null) ||
    fail "idle: exit $?"
check_text idle "$out" 3 3
out=$("$bench" batch --critical synthetic:k=8 --critical-count 2 --critical-every 0 --backend cpu --json 2>/dev/null) ||
    fail "idle --json: exit $?"
echo "$out" | grep -qE '^\{"critical":\{"spec":"synthetic:k=8,seed=1",.*"proofs":2,"verified":2,"failed":0,.*\]\}\}$' ||
    fail "idle --json: $out"

if [ -n "${CUZK_SLOW_TESTS:-}" ]; then
    out=$("$bench" batch --critical winning:2KiB --critical-count 1 --backend cpu 2>/dev/null) || fail "winning: exit $?"
    check_text "winning:2KiB" "$out" 1 1
fi

refuse() {
    local what=$1
    shift
    "$bench" batch "$@" --backend cpu >/dev/null 2>&1
    local rc=$?
    [ $rc -eq 2 ] || fail "$what: exit $rc, expected 2"
}
refuse "a PoRep critical" --critical porep:2KiB
refuse "a critical of 2 partitions" --critical synthetic:k=8,partitions=2
refuse "--critical-every without --critical" --circuit synthetic:k=8 -n 1 -j 1 --critical-every 1
refuse "--critical-count without --critical" --circuit synthetic:k=8 -n 1 -j 1 --critical-count 1
refuse "a negative period" --critical synthetic:k=8 --critical-every -1
refuse "a period that is not a number" --critical synthetic:k=8 --critical-every 1s
refuse "--critical-count 0" --critical synthetic:k=8 --critical-count 0
refuse "--circuit without -n" --critical synthetic:k=8 --circuit synthetic:k=8
refuse "--critical with --stages" --critical synthetic:k=8 --circuit synthetic:k=8 --stages 1

[ $fails -eq 0 ] && echo "bench_mixed: all passed" || echo "bench_mixed: $fails failed"
[ $fails -eq 0 ]
