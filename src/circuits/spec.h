/* Circuit specifications as the command-line tools take them, e.g.
 *   synthetic:k=20            the synthetic PoRep-shaped circuit of 2^20 rows (seed 1)
 *   synthetic:k=20,seed=7
 *   synthetic:k=20,partitions=10  the same circuit; requests made from the spec have 10 partitions
 *   porep:2KiB                one partition of the StackedDRG PoRep circuit (StackedDrg2KiBV1_1)
 *   porep:32GiB,api=1.2,kind=ni
 *   wpost:32GiB               the WindowPoSt partition circuit (StackedDrgWindow32GiBV1_1; V1 shares it)
 *   winning:2KiB              the WinningPoSt circuit (StackedDrgWinning2KiBV1)
 *   snap:2KiB                 one partition of the SnapDeals EmptySectorUpdate circuit (1KiB .. 64GiB)
 * For porep: api 1.0, 1.1 (default) or 1.2; kind interactive (default up to 1.1), synthetic (default for 1.2)
 * or ni (non-interactive); the pair must name a registered proof type of the size. Interactive and synthetic
 * PoRep share one circuit (and parameters); non-interactive has more challenges per partition.
 * One parser for every program, so a spec means the same thing everywhere. */
#ifndef CUZK_CIRCUITS_SPEC_H
#define CUZK_CIRCUITS_SPEC_H

#include <stdint.h>

#include "circuits/porep/geometry.h"
#include "circuits/post/types.h"
#include "circuits/update/update.h"
#include "cuzk/status.h"
#include "r1cs/r1cs.h"
#include "util/pool.h"

typedef enum circuit_kind { CIRCUIT_SYNTHETIC, CIRCUIT_POREP, CIRCUIT_POST, CIRCUIT_SNAP } circuit_kind;

typedef struct circuit_spec {
    circuit_kind kind;
    unsigned k;                    /* synthetic */
    uint64_t seed;                 /* synthetic */
    unsigned partitions;           /* synthetic: partitions=P, a request's partition count (0: not given); not part of
                          * the circuit, so circuit_spec_format leaves it out */
    const porep_proof_type *porep; /* porep: an entry of porep_proof_types() */
    const post_proof_type *post;   /* wpost / winning: an entry of post_proof_types() */
    const update_geometry *snap;   /* snap: an entry of update_geometries() */
} circuit_spec;

/* CUZK_ERR_INVALID_ARG with a message naming the bad part. */
cuzk_status circuit_spec_parse(const char *text, circuit_spec *out, cuzk_error *err);
/* Canonical text of a spec ("synthetic:k=20,seed=1", "porep:2KiB,api=1.1,kind=interactive", "wpost:2KiB"). */
void circuit_spec_format(const circuit_spec *spec, char *buf, size_t len);
/* Builds and finalizes the circuit. what: R1CS_MATRICES and/or R1CS_WITNESS. A PoRep circuit's witness comes from
 * a C1 (engine/porep.h) and a PoSt witness from vanilla proofs (engine/post.h), so for those only the shape is built
 * (R1CS_WITNESS: CUZK_ERR_UNSUPPORTED). */
cuzk_status circuit_spec_build(pool_t *pool, const circuit_spec *spec, unsigned what, r1cs *out, cuzk_error *err);

#endif
