#!/usr/bin/env bash
# The cuzk command end to end: setup, prove, verify and inspect, for bellperson
# files and snarkjs files, and the exit codes (0 valid, 1 invalid, 2 bad input).
# Usage: cli.sh CUZK_BINARY SNARKJS_FIXTURES_DIR
set -u
cuzk=$1
fixtures=$2
. "$(dirname "$0")/checks.sh"

spec=synthetic:k=8,seed=5
expect 0 "setup" "$cuzk" setup --circuit "$spec" --params "$work/c.params" --vk "$work/c.vk" --threads 2
expect 0 "prove" "$cuzk" prove --circuit "$spec" --params "$work/c.params" --proof "$work/p.bin" --public "$work/pub.json"
expect 0 "verify with public.json" "$cuzk" verify --vk "$work/c.vk" --proof "$work/p.bin" --public "$work/pub.json"
expect 0 "verify with the circuit" "$cuzk" verify --vk "$work/c.vk" --proof "$work/p.bin" --circuit "$spec"
expect 1 "verify against another witness" "$cuzk" verify --vk "$work/c.vk" --proof "$work/p.bin" --circuit synthetic:k=8,seed=6
# a flipped bit in C's x coordinate
cp "$work/p.bin" "$work/flip.bin"
flip_bit "$work/flip.bin" 191
expect 1 "verify a flipped proof" "$cuzk" verify --vk "$work/c.vk" --proof "$work/flip.bin" --public "$work/pub.json"
head -c 100 "$work/p.bin" >"$work/short.bin"
expect 2 "verify a truncated proof file" "$cuzk" verify --vk "$work/c.vk" --proof "$work/short.bin" --public "$work/pub.json"
head -c 500 "$work/c.vk" >"$work/short.vk"
expect 2 "verify with a truncated vk" "$cuzk" verify --vk "$work/short.vk" --proof "$work/p.bin" --public "$work/pub.json"
expect 2 "verify with a missing file" "$cuzk" verify --vk "$work/none.vk" --proof "$work/p.bin" --public "$work/pub.json"
echo '["1", "2"' >"$work/broken.json"
expect 2 "verify with malformed public inputs" "$cuzk" verify --vk "$work/c.vk" --proof "$work/p.bin" --public "$work/broken.json"
expect 2 "unknown option" "$cuzk" prove --bogus
expect 2 "unknown command" "$cuzk" frobnicate
expect 0 "help" "$cuzk" --help
expect 0 "inspect" "$cuzk" inspect "$work/c.params" "$work/c.vk" "$work/p.bin" "$work/pub.json"
expect 2 "inspect a truncated vk" "$cuzk" inspect "$work/short.vk"

# snarkjs files: the committed fixtures were made by snarkjs itself
expect 0 "prove a zkey" "$cuzk" prove --zkey "$fixtures/circuit.zkey" --wtns "$fixtures/witness.wtns" \
  --proof "$work/proof.json" --public "$work/public.json"
expect 0 "verify our snarkjs proof" "$cuzk" verify --vk "$fixtures/verification_key.json" --proof "$work/proof.json" \
  --public "$work/public.json"
expect 0 "verify snarkjs' proof" "$cuzk" verify --vk "$fixtures/verification_key.json" \
  --proof "$fixtures/snarkjs_proof.json" --public "$fixtures/snarkjs_public.json"
expect 0 "prove a zkey on the CPU" "$cuzk" prove --zkey "$fixtures/circuit.zkey" --wtns "$fixtures/witness.wtns" \
  --proof "$work/proof-cpu.json" --backend cpu
expect 0 "verify the CPU's proof" "$cuzk" verify --vk "$fixtures/verification_key.json" \
  --proof "$work/proof-cpu.json" --public "$work/public.json"
expect 2 "prove a zkey with an unknown backend" "$cuzk" prove --zkey "$fixtures/circuit.zkey" \
  --wtns "$fixtures/witness.wtns" --proof "$work/x.json" --backend tpu
sed 's/"\([0-9]*\)"$/"1\1"/' "$work/public.json" >"$work/public2.json"
if cmp -s "$work/public.json" "$work/public2.json"; then
  failed=$((failed + 1))
  echo "FAIL: could not alter public.json"
fi
expect 1 "verify with a changed public input" "$cuzk" verify --vk "$fixtures/verification_key.json" \
  --proof "$work/proof.json" --public "$work/public2.json"
expect 0 "inspect snarkjs files" "$cuzk" inspect "$fixtures/circuit.zkey" "$fixtures/witness.wtns" \
  "$fixtures/verification_key.json" "$work/proof.json"

# Filecoin PoRep test data
expect 0 "porep seal 2KiB" "$cuzk" porep seal --sector-size 2KiB --out "$work/c1.json" --seed 3
expect 0 "porep check-c1" "$cuzk" porep check-c1 "$work/c1.json"
expect 0 "porep seal 2KiB envelope" "$cuzk" porep seal --sector-size 2KiB --out "$work/env.json" --envelope
expect 0 "porep check-c1 envelope" "$cuzk" porep check-c1 "$work/env.json"
sed 's/"comm_r":\[\([0-9]*\)/"comm_r":[7/' "$work/c1.json" >"$work/bad-c1.json"
expect 1 "porep check-c1 with a changed comm_r" "$cuzk" porep check-c1 "$work/bad-c1.json"
head -c 5000 "$work/c1.json" >"$work/short-c1.json"
expect 2 "porep check-c1 truncated" "$cuzk" porep check-c1 "$work/short-c1.json"
expect 2 "porep seal of an unknown size" "$cuzk" porep seal --sector-size 3KiB --out "$work/x.json"

expect 0 "circuit-info porep:2KiB" "$cuzk" circuit-info --circuit porep:2KiB
if ! grep -q "2687921 constraints, 40 inputs" "$work/out"; then
  failed=$((failed + 1))
  echo "FAIL: circuit-info porep:2KiB printed: $(cat "$work/out")"
fi
expect 2 "circuit-info of an unknown size" "$cuzk" circuit-info --circuit porep:3KiB

summary cli
