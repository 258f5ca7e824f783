#!/usr/bin/env bash
# PoRep C2 with the cuzk command: setup --circuit porep:SIZE, prove --porep, verify --porep and their exit codes
# (0 valid, 1 invalid, 2 bad input). The checks that need 2 KiB parameters (a setup of minutes of CPU time) run
# with CUZK_SLOW_TESTS=1; the others always.
# Usage: porep_cli.sh CUZK_BINARY
set -u
cuzk=$1
. "$(dirname "$0")/checks.sh"

expect 0 "seal 2 KiB" "$cuzk" porep seal --sector-size 2KiB --out "$work/c1.json" --seed 11
expect 0 "seal 2 KiB as an envelope" "$cuzk" porep seal --sector-size 2KiB --out "$work/c1-env.json" --seed 12 \
  --envelope
expect 2 "setup of an unknown size" "$cuzk" setup --circuit porep:3KiB --params "$work/x.params" --vk "$work/x.vk"
expect 2 "setup of 32 GiB is refused on a small machine" "$cuzk" setup --circuit porep:32GiB --params "$work/x.params" --vk "$work/x.vk"
expect_text "the refusal says why" "GiB of memory and this machine has"
expect 2 "setup with --api on a synthetic spec" "$cuzk" setup --circuit synthetic:k=8 --api 1.2 \
  --params "$work/x.params" --vk "$work/x.vk"
expect 2 "setup with an unknown api" "$cuzk" setup --circuit porep:2KiB --api 1.3 --params "$work/x.params" \
  --vk "$work/x.vk"
if [ -e "$work/x.params" ]; then
  failed=$((failed + 1))
  echo "FAIL: a refused setup wrote files"
else
  passed=$((passed + 1))
fi

# Parameters of another circuit: refused before proving (exit 2), and nothing written.
expect 0 "setup of a small synthetic circuit" "$cuzk" setup --circuit synthetic:k=8 --params "$work/s.params" \
  --vk "$work/s.vk"
expect 2 "prove with parameters of another circuit" "$cuzk" prove --porep "$work/c1.json" --params "$work/s.params" \
  --out "$work/bad.bin" --backend cpu
expect_text "the mismatch is named" "parameters do not fit"
if [ -e "$work/bad.bin" ]; then
  failed=$((failed + 1))
  echo "FAIL: a failed prove wrote its output"
else
  passed=$((passed + 1))
fi
expect 2 "prove with an unknown backend" "$cuzk" prove --porep "$work/c1.json" --params "$work/s.params" \
  --out "$work/bad.bin" --backend tpu
echo '{"registered_proof": "StackedDrg2KiBV1_1"' >"$work/broken.json"
expect 2 "prove a broken C1" "$cuzk" prove --porep "$work/broken.json" --params "$work/s.params" --out "$work/bad.bin"
expect 2 "prove a missing C1" "$cuzk" prove --porep "$work/none.json" --params "$work/s.params" --out "$work/bad.bin"
expect 2 "prove without --out" "$cuzk" prove --porep "$work/c1.json" --params "$work/s.params"
head -c 192 /dev/zero >"$work/zero.bin"
expect 2 "verify a broken C1" "$cuzk" verify --porep "$work/broken.json" --vk "$work/s.vk" --proof "$work/zero.bin"
head -c 100 /dev/zero >"$work/short.bin"
expect 2 "verify a proof of the wrong length" "$cuzk" verify --porep "$work/c1.json" --vk "$work/s.vk" \
  --proof "$work/short.bin"
expect_text "the wrong length is named" "so 192 are expected"
expect 2 "verify with the key of another circuit" "$cuzk" verify --porep "$work/c1.json" --vk "$work/s.vk" \
  --proof "$work/zero.bin"
expect 0 "help" "$cuzk" --help
expect_text "help names prove --porep" "prove    --porep C1"

if [ "${CUZK_SLOW_TESTS:-0}" = 1 ]; then
  expect 0 "setup porep:2KiB" "$cuzk" setup --circuit porep:2KiB --params "$work/p.params" --vk "$work/p.vk"
  expect 0 "prove" "$cuzk" prove --porep "$work/c1.json" --params "$work/p.params" --vk "$work/p.vk" \
    --out "$work/proof.bin" --trusted
  expect_text "progress per partition" "partition 1/1 finished and self-verified"
  expect 0 "verify" "$cuzk" verify --porep "$work/c1.json" --vk "$work/p.vk" --proof "$work/proof.bin"
  expect 0 "prove the envelope on the CPU" "$cuzk" prove --porep "$work/c1-env.json" --params "$work/p.params" \
    --out "$work/proof-env.bin" --backend cpu --trusted
  expect 0 "verify the envelope's proof" "$cuzk" verify --porep "$work/c1-env.json" --vk "$work/p.vk" \
    --proof "$work/proof-env.bin"
  expect 1 "verify against another sector's C1" "$cuzk" verify --porep "$work/c1-env.json" --vk "$work/p.vk" \
    --proof "$work/proof.bin"
  cp "$work/proof.bin" "$work/flip.bin"
  flip_bit "$work/flip.bin" 191
  expect 1 "verify a flipped proof" "$cuzk" verify --porep "$work/c1.json" --vk "$work/p.vk" --proof "$work/flip.bin"
  cat "$work/proof.bin" "$work/proof.bin" >"$work/double.bin"
  expect 2 "verify two proofs for one partition" "$cuzk" verify --porep "$work/c1.json" --vk "$work/p.vk" \
    --proof "$work/double.bin"
else
  echo "porep_cli: setup, prove and verify of 2 KiB skipped (minutes of CPU; CUZK_SLOW_TESTS=1 runs them)"
fi

summary porep_cli
