#!/usr/bin/env bash
# WindowPoSt and WinningPoSt with the cuzk command, end to end: two sealed 2 KiB sectors, their vanilla proofs
# (cuzk post vanilla), setup --circuit wpost:2KiB, prove --post, verify-post from INFO.json alone, and the exit
# codes (0 valid, 1 invalid, 2 bad input) of changed proofs, inputs and keys. WinningPoSt (a 90 k-constraint setup)
# runs with CUZK_SLOW_TESTS=1.
# Usage: post_prove_cli.sh CUZK_BINARY
set -u
cuzk=$1
. "$(dirname "$0")/checks.sh"
r=0102030405060708091011121314151617181920212223242526272829303132

expect 0 "circuit-info wpost:32GiB" "$cuzk" circuit-info --circuit wpost:32GiB
expect_text "the 32 GiB WindowPoSt count" "2349 sectors x 10 challenges: 125279217 constraints, 25840 inputs"
expect_text "the published 32 GiB WindowPoSt file (parameters.json)" \
  "params: v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.params"
expect 0 "circuit-info wpost:2KiB --hash" "$cuzk" circuit-info --circuit wpost:2KiB --hash
expect_text "bellperson's hash of the WindowPoSt 2 KiB circuit" "^hash: [0-9a-f]\{64\}$"
expect 0 "circuit-info winning:32GiB" "$cuzk" circuit-info --circuit winning:32GiB
expect_text "the 32 GiB WinningPoSt count" "66 sectors x 1 challenges: 370590 constraints, 133 inputs"
expect 2 "circuit-info of a size without PoSt" "$cuzk" circuit-info --circuit wpost:4KiB

expect 0 "seal sector 1" "$cuzk" porep seal --sector-size 2KiB --out "$work/c1.json" --seed 5 --sector-dir "$work/s1"
expect 0 "seal sector 2" "$cuzk" porep seal --sector-size 2KiB --out "$work/c2.json" --seed 6 --sector-dir "$work/s2"
expect 0 "WindowPoSt vanilla proofs" "$cuzk" post vanilla --sector-dir "$work/s1" --sector-dir "$work/s2" \
  --registered-proof 10 --randomness "$r" --out "$work/w.json" --info "$work/w-info.json"
expect 0 "setup wpost:2KiB" "$cuzk" setup --circuit wpost:2KiB --params "$work/w.params" --vk "$work/w.vk" --backend cpu
expect 0 "prove --post" "$cuzk" prove --post "$work/w.json" --info "$work/w-info.json" --params "$work/w.params" \
  --vk "$work/w.vk" --out "$work/w.proof" --backend cpu
expect 0 "verify-post" "$cuzk" verify-post --info "$work/w-info.json" --proof "$work/w.proof" --vk "$work/w.vk"
expect_text "valid" "^valid"

# A changed proof byte, other randomness, another comm_r: invalid (1).
cp "$work/w.proof" "$work/bad.proof"
flip_bit "$work/bad.proof" 150
expect 1 "a changed proof byte" "$cuzk" verify-post --info "$work/w-info.json" --proof "$work/bad.proof" --vk "$work/w.vk"
sed "s/\"randomness\": \"01/\"randomness\": \"03/" "$work/w-info.json" >"$work/other-r.json"
expect 1 "other randomness" "$cuzk" verify-post --info "$work/other-r.json" --proof "$work/w.proof" --vk "$work/w.vk"
sed "s/\"sector_id\": [0-9]*/\"sector_id\": 1/" "$work/w-info.json" >"$work/other-id.json"
expect 1 "other sector ids" "$cuzk" verify-post --info "$work/other-id.json" --proof "$work/w.proof" --vk "$work/w.vk"
# Bad input (2): a short proof, broken INFO, a key of another circuit, an unknown proof type.
head -c 100 "$work/w.proof" >"$work/short.proof"
expect 2 "a short proof" "$cuzk" verify-post --info "$work/w-info.json" --proof "$work/short.proof" --vk "$work/w.vk"
expect_text "the length is named" "a PoSt proof has 192"
echo '{"registered_proof": 10, "randomness": "01"}' >"$work/broken.json"
expect 2 "INFO with short randomness" "$cuzk" verify-post --info "$work/broken.json" --proof "$work/w.proof" --vk "$work/w.vk"
expect_text "the field is named" "randomness"
sed 's/"registered_proof": 10/"registered_proof": 99/' "$work/w-info.json" >"$work/unknown.json"
expect 2 "an unknown registered proof" "$cuzk" verify-post --info "$work/unknown.json" --proof "$work/w.proof" --vk "$work/w.vk"
sed 's/"registered_proof": 10/"registered_proof": 0/' "$work/w-info.json" >"$work/winning-info.json"
expect 2 "Window INFO of two sectors read as Winning" "$cuzk" verify-post --info "$work/winning-info.json" \
  --proof "$work/w.proof" --vk "$work/w.vk"
expect 0 "setup of another circuit" "$cuzk" setup --circuit synthetic:k=8 --params "$work/s.params" --vk "$work/s.vk"
expect 2 "a key of another circuit" "$cuzk" verify-post --info "$work/w-info.json" --proof "$work/w.proof" --vk "$work/s.vk"
expect_text "the mismatch is named" "a key of another circuit"
expect 2 "prove with parameters of another circuit" "$cuzk" prove --post "$work/w.json" --info "$work/w-info.json" \
  --params "$work/s.params" --out "$work/x.proof" --backend cpu
expect_text "the mismatch is named" "parameters do not fit"
# Vanilla proofs that do not fit the INFO's randomness: refused before proving, naming the sector.
expect 1 "prove with other randomness" "$cuzk" prove --post "$work/w.json" --info "$work/other-r.json" \
  --params "$work/w.params" --out "$work/x.proof" --backend cpu
expect_text "the challenge is named" "sector 0 (id [0-9]*): challenge 0: the path is of leaf"
if [ -e "$work/x.proof" ]; then
  failed=$((failed + 1))
  echo "FAIL: a refused prove wrote its output"
else
  passed=$((passed + 1))
fi

# Window V1 (API 1.0) of one sector (padded) shares the parameters.
expect 0 "Window V1 vanilla of one sector" "$cuzk" post vanilla --sector-dir "$work/s2" --registered-proof 5 \
  --randomness "$r" --out "$work/w1.json" --info "$work/w1-info.json"
expect 0 "prove Window V1" "$cuzk" prove --post "$work/w1.json" --info "$work/w1-info.json" \
  --params "$work/w.params" --out "$work/w1.proof" --backend cpu
expect 0 "verify Window V1" "$cuzk" verify-post --info "$work/w1-info.json" --proof "$work/w1.proof" --vk "$work/w.vk"
expect 1 "the V1 proof is not the V1_1 proof" "$cuzk" verify-post --info "$work/w-info.json" --proof "$work/w1.proof" \
  --vk "$work/w.vk"

if [ "${CUZK_SLOW_TESTS:-0}" = 1 ]; then
  expect 0 "WinningPoSt vanilla" "$cuzk" post vanilla --sector-dir "$work/s1" --registered-proof 0 \
    --randomness "$r" --out "$work/g.json" --info "$work/g-info.json"
  expect 0 "setup winning:2KiB" "$cuzk" setup --circuit winning:2KiB --params "$work/g.params" --vk "$work/g.vk" \
    --backend cpu
  expect 0 "prove WinningPoSt" "$cuzk" prove --post "$work/g.json" --info "$work/g-info.json" \
    --params "$work/g.params" --vk "$work/g.vk" --out "$work/g.proof" --backend cpu
  expect 0 "verify WinningPoSt" "$cuzk" verify-post --info "$work/g-info.json" --proof "$work/g.proof" --vk "$work/g.vk"
fi
expect 0 "help names verify-post" "$cuzk" --help
expect_text "verify-post in the help" "verify-post --info INFO.json"

summary post_prove_cli
