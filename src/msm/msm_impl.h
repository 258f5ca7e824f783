/* Pippenger MSM and masked sums, instantiated once per group by src/msm/msm.c.
 *
 * The including file defines:
 *   MSM_G(x)       the curve layer's name for x (g1_##x): types MSM_G(affine_t), MSM_G(jac_t), MSM_G(xyzz_t)
 *                  and the point operations
 *   MSM_FN(x)      the name of this instantiation's function x (msm_g1_##x)
 *   MSM_FIELD_NEG  negation in the coordinate field (fp_neg, fp2_neg)
 * and, before the first inclusion, the group-independent pieces of msm.c: msm_scalars_t, msm_scalars_prepare,
 * msm_scalars_release, msm_digit, msm_plan and the thread helpers. */

typedef MSM_G(affine_t) MSM_FN(aff_t);
typedef MSM_G(jac_t) MSM_FN(jac_t);
typedef MSM_G(xyzz_t) MSM_FN(xyzz_t);

/* acc += (neg ? -p : p); negating an affine point costs one field negation. */
static inline void MSM_FN(acc_affine)(MSM_FN(xyzz_t) *acc, const MSM_FN(aff_t) *p, int neg)
{
    if (!neg) {
        MSM_G(xyzz_add_affine)(acc, acc, p);
        return;
    }
    MSM_FN(aff_t) q;
    q.x = p->x;
    MSM_FIELD_NEG(&q.y, &p->y);
    MSM_G(xyzz_add_affine)(acc, acc, &q);
}

/* ---- sums of the bases selected by a bit mask ---- */

/* Sums bases over the set bits of mask (scalar index space); the base of scalar i is bases[offset[i / 64] +
 * (number of density bits below i within its word)], or bases[i] when density is NULL. One partial sum per
 * worker, merged by the caller. */
typedef struct MSM_FN(masked_ctx) {
    const MSM_FN(aff_t) *bases;
    const uint64_t *mask;
    const uint64_t *density;
    const size_t *offset;
    size_t n;
    MSM_FN(xyzz_t) *partial; /* one per worker */
} MSM_FN(masked_ctx);

static void MSM_FN(masked_body)(void *vctx, size_t begin, size_t end, unsigned worker)
{
    const MSM_FN(masked_ctx) *ctx = vctx;
    MSM_FN(xyzz_t) acc = ctx->partial[worker];
    for (size_t j = begin; j < end; j++) {
        uint64_t bits = ctx->mask[j] & msm_word_limit(ctx->n, j);
        while (bits) {
            unsigned b = (unsigned)__builtin_ctzll(bits);
            bits &= bits - 1;
            size_t k = ctx->density ? ctx->offset[j] + (size_t)__builtin_popcountll(ctx->density[j] & ((1ULL << b) - 1))
                                    : 64 * j + b;
            MSM_FN(acc_affine)(&acc, &ctx->bases[k], 0);
        }
    }
    ctx->partial[worker] = acc;
}

/* acc = sum as described above; returns 0, or -1 if the per-worker sums could not be allocated. */
static int MSM_FN(masked_sum)(pool_t *pool, MSM_FN(xyzz_t) *acc, const MSM_FN(aff_t) *bases, const uint64_t *mask,
                              const uint64_t *density, const size_t *offset, size_t n)
{
    unsigned nthreads = msm_threads(pool);
    MSM_FN(masked_ctx) ctx = {bases, mask, density, offset, n, malloc(nthreads * sizeof(MSM_FN(xyzz_t)))};
    if (ctx.partial == NULL) return -1;
    for (unsigned t = 0; t < nthreads; t++) MSM_G(xyzz_set_inf)(&ctx.partial[t]);
    pool_parallel_for(pool, msm_words(n), MSM_WORDS_GRAIN, MSM_FN(masked_body), &ctx);
    MSM_G(xyzz_set_inf)(acc);
    for (unsigned t = 0; t < nthreads; t++) MSM_G(xyzz_add)(acc, acc, &ctx.partial[t]);
    free(ctx.partial);
    return 0;
}

/* ---- Pippenger over the scalars that are neither 0 nor 1 ---- */

typedef struct MSM_FN(pip_ctx) {
    const MSM_FN(aff_t) *bases;
    const msm_scalars_t *sc;
    msm_plan_t plan;
    /* 2^(c-1) per worker, allocated by the worker at its first task: many threads with few tasks allocate only
     * what runs. */
    MSM_FN(xyzz_t) **buckets;
    MSM_FN(xyzz_t) *window_sums; /* one per task: window w, slice s at w * slices + s */
    atomic_int failed;           /* a worker found no memory for its buckets */
} MSM_FN(pip_ctx);

static void MSM_FN(pip_task)(MSM_FN(pip_ctx) *ctx, size_t task, unsigned worker)
{
    unsigned c = ctx->plan.c, w = (unsigned)(task / ctx->plan.slices), s = (unsigned)(task % ctx->plan.slices);
    size_t nb = (size_t)1 << (c - 1), m = ctx->sc->m;
    size_t lo = m / ctx->plan.slices * s + (m % ctx->plan.slices) * s / ctx->plan.slices;
    size_t hi = m / ctx->plan.slices * (s + 1) + (m % ctx->plan.slices) * (s + 1) / ctx->plan.slices;
    if (ctx->buckets[worker] == NULL) ctx->buckets[worker] = malloc(nb * sizeof(MSM_FN(xyzz_t)));
    MSM_FN(xyzz_t) *bucket = ctx->buckets[worker];
    if (bucket == NULL) {
        atomic_store(&ctx->failed, 1);
        return;
    }
    for (size_t b = 0; b < nb; b++) MSM_G(xyzz_set_inf)(&bucket[b]);

    const uint64_t(*k)[FR_LIMBS] = (const uint64_t(*)[FR_LIMBS])ctx->sc->k;
    /* The buckets outgrow the caches for large windows: fetch the next point's bucket while adding this one. */
    int next = lo < hi ? msm_digit(k[lo], w, c) : 0;
    for (size_t i = lo; i < hi; i++) {
        int d = next;
        next = i + 1 < hi ? msm_digit(k[i + 1], w, c) : 0;
        if (next) {
            const char *line = (const char *)&bucket[(next > 0 ? next : -next) - 1];
            for (size_t off = 0; off < sizeof(MSM_FN(xyzz_t)); off += 64) __builtin_prefetch(line + off, 1);
        }
        if (d > 0) MSM_FN(acc_affine)(&bucket[d - 1], &ctx->bases[i], 0);
        else if (d < 0) MSM_FN(acc_affine)(&bucket[-d - 1], &ctx->bases[i], 1);
    }

    /* sum_b (b+1) * bucket[b] as a running sum from the top: each bucket joins `run` once and `run` joins the
     * total once per bucket below and including it. */
    MSM_FN(xyzz_t) run, total;
    MSM_G(xyzz_set_inf)(&run);
    MSM_G(xyzz_set_inf)(&total);
    for (size_t b = nb; b-- > 0;) {
        MSM_G(xyzz_add)(&run, &run, &bucket[b]);
        MSM_G(xyzz_add)(&total, &total, &run);
    }
    ctx->window_sums[task] = total;
}

static void MSM_FN(pip_body)(void *vctx, size_t begin, size_t end, unsigned worker)
{
    for (size_t t = begin; t < end; t++) MSM_FN(pip_task)(vctx, t, worker);
}

/* acc = the bucket part of the MSM for the scalars of the current chunk (sc->k) with their bases, c-bit windows
 * (0: chosen by the plan); returns 0, or -1 if memory ran out. */
static int MSM_FN(pippenger)(pool_t *pool, MSM_FN(xyzz_t) *acc, const MSM_FN(aff_t) *bases, const msm_scalars_t *sc,
                             unsigned c)
{
    unsigned nthreads = msm_threads(pool);
    MSM_FN(pip_ctx) ctx = {bases, sc, msm_plan(sc->nother, nthreads, c), NULL, NULL, 0};
    size_t ntasks = (size_t)ctx.plan.nwin * ctx.plan.slices;
    ctx.buckets = calloc(nthreads, sizeof *ctx.buckets);
    ctx.window_sums = malloc(ntasks * sizeof(MSM_FN(xyzz_t)));
    if (ctx.buckets != NULL && ctx.window_sums != NULL) pool_parallel_for(pool, ntasks, 1, MSM_FN(pip_body), &ctx);
    int ok = ctx.buckets != NULL && ctx.window_sums != NULL && !atomic_load(&ctx.failed);
    for (unsigned t = 0; ctx.buckets != NULL && t < nthreads; t++) free(ctx.buckets[t]);
    free(ctx.buckets);
    if (!ok) {
        free(ctx.window_sums);
        return -1;
    }

    /* Horner over the windows, top first: acc = acc * 2^c + window sum. */
    MSM_G(xyzz_set_inf)(acc);
    for (unsigned w = ctx.plan.nwin; w-- > 0;) {
        for (unsigned i = 0; i < ctx.plan.c; i++) MSM_G(xyzz_dbl)(acc, acc);
        for (unsigned s = 0; s < ctx.plan.slices; s++)
            MSM_G(xyzz_add)(acc, acc, &ctx.window_sums[(size_t)w * ctx.plan.slices + s]);
    }
    free(ctx.window_sums);
    return 0;
}

/* Used only when memory runs out: no allocation, one scalar multiplication per point. */
static void MSM_FN(fallback)(MSM_FN(jac_t) *r, const MSM_FN(aff_t) *bases, const fr_t *scalars,
                             const uint64_t *density, size_t n)
{
    MSM_G(jac_set_inf)(r);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (density && !((density[i / 64] >> (i % 64)) & 1)) continue;
        MSM_FN(jac_t) p;
        MSM_G(jac_from_affine)(&p, &bases[k++]);
        if (fr_is_zero(&scalars[i])) continue;
        MSM_G(jac_mul_fr)(&p, &p, &scalars[i]);
        MSM_G(jac_add)(r, r, &p);
    }
}

static void MSM_FN(run)(pool_t *pool, MSM_FN(jac_t) *r, const MSM_FN(aff_t) *bases, const fr_t *scalars,
                        const uint64_t *density, size_t n, unsigned c)
{
    msm_scalars_t sc;
    if (msm_scalars_init(pool, &sc, density, n) != 0) {
        MSM_FN(fallback)(r, bases, scalars, density, n);
        return;
    }
    MSM_FN(xyzz_t) acc, part;
    MSM_G(xyzz_set_inf)(&acc);
    for (size_t j0 = 0; j0 < sc.nwords; j0 += MSM_CHUNK_WORDS) {
        msm_scalars_load(pool, &sc, scalars, density, n, j0);
        if (sc.nother == 0) continue;
        if (MSM_FN(pippenger)(pool, &part, bases + sc.base0, &sc, c) != 0) goto oom;
        MSM_G(xyzz_add)(&acc, &acc, &part);
    }
    /* Every chunk has filled its words of sc.ones by now. */
    if (MSM_FN(masked_sum)(pool, &part, bases, sc.ones, density, sc.offset, n) != 0) goto oom;
    MSM_G(xyzz_add)(&acc, &acc, &part);
    msm_scalars_release(&sc);
    MSM_G(xyzz_to_jac)(r, &acc);
    return;
oom:
    msm_scalars_release(&sc);
    MSM_FN(fallback)(r, bases, scalars, density, n);
}
