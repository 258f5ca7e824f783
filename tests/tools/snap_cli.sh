#!/usr/bin/env bash
# SnapDeals with the cuzk command: snap encode (random and sealed-sector), synth-vanilla, circuit-info counts,
# prove --snap and verify-snap exit codes (0 valid, 1 invalid, 2 bad input). The setup, prove and verify of a
# 1 KiB sector (minutes of CPU) run with CUZK_SLOW_TESTS=1; the others always.
# Usage: snap_cli.sh CUZK_BINARY
set -u
cuzk=$1
. "$(dirname "$0")/checks.sh"

expect 0 "circuit-info snap:32GiB" "$cuzk" circuit-info --circuit snap:32GiB
expect_text "32 GiB count as rust-fil-proofs" "81049499 constraints, 5 inputs"
expect_text "the published 32 GiB SnapDeals file (parameters.json)" \
  "params: v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params"
expect 0 "circuit-info snap:1KiB" "$cuzk" circuit-info --circuit snap:1KiB
expect_text "1 KiB count as rust-fil-proofs" "1248389 constraints"
expect 2 "circuit-info of a size without a circuit" "$cuzk" circuit-info --circuit snap:3KiB
expect 2 "setup of a size without a circuit" "$cuzk" setup --circuit snap:3KiB --params "$work/x.params" --vk "$work/x.vk"

expect 2 "setup of 32 GiB is refused on a small machine" "$cuzk" setup --circuit snap:32GiB --params "$work/x.params" \
  --vk "$work/x.vk"
expect_text "the refusal says why" "GiB of memory and this machine has"
expect 0 "encode a random 1 KiB sector" "$cuzk" snap encode --sector-size 1KiB --out "$work/e1" --seed 3
expect 0 "seal 2 KiB with a sector dir" "$cuzk" porep seal --sector-size 2KiB --out "$work/c1.json" \
  --sector-dir "$work/sd" --seed 5
expect 0 "encode the sealed 2 KiB sector" "$cuzk" snap encode --sector-size 2KiB --sector-dir "$work/sd" \
  --out "$work/e2"
comm_r=$(sed -n 's/.*"comm_r": "\([0-9a-f]*\)".*/\1/p' "$work/sd/sector.json")
if grep -q "\"comm_r_old\": \"$comm_r\"" "$work/e2/commitments.json"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAIL: comm_r_old of the encoded sector is not the sealed sector's comm_r"
fi
expect 2 "encode with a sector dir of another size" "$cuzk" snap encode --sector-size 1KiB --sector-dir "$work/sd" \
  --out "$work/e3"
flip_bit "$work/sd/sealed" 100
expect 2 "encode a corrupted sealed replica" "$cuzk" snap encode --sector-size 2KiB --sector-dir "$work/sd" \
  --out "$work/e3"
expect_text "the mismatch is named" "is not sector.json's comm_r"
expect 2 "encode of 32 GiB is refused" "$cuzk" snap encode --sector-size 32GiB --out "$work/e3"
expect 0 "synth-vanilla 8 MiB" "$cuzk" snap synth-vanilla --sector-size 8MiB --out "$work/s8" --seed 2

# Bad vanilla input is refused before any parameters are read (the params file does not exist).
printf '["AAAA"]' >"$work/bad.json"
expect 2 "prove with a malformed vanilla proof" "$cuzk" prove --snap "$work/bad.json" \
  --commitments "$work/e1/commitments.json" --params "$work/none.params" --out "$work/p.bin"
expect_text "the defect is named" "partition 0"
expect 2 "prove with proofs of another sector" "$cuzk" prove --snap "$work/e2/snap-vproof.json" \
  --commitments "$work/e1/commitments.json" --params "$work/none.params" --out "$work/p.bin"
first=$(sed -n 's/.*"comm_r_new": "\(.\).*/\1/p' "$work/e1/commitments.json")
other=f
[ "$first" = f ] && other=e
sed "s/\"comm_r_new\": \"./\"comm_r_new\": \"$other/" "$work/e1/commitments.json" >"$work/badc.json"
expect 2 "prove with a changed comm_r_new" "$cuzk" prove --snap "$work/e1/snap-vproof.json" \
  --commitments "$work/badc.json" --params "$work/none.params" --out "$work/p.bin"
expect 2 "verify-snap without a key" "$cuzk" verify-snap --commitments "$work/e1/commitments.json" \
  --proof "$work/p.bin" --vk "$work/none.vk"
expect 2 "verify-snap with a bad hex commitment" "$cuzk" verify-snap --sector-size 1KiB --comm-r-old 12 \
  --comm-r-new 12 --comm-d-new 12 --proof "$work/p.bin" --vk "$work/none.vk"

if [ "${CUZK_SLOW_TESTS:-0}" = 1 ]; then
  expect 0 "setup snap:1KiB" "$cuzk" setup --circuit snap:1KiB --params "$work/s.params" --vk "$work/s.vk" \
    --backend cpu
  expect 0 "prove the encoded 1 KiB sector" "$cuzk" prove --snap "$work/e1/snap-vproof.json" \
    --commitments "$work/e1/commitments.json" --params "$work/s.params" --out "$work/p.bin" --backend cpu
  expect 0 "verify-snap" "$cuzk" verify-snap --commitments "$work/e1/commitments.json" --proof "$work/p.bin" \
    --vk "$work/s.vk"
  expect 1 "verify-snap with a changed comm_r_new" "$cuzk" verify-snap --commitments "$work/badc.json" \
    --proof "$work/p.bin" --vk "$work/s.vk"
  cp "$work/p.bin" "$work/q.bin"
  flip_bit "$work/q.bin" 100
  expect 1 "verify-snap of a changed proof" "$cuzk" verify-snap --commitments "$work/e1/commitments.json" \
    --proof "$work/q.bin" --vk "$work/s.vk"
  expect 1 "verify-snap against another sector's commitments" "$cuzk" verify-snap --commitments "$work/e2/commitments.json" \
    --proof "$work/p.bin" --vk "$work/s.vk"
else
  echo "snap_cli: setup, prove and verify of 1 KiB skipped (minutes of CPU; CUZK_SLOW_TESTS=1 runs them)"
fi
summary snap_cli
