#!/usr/bin/env bash
# cuzk-bench's daemon subcommands (single, batch --addr, status, preload, metrics) against a real cuzk-daemon.
#   bench.sh DAEMON_BINARY CUZK_BENCH_BINARY
set -u
here="$(cd "$(dirname "$0")" && pwd)"
[ $# -eq 2 ] || { echo "usage: $0 DAEMON_BINARY CUZK_BENCH_BINARY" >&2; exit 2; }
daemon_bin=$1
bench=$2
. "$here/lib.sh"

daemon_start "$daemon_bin"

out=$("$bench" status --addr "$addr") || fail "status: exit $?"
echo "$out" | grep -q "^=== Daemon Status ===$" || fail "status: no header: $out"
echo "$out" | grep -q "^proofs: 0 completed, 0 failed, 0 cancelled$" || fail "status: counts: $out"
echo "$out" | grep -q "^  porep-c2 .*pending 0, in progress 0$" || fail "status: queues: $out"
echo "$out" | grep -q "^memory: budget 2.00 GiB" || fail "status: budget: $out"

out=$("$bench" single --addr "$addr" -t circuit --circuit synthetic:k=8 --partitions 2) || fail "single: exit $?: $out"
echo "$out" | grep -q "^=== Proof Result ===$" || fail "single: no header: $out"
echo "$out" | grep -q "^status: COMPLETED$" || fail "single: status: $out"
echo "$out" | grep -q "^proof: 384 bytes (verified by the daemon)$" || fail "single: length/verified: $out"
echo "$out" | grep -Eq "^timings: total=[0-9]+ ms \(queue=[0-9]+ ms, srs=[0-9]+ ms, synth=[0-9]+ ms, gpu=[0-9]+ ms\)$" ||
  fail "single: timings: $out"
hex=$(echo "$out" | sed -n 's/^proof hex: //p')
[ ${#hex} -eq 768 ] || fail "single: proof hex of ${#hex} digits, not 768"

# A request the daemon answers FAILED (a C1 envelope without its C1): exit 1, the message shown.
printf '{"SectorNum":1}' >"$work/bad.json"
out=$("$bench" single --addr "$addr" -t porep --c1 "$work/bad.json")
[ $? -eq 1 ] || fail "single of a failing kind: exit status not 1"
echo "$out" | grep -q "^status: FAILED$" || fail "single of a failing kind: $out"

out=$("$bench" batch --addr "$addr" -n 8 -j 4 -t circuit --circuit synthetic:k=8) || fail "batch: exit $?: $out"
[ "$(echo "$out" | grep -c '^\[[0-9]*/8\] COMPLETED — ')" -eq 8 ] || fail "batch: 8 COMPLETED lines: $out"
echo "$out" | grep -q "^proofs: 8 completed, 0 not, of 8$" || fail "batch: summary: $out"
echo "$out" | grep -Eq "^throughput: [0-9.]+ proofs/min \([0-9.]+ s/proof\)$" || fail "batch: throughput: $out"
echo "$out" | grep -Eq "^wall time: avg=" || fail "batch: wall time: $out"

out=$("$bench" preload --addr "$addr" -c synthetic:k=9) || fail "preload: exit $?"
echo "$out" | grep -Eq "^synthetic:k=9: loaded in [0-9]+ ms$" || fail "preload: $out"
out=$("$bench" preload --addr "$addr" -c synthetic:k=9) || fail "preload again: exit $?"
echo "$out" | grep -q "already loaded" || fail "preload again: $out"
"$bench" preload --addr "$addr" -c bogus 2>"$work/err" && fail "preload bogus: exit 0"
grep -q "INVALID_ARGUMENT" "$work/err" || fail "preload bogus: $(cat "$work/err")"

out=$("$bench" status --addr "$addr") || fail "status after: exit $?"
echo "$out" | grep -q "^proofs: 9 completed, 1 failed, 0 cancelled$" || fail "status after: counts: $out"
echo "$out" | grep -q "^  synthetic:k=9,seed=1: WARM" || fail "status after: the preloaded set: $out"

out=$("$bench" metrics --addr "$addr") || fail "metrics: exit $?"
echo "$out" | grep -q "^cuzk_proofs_completed_total 9$" || fail "metrics: completed: $out"
echo "$out" | grep -q '^cuzk_backend{backend="' || fail "metrics: backend"

"$bench" status --addr "unix://$work/none.sock" 2>"$work/err" && fail "status of no daemon: exit 0"
grep -q "UNAVAILABLE" "$work/err" || fail "status of no daemon: $(cat "$work/err")"
"$bench" single --addr "$addr" -t porep 2>/dev/null
[ $? -eq 2 ] || fail "single -t porep without --c1: exit status not 2"

daemon_stop || fail "the daemon exited $? after SIGTERM"
echo "daemon bench test: passed"
