#!/usr/bin/env bash
# Filecoin's published parameter files with the cuzk command: circuit-info's names and hash, verify-seal from a
# sector's public values (bad input refused always; with CUZK_SLOW_TESTS=1 a 2 KiB sector sealed, proved with
# cuzk's own parameters (a setup of ~1 minute), verified by verify-seal and verify --porep alike, and each public
# value changed rejected), the seal regression records when the published .vk of their size is in
# $FIL_PROOFS_PARAMETER_CACHE, and params check on small fake directories.
# Usage: params_cli.sh CUZK_BINARY DATA_DIR
set -u
cuzk=$1
data=$2
. "$(dirname "$0")/../tools/checks.sh"

porep2k=v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f

expect 0 "circuit-info porep:2KiB --hash" "$cuzk" circuit-info --circuit porep:2KiB --hash
expect_text "the published .params name" "params: $porep2k.params"
expect_text "the published .vk name" "vk: $porep2k.vk"
expect_text "a 64-digit hash" "hash: [0-9a-f]\{64\}$"
expect 0 "circuit-info porep:32GiB" "$cuzk" circuit-info --circuit porep:32GiB
expect_text "the 32 GiB name" "params: v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params"
expect 2 "circuit-info of an unknown size" "$cuzk" circuit-info --circuit porep:3KiB

# verify-seal: bad input is exit 2, with the reason.
expect 0 "seal 2 KiB with its public values" "$cuzk" porep seal --sector-size 2KiB --out "$work/c1.json" --seed 11 \
  --info "$work/info.json"
expect 0 "setup of a small synthetic circuit" "$cuzk" setup --circuit synthetic:k=8 --params "$work/s.params" \
  --vk "$work/s.vk"
head -c 192 /dev/zero >"$work/zero.bin"
expect 2 "verify-seal without --proof" "$cuzk" verify-seal --info "$work/info.json"
expect 2 "verify-seal with the key of another circuit" "$cuzk" verify-seal --info "$work/info.json" \
  --proof "$work/zero.bin" --vk "$work/s.vk"
expect_text "the key is named as another circuit's" "the key of another circuit"
sed 's/"comm_d": "[0-9a-f]*"/"comm_d": "12"/' "$work/info.json" >"$work/bad.json"
expect 2 "verify-seal with a short comm_d" "$cuzk" verify-seal --info "$work/bad.json" --proof "$work/zero.bin" \
  --vk "$work/s.vk"
expect_text "the short field is named" "comm_d"
sed 's/, "seed": "[0-9a-f]*"//' "$work/info.json" >"$work/bad.json"
expect 2 "verify-seal without a seed" "$cuzk" verify-seal --info "$work/bad.json" --proof "$work/zero.bin" \
  --vk "$work/s.vk"
expect_text "the missing field is named" '"seed" is missing'
echo '{"registered_proof": 99}' >"$work/bad.json"
expect 2 "verify-seal with an unknown registered proof" "$cuzk" verify-seal --info "$work/bad.json" \
  --proof "$work/zero.bin" --vk "$work/s.vk"
echo '{"sector_size": 2048, "porep_id": "0500000000000000000000000000000000000000000000000000000000000000", "api_version": "1.3.0"}' >"$work/bad.json"
expect 2 "verify-seal with an unknown api version" "$cuzk" verify-seal --info "$work/bad.json" \
  --proof "$work/zero.bin" --vk "$work/s.vk"
echo '{"truncated": ' >"$work/bad.json"
expect 2 "verify-seal with broken JSON" "$cuzk" verify-seal --info "$work/bad.json" --proof "$work/zero.bin" \
  --vk "$work/s.vk"
mkdir -p "$work/empty"
expect 2 "verify-seal without a key in the directory" "$cuzk" verify-seal --info "$work/info.json" \
  --proof "$work/zero.bin" --params-dir "$work/empty"
expect_text "both names tried are said" "porep-2k.vk"

# The regression records: verified where the published .vk of their size is at hand, skipped (and said) otherwise.
for v in v16 v18; do
  expect 0 "seal regression records $v" "$cuzk" verify-seal --records "$data/filecoin/seal_regression_records-$v.json"
  expect_text "records $v: nothing invalid or bad" " 0 invalid, 0 bad"
  grep -o "skipped .*" "$work/out" | sed "s/^/params_cli: records $v: /"
done

# cuzk's own key of a size is never used for the records (they were proved with Filecoin's parameters).
mkdir -p "$work/own"
cp "$work/s.vk" "$work/own/porep-2k.vk"
expect 0 "records with only cuzk's own 2 KiB key" "$cuzk" verify-seal --records \
  "$data/filecoin/seal_regression_records-v16.json" --params-dir "$work/own"
expect_text "all skipped" "0 valid, 0 invalid, 0 bad; skipped 448 without the published .vk"

# params check on fake directories: a key under a published name whose circuit it is not, a truncated .params.
mkdir -p "$work/pd"
cp "$work/s.vk" "$work/pd/$porep2k.vk"
head -c 1000 "$work/s.params" >"$work/pd/$porep2k.params"
expect 1 "params check finds the wrong files" "$cuzk" params check "$work/pd" --manifest "$data/filecoin/parameters.json"
expect_text "the key's input count is wrong" "BAD $porep2k.vk:.* the circuit has 40 inputs"
expect_text "the digest is wrong" "digest [0-9a-f]*, parameters.json says dc1ade9929ade1708238f155343044ac"
expect_text "the truncated .params" "BAD $porep2k.params:.*which run to byte 1060 of 1000"
expect 0 "params check of an empty directory" "$cuzk" params check "$work/empty" --manifest "$data/filecoin/parameters.json"
expect_text "nothing checked" "0 files in .* checked, 0 bad"
expect 2 "params check without a manifest" "$cuzk" params check "$work/empty"

if [ "${CUZK_SLOW_TESTS:-0}" = 1 ]; then
  expect 0 "setup porep:2KiB" "$cuzk" setup --circuit porep:2KiB --params "$work/porep-2k.params" --vk "$work/porep-2k.vk"
  expect 0 "prove" "$cuzk" prove --porep "$work/c1.json" --params "$work/porep-2k.params" --out "$work/proof.bin" \
    --backend cpu --trusted
  expect 0 "verify --porep" "$cuzk" verify --porep "$work/c1.json" --vk "$work/porep-2k.vk" --proof "$work/proof.bin"
  expect 0 "verify-seal from the public values" "$cuzk" verify-seal --info "$work/info.json" --proof "$work/proof.bin" \
    --vk "$work/porep-2k.vk"
  expect_text "valid" "valid: 2KiB interactive PoRep"
  expect 0 "verify-seal finds cuzk's own key by name" "$cuzk" verify-seal --info "$work/info.json" \
    --proof "$work/proof.bin" --params-dir "$work"
  for key in comm_r comm_d prover_id ticket seed; do
    # The first hex digit is the high nibble of the lowest byte: any change keeps the value below r.
    sed "s/\"$key\": \"0/\"$key\": \"X/; s/\"$key\": \"[1-9a-f]/\"$key\": \"0/; s/\"$key\": \"X/\"$key\": \"1/" \
      "$work/info.json" >"$work/changed.json"
    expect 1 "verify-seal rejects a changed $key" "$cuzk" verify-seal --info "$work/changed.json" \
      --proof "$work/proof.bin" --vk "$work/porep-2k.vk"
    cmp -s "$work/info.json" "$work/changed.json" && { failed=$((failed + 1)); echo "FAIL: $key was not changed"; }
  done
  sed 's/"sector_id": \([0-9]*\)[0-9]/"sector_id": \10/' "$work/info.json" >"$work/changed.json"
  cmp -s "$work/info.json" "$work/changed.json" &&
    sed 's/"sector_id": \([0-9]*\)[0-9]/"sector_id": \11/' "$work/info.json" >"$work/changed.json"
  expect 1 "verify-seal rejects a changed sector_id" "$cuzk" verify-seal --info "$work/changed.json" \
    --proof "$work/proof.bin" --vk "$work/porep-2k.vk"
  sed 's/"registered_proof": 5/"registered_proof": 0/' "$work/info.json" >"$work/changed.json"
  expect 1 "verify-seal rejects another api version (V1 graph)" "$cuzk" verify-seal --info "$work/changed.json" \
    --proof "$work/proof.bin" --vk "$work/porep-2k.vk"
  cp "$work/proof.bin" "$work/flip.bin"
  flip_bit "$work/flip.bin" 100
  expect 1 "verify-seal rejects a changed proof" "$cuzk" verify-seal --info "$work/info.json" --proof "$work/flip.bin" \
    --vk "$work/porep-2k.vk"
  # params check: cuzk's own 2 KiB files under the published names, against a manifest of their digests.
  mkdir -p "$work/pub"
  ln -s "$work/porep-2k.params" "$work/pub/$porep2k.params"
  ln -s "$work/porep-2k.vk" "$work/pub/$porep2k.vk"
  printf '{"%s.params": {"digest": "%s", "sector_size": 2048}, "%s.vk": {"digest": "%s", "sector_size": 2048}}\n' \
    "$porep2k" "$(b2sum "$work/porep-2k.params" | cut -c1-32)" "$porep2k" "$(b2sum "$work/porep-2k.vk" | cut -c1-32)" \
    >"$work/pub/parameters.json"
  expect 0 "params check of cuzk's own 2 KiB files" "$cuzk" params check "$work/pub"
  expect_text "the .params matches the circuit" "ok  $porep2k.params: 1114707768 bytes, digest and sections match"
  expect_text "the .vk matches" "ok  $porep2k.vk: 4708 bytes"
  # selftest with cuzk's own 2 KiB parameters in the directory: it says the published ones are missing.
  expect 0 "selftest" "$cuzk" selftest --params-dir "$work" --records "$data/filecoin/seal_regression_records-v16.json"
  expect_text "the published parameters' absence is said" "skip proving with the published 2 KiB parameters"
  expect_text "proved" "ok   prove the sector on the CPU"
  expect_text "verified from the public values" "ok   verify-seal from the public values with the .vk"
  expect_text "passed" "selftest: passed"
else
  echo "params_cli: 2 KiB setup, prove and verify-seal skipped (a minute of CPU; CUZK_SLOW_TESTS=1 runs them)"
fi

summary params_cli
