/* Shapes of circuits made of a top part and n blocks of one shape (PoRep's challenges, PoSt's sectors, SnapDeals'
 * challenges): the whole compiled system is built from a compiled system of the top part and two blocks, the second
 * checked to be the first moved one block on, by replicating the first block's rows n times in parallel.
 *
 * The layout, in the synthesis order: inputs are ONE and the top part's, then each block's; aux variables the top
 * part's, then each block's; rows the top part's, then each block's (then the input rows r1cs_finalize appends).
 * Within block i a row's entry names a column of the top part (the same in every block), a variable of block i
 * itself, or, through the hook, a top-part variable that belongs to block i (SnapDeals computes every challenge's
 * bits in the top part). */
#ifndef CUZK_R1CS_BLOCKS_H
#define CUZK_R1CS_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "r1cs/r1cs.h"
#include "util/pool.h"

typedef struct r1cs_blocks {
    size_t top_in, top_aux, top_con; /* the top part's inputs (counting ONE), aux variables and rows */
    size_t blk_in, blk_aux, blk_con; /* one block's */
    size_t n;                        /* blocks in the whole system */
    /* Optional (NULL: none): top-part aux variable a (0-based among the aux) that belongs to a block, as used by
     * block 0's rows: returns 1 and a slot (< 2^32 - 1) naming it for block_col, else 0. */
    int (*block_slot)(void *ctx, size_t a, uint32_t *slot);
    /* The column, in a system of num_inputs inputs, of the variable of that slot for block i. */
    uint32_t (*block_col)(void *ctx, uint32_t slot, size_t i, size_t num_inputs);
    void *ctx;
} r1cs_blocks;

/* out = the system of L->n blocks (R1CS_MATRICES, finalized) replicated from s2, the finalized system of the top
 * part and two blocks (L->n >= 2). CUZK_ERR_UNSUPPORTED naming the first row where s2's second block is not its
 * first moved one block on, or where the top part or the first block uses a variable of the second;
 * CUZK_ERR_INTERNAL when s2's sizes are not L's; CUZK_ERR_NOMEM. out is zeroed on failure. */
cuzk_status r1cs_replicate_blocks(pool_t *pool, const r1cs *s2, const r1cs_blocks *L, r1cs *out, cuzk_error *err);

#endif
