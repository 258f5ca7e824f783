#!/usr/bin/env python3
"""Writes src/ff/mont_x86_adx.h: Montgomery multiplication for 4 and 6 limbs
with MULX/ADCX/ADOX (x86-64 BMI2 + ADX), and modular addition and subtraction,
as GCC extended inline assembly.

Operand-scanning CIOS: for each limb b[i], add a*b[i] into t with two carry
chains (CF through ADCX for the low halves, OF through ADOX for the high
halves), then add m*p with m = t0 * inv so t0 becomes zero, and rename the
registers instead of shifting. The moduli leave spare top bits, so t never
needs more than N+1 words and the result is below 2p; a final conditional
subtraction (with CMOV, no branch) brings it below p.

Addition and subtraction keep their limbs in registers with one ADC or SBB
chain each (GCC's code for the same chains written with _addcarry_u64 moves
every carry through SETB and back) and use few registers, so that they need
no register saves where they are inlined. All functions are always inlined: the
callers are the field's own out-of-line functions, and a second call level
costs more than the body of an addition. Regenerate with: scripts/gen-mont-asm.py"""

import sys


def gen(n):
    # registers t0..tn hold the accumulator; names rotate each iteration
    t = [f"%[t{k}]" for k in range(n + 1)]
    lines = []
    for i in range(n):
        lines.append(f"movq {8 * i}(%[b]), %%rdx")
        lines.append("xorl %k[lo], %k[lo]")  # clears CF and OF
        for j in range(n):
            if i == 0:
                # t is zero: plain products, one carry chain
                lines.append(f"mulxq {8 * j}(%[a]), %[lo], %[hi]")
                if j == 0:
                    lines.append(f"movq %[lo], {t[0]}")
                    lines.append(f"movq %[hi], {t[1]}")
                else:
                    lines.append(f"adcxq %[lo], {t[j]}")
                    lines.append(f"movq %[hi], {t[j + 1]}")
            else:
                lines.append(f"mulxq {8 * j}(%[a]), %[lo], %[hi]")
                lines.append(f"adcxq %[lo], {t[j]}")
                lines.append(f"adoxq %[hi], {t[j + 1]}")
        lines.append(f"adcq $0, {t[n]}")
        # reduction: m = t0 * inv, t += m * p
        lines.append(f"movq {t[0]}, %%rdx")
        lines.append(f"imulq {8 * n}(%[p]), %%rdx")
        lines.append("xorl %k[lo], %k[lo]")
        for j in range(n):
            lines.append(f"mulxq {8 * j}(%[p]), %[lo], %[hi]")
            lines.append(f"adcxq %[lo], {t[j]}")
            lines.append(f"adoxq %[hi], {t[j + 1]}")
        lines.append(f"adcq $0, {t[n]}")
        # t0 is now zero: it becomes the new top word
        t = t[1:] + t[:1]
    # final conditional subtraction: s = t - p; keep t if that borrowed
    spare = [t[n], "%[lo]", "%[hi]", "%%rdx", "%[a]", "%[b]"][:n]
    for k in range(n):
        lines.append(f"movq {t[k]}, {spare[k]}")
    for k in range(n):
        op = "subq" if k == 0 else "sbbq"
        lines.append(f"{op} {8 * k}(%[p]), {spare[k]}")
    for k in range(n):
        lines.append(f"cmovncq {spare[k]}, {t[k]}")
    return lines, t


def emit(n, out):
    lines, final = gen(n)
    regs = [f"t{k}" for k in range(n + 1)]
    out.write(f"/* r = a*b*R^-1 mod p, fully reduced; pm = p[0..{n - 1}] followed by -p^-1 mod 2^64. */\n")
    out.write("__attribute__((always_inline))\n")
    out.write(f"static inline void mont_mul_adx_{n}(uint64_t r[{n}], const uint64_t a[{n}], const uint64_t b[{n}],\n")
    out.write(f"                                   const uint64_t pm[{n + 1}])\n{{\n")
    out.write("    uint64_t " + ", ".join(regs) + ", lo, hi;\n")
    out.write("    const uint64_t *ap = a, *bp = b;\n")
    out.write("    __asm__(\n")
    for l in lines:
        out.write(f'        "{l}\\n\\t"\n')
    outs = ", ".join(f'[{r}] "=&r"({r})' for r in regs)
    out.write(f"        : {outs}, [lo] \"=&r\"(lo), [hi] \"=&r\"(hi), [a] \"+r\"(ap), [b] \"+r\"(bp)\n")
    out.write("        : [p] \"r\"(pm)\n")
    out.write("        : \"rdx\", \"cc\", \"memory\");\n")
    # final[k] holds word k of the result
    for k in range(n):
        name = final[k][2:-1]
        out.write(f"    r[{k}] = {name};\n")
    out.write(f"    (void){final[n][2:-1]};\n")
    out.write("}\n\n")


def emit_addsub(n, out):
    t = [f"%[t{k}]" for k in range(n)]
    regs = [f"t{k}" for k in range(n)]
    outs = ", ".join(f'[{r}] "=&r"({r})' for r in regs)

    def body(name, comment, lines):
        out.write(f"/* {comment} */\n")
        out.write("__attribute__((always_inline))\n")
        out.write(f"static inline void mont_{name}_{n}(uint64_t r[{n}], const uint64_t a[{n}], "
                  f"const uint64_t b[{n}],\n")
        out.write(f"                                const uint64_t pz[{2 * n}])\n{{\n")
        out.write("    uint64_t " + ", ".join(regs) + ";\n")
        out.write("    const uint64_t *ap = a, *bp = b;\n")
        out.write("    __asm__(\n")
        for l in lines:
            out.write(f'        "{l}\\n\\t"\n')
        out.write(f"        : {outs}, [a] \"+r\"(ap), [b] \"+r\"(bp)\n")
        out.write("        : [pz] \"r\"(pz)\n")
        out.write("        : \"cc\", \"memory\");\n")
        for k in range(n):
            out.write(f"    r[{k}] = t{k};\n")
        out.write("}\n\n")

    def chain(op0, op, src):
        return [f"{op0 if k == 0 else op} {8 * k}({src}), {t[k]}" for k in range(n)]

    # After a borrow add p back, else zero: the borrow picks which half of pz (p, then n zero limbs) the final
    # chain adds. Selecting a pointer takes one CMOV and two registers where masking p takes n registers.
    add_back = ["leaq %d(%%[pz]), %%[a]" % (8 * n), "movq %[pz], %[b]", "cmovncq %[a], %[b]"]
    add_back += chain("addq", "adcq", "%[b]")
    load = [f"movq {8 * k}(%[a]), {t[k]}" for k in range(n)]
    # a + b < 2p fits in n limbs (spare top bits); a + b - p borrows exactly when a + b < p
    add = load + chain("addq", "adcq", "%[b]") + chain("subq", "sbbq", "%[pz]") + add_back
    body("add", f"r = a + b mod p for a, b < p; pz = p[0..{n - 1}] followed by {n} zero limbs.", add)
    sub = load + chain("subq", "sbbq", "%[b]") + add_back
    body("sub", f"r = a - b mod p for a, b < p; pz as for mont_add_{n}. With a = 0 this is -b (0 for b = 0).", sub)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "src/ff/mont_x86_adx.h"
    with open(path, "w") as out:
        out.write("/* Generated by scripts/gen-mont-asm.py; do not edit. */\n")
        out.write("#ifndef CUZK_FF_MONT_X86_ADX_H\n#define CUZK_FF_MONT_X86_ADX_H\n\n#include <stdint.h>\n\n")
        for n in (4, 6):
            emit(n, out)
            emit_addsub(n, out)
        out.write("#endif\n")


main()
