/* A valid C1 (SealCommitPhase1Output) for any sector size, 32 and 64 GiB included, without sealing the sector.
 *
 * A C1 only shows the nodes its challenges touch, and everything it shows is checked locally: each challenged
 * node's labels against its parents' rows, each column against TreeC, the replica leaf against the last label and
 * the data leaf, every path against its root. So the sector is made sparse: every data node holds one constant
 * value, and every TreeC and TreeR leaf nobody looks at holds a constant default, so each tree is its default
 * subtree hashes plus the few paths of touched leaves. Labels: a challenged node's labels are computed from its
 * parents' labels, as sealing would; every other node's labels (parents that are not challenged themselves) are
 * free values drawn from a seeded PRF, identical wherever the node appears, so a node that is both a parent and a
 * challenge, or the parent of two challenges, has one column. The rest is what sealing does: replica_id from
 * comm_d, challenges from replica_id and the seed, comm_r = Poseidon2(comm_c, comm_r_last).
 *
 * Memory and time grow with the number of challenges, not with the sector: 32 GiB (180 challenges, ~2,700
 * columns) takes about a second and a few MB besides the C1 itself. */
#ifndef CUZK_CIRCUITS_POREP_SYNTH_C1_H
#define CUZK_CIRCUITS_POREP_SYNTH_C1_H

#include <stdint.h>

#include "circuits/porep/c1.h"
#include "cuzk/status.h"

/* Fills *out (porep_c1_free) with the C1 of a synthetic sector of type's size, every value (prover_id, sector_id,
 * ticket, seed, the data value, the free labels, the default leaves) drawn from a generator seeded with seed.
 * Interactive proof types only (V1, V1_1): the synthetic and non-interactive challenges are derived from comm_r,
 * which depends on the challenged columns (CUZK_ERR_UNSUPPORTED). */
cuzk_status porep_synth_c1(porep_c1 *out, const porep_proof_type *type, uint64_t seed, cuzk_error *err);

#endif
