# Helpers for the shell tests of cuzk-daemon (sourced): a daemon on a unix socket in a temporary directory.
#   daemon_start DAEMON_BINARY [extra TOML lines]   sets $work, $sock, $addr, $daemon_pid, $daemon_log
#   daemon_stop                                      SIGTERM; returns the daemon's exit status
#   fail MESSAGE                                     prints, shows the log tail, exits 1
work=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-daemon-sh.XXXXXX")
sock="$work/cuzk.sock"
addr="unix://$sock"
daemon_log="$work/daemon.log"
daemon_pid=""

cleanup() {
  if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then kill -9 "$daemon_pid" 2>/dev/null; fi
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  [ -f "$daemon_log" ] && { echo "---- daemon log (tail) ----" >&2; tail -n 40 "$daemon_log" >&2; }
  exit 1
}

daemon_start() {
  local bin=$1
  shift
  {
    echo "[daemon]"
    echo "listen = \"$addr\""
    echo "[memory]"
    echo "total_budget = \"2GiB\""
    echo "[gpus]"
    echo "gpu_threads = 2"
    echo "[synthesis]"
    echo "threads = 1"
    for line in "$@"; do echo "$line"; done
  } >"$work/cuzk.toml"
  "$bin" --config "$work/cuzk.toml" >"$daemon_log" 2>&1 &
  daemon_pid=$!
  for _ in $(seq 1 400); do
    [ -S "$sock" ] && grep -q "serving cuzk.v1.ProvingEngine" "$daemon_log" 2>/dev/null && return 0
    kill -0 "$daemon_pid" 2>/dev/null || fail "the daemon exited at start"
    sleep 0.05
  done
  [ -S "$sock" ] || fail "the daemon did not create $sock"
}

daemon_stop() {
  kill -TERM "$daemon_pid"
  local rc=0
  wait "$daemon_pid" || rc=$?
  daemon_pid=""
  return $rc
}
