# Helpers for the command-line tests, sourced by cli.sh and porep_cli.sh: a scratch folder $work removed on exit,
# the counters $passed and $failed, and checks of exit codes and output.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

expect() { # expected-exit-code description command...
  local want=$1 what=$2
  shift 2
  "$@" >"$work/out" 2>&1
  local got=$?
  if [ "$got" -eq "$want" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $what: exit $got, expected $want"
    sed 's/^/    /' "$work/out"
  fi
}

expect_text() { # description pattern: the last command's output must contain pattern
  if grep -q -- "$2" "$work/out"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $1: output lacks '$2'"
    sed 's/^/    /' "$work/out"
  fi
}

# Flips the low bit of the byte at offset (an xor: writing a fixed byte leaves the file as it was whenever it
# already held that byte).
flip_bit() { # file offset
  local byte
  byte=$(od -An -tu1 -j "$2" -N 1 "$1" | tr -d ' ')
  printf "\\$(printf '%03o' $((byte ^ 1)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

summary() { # name: prints the counts; the status is 0 when nothing failed
  echo "$1: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
