#!/usr/bin/env bash
# PoSt test data with the cuzk command: porep seal --sector-dir, post vanilla from the sealed sectors, post
# synth-vanilla of 32 GiB, post check-vanilla of both, and the refusals (exit 2 bad input, 1 invalid proofs).
# Usage: post_cli.sh CUZK_BINARY
set -u
cuzk=$1
. "$(dirname "$0")/checks.sh"
r=0102030405060708091011121314151617181920212223242526272829303132

expect 0 "seal 2 KiB with a sector directory" "$cuzk" porep seal --sector-size 2KiB --out "$work/c1.json" --seed 3 \
  --sector-dir "$work/s1"
for f in sealed unsealed sector.json; do
  if [ -f "$work/s1/$f" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: no $f"; fi
done
if [ "$(wc -c <"$work/s1/sealed")" -eq 2048 ] && [ "$(wc -c <"$work/s1/unsealed")" -eq 2048 ]; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAIL: sealed/unsealed are not 2048 bytes"
fi
expect 0 "the sector.json fields" grep -q '"registered_seal_proof": 5, "sector_id": [0-9]*, "prover_id": "[0-9a-f]\{64\}"' \
  "$work/s1/sector.json"
expect 0 "a second sector" "$cuzk" porep seal --sector-size 2KiB --out "$work/c2.json" --seed 4 --sector-dir "$work/s2"

expect 0 "WindowPoSt vanilla of two sealed sectors" "$cuzk" post vanilla --sector-dir "$work/s1" \
  --sector-dir "$work/s2" --registered-proof 10 --randomness "$r" --out "$work/w.json"
expect 0 "the file is a JSON array of two base64 strings" grep -q '^\["[A-Za-z0-9+/=]*","[A-Za-z0-9+/=]*"\]$' \
  "$work/w.json"
expect 0 "INFO.json beside it" grep -q '"registered_proof": 10, "randomness": "'"$r"'", "prover_id": "[0-9a-f]\{64\}", "sectors": \[{"sector_id"' \
  "$work/INFO.json"
expect 0 "check-vanilla with the randomness" "$cuzk" post check-vanilla "$work/w.json" --registered-proof 10 \
  --randomness "$r"
expect_text "every challenge checked" "every challenge matches the randomness"
expect 1 "another randomness: the challenges do not match" "$cuzk" post check-vanilla "$work/w.json" \
  --registered-proof 10 --randomness 0202030405060708091011121314151617181920212223242526272829303132
expect_text "the mismatch is named" "sector 0 (id [0-9]*): inclusion proof 0: path index"
expect 1 "Window V1 derives other challenges for the second sector" "$cuzk" post check-vanilla "$work/w.json" \
  --registered-proof 5 --randomness "$r"
expect_text "named in sector 1" "sector 1 (id"
expect 2 "the proofs of 2 KiB read as 32 GiB" "$cuzk" post check-vanilla "$work/w.json" --registered-proof 13
expect_text "the shape is named" "variant Single, but 32GiB sectors have Sub"
expect 0 "WinningPoSt vanilla of one sector" "$cuzk" post vanilla --sector-dir "$work/s1" --registered-proof 0 \
  --randomness "$r" --out "$work/win.json" --info "$work/win-info.json"
expect 0 "Winning check" "$cuzk" post check-vanilla "$work/win.json" --registered-proof 0 --randomness "$r"
expect 2 "WinningPoSt of two sectors" "$cuzk" post vanilla --sector-dir "$work/s1" --sector-dir "$work/s2" \
  --registered-proof 0 --randomness "$r" --out "$work/bad.json"

# a corrupted replica: TreeR no longer matches comm_r_last
cp -r "$work/s1" "$work/s3"
flip_bit "$work/s3/sealed" 100
expect 2 "a corrupted replica" "$cuzk" post vanilla --sector-dir "$work/s3" --registered-proof 10 --randomness "$r" \
  --out "$work/bad.json"
expect_text "the mismatch is named" "TreeR root is not sector.json's comm_r_last"
head -c 1000 "$work/s1/sealed" >"$work/s3/sealed"
expect 2 "a short replica" "$cuzk" post vanilla --sector-dir "$work/s3" --registered-proof 10 --randomness "$r" \
  --out "$work/bad.json"
expect_text "the size is named" "has 1000 bytes, expected 2048"
expect 2 "a missing sector directory" "$cuzk" post vanilla --sector-dir "$work/none" --registered-proof 10 \
  --randomness "$r" --out "$work/bad.json"
expect 2 "a 2 KiB sector with a 32 GiB proof type" "$cuzk" post vanilla --sector-dir "$work/s1" \
  --registered-proof 13 --randomness "$r" --out "$work/bad.json"
expect 2 "an unknown registered proof" "$cuzk" post vanilla --sector-dir "$work/s1" --registered-proof 15 \
  --randomness "$r" --out "$work/bad.json"
expect 2 "randomness not below r" "$cuzk" post vanilla --sector-dir "$work/s1" --registered-proof 10 \
  --randomness ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff --out "$work/bad.json"
expect 2 "short randomness" "$cuzk" post vanilla --sector-dir "$work/s1" --registered-proof 10 --randomness 0102 \
  --out "$work/bad.json"
if [ -e "$work/bad.json" ]; then
  failed=$((failed + 1))
  echo "FAIL: a refused command wrote its output"
else
  passed=$((passed + 1))
fi

expect 0 "synthetic 32 GiB WindowPoSt of 3 sectors" "$cuzk" post synth-vanilla --sector-size 32GiB --sectors 3 \
  --registered-proof 13 --randomness "$r" --out "$work/synth.json" --info "$work/synth-info.json"
expect 0 "its check" "$cuzk" post check-vanilla "$work/synth.json" --registered-proof 13 --randomness "$r"
expect 0 "synthetic 64 GiB WinningPoSt" "$cuzk" post synth-vanilla --sector-size 64GiB --sectors 1 \
  --registered-proof 4 --randomness "$r" --out "$work/synth64.json"
expect 0 "its check" "$cuzk" post check-vanilla "$work/synth64.json" --registered-proof 4 --randomness "$r"
expect 2 "synth with a size that is not the proof type's" "$cuzk" post synth-vanilla --sector-size 64GiB \
  --sectors 1 --registered-proof 13 --randomness "$r" --out "$work/x.json"
expect 2 "more sectors than a partition" "$cuzk" post synth-vanilla --sector-size 32GiB --sectors 2350 \
  --registered-proof 13 --randomness "$r" --out "$work/x.json"
echo '["AAAA"]' >"$work/junk.json"
expect 2 "check-vanilla of junk" "$cuzk" post check-vanilla "$work/junk.json" --registered-proof 13
expect_text "the truncation is named" "sector 0: sector_id: truncated: 8 bytes needed, 3 left"
expect 2 "unknown subcommand" "$cuzk" post frobnicate
expect 0 "help" "$cuzk" post --help
expect_text "help names synth-vanilla" "synth-vanilla --sector-size"

summary post_cli
