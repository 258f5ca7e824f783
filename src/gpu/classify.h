/* The witness split of a GPU partition (plain host code, no CUDA): every query's (L, A, B) scalars sorted into
 * zeros (dropped), ones (a bit mask over the query's bases: one batch addition) and the others (the tail: scalars
 * with their base indices, one MSM), or left whole when most scalars are neither 0 nor 1.
 *
 * Bases are indexed as the CPU prover selects them: L by aux index; A by input index, then num_inputs + rank of
 * the aux among the A-density bits; B by rank among the B-input bits, then b_input_count + rank among the B-aux
 * bits. Inputs always go to the tail (few, and ONE among them). */
#ifndef CUZK_GPU_CLASSIFY_H
#define CUZK_GPU_CLASSIFY_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "ff/fr.h"
#include "gpu/gpu_prove.h"
#include "r1cs/r1cs.h"
#include "util/pool.h"

typedef struct gpu_cls_query {
    size_t nbases;
    int split; /* 1: ones + tail; 0: one MSM over every base */
    size_t ones_n, tail_n;
    uint64_t *ones;   /* split: mask over the bases, ceil(nbases / 64) words */
    fr_t *tail_s;     /* split: tail scalars */
    uint32_t *tail_i; /* split: their base indices, increasing */
    fr_t *full;       /* not split, A and B: one scalar per base (L uses aux itself, full stays NULL) */
} gpu_cls_query;

typedef struct gpu_classify {
    /* in */
    const fr_t *inputs, *aux;
    size_t num_inputs, num_aux;
    const r1cs_density *dn;
    gpu_prove_split mode;
    pool_t *pool; /* may be NULL */
    /* work */
    size_t nblocks;
    size_t *cnt; /* nblocks * CNT_N counts per block, then their exclusive prefix sums */
    fr_t one;
    /* out */
    gpu_cls_query q[GPU_Q_COUNT];
    cuzk_status st;
    cuzk_error err;
    double ms; /* wall time of the run */
} gpu_classify;

/* Fills cl->q from the inputs above; the result in cl->st / cl->err (CUZK_ERR_NOMEM, or CUZK_ERR_INVALID_ARG when
 * the density popcounts disagree with the masks). Free with gpu_classify_free in either case. */
void gpu_classify_run(gpu_classify *cl);
void gpu_classify_free(gpu_classify *cl);

#endif
