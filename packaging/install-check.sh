#!/usr/bin/env bash
# `cmake --install` of a build directory into a temporary prefix: the programs, the example configuration, the
# licenses and cuzk.service are where they belong, the unit names the installed daemon, and the unit passes
# `systemd-analyze verify` when systemd-analyze exists (skipped with a message otherwise).
#   install-check.sh BUILD_DIR
set -u
build=${1:?usage: install-check.sh BUILD_DIR}
prefix=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cmake --install "$build" --prefix "$prefix" >"$prefix.log" 2>&1 || { cat "$prefix.log" >&2; rm -f "$prefix.log"; fail "cmake --install"; }
rm -f "$prefix.log"
for f in bin/cuzk bin/cuzk-bench; do [ -x "$prefix/$f" ] || fail "$f is not installed"; done
daemon=0
if grep -q '^CUZK_PROTOC_C:FILEPATH=/' "$build/CMakeCache.txt" && [ -x "$build/src/daemon/cuzk-daemon" ]; then
  daemon=1
  [ -x "$prefix/bin/cuzk-daemon" ] || fail "bin/cuzk-daemon is not installed"
fi
doc="$prefix/share/doc/cuzk"
for f in cuzk.example.toml README.md DAEMON.md LICENSE LICENSE-MIT LICENSE-APACHE; do
  [ -s "$doc/$f" ] || fail "share/doc/cuzk/$f is not installed"
done
unit="$prefix/lib/systemd/system/cuzk.service"
[ -s "$unit" ] || fail "lib/systemd/system/cuzk.service is not installed"
grep -qx "ExecStart=$prefix/bin/cuzk-daemon" "$unit" || fail "the unit does not start $prefix/bin/cuzk-daemon: $(grep ExecStart "$unit")"
grep -q '@CUZK_' "$unit" && fail "the unit has unreplaced placeholders"
for key in 'Restart=on-failure' 'LimitMEMLOCK=infinity' 'LimitNOFILE=' 'WantedBy=multi-user.target'; do
  grep -q "^$key" "$unit" || fail "the unit lacks $key"
done
"$prefix/bin/cuzk" --help >/dev/null 2>&1 || "$prefix/bin/cuzk" help >/dev/null 2>&1 || true
if [ "$daemon" = 1 ]; then
  "$prefix/bin/cuzk-daemon" --help | grep -q "cuzk-daemon" || fail "the installed cuzk-daemon does not run"
fi
if command -v systemd-analyze >/dev/null 2>&1; then
  if [ "$daemon" = 1 ]; then
    out=$(systemd-analyze verify "$unit" 2>&1)
    rc=$?
    # Messages about other units on this machine are not this unit's.
    mine=$(printf '%s\n' "$out" | grep -F 'cuzk.service' || true)
    [ $rc -eq 0 ] && [ -z "$mine" ] || fail "systemd-analyze verify: $out"
    echo "systemd-analyze verify: cuzk.service passes"
  else
    echo "systemd-analyze verify: skipped (no cuzk-daemon built, which the unit starts)"
  fi
else
  echo "systemd-analyze verify: skipped (systemd-analyze not found)"
fi
echo "install layout: ok ($prefix)"
