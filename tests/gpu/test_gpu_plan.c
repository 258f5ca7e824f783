/* The prover's device-memory plan (src/gpu/plan.c): uncapped it is the old rule (G1 sections in order while they
 * fit 3/4 of the device, B_G2 tried); under a cap it reserves a partition's 5 domain vectors, puts B_G2 first, skips
 * sections that do not fit and never passes the cap; the partition's decisions follow the room left; GLV's images
 * of H stay within the uncapped share. Random caps (seeded) check the invariants. Needs no GPU. */
#include <string.h>

#include "testutil.h"

#include "gpu/plan.h"

#define GIB ((size_t)1 << 30)
#define MIB ((size_t)1 << 20)

/* A 32 GiB PoRep-like set: domain 2^27 (V = 4 GiB), G1 sections of 12, 10, 11, 9 GiB, B_G2 6 GiB. */
static gpu_plan_in porep_in(size_t total, size_t cap, size_t held)
{
    gpu_plan_in in;
    memset(&in, 0, sizeof in);
    in.total = total;
    in.cap = cap;
    in.held = held;
    in.sect[GPU_PLAN_H] = 12 * GIB;
    in.sect[GPU_PLAN_L] = 10 * GIB;
    in.sect[GPU_PLAN_A] = 11 * GIB;
    in.sect[GPU_PLAN_B_G1] = 9 * GIB;
    in.b_g2 = 6 * GIB;
    in.log_m = 27;
    return in;
}

int main(void)
{
    rng_t rng;
    test_seed(&rng, "test_gpu_plan");
    gpu_plan p;
    gpu_plan_part pp;
    char line[512];

    /* Uncapped H200 (141 GB): h, l, a, b_g1 = 42 GiB <= 0.75 * 141; everything resident, as before. */
    gpu_plan_in in = porep_in(141 * GIB, 0, 0);
    gpu_plan_bases(&in, &p);
    CHECK(p.resident[0] && p.resident[1] && p.resident[2] && p.resident[3] && p.b_g2_resident && p.work == 0);
    /* Uncapped 40 GB: 12 + 10 = 22 fit 30, a (11) does not, b_g1 (9) still does: 31 > 30, so no. */
    in = porep_in(40 * GIB, 0, 0);
    gpu_plan_bases(&in, &p);
    CHECK(p.resident[0] && p.resident[1] && !p.resident[2] && !p.resident[3] && p.b_g2_resident);
    in.stream_all = 1;
    gpu_plan_bases(&in, &p);
    CHECK(!p.resident[0] && !p.resident[1] && !p.resident[2] && !p.resident[3] && p.b_g2_resident);

    /* GLV's images of H: within 3/4 of the device with everything held, the new buffer within half of the free
     * memory, never under a cap. A 32 GiB PoRep alone on the H200 (141 GiB: 47 GiB of bases and 6 of matrices
     * held, H 12 GiB, 88 free) keeps them; a SnapDeals set uploaded after it (105 GiB held then, 36 free) does not,
     * and neither does a set whose images would pass 3/4 of the device with room to make them. */
    CHECK(gpu_plan_glv(141 * GIB, 0, 53 * GIB, 12 * GIB, 88 * GIB));
    CHECK(!gpu_plan_glv(141 * GIB, 0, 105 * GIB, 12 * GIB, 36 * GIB));
    CHECK(!gpu_plan_glv(141 * GIB, 0, 100 * GIB, 6 * GIB, 40 * GIB));
    CHECK(!gpu_plan_glv(141 * GIB, 24 * GIB, 1 * GIB, 1 * GIB, 20 * GIB));
    CHECK(!gpu_plan_glv(141 * GIB, 0, 53 * GIB, 12 * GIB, 48 * GIB - 1)); /* 24 GiB of buffer, 47.99 free */
    CHECK(gpu_plan_glv(141 * GIB, 0, 53 * GIB, 12 * GIB, 48 * GIB));
    CHECK(!gpu_plan_glv(141 * GIB, 0, 0, 0, 88 * GIB));
    CHECK(!gpu_plan_glv(141 * GIB, 0, 0, (size_t)-1 / 2 + 1, (size_t)-1)); /* no wrap of 2 h_bytes */
    CHECK(!gpu_plan_glv(0, 0, 0, 1, (size_t)-1));
    /* The share's edge: held + images exactly 3/4 of the device, and a byte over. */
    CHECK(gpu_plan_glv(100 * GIB, 0, 70 * GIB, 5 * GIB, 20 * GIB));
    CHECK(!gpu_plan_glv(100 * GIB, 0, 70 * GIB + 1, 5 * GIB, 20 * GIB));

    /* Where a, b, c go by default: a 24 GB card (23.99 GiB as an RTX 4090 reports it) and the H200 on the device,
     * 16 and 20 GB cards on the host. */
    CHECK(gpu_plan_abc_on_device(141 * GIB) && gpu_plan_abc_on_device(24564 * (GIB >> 10)));
    CHECK(gpu_plan_abc_on_device(GPU_PLAN_ABC_DEVICE_MIN) && !gpu_plan_abc_on_device(GPU_PLAN_ABC_DEVICE_MIN - 1));
    CHECK(!gpu_plan_abc_on_device(16 * GIB) && !gpu_plan_abc_on_device(20 * GIB) && !gpu_plan_abc_on_device(0));

    /* Without a cap: the H200 (139.8 GiB as it reports itself) stays uncapped; an 80 GB H100 (79.2 GiB, 78.7 free)
     * is capped at what is free, or at its memory when the free figure is missing or larger; no device, none. */
    CHECK(gpu_plan_implicit_cap(143771 * MIB, 140000 * MIB) == 0 &&
          gpu_plan_implicit_cap(GPU_PLAN_UNCAPPED_MIN, 1) == 0);
    CHECK(gpu_plan_implicit_cap(81079 * MIB, 80600 * MIB) == 80600 * MIB);
    CHECK(gpu_plan_implicit_cap(GPU_PLAN_UNCAPPED_MIN - 1, 0) == GPU_PLAN_UNCAPPED_MIN - 1);
    CHECK(gpu_plan_implicit_cap(24 * GIB, 25 * GIB) == 24 * GIB && gpu_plan_implicit_cap(0, 0) == 0);
    /* So capped, the H100 beside 6 GiB of matrices keeps every section resident (48 GiB, within the 53 that the
     * matrices and the 20 GiB of work leave), and a partition beside them fits with the witness before the turn
     * (25 GiB left: the H step's 16 and the witness's 4). */
    in = porep_in(79 * GIB, 79 * GIB, 6 * GIB);
    gpu_plan_bases(&in, &p);
    CHECK(p.b_g2_resident && p.resident[0] && p.resident[1] && p.resident[2] && p.resident[3]);
    CHECK(p.resident_bytes == 48 * GIB);
    gpu_plan_partition(79 * GIB, 79 * GIB, p.resident_bytes + 6 * GIB, 27, 0, &pp);
    CHECK(pp.fits && pp.witness_early && pp.overlap);

    /* Capped at 24 GiB beside a 2 GiB shape: work 5 * 4 = 20 GiB, 2 left: nothing fits, all streamed. */
    in = porep_in(24 * GIB, 24 * GIB, 2 * GIB);
    gpu_plan_bases(&in, &p);
    CHECK(p.work == 20 * GIB && p.resident_bytes == 0 && !p.b_g2_resident);
    gpu_plan_describe(&in, &p, line, sizeof line);
    printf("  %s\n", line);
    CHECK(strstr(line, "streamed: h 12.00 l 10.00 a 11.00 b_g1 9.00 b_g2 6.00 (48.00 GiB a partition)") != NULL);
    /* Capped at 48 GiB: room min(48 - 20, 36) = 28: B_G2 (6) first, then h (12), l (10): 28; a, b_g1 streamed. */
    in = porep_in(48 * GIB, 48 * GIB, 0);
    gpu_plan_bases(&in, &p);
    CHECK(p.b_g2_resident && p.resident[0] && p.resident[1] && !p.resident[2] && !p.resident[3]);
    CHECK(p.resident_bytes == 28 * GIB);

    /* The partition under caps: 24 GiB with 2 held: 4V = 16 fits, 5V = 20 fits; the H MSM overlaps (of the H
     * step's 4V only the H scalars, 1V, stay held). */
    gpu_plan_partition(24 * GIB, 24 * GIB, 2 * GIB, 27, 0, &pp);
    CHECK(pp.fits && pp.witness_early && pp.overlap && pp.ntt_in_place && pp.need == 16 * GIB && pp.room == 22 * GIB);
    /* 16 GiB: 4V is all of it, with a shape beside it nothing fits: an error up front. */
    gpu_plan_partition(16 * GIB, 16 * GIB, 1 * GIB, 27, 0, &pp);
    CHECK(!pp.fits && !pp.witness_early && !pp.overlap);
    /* 18 GiB, 1 held: 4V fits, the witness waits for the turn. */
    gpu_plan_partition(18 * GIB, 18 * GIB, 1 * GIB, 27, 0, &pp);
    CHECK(pp.fits && !pp.witness_early && pp.overlap);
    /* Uncapped: all allowed, no in-place NTTs (the measured default path). */
    gpu_plan_partition(0, 0, 0, 27, 1, &pp);
    CHECK(pp.fits && pp.witness_early && pp.overlap && !pp.ntt_in_place && !pp.ntt_three && pp.room == (size_t)-1);
    /* a, b, c from the host under 16 GiB, nothing else held: 3V = 12 GiB fits, and the overlap (3V left after). */
    gpu_plan_partition(16 * GIB, 16 * GIB, 0, 27, 1, &pp);
    CHECK(pp.fits && pp.ntt_three && !pp.ntt_in_place && pp.need == 12 * GIB && pp.witness_early && pp.overlap);

    /* Random caps and sizes: the resident bytes plus the work and what is held never pass the cap when anything is
     * resident, and no more than the share is resident. */
    for (int it = 0; it < 2000; it++) {
        gpu_plan_in r;
        memset(&r, 0, sizeof r);
        r.log_m = 10 + (unsigned)(rng_next(&rng) % 18);
        r.cap = (size_t)(rng_next(&rng) % (64 * GIB)) + 64 * MIB;
        r.total = r.cap;
        r.held = (size_t)(rng_next(&rng) % (r.cap / 2 + 1));
        for (int k = 0; k < GPU_PLAN_SECTIONS; k++) r.sect[k] = (size_t)(rng_next(&rng) % (16 * GIB));
        r.b_g2 = (size_t)(rng_next(&rng) % (8 * GIB));
        gpu_plan_bases(&r, &p);
        size_t sum = p.b_g2_resident ? r.b_g2 : 0;
        for (int k = 0; k < GPU_PLAN_SECTIONS; k++) sum += p.resident[k] ? r.sect[k] : 0;
        CHECK(sum == p.resident_bytes);
        CHECK(p.work == ((size_t)5 * 32 << r.log_m));
        if (sum)
            CHECK_MSG(sum + p.work + r.held <= r.cap, "it %d: %zu + %zu + %zu > %zu", it, sum, p.work, r.held, r.cap);
        CHECK((double)sum <= GPU_PLAN_RESIDENT_SHARE * (double)r.total + 1);
        gpu_plan_partition(r.total, r.cap, r.held + sum, r.log_m, it & 1, &pp);
        if (sum) CHECK(pp.fits && pp.witness_early); /* the bases left room for the work */
    }
    return test_finish("test_gpu_plan");
}
