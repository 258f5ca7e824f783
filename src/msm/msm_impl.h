/* Pippenger MSM and masked sums, instantiated once per group by src/msm/msm.c.
 *
 * The including file defines:
 *   MSM_G(x)       the curve layer's name for x (g1_##x): types MSM_G(affine_t), MSM_G(jac_t), MSM_G(xyzz_t)
 *                  and the point operations
 *   MSM_FN(x)      the name of this instantiation's function x (msm_g1_##x)
 *   MSM_F(x)       the coordinate field's name for x (fp_##x, fp2_##x), MSM_F_T its element type
 * and, before the first inclusion, the group-independent pieces of msm.c: msm_scalars_t, msm_scalars_prepare,
 * msm_scalars_release, msm_digit, msm_plan and the thread helpers. */

typedef MSM_G(affine_t) MSM_FN(aff_t);
typedef MSM_G(jac_t) MSM_FN(jac_t);
typedef MSM_G(xyzz_t) MSM_FN(xyzz_t);

/* acc += (neg ? -p : p); negating an affine point costs one field negation. */
static inline void MSM_FN(acc_affine)(MSM_FN(xyzz_t) * acc, const MSM_FN(aff_t) * p, int neg)
{
    if (!neg) {
        MSM_G(xyzz_add_affine)(acc, acc, p);
        return;
    }
    MSM_FN(aff_t) q;
    q.x = p->x;
    MSM_F(neg)(&q.y, &p->y);
    MSM_G(xyzz_add_affine)(acc, acc, &q);
}

/* ---- sums of the bases selected by a bit mask ---- */

/* Sums bases over the set bits of mask (scalar index space); the base of scalar i is bases[offset[i / 64] +
 * (number of density bits below i within its word)], or bases[i] when density is NULL. One partial sum per
 * worker, merged by the caller. */
typedef struct MSM_FN(masked_ctx) {
    const MSM_FN(aff_t) * bases;
    const uint64_t *mask;
    const uint64_t *density;
    const size_t *offset;
    size_t n;
    MSM_FN(xyzz_t) * partial; /* one per worker */
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
static int MSM_FN(masked_sum)(pool_t *pool, MSM_FN(xyzz_t) * acc, const MSM_FN(aff_t) * bases, const uint64_t *mask,
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

/* One scheduled affine addition bucket += P (or a doubling when dbl). */
typedef struct MSM_FN(sched) {
    uint32_t b;  /* bucket index */
    uint8_t neg; /* add -P */
    uint8_t dbl; /* P equals the bucket: a doubling */
    const MSM_FN(aff_t) * p;
} MSM_FN(sched_t);

/* A point whose bucket was busy, retried in the next batch. */
typedef struct MSM_FN(pending) {
    uint32_t i; /* index into the task's points */
    int32_t d;  /* its window digit, non-zero */
} MSM_FN(pending_t);

/* One worker's memory for its tasks, allocated at its first task (many threads with few tasks allocate only what
 * runs) and reused by the next. */
typedef struct MSM_FN(scratch) {
    MSM_FN(xyzz_t) * xyzz;   /* 2^(c-1) XYZZ buckets: the XYZZ path's buckets, the affine path's overflow */
    MSM_FN(aff_t) * aff;     /* affine path: 2^(c-1) buckets */
    uint8_t *state;          /* affine path: MSM_FULL | MSM_BUSY | MSM_OVER per bucket */
    MSM_F_T *prefix;         /* affine path, per batch entry: the product of the denominators before it */
    MSM_FN(sched_t) * sched; /* affine path: the batch */
    MSM_FN(pending_t) * queue[2];
    MSM_FN(aff_t) * sum;       /* affine path, the bucket reduction: row sums, then column sums (see affine_reduce) */
    uint8_t *sum_state;        /* MSM_FULL | MSM_OVER per sum */
    MSM_FN(xyzz_t) * sum_over; /* the overflow buckets' share of each sum */
} MSM_FN(scratch_t);

static void MSM_FN(scratch_free)(MSM_FN(scratch_t) * s)
{
    free(s->xyzz);
    free(s->aff);
    free(s->state);
    free(s->prefix);
    free(s->sched);
    free(s->queue[0]);
    free(s->queue[1]);
    free(s->sum);
    free(s->sum_state);
    free(s->sum_over);
    memset(s, 0, sizeof *s);
}

/* Returns 0, or -1 (s freed) if memory ran out. */
static int MSM_FN(scratch_alloc)(MSM_FN(scratch_t) * s, unsigned c)
{
    size_t nb = (size_t)1 << (c - 1), batch = msm_affine_batch(c);
    /* The affine path touches an overflow bucket only on repeated collisions: malloc leaves the rest uncommitted. */
    s->xyzz = malloc(nb * sizeof *s->xyzz);
    if (s->xyzz == NULL) return -1;
    if (batch == 0) return 0;
    s->aff = msm_alloc_buckets(nb * sizeof *s->aff);
    s->state = malloc(nb);
    s->prefix = malloc(batch * sizeof *s->prefix);
    s->sched = malloc(batch * sizeof *s->sched);
    s->queue[0] = malloc(batch * sizeof *s->queue[0]);
    s->queue[1] = malloc(batch * sizeof *s->queue[1]);
    size_t nsums = msm_reduce_sums(c);
    s->sum = malloc(nsums * sizeof *s->sum);
    s->sum_state = malloc(nsums);
    s->sum_over = malloc(nsums * sizeof *s->sum_over);
    if (s->aff && s->state && s->prefix && s->sched && s->queue[0] && s->queue[1] && s->sum && s->sum_state &&
        s->sum_over)
        return 0;
    MSM_FN(scratch_free)(s);
    return -1;
}

typedef struct MSM_FN(pip_ctx) {
    const MSM_FN(aff_t) * bases;
    const msm_scalars_t *sc;
    msm_plan_t plan;
    MSM_FN(scratch_t) * scratch;  /* one per worker */
    MSM_FN(xyzz_t) * window_sums; /* one per task: window w, slice s at w * slices + s */
    atomic_int failed;            /* a worker found no memory for its buckets */
} MSM_FN(pip_ctx);

/* The affine path: each bucket is an affine point, and additions into distinct buckets are gathered into batches
 * that share one field inversion (Montgomery's trick), about 6 multiplications per addition against 10 for a mixed
 * XYZZ addition. A point whose bucket already waits in the batch is retried in the next batch; when that queue is
 * full, or the input is exhausted, it goes to the bucket's XYZZ overflow instead (one bucket hit by every point
 * must not cost one inversion per point). */
typedef struct MSM_FN(affine_run) {
    MSM_FN(scratch_t) * s;
    const MSM_FN(aff_t) * pts;
    size_t n;     /* scheduled in this batch */
    size_t qn;    /* entries in s->queue[0] */
    size_t batch; /* capacity of the batch and of each queue */
    MSM_F_T acc;  /* product of the batch's denominators */
} MSM_FN(affine_run);

static void MSM_FN(schedule)(MSM_FN(affine_run) * a, uint32_t b, const MSM_FN(aff_t) * p, int neg, int dbl,
                             const MSM_F_T *den)
{
    MSM_FN(scratch_t) *s = a->s;
    s->prefix[a->n] = a->acc;
    MSM_F(mul)(&a->acc, &a->acc, den);
    s->sched[a->n] = (MSM_FN(sched_t)){b, (uint8_t)neg, (uint8_t)dbl, p};
    s->state[b] |= MSM_BUSY;
    a->n++;
}

/* bucket[|d| - 1] += sign(d) * pts[i]; retry says whether a busy bucket may queue the point for the next batch. */
static void MSM_FN(affine_add)(MSM_FN(affine_run) * a, uint32_t i, int32_t d, int retry)
{
    MSM_FN(scratch_t) *s = a->s;
    const MSM_FN(aff_t) *p = &a->pts[i];
    uint32_t b = (uint32_t)(d > 0 ? d : -d) - 1;
    int neg = d < 0;
    uint8_t st = s->state[b];
    if (st & MSM_BUSY) {
        if (retry && a->qn < a->batch) {
            s->queue[0][a->qn++] = (MSM_FN(pending_t)){i, d};
            return;
        }
        if (!(st & MSM_OVER)) MSM_G(xyzz_set_inf)(&s->xyzz[b]);
        s->state[b] = st | MSM_OVER;
        MSM_FN(acc_affine)(&s->xyzz[b], p, neg);
        return;
    }
    if (MSM_G(affine_is_inf)(p)) return;
    MSM_FN(aff_t) *q = &s->aff[b];
    if (!(st & MSM_FULL)) {
        q->x = p->x;
        if (neg)
            MSM_F(neg)(&q->y, &p->y);
        else
            q->y = p->y;
        s->state[b] = st | MSM_FULL;
        return;
    }
    MSM_F_T den;
    MSM_F(sub)(&den, &p->x, &q->x);
    if (!MSM_F(is_zero)(&den)) {
        MSM_FN(schedule)(a, b, p, neg, 0, &den);
        return;
    }
    /* Same x: P equals the bucket (a doubling) or its negation (the sum is infinity). A point with y = 0 has order
     * 2: doubling it also gives infinity. */
    MSM_F_T y;
    if (neg)
        MSM_F(neg)(&y, &p->y);
    else
        y = p->y;
    if (MSM_F(eq)(&y, &q->y) && !MSM_F(is_zero)(&y)) {
        MSM_F(dbl)(&den, &y);
        MSM_FN(schedule)(a, b, p, neg, 1, &den);
        return;
    }
    s->state[b] = st & (uint8_t)~MSM_FULL;
}

/* Applies the batch: one inversion, then each bucket becomes bucket + P with lambda = num / den. */
static void MSM_FN(affine_flush)(MSM_FN(affine_run) * a)
{
    MSM_FN(scratch_t) *s = a->s;
    if (a->n == 0) return;
    MSM_F_T inv;
    MSM_F(inv)(&inv, &a->acc);
    for (size_t k = a->n; k-- > 0;) {
        const MSM_FN(sched_t) *e = &s->sched[k];
        /* A batch's buckets and points outgrow the L2 cache: fetch those of an entry a few places ahead. */
        if (k >= MSM_PREFETCH_AHEAD) {
            const MSM_FN(sched_t) *f = &s->sched[k - MSM_PREFETCH_AHEAD];
            const char *bl = (const char *)&s->aff[f->b], *pl = (const char *)f->p;
            for (size_t off = 0; off < sizeof(MSM_FN(aff_t)); off += 64) {
                __builtin_prefetch(bl + off, 1);
                __builtin_prefetch(pl + off, 0);
            }
        }
        MSM_FN(aff_t) *q = &s->aff[e->b];
        MSM_F_T t, lambda, num, x3;
        /* The denominator again, from the bucket and the point (the bucket has not changed since), rather than
         * stored: the batch's memory then stays closer to the L2 cache's size. */
        MSM_F_T den;
        if (e->dbl)
            MSM_F(dbl)(&den, &q->y);
        else
            MSM_F(sub)(&den, &e->p->x, &q->x);
        MSM_F(mul)(&t, &inv, &s->prefix[k]); /* 1 / den */
        MSM_F(mul)(&inv, &inv, &den);
        const MSM_F_T *x2;
        int flip = 0;
        if (e->dbl) { /* lambda = 3 x^2 / 2y */
            MSM_F(sqr)(&num, &q->x);
            MSM_F(dbl)(&x3, &num);
            MSM_F(add)(&num, &num, &x3);
            x2 = &q->x;
        } else if (e->neg) { /* lambda = (-y2 - y1) / (x2 - x1): compute -lambda and flip the sign where it is used */
            MSM_F(add)(&num, &e->p->y, &q->y);
            x2 = &e->p->x;
            flip = 1;
        } else { /* lambda = (y2 - y1) / (x2 - x1) */
            MSM_F(sub)(&num, &e->p->y, &q->y);
            x2 = &e->p->x;
        }
        MSM_F(mul)(&lambda, &num, &t);
        MSM_F(sqr)(&x3, &lambda);
        MSM_F(sub)(&x3, &x3, &q->x);
        MSM_F(sub)(&x3, &x3, x2);
        if (flip)
            MSM_F(sub)(&t, &x3, &q->x);
        else
            MSM_F(sub)(&t, &q->x, &x3);
        MSM_F(mul)(&t, &t, &lambda);
        MSM_F(sub)(&q->y, &t, &q->y);
        q->x = x3;
        s->state[e->b] &= (uint8_t)~MSM_BUSY;
    }
    a->n = 0;
    MSM_F(set_one)(&a->acc);
}

static void MSM_FN(affine_buckets)(MSM_FN(pip_ctx) * ctx, MSM_FN(scratch_t) * s, unsigned w, size_t lo, size_t hi)
{
    unsigned c = ctx->plan.c;
    size_t nb = (size_t)1 << (c - 1);
    const uint64_t(*k)[FR_LIMBS] = (const uint64_t(*)[FR_LIMBS])ctx->sc->k;
    memset(s->state, 0, nb);
    MSM_FN(affine_run) a = {.s = s, .pts = ctx->bases + lo, .batch = msm_affine_batch(c)};
    MSM_F(set_one)(&a.acc);
    int32_t digit[MSM_DIGIT_BLOCK];
    size_t m = hi - lo, i = 0, blk_end = 0;
    while (i < m || a.qn > 0) {
        /* The points that collided in the last batch go first; they may collide again. */
        MSM_FN(pending_t) *old = s->queue[0];
        size_t nold = a.qn;
        s->queue[0] = s->queue[1];
        s->queue[1] = old;
        a.qn = 0;
        for (size_t j = 0; j < nold; j++) MSM_FN(affine_add)(&a, old[j].i, old[j].d, i < m);
        while (i < m && a.n < a.batch) {
            if (i == blk_end) {
                blk_end = i + MSM_DIGIT_BLOCK < m ? i + MSM_DIGIT_BLOCK : m;
                for (size_t j = i; j < blk_end; j++) digit[j % MSM_DIGIT_BLOCK] = msm_digit(k[lo + j], w, c);
            }
            if (i + MSM_PREFETCH_AHEAD < blk_end) {
                int32_t dn = digit[(i + MSM_PREFETCH_AHEAD) % MSM_DIGIT_BLOCK];
                if (dn) {
                    const char *line = (const char *)&s->aff[(dn > 0 ? dn : -dn) - 1];
                    for (size_t off = 0; off < sizeof(MSM_FN(aff_t)); off += 64) __builtin_prefetch(line + off, 1);
                }
            }
            int32_t d = digit[i % MSM_DIGIT_BLOCK];
            if (d) MSM_FN(affine_add)(&a, (uint32_t)i, d, 1);
            i++;
        }
        MSM_FN(affine_flush)(&a);
    }
}

/* total = sum_b (b+1) * bucket[b] on the affine path. With j = b + 1 = q K + r, K = 2^kbits, 0 <= r < K:
 * sum_j j B_j = K sum_q q R_q + sum_r r C_r, where the row sum R_q adds the buckets q K .. q K + K - 1 and the
 * column sum C_r every K-th bucket from r. The row sums grow in K steps, each adding one bucket to every row, and
 * the column sums likewise: each step's additions go to distinct sums and share one inversion, as the buckets' do
 * (two additions of about 7 multiplications per bucket, against 24 for a running sum over all buckets). Overflow
 * buckets join the sums in XYZZ form. The weighted sums of the few hundred R_q and C_r are running sums. */
static void MSM_FN(affine_reduce)(MSM_FN(scratch_t) * s, unsigned c, MSM_FN(xyzz_t) * total)
{
    size_t nb = (size_t)1 << (c - 1), K = (size_t)1 << msm_reduce_kbits(c), Q = nb / K + 1;
    MSM_FN(scratch_t) sums = {.aff = s->sum, .state = s->sum_state, .prefix = s->prefix, .sched = s->sched};
    MSM_FN(affine_run) a = {.s = &sums, .pts = s->aff, .batch = msm_affine_batch(c)};
    MSM_F(set_one)(&a.acc);
    memset(s->sum_state, 0, Q + K);
    for (int cols = 0; cols < 2; cols++) {
        size_t steps = cols ? Q : K, width = cols ? K : Q;
        for (size_t st = 0; st < steps; st++) {
            for (size_t x = 0; x < width; x++) {
                size_t q = cols ? st : x, r = cols ? x : st, j = q * K + r, dst = cols ? Q + r : q;
                if (j == 0 || j > nb) continue;
                uint8_t bs = s->state[j - 1];
                if (bs & MSM_FULL) MSM_FN(affine_add)(&a, (uint32_t)(j - 1), (int32_t)dst + 1, 0);
                if (bs & MSM_OVER) {
                    if (!(s->sum_state[dst] & MSM_OVER)) MSM_G(xyzz_set_inf)(&s->sum_over[dst]);
                    s->sum_state[dst] |= MSM_OVER;
                    MSM_G(xyzz_add)(&s->sum_over[dst], &s->sum_over[dst], &s->xyzz[j - 1]);
                }
            }
            MSM_FN(affine_flush)(&a);
        }
    }
    MSM_FN(xyzz_t) part[2];
    for (int cols = 0; cols < 2; cols++) {
        size_t first = cols ? Q : 0, count = cols ? K : Q;
        MSM_FN(xyzz_t) run;
        MSM_G(xyzz_set_inf)(&run);
        MSM_G(xyzz_set_inf)(&part[cols]);
        for (size_t x = count; x-- > 1;) {
            uint8_t st = s->sum_state[first + x];
            if (st & MSM_FULL) MSM_G(xyzz_add_affine)(&run, &run, &s->sum[first + x]);
            if (st & MSM_OVER) MSM_G(xyzz_add)(&run, &run, &s->sum_over[first + x]);
            MSM_G(xyzz_add)(&part[cols], &part[cols], &run);
        }
    }
    for (unsigned i = 0; i < msm_reduce_kbits(c); i++) MSM_G(xyzz_dbl)(&part[0], &part[0]);
    MSM_G(xyzz_add)(total, &part[0], &part[1]);
}

static void MSM_FN(pip_task)(MSM_FN(pip_ctx) * ctx, size_t task, unsigned worker)
{
    unsigned c = ctx->plan.c, w = (unsigned)(task / ctx->plan.slices), s = (unsigned)(task % ctx->plan.slices);
    size_t nb = (size_t)1 << (c - 1), m = ctx->sc->m;
    size_t lo = m / ctx->plan.slices * s + (m % ctx->plan.slices) * s / ctx->plan.slices;
    size_t hi = m / ctx->plan.slices * (s + 1) + (m % ctx->plan.slices) * (s + 1) / ctx->plan.slices;
    MSM_FN(scratch_t) *sc = &ctx->scratch[worker];
    if (sc->xyzz == NULL && MSM_FN(scratch_alloc)(sc, c) != 0) {
        atomic_store(&ctx->failed, 1);
        return;
    }
    MSM_FN(xyzz_t) *bucket = sc->xyzz;
    MSM_FN(xyzz_t) run, total;
    MSM_G(xyzz_set_inf)(&run);
    MSM_G(xyzz_set_inf)(&total);

    if (sc->aff != NULL) {
        MSM_FN(affine_buckets)(ctx, sc, w, lo, hi);
        MSM_FN(affine_reduce)(sc, c, &ctx->window_sums[task]);
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
        if (d > 0)
            MSM_FN(acc_affine)(&bucket[d - 1], &ctx->bases[i], 0);
        else if (d < 0)
            MSM_FN(acc_affine)(&bucket[-d - 1], &ctx->bases[i], 1);
    }

    /* sum_b (b+1) * bucket[b] as a running sum from the top: each bucket joins `run` once and `run` joins the
     * total once per bucket below and including it. */
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
static int MSM_FN(pippenger)(pool_t *pool, MSM_FN(xyzz_t) * acc, const MSM_FN(aff_t) * bases, const msm_scalars_t *sc,
                             unsigned c)
{
    unsigned nthreads = msm_threads(pool);
    MSM_FN(pip_ctx) ctx = {bases, sc, msm_plan(sc->nother, nthreads, c), NULL, NULL, 0};
    size_t ntasks = (size_t)ctx.plan.nwin * ctx.plan.slices;
    ctx.scratch = calloc(nthreads, sizeof *ctx.scratch);
    ctx.window_sums = malloc(ntasks * sizeof(MSM_FN(xyzz_t)));
    if (ctx.scratch != NULL && ctx.window_sums != NULL) pool_parallel_for(pool, ntasks, 1, MSM_FN(pip_body), &ctx);
    int ok = ctx.scratch != NULL && ctx.window_sums != NULL && !atomic_load(&ctx.failed);
    for (unsigned t = 0; ctx.scratch != NULL && t < nthreads; t++) MSM_FN(scratch_free)(&ctx.scratch[t]);
    free(ctx.scratch);
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
static void MSM_FN(fallback)(MSM_FN(jac_t) * r, const MSM_FN(aff_t) * bases, const fr_t *scalars,
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

static void MSM_FN(run)(pool_t *pool, MSM_FN(jac_t) * r, const MSM_FN(aff_t) * bases, const fr_t *scalars,
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
