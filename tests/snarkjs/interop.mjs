// Oracle driver for cuzk's snarkjs interoperability test (tests/formats/test_snarkjs_interop.c).
//
//   node interop.mjs setup <dir> <x> <a> <b>
//       Compiles circuits/mulchain.circom for bls12381 with circom2, runs a small powers-of-tau ceremony
//       and a Groth16 phase-2 contribution, computes the witness for the inputs (decimal strings) and a
//       snarkjs proof. Writes into <dir>: circuit.zkey, witness.wtns, verification_key.json,
//       snarkjs_proof.json, snarkjs_public.json (plus the intermediate files).
//   node interop.mjs fixtures <dir>
//       setup with x = 3, a = 4, b = 5 in a temporary directory, then copies the five files the unit tests read
//       (circuit.zkey, witness.wtns and the three JSON files) into <dir>: how tests/snarkjs/fixtures was made.
//   node interop.mjs verify <verification_key.json> <public.json> <proof.json> [<public.json> <proof.json> ...]
//       snarkjs groth16 verify for each (public, proof) pair: one line VALID or INVALID per pair, in order.
//       Exits 0 when all are valid, 1 when one is not, 2 on any error.
//
// Everything is done through the snarkjs API in one process (loading the curve once keeps it fast).
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as snarkjs from "snarkjs";

const here = dirname(fileURLToPath(import.meta.url));
const PTAU_POWER = 5; // 2^5 >= the circuit's 2 * domain needs (domain 16)

async function setup(dir, x, a, b) {
    mkdirSync(dir, { recursive: true });
    const circom = join(here, "node_modules", ".bin", "circom2");
    execFileSync(circom, [join(here, "circuits", "mulchain.circom"), "--r1cs", "--wasm", "-p", "bls12381", "-o", dir],
                 { stdio: ["ignore", "ignore", "inherit"] });
    const curve = await snarkjs.curves.getCurveFromName("bls12381");
    const p = (f) => join(dir, f);
    const entropy = () => randomBytes(32).toString("hex");
    await snarkjs.powersOfTau.newAccumulator(curve, PTAU_POWER, p("pot_0.ptau"));
    await snarkjs.powersOfTau.contribute(p("pot_0.ptau"), p("pot_1.ptau"), "cuzk test", entropy());
    await snarkjs.powersOfTau.preparePhase2(p("pot_1.ptau"), p("pot_final.ptau"));
    await snarkjs.zKey.newZKey(p("mulchain.r1cs"), p("pot_final.ptau"), p("circuit_0.zkey"));
    // A phase-2 contribution makes delta differ from gamma (both are the generator after newZKey).
    await snarkjs.zKey.contribute(p("circuit_0.zkey"), p("circuit.zkey"), "cuzk test", entropy());
    const vk = await snarkjs.zKey.exportVerificationKey(p("circuit.zkey"));
    writeFileSync(p("verification_key.json"), JSON.stringify(vk, null, 1));
    await snarkjs.wtns.calculate({ x, a, b }, p("mulchain_js/mulchain.wasm"), p("witness.wtns"));
    const { proof, publicSignals } = await snarkjs.groth16.prove(p("circuit.zkey"), p("witness.wtns"));
    writeFileSync(p("snarkjs_proof.json"), JSON.stringify(proof, null, 1));
    writeFileSync(p("snarkjs_public.json"), JSON.stringify(publicSignals, null, 1));
    await curve.terminate();
}

async function fixtures(out) {
    const dir = mkdtempSync(join(tmpdir(), "cuzk-fixtures-"));
    try {
        await setup(dir, "3", "4", "5");
        mkdirSync(out, { recursive: true });
        for (const f of ["circuit.zkey", "witness.wtns", "verification_key.json", "snarkjs_proof.json",
                         "snarkjs_public.json"])
            copyFileSync(join(dir, f), join(out, f));
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
}

async function verify(vkPath, ...pairs) {
    const vk = JSON.parse(readFileSync(vkPath, "utf8"));
    let rc = 0;
    for (let i = 0; i < pairs.length; i += 2) {
        const pub = JSON.parse(readFileSync(pairs[i], "utf8"));
        const proof = JSON.parse(readFileSync(pairs[i + 1], "utf8"));
        const ok = await snarkjs.groth16.verify(vk, pub, proof);
        console.log(ok ? "VALID" : "INVALID");
        if (!ok) rc = 1;
    }
    return rc;
}

const [cmd, ...args] = process.argv.slice(2);
try {
    let rc = 0;
    if (cmd === "setup" && args.length === 4) await setup(...args);
    else if (cmd === "fixtures" && args.length === 1) await fixtures(args[0]);
    else if (cmd === "verify" && args.length >= 3 && args.length % 2 === 1) rc = await verify(...args);
    else {
        console.error("usage: interop.mjs setup <dir> <x> <a> <b> | fixtures <dir> | verify <vk.json> (<public.json> <proof.json>)...");
        rc = 2;
    }
    process.exit(rc);
} catch (e) {
    console.error("interop.mjs:", e && e.stack ? e.stack : e);
    process.exit(2);
}
