/* The witness split of a GPU partition (classify.h). Two passes over blocks of aux: count (tail sizes and density
 * ranks per block, which fix every output offset and the split decision), then write. */
#include "gpu/classify.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CLS_WORDS 1024 /* density words (64 aux each) per block */

static double cls_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

enum { CNT_TAIL_L, CNT_RANK_A, CNT_TAIL_A, CNT_RANK_B, CNT_TAIL_B, CNT_ONES_L, CNT_ONES_A, CNT_ONES_B, CNT_N };

/* 0, 1 or 2 (any other value). */
static inline int fr_class(const fr_t *v, const fr_t *one)
{
    if ((v->l[0] | v->l[1] | v->l[2] | v->l[3]) == 0) return 0;
    return (v->l[0] == one->l[0] && v->l[1] == one->l[1] && v->l[2] == one->l[2] && v->l[3] == one->l[3]) ? 1 : 2;
}

static inline uint64_t word_mask(const uint64_t *bits, size_t w, size_t nbits)
{
    uint64_t x = bits[w];
    size_t rem = nbits - w * 64;
    return rem >= 64 ? x : x & ((1ull << rem) - 1);
}

static void count_block(void *vctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    gpu_classify *cl = (gpu_classify *)vctx;
    size_t nw = (cl->num_aux + 63) / 64;
    for (size_t blk = begin; blk < end; blk++) {
        size_t c[CNT_N] = {0};
        size_t w1 = (blk + 1) * CLS_WORDS < nw ? (blk + 1) * CLS_WORDS : nw;
        for (size_t w = blk * CLS_WORDS; w < w1; w++) {
            uint64_t da = word_mask(cl->dn->a_aux, w, cl->num_aux), db = word_mask(cl->dn->b_aux, w, cl->num_aux);
            size_t jn = cl->num_aux - w * 64 < 64 ? cl->num_aux - w * 64 : 64;
            for (size_t bit = 0; bit < jn; bit++) {
                int k = fr_class(&cl->aux[w * 64 + bit], &cl->one);
                size_t ia = (da >> bit) & 1, ib = (db >> bit) & 1;
                c[CNT_TAIL_L] += k == 2;
                c[CNT_ONES_L] += k == 1;
                c[CNT_RANK_A] += ia;
                c[CNT_TAIL_A] += ia & (k == 2);
                c[CNT_ONES_A] += ia & (k == 1);
                c[CNT_RANK_B] += ib;
                c[CNT_TAIL_B] += ib & (k == 2);
                c[CNT_ONES_B] += ib & (k == 1);
            }
        }
        memcpy(&cl->cnt[blk * CNT_N], c, sizeof c);
    }
}

/* Sets bit pos of mask, flushing a run of bits of one word at a time (neighbouring blocks may share a word). */
typedef struct bitw {
    uint64_t *mask;
    size_t word;
    uint64_t bits;
} bitw;

static inline void bitw_flush(bitw *b)
{
    if (b->bits) __atomic_fetch_or(&b->mask[b->word], b->bits, __ATOMIC_RELAXED);
    b->bits = 0;
}

static inline void bitw_set(bitw *b, size_t pos)
{
    if (pos / 64 != b->word) {
        bitw_flush(b);
        b->word = pos / 64;
    }
    b->bits |= 1ull << (pos % 64);
}

static void write_block(void *vctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    gpu_classify *cl = (gpu_classify *)vctx;
    size_t nw = (cl->num_aux + 63) / 64;
    gpu_cls_query *ql = &cl->q[GPU_Q_L], *qa = &cl->q[GPU_Q_A], *qb = &cl->q[GPU_Q_B];
    /* The inputs' share of the A and B tails and bases comes first. */
    size_t tail_a0 = cl->num_inputs, tail_b0 = cl->dn->b_input_count;
    for (size_t blk = begin; blk < end; blk++) {
        const size_t *o = &cl->cnt[blk * CNT_N];
        size_t tl = o[CNT_TAIL_L], ta = tail_a0 + o[CNT_TAIL_A], tb = tail_b0 + o[CNT_TAIL_B];
        size_t pa = cl->num_inputs + o[CNT_RANK_A], pb = cl->dn->b_input_count + o[CNT_RANK_B];
        bitw ba = {qa->ones, 0, 0}, bb = {qb->ones, 0, 0};
        size_t w1 = (blk + 1) * CLS_WORDS < nw ? (blk + 1) * CLS_WORDS : nw;
        for (size_t w = blk * CLS_WORDS; w < w1; w++) {
            uint64_t da = word_mask(cl->dn->a_aux, w, cl->num_aux), db = word_mask(cl->dn->b_aux, w, cl->num_aux);
            size_t jn = cl->num_aux - w * 64 < 64 ? cl->num_aux - w * 64 : 64;
            uint64_t lones = 0;
            for (size_t bit = 0; bit < jn; bit++) {
                size_t j = w * 64 + bit;
                const fr_t *v = &cl->aux[j];
                int k = fr_class(v, &cl->one);
                if (ql->split) {
                    if (k == 1) lones |= 1ull << bit;
                    if (k == 2) {
                        ql->tail_s[tl] = *v;
                        ql->tail_i[tl++] = (uint32_t)j;
                    }
                }
                if ((da >> bit) & 1) {
                    if (!qa->split) {
                        qa->full[pa] = *v;
                    } else if (k == 1) {
                        bitw_set(&ba, pa);
                    } else if (k == 2) {
                        qa->tail_s[ta] = *v;
                        qa->tail_i[ta++] = (uint32_t)pa;
                    }
                    pa++;
                }
                if ((db >> bit) & 1) {
                    if (!qb->split) {
                        qb->full[pb] = *v;
                    } else if (k == 1) {
                        bitw_set(&bb, pb);
                    } else if (k == 2) {
                        qb->tail_s[tb] = *v;
                        qb->tail_i[tb++] = (uint32_t)pb;
                    }
                    pb++;
                }
            }
            if (ql->split) ql->ones[w] = lones; /* aux words are the L mask's words: no sharing */
        }
        if (qa->split) bitw_flush(&ba);
        if (qb->split) bitw_flush(&bb);
    }
}

static void query_free(gpu_cls_query *q)
{
    free(q->ones);
    free(q->tail_s);
    free(q->tail_i);
    free(q->full);
    memset(q, 0, sizeof *q);
}

static cuzk_status query_alloc(gpu_cls_query *q, int with_full, cuzk_error *err)
{
    if (q->split) {
        q->ones = calloc((q->nbases + 63) / 64 + 1, sizeof(uint64_t));
        q->tail_s = malloc((q->tail_n + 1) * sizeof(fr_t));
        q->tail_i = malloc((q->tail_n + 1) * sizeof(uint32_t));
        if (q->ones && q->tail_s && q->tail_i) return CUZK_OK;
    } else {
        if (!with_full) return CUZK_OK;
        q->full = malloc((q->nbases + 1) * sizeof(fr_t));
        if (q->full) return CUZK_OK;
    }
    return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu prove: cannot allocate the classification of %zu bases", q->nbases);
}

static void decide(gpu_cls_query *q, gpu_prove_split mode)
{
    q->split = mode == GPU_SPLIT_ALWAYS ? 1 : mode == GPU_SPLIT_NEVER ? 0 : 2 * q->tail_n <= q->nbases;
}

void gpu_classify_run(gpu_classify *cl)
{
    double t0 = cls_now_ms();
    const r1cs_density *dn = cl->dn;
    size_t nw = (cl->num_aux + 63) / 64;
    fr_set_one(&cl->one);
    cl->nblocks = (nw + CLS_WORDS - 1) / CLS_WORDS;
    cl->cnt = malloc((cl->nblocks + 1) * CNT_N * sizeof(size_t));
    if (cl->cnt == NULL) {
        cl->st = cuzk_error_set(&cl->err, CUZK_ERR_NOMEM, "gpu prove: cannot allocate classification counters");
        return;
    }
    pool_parallel_for(cl->pool, cl->nblocks, 1, count_block, cl);
    size_t sum[CNT_N] = {0};
    for (size_t blk = 0; blk < cl->nblocks; blk++)
        for (int k = 0; k < CNT_N; k++) {
            size_t v = cl->cnt[blk * CNT_N + k];
            cl->cnt[blk * CNT_N + k] = sum[k];
            sum[k] += v;
        }
    gpu_cls_query *ql = &cl->q[GPU_Q_L], *qa = &cl->q[GPU_Q_A], *qb = &cl->q[GPU_Q_B];
    ql->nbases = cl->num_aux;
    ql->tail_n = sum[CNT_TAIL_L];
    ql->ones_n = sum[CNT_ONES_L];
    qa->nbases = cl->num_inputs + dn->a_aux_count;
    qa->tail_n = cl->num_inputs + sum[CNT_TAIL_A];
    qa->ones_n = sum[CNT_ONES_A];
    qb->nbases = dn->b_input_count + dn->b_aux_count;
    qb->tail_n = dn->b_input_count + sum[CNT_TAIL_B];
    qb->ones_n = sum[CNT_ONES_B];
    if (sum[CNT_RANK_A] != dn->a_aux_count || sum[CNT_RANK_B] != dn->b_aux_count) {
        cl->st = cuzk_error_set(&cl->err, CUZK_ERR_INVALID_ARG,
                                "gpu prove: density popcounts (A %zu, B %zu) disagree with the masks (%zu, %zu)",
                                dn->a_aux_count, dn->b_aux_count, sum[CNT_RANK_A], sum[CNT_RANK_B]);
        return;
    }
    for (int q = 0; q < GPU_Q_COUNT; q++) {
        decide(&cl->q[q], cl->mode);
        cl->st = query_alloc(&cl->q[q], q != GPU_Q_L, &cl->err);
        if (cl->st != CUZK_OK) return;
    }
    /* The inputs: all of them in A (base i), those with the B-input bit in B (base = rank). */
    for (size_t i = 0; i < cl->num_inputs; i++) {
        if (qa->split) {
            qa->tail_s[i] = cl->inputs[i];
            qa->tail_i[i] = (uint32_t)i;
        } else {
            qa->full[i] = cl->inputs[i];
        }
    }
    for (size_t i = 0, r = 0; i < cl->num_inputs; i++) {
        if (!((dn->b_input[i / 64] >> (i % 64)) & 1)) continue;
        if (qb->split) {
            qb->tail_s[r] = cl->inputs[i];
            qb->tail_i[r] = (uint32_t)r;
        } else {
            qb->full[r] = cl->inputs[i];
        }
        r++;
    }
    pool_parallel_for(cl->pool, cl->nblocks, 1, write_block, cl);
    cl->ms = cls_now_ms() - t0;
}

void gpu_classify_free(gpu_classify *cl)
{
    for (int q = 0; q < GPU_Q_COUNT; q++) query_free(&cl->q[q]);
    free(cl->cnt);
    cl->cnt = NULL;
}
