#!/usr/bin/env bash
# Memory growth of a long-running cuzk-daemon: N small proofs (synthetic:k=8, one partition; N from
# CUZK_DAEMON_MEMTEST_PROOFS, default 1,000) in rounds of 100 through cuzk-bench batch --addr, 4 at a time,
# sampling the daemon's VmRSS from /proc after each round. After a warm-up round, RSS may grow by at most
# 8 MiB: what is legitimately kept is the record of each ended job (about 1.5 KB; the daemon keeps the last
# 1,024 for AwaitProof), at most 1.5 MiB here; each proof's working set (witness and a/b/c, ~40 KB) leaked or
# retained would add ~40 MB. Then SIGTERM: the daemon must exit 0 (under LeakSanitizer: no leak at exit).
#   memory.sh DAEMON_BINARY CUZK_BENCH_BINARY [sanitized]
# "sanitized" (a CUZK_SANITIZE build): ASan's allocator quarantine makes RSS meaningless, so the bound is not
# checked; 300 proofs by default, and the leak check at exit is the test.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
[ $# -ge 2 ] || { echo "usage: $0 DAEMON_BINARY CUZK_BENCH_BINARY [sanitized]" >&2; exit 2; }
daemon_bin=$1
bench=$2
sanitized=0
[ "${3:-}" = "sanitized" ] && sanitized=1
default=1000
[ $sanitized -eq 1 ] && default=300
proofs=${CUZK_DAEMON_MEMTEST_PROOFS:-$default}
bound_kib=$((8 * 1024))
round=100
. "$here/lib.sh"

[ -r /proc/self/status ] || { echo "memory test: skipped, no /proc"; exit 77; }
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$daemon_pid/status"; }

daemon_start "$daemon_bin"
t0=$(date +%s)
done_n=0
warm=""
samples=""
while [ $done_n -lt "$proofs" ]; do
  n=$round
  [ $((proofs - done_n)) -lt $n ] && n=$((proofs - done_n))
  out=$("$bench" batch --addr "$addr" -n "$n" -j 4 -t circuit --circuit synthetic:k=8) ||
    fail "batch of $n after $done_n proofs: $(echo "$out" | grep -v COMPLETED | tail -5)"
  done_n=$((done_n + n))
  rss=$(rss_kib)
  [ -z "$warm" ] && warm=$rss
  samples="$samples $rss"
done
growth=$((rss - warm))
echo "memory test: $done_n proofs in $(($(date +%s) - t0)) s; VmRSS KiB after each round of $round:$samples"
echo "memory test: growth after the warm-up round: $growth KiB (bound $bound_kib KiB$([ $sanitized -eq 1 ] && echo ', not checked under ASan'))"
out=$("$bench" status --addr "$addr") || fail "status: exit $?"
echo "$out" | grep -q "^proofs: $done_n completed, 0 failed" || fail "not every proof completed: $out"
if [ $sanitized -eq 0 ] && [ $growth -gt $bound_kib ]; then
  fail "VmRSS grew by $growth KiB after the warm-up round (bound $bound_kib KiB)"
fi
daemon_stop || fail "the daemon exited $? after SIGTERM"
grep -q "LeakSanitizer\|AddressSanitizer" "$daemon_log" && fail "sanitizer report in the daemon's log"
echo "memory test: passed"
