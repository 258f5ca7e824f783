// Writes BLS12-381 reference vectors computed with @noble/curves, for tests/oracle/test_oracle_bls.c.
//
//   node gen-vectors.mjs --seed S --count N [--pairing-count M] [--out FILE]
//
// Deterministic: the same seed, counts and noble version give the same file (own PRNG, no OS randomness).
// One vector per line, `<op> <args...> <result>`, all hex without 0x; lines starting with '#' are comments.
//   fp  : 48-byte big-endian canonical value         fr : 32-byte big-endian canonical value
//   fp2 : c1 || c0, each 48-byte big-endian          fp12: 12 fp, c0 before c1 at every level
//         (c0.c0.c0, c0.c0.c1, c0.c1.c0, ... c1.c2.c1), like fp12_to_bytes_be
//   g1, g2: uncompressed zcash encoding (96 / 192 bytes); g1c, g2c: compressed (48 / 96 bytes)
//   scalar: 32-byte big-endian integer, any value below 2^256 (not reduced mod r)
// Ops and their arguments:
//   fp_add|fp_sub|fp_mul a b r    fp_sqr|fp_neg|fp_inv a r    fp_sqrt a (r | none)    fp_legendre a (1 | -1 | 0)
//   fr_add|fr_sub|fr_mul a b r    fr_sqr|fr_inv a r
//   fp2_mul a b r                 fp2_sqr|fp2_inv a r         fp2_sqrt a (r | none)
//   g1_add|g2_add P Q R           g1_dbl|g1_neg|g2_dbl|g2_neg P R
//   g1_mul|g2_mul P k R           g1_enc|g2_enc P_uncompressed P_compressed
//   pairing P Q F                 pairing_prod n P1 Q1 ... Pn Qn F      (infinity in a pair contributes 1)
// sqrt results are one root; the other is its negation. The inverse of zero is recorded as zero (cuzk's
// convention; noble refuses it), and is the only vector not computed by noble.
import { bls12_381 as bls } from '@noble/curves/bls12-381.js';
import { readFileSync, writeFileSync } from 'node:fs';

const { Fp, Fr, Fp2, Fp12 } = bls.fields;
const G1 = bls.G1.Point;
const G2 = bls.G2.Point;
const P = Fp.ORDER;
const R = Fr.ORDER;

function parseArgs(argv) {
    const opts = { seed: null, count: 50, pairingCount: null, out: null };
    for (let i = 2; i < argv.length; i++) {
        const a = argv[i];
        const v = argv[i + 1];
        if (a === '--seed') opts.seed = BigInt(v);
        else if (a === '--count') opts.count = Number(v);
        else if (a === '--pairing-count') opts.pairingCount = Number(v);
        else if (a === '--out') opts.out = v;
        else throw new Error(`unknown argument ${a} (usage: --seed S --count N [--pairing-count M] [--out FILE])`);
        i++;
    }
    if (opts.seed === null) throw new Error('--seed S is required (an unsigned 64-bit integer)');
    if (!(opts.count >= 1)) throw new Error('--count must be a positive integer');
    if (opts.pairingCount === null) opts.pairingCount = opts.count;
    return opts;
}

// splitmix64: small, well known, and easy to reproduce anywhere.
const M64 = (1n << 64n) - 1n;
class Rng {
    constructor(seed) {
        this.s = BigInt.asUintN(64, seed);
    }
    next64() {
        this.s = (this.s + 0x9e3779b97f4a7c15n) & M64;
        let z = this.s;
        z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
        z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
        return z ^ (z >> 31n);
    }
    bits(n) {
        let v = 0n;
        for (let got = 0; got < n; got += 64) v = (v << 64n) | this.next64();
        return v & ((1n << BigInt(n)) - 1n);
    }
    below(m) {
        const n = m.toString(2).length;
        for (;;) {
            const v = this.bits(n);
            if (v < m) return v;
        }
    }
    int(n) {
        return Number(this.below(BigInt(n)));
    }
}

const hexN = (v, bytes) => v.toString(16).padStart(2 * bytes, '0');
const hfp = (v) => hexN(v, 48);
const hfr = (v) => hexN(v, 32);
const hfp2 = (v) => hfp(v.c1) + hfp(v.c0);
const hfp6 = (v) => hfp(v.c0.c0) + hfp(v.c0.c1) + hfp(v.c1.c0) + hfp(v.c1.c1) + hfp(v.c2.c0) + hfp(v.c2.c1);
const hfp12 = (v) => hfp6(v.c0) + hfp6(v.c1);
// noble encodes infinity only in its canonical projective form (0, 1, 0); computed infinities may differ.
const canon = (pt) => (pt.is0() ? pt.constructor.ZERO : pt);
const nobleU = (pt) => Buffer.from(canon(pt).toBytes(false)).toString('hex');
const nobleC = (pt) => Buffer.from(canon(pt).toBytes(true)).toString('hex');
// Uncompressed encoding of a point known to be in the subgroup. noble's toBytes re-checks the subgroup on
// every call, which would dominate the run time; the *_enc vectors use noble's encoder and check this one.
function hpt(pt) {
    const g1 = pt.constructor === G1;
    if (pt.is0()) return '40' + '00'.repeat(g1 ? 95 : 191);
    const { x, y } = pt.toAffine();
    return g1 ? hfp(x) + hfp(y) : hfp2(x) + hfp2(y);
}

// Values where carries, borrows and reductions are most likely to go wrong.
function edgeValues(m) {
    return [0n, 1n, 2n, m - 1n, m - 2n, (m - 1n) / 2n, (m + 1n) / 2n, (1n << 64n) - 1n, 1n << 64n, (1n << 255n) % m];
}

function main() {
    const opts = parseArgs(process.argv);
    const rng = new Rng(opts.seed);
    const N = opts.count;
    const NP = opts.pairingCount;
    const version = JSON.parse(readFileSync(new URL('./node_modules/@noble/curves/package.json', import.meta.url)))
        .version;
    const header = `# cuzk BLS12-381 vectors: seed ${opts.seed} count ${N} pairing-count ${NP}`;
    const lines = [`${header} @noble/curves ${version}`];
    const out = (...tok) => lines.push(tok.join(' '));

    const fpEdge = edgeValues(P);
    const frEdge = edgeValues(R);
    // One value in eight is an edge value.
    const fpVal = () => (rng.int(8) === 0 ? fpEdge[rng.int(fpEdge.length)] : rng.below(P));
    const frVal = () => (rng.int(8) === 0 ? frEdge[rng.int(frEdge.length)] : rng.below(R));
    const fp2Val = () => Fp2.create({ c0: fpVal(), c1: fpVal() });
    const fpNonzero = () => {
        for (;;) {
            const v = fpVal();
            if (v !== 0n) return v;
        }
    };
    const legendre = (a) => {
        if (a === 0n) return 0;
        return Fp.pow(a, (P - 1n) / 2n) === 1n ? 1 : -1;
    };

    // Fp
    for (let i = 0; i < N; i++) {
        const a = fpVal();
        const b = fpVal();
        out('fp_add', hfp(a), hfp(b), hfp(Fp.add(a, b)));
        out('fp_sub', hfp(a), hfp(b), hfp(Fp.sub(a, b)));
        out('fp_mul', hfp(a), hfp(b), hfp(Fp.mul(a, b)));
        out('fp_sqr', hfp(a), hfp(Fp.sqr(a)));
        out('fp_neg', hfp(a), hfp(Fp.neg(a)));
        const c = fpNonzero();
        out('fp_inv', hfp(c), hfp(Fp.inv(c)));
        out('fp_legendre', hfp(a), String(legendre(a)));
        // Alternate squares and non-squares so both answers are exercised evenly.
        if (i % 2 === 0) {
            const s = Fp.sqr(rng.below(P));
            out('fp_sqrt', hfp(s), hfp(Fp.sqrt(s)));
        } else {
            let s;
            do s = rng.below(P);
            while (legendre(s) !== -1);
            out('fp_sqrt', hfp(s), 'none');
        }
    }
    out('fp_inv', hfp(0n), hfp(0n));
    out('fp_sqrt', hfp(0n), hfp(0n));

    // Fr
    for (let i = 0; i < N; i++) {
        const a = frVal();
        const b = frVal();
        out('fr_add', hfr(a), hfr(b), hfr(Fr.add(a, b)));
        out('fr_sub', hfr(a), hfr(b), hfr(Fr.sub(a, b)));
        out('fr_mul', hfr(a), hfr(b), hfr(Fr.mul(a, b)));
        out('fr_sqr', hfr(a), hfr(Fr.sqr(a)));
        let c;
        do c = frVal();
        while (c === 0n);
        out('fr_inv', hfr(c), hfr(Fr.inv(c)));
    }
    out('fr_inv', hfr(0n), hfr(0n));

    // Fp2: an element is a square iff its norm c0^2 + c1^2 is a square in Fp.
    const fp2IsSquare = (a) => legendre(Fp.add(Fp.sqr(a.c0), Fp.sqr(a.c1))) !== -1;
    for (let i = 0; i < N; i++) {
        const a = fp2Val();
        const b = fp2Val();
        out('fp2_mul', hfp2(a), hfp2(b), hfp2(Fp2.mul(a, b)));
        out('fp2_sqr', hfp2(a), hfp2(Fp2.sqr(a)));
        let c;
        do c = fp2Val();
        while (Fp2.is0(c));
        out('fp2_inv', hfp2(c), hfp2(Fp2.inv(c)));
        if (i % 2 === 0) {
            // Include squares of pure-real and pure-imaginary elements: sqrt takes separate paths there.
            const x = fp2Val();
            const sel = rng.int(4);
            const y = sel === 0 ? Fp2.create({ c0: x.c0, c1: 0n }) : sel === 1 ? Fp2.create({ c0: 0n, c1: x.c1 }) : x;
            const s = Fp2.sqr(y);
            const r = Fp2.sqrt(s);
            if (!Fp2.eql(Fp2.sqr(r), s)) throw new Error('noble Fp2.sqrt returned a wrong root');
            out('fp2_sqrt', hfp2(s), hfp2(r));
        } else {
            let s;
            do s = Fp2.create({ c0: rng.below(P), c1: rng.below(P) });
            while (fp2IsSquare(s));
            out('fp2_sqrt', hfp2(s), 'none');
        }
    }
    out('fp2_inv', hfp2(Fp2.ZERO), hfp2(Fp2.ZERO));

    // Random subgroup points. A full scalar multiplication per point would dominate the run time, so a walk
    // mixes a few truly random multiples: each step doubles and adds one of them (pseudo-random, in the subgroup).
    function walker(G) {
        const bases = [];
        for (let i = 0; i < 8; i++) bases.push(G.BASE.multiply(1n + rng.below(R - 1n)));
        let s = G.BASE.multiply(1n + rng.below(R - 1n));
        return () => {
            s = s.double().add(bases[rng.int(bases.length)]);
            if (rng.int(4) === 0) s = s.negate();
            return s;
        };
    }
    const specialScalars = [0n, 1n, 2n, R - 1n, R, R + 1n, (1n << 255n) - 1n, (1n << 256n) - 1n];
    for (const [name, G] of [
        ['g1', G1],
        ['g2', G2],
    ]) {
        const rnd = walker(G);
        for (let i = 0; i < N; i++) {
            const p = rnd();
            let q;
            // Cover the exceptional cases of the addition law every few vectors.
            switch (i % 16) {
                case 1: q = p; break;
                case 3: q = p.negate(); break;
                case 5: q = G.ZERO; break;
                default: q = rnd();
            }
            const a = i % 16 === 7 ? G.ZERO : p;
            const b = i % 32 === 7 ? G.ZERO : q;
            out(`${name}_add`, hpt(a), hpt(b), hpt(a.add(b)));
            const d = i % 16 === 9 ? G.ZERO : rnd();
            out(`${name}_dbl`, hpt(d), hpt(d.double()));
            const n = i % 16 === 11 ? G.ZERO : rnd();
            out(`${name}_neg`, hpt(n), hpt(n.negate()));
            const m = rnd();
            const k = i < specialScalars.length ? specialScalars[i] : rng.bits(255);
            const km = k % R;
            out(`${name}_mul`, hpt(m), hfr(k), hpt(m.multiplyUnsafe(km)));
            const e = i % 16 === 13 ? G.ZERO : rnd();
            const u = nobleU(e);
            if (u !== hpt(e)) throw new Error('local uncompressed encoder disagrees with noble');
            out(`${name}_enc`, u, nobleC(e));
        }
    }

    // Pairings. Scalars are random; the bilinearity of noble's own result is checked on the first few.
    const g1r = walker(G1);
    const g2r = walker(G2);
    const base = bls.pairing(G1.BASE, G2.BASE);
    for (let i = 0; i < NP; i++) {
        const a = 1n + rng.below(R - 1n);
        const b = 1n + rng.below(R - 1n);
        const p = G1.BASE.multiply(a);
        const q = G2.BASE.multiply(b);
        const f = bls.pairing(p, q);
        if (i < 2 && !Fp12.eql(f, Fp12.pow(base, Fr.mul(a, b)))) throw new Error('noble pairing is not bilinear');
        out('pairing', hpt(p), hpt(q), hfp12(f));
    }
    for (let i = 0; i < NP; i++) {
        const n = 1 + rng.int(4);
        const pairs = [];
        if (i % 4 === 1) {
            // e(aP, Q) * e(-P, aQ) == 1: the shape of a Groth16 verification.
            const a = 1n + rng.below(R - 1n);
            const p = g1r();
            const q = g2r();
            pairs.push({ g1: p.multiplyUnsafe(a), g2: q }, { g1: p.negate(), g2: q.multiplyUnsafe(a) });
        } else {
            for (let j = 0; j < n; j++) pairs.push({ g1: g1r(), g2: g2r() });
            if (i % 4 === 3) {
                const pr = pairs[rng.int(n)];
                if (rng.int(2)) pr.g1 = G1.ZERO;
                else pr.g2 = G2.ZERO;
            }
        }
        const live = pairs.filter((pr) => !pr.g1.is0() && !pr.g2.is0());
        const f = live.length === 0 ? Fp12.ONE : bls.pairingBatch(live);
        out('pairing_prod', String(pairs.length), ...pairs.flatMap((pr) => [hpt(pr.g1), hpt(pr.g2)]), hfp12(f));
    }

    const text = lines.join('\n') + '\n';
    if (opts.out) writeFileSync(opts.out, text);
    else process.stdout.write(text);
    process.stderr.write(`gen-vectors: seed ${opts.seed}, ${lines.length - 1} vectors\n`);
}

main();
