#!/usr/bin/env bash
# cuzk-bench batch in-process: a snarkjs circuit (zkey:..,wtns:..), the synthetic one and WindowPoSt 2 KiB through
# the engine, every proof self-verified; bad specs and options refused with exit status 2.
#   bench_batch.sh CUZK_BENCH_BINARY FIXTURE_DIR
set -u
[ $# -eq 2 ] || { echo "usage: $0 CUZK_BENCH_BINARY FIXTURE_DIR" >&2; exit 2; }
bench=$1
fx=$2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

zk="zkey:$fx/circuit.zkey,wtns:$fx/witness.wtns"
out=$("$bench" batch --circuit "$zk" -n 3 -j 2 --partitions 2 --backend cpu --json) || fail "zkey batch: exit $?"
echo "$out" | grep -q '"proofs":3,"verified":3,"failed":0' || fail "zkey batch: $out"
out=$("$bench" batch --circuit synthetic:k=8 -n 2 -j 2 --backend cpu --json) || fail "synthetic batch: exit $?"
echo "$out" | grep -q '"proofs":2,"verified":2,"failed":0' || fail "synthetic batch: $out"
# The steady state: from 8 partitions, between the ends of the (lo+1)th and (hi+1)th (2 left out at each end here),
# never more than the whole run a partition; n/a below 8.
out=$("$bench" batch --circuit synthetic:k=8 -n 5 -j 2 --partitions 2 --backend cpu) || fail "steady batch: exit $?"
line=$(echo "$out" | grep -E '^steady +[0-9]+\.[0-9]{3} s/partition, [0-9]+\.[0-9]{3} s/proof  \(prove_start ends 3 to 8 of 10; 2\.0 partitions a proof\)$')
[ -n "$line" ] || fail "steady line: $out"
wall=$(echo "$out" | sed -nE 's/^throughput .*proofs in ([0-9.]+) s;.*/\1/p')
per=$(echo "$line" | sed -E 's/^steady +([0-9.]+) s\/partition.*/\1/')
awk -v p="$per" -v w="$wall" 'BEGIN { exit !(p * 5 <= w + 0.01) }' || fail "steady: $per s a partition over 5 of a $wall s run"
out=$("$bench" batch --circuit synthetic:k=8 -n 5 -j 2 --partitions 2 --backend cpu --json) || fail "steady json: exit $?"
echo "$out" | grep -qE '"steady_s_per_partition":[0-9]+\.[0-9]{4},"steady_s_per_proof":[0-9]+\.[0-9]{4},' ||
    fail "steady json: $out"
out=$("$bench" batch --circuit synthetic:k=8 -n 3 -j 2 --partitions 2 --backend cpu) || fail "steady n/a: exit $?"
echo "$out" | grep -qx 'steady           n/a (6 partitions; 8 needed)' || fail "steady n/a: $out"
out=$("$bench" batch --circuit wpost:2KiB -n 1 -j 1 --backend cpu --json) || fail "wpost batch: exit $?"
echo "$out" | grep -q '"proofs":1,"verified":1,"failed":0' || fail "wpost batch: $out"

# A saved timeline gives the live run's statistics back (cuzk-bench timeline); a malformed line is skipped, named.
tl=$(mktemp)
live=$("$bench" batch --circuit synthetic:k=8 -n 2 -j 2 --partitions 2 --backend cpu --timeline "$tl" --json) ||
    fail "batch --timeline: exit $?"
echo "TIMELINE t_ms=1.000 ev=GPU_END job=1 part=0 worker=0 gpu=0" >>"$tl"
again=$("$bench" timeline "$tl" --json 2>"$tl.err") || fail "timeline: exit $?"
for key in proofs verified failed cancelled peak_accounted_bytes; do
    a=$(echo "$live" | grep -o "\"$key\":[0-9]*")
    b=$(echo "$again" | grep -o "\"$key\":[0-9]*")
    [ -n "$a" ] && [ "$a" = "$b" ] || fail "timeline: $key: live '$a', from the log '$b'"
done
grep -q ":$(wc -l <"$tl"): skipped: .*gpu_ms" "$tl.err" || fail "timeline: the malformed line: $(cat "$tl.err")"
rm -f "$tl" "$tl.err"

# --rounds: the batch once a round on one setup, each round's report with its settings; every proof verified.
out=$("$bench" batch --circuit synthetic:k=8 -n 2 -j 2 --partitions 2 --backend cpu \
    --rounds 'CUZK_GPU_BATCH=xyzz;-;CUZK_GPU_MSM_TAIL=3,CUZK_GPU_BATCH=affine' 2>/dev/null) || fail "rounds: exit $?"
[ "$(echo "$out" | grep -c '^round ')" = 3 ] && [ "$(echo "$out" | grep -c '^throughput .*2 verified, 0 failed')" = 3 ] ||
    fail "rounds: $out"
echo "$out" | grep -qx 'round 1/3: CUZK_GPU_BATCH=xyzz' && echo "$out" | grep -qx "round 2/3: (the environment's tuning)" &&
    echo "$out" | grep -qx 'round 3/3: CUZK_GPU_MSM_TAIL=3,CUZK_GPU_BATCH=affine' || fail "rounds' headers: $out"
out=$("$bench" batch --circuit synthetic:k=8 -n 1 -j 1 --partitions 2 --backend cpu --json \
    --rounds '-;CUZK_GPU_MSM=xyzz' 2>/dev/null) || fail "rounds json: exit $?"
[ "$(echo "$out" | wc -l)" = 2 ] && echo "$out" | sed -n 1p | grep -q '^{"round":1,"rounds":2,"settings":"","proofs":1,"verified":1,' &&
    echo "$out" | sed -n 2p | grep -q '^{"round":2,"rounds":2,"settings":"CUZK_GPU_MSM=xyzz","proofs":1,"verified":1,' ||
    fail "rounds json: $out"
err=$("$bench" batch --circuit synthetic:k=8 -n 1 -j 1 --backend cpu --rounds '-;CUZK_GPU_GLV=0' 2>&1 >/dev/null)
[ $? -eq 2 ] && echo "$err" | grep -q 'round 2: tuning setting CUZK_GPU_GLV: read only when' || fail "rounds at setup: $err"

refuse() {
    local what=$1
    shift
    "$bench" batch "$@" -n 1 -j 1 --backend cpu >/dev/null 2>&1
    local rc=$?
    [ $rc -eq 2 ] || fail "$what: exit $rc, expected 2"
}
refuse "zkey without wtns" --circuit "zkey:$fx/circuit.zkey"
refuse "zkey with --params" --circuit "$zk" --params "$fx/circuit.zkey"
refuse "unknown kind" --circuit "nope:1"
refuse "PoSt of a size without a registered proof" --circuit wpost:4KiB
refuse "--devices on the cpu backend" --circuit synthetic:k=8 --devices 0
refuse "partitions twice" --circuit synthetic:k=8,partitions=3 --partitions 4
refuse "--rounds: an unknown variable" --circuit synthetic:k=8 --rounds 'CUZK_GPU_NOPE=1'
refuse "--rounds: an empty round" --circuit synthetic:k=8 --rounds 'CUZK_GPU_MSM=xyzz;'
refuse "--rounds: no value" --circuit synthetic:k=8 --rounds 'CUZK_GPU_MSM'
refuse "--rounds with --timeline" --circuit synthetic:k=8 --rounds - --timeline /dev/null
out=$("$bench" batch --circuit synthetic:k=8,partitions=3 -n 1 -j 1 --backend cpu 2>&1) || fail "partitions in the spec: exit $?"
echo "$out" | grep -q "1 proofs x 3 partitions" || fail "partitions in the spec: $out"
"$bench" batch --circuit "zkey:$fx/missing.zkey,wtns:$fx/witness.wtns" -n 1 -j 1 --backend cpu 2>/dev/null
[ $? -eq 1 ] || fail "a missing zkey: exit status not 1"

[ $fails -eq 0 ] && echo "bench_batch: all passed" || echo "bench_batch: $fails failed"
[ $fails -eq 0 ]
