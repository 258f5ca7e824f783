/* Groth16 over BLS12-381, compatible with bellperson: parameters in its exact
 * .params/.vk byte layout, setup from toxic waste, the CPU prover (split at the
 * backend seam into prove_start and prove_finish), the verifier, and the
 * 192-byte proof encoding.
 *
 * Base ordering follows bellperson (see r1cs.h for variable indexing):
 *   ic[i]   input i (num_inputs entries, input 0 is the constant ONE), divided by gamma
 *   l[j]    aux j (full density), divided by delta
 *   h[i]    tau^i * t(tau) / delta, i < m - 1 (m the power-of-two domain)
 *   a       inputs (all), then aux with the A density bit set
 *   b_g1, b_g2  inputs with the B-input density bit set, then aux with the B-aux bit set
 * Points are affine, Montgomery form, as the ec layer holds them. */
#ifndef CUZK_GROTH16_GROTH16_H
#define CUZK_GROTH16_GROTH16_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "ec/pairing.h"
#include "ff/fr.h"
#include "poly/poly.h"
#include "r1cs/r1cs.h"
#include "util/pool.h"

#define GROTH16_PROOF_BYTES 192
/* Bytes of a .vk file (and of the .params prefix that is the vk) before ic[]. */
#define GROTH16_VK_FIXED_BYTES 868

typedef struct groth16_vk {
    g1_affine_t alpha_g1, beta_g1;
    g2_affine_t beta_g2, gamma_g2;
    g1_affine_t delta_g1;
    g2_affine_t delta_g2;
    size_t ic_len;   /* num_inputs, including ONE */
    g1_affine_t *ic; /* owned */
} groth16_vk;

/* Proving parameters. Arrays are owned (malloc) and released by groth16_params_free.
 * h_form says which H scalars the h bases expect: bellperson's m - 1 coefficients (the default, 0)
 * or snarkjs' m coset evaluations (set by the snarkjs .zkey reader). */
typedef struct groth16_params {
    groth16_vk vk;
    h_form h_form;
    size_t h_len, l_len, a_len, b_g1_len, b_g2_len;
    g1_affine_t *h, *l, *a, *b_g1;
    g2_affine_t *b_g2;
    /* Non-NULL (groth16_params_map): h .. b_g2 point into this read-only mapping of map_len bytes, which
     * groth16_params_free unmaps; nothing may write to them. */
    void *map;
    size_t map_len;
} groth16_params;

typedef struct groth16_proof {
    g1_affine_t a;
    g2_affine_t b;
    g1_affine_t c;
} groth16_proof;

void groth16_vk_free(groth16_vk *vk);
void groth16_params_free(groth16_params *p);

/* ---- files (bellperson layout: big-endian u32 lengths, uncompressed points) ---- */

/* Skip the subgroup check of the h, l, a, b_g1, b_g2 points (on-curve is still checked). For trusted
 * files: the check dominates the load time of large parameters. The vk points are always fully checked. */
#define GROTH16_LOAD_SKIP_SUBGROUP_CHECK 1u

/* Parse a .params image / a .vk image held in memory. Every length is checked against len before use;
 * errors name the section, index and byte offset: CUZK_ERR_TRUNCATED when the data ends early,
 * CUZK_ERR_FORMAT for an invalid point, a point at infinity where bellperson rejects one (ic, h, l, a,
 * b_g1, b_g2), or trailing bytes. Point decoding runs in parallel over pool (may be NULL).
 * On failure *out is left empty (nothing to free). */
cuzk_status groth16_params_parse(pool_t *pool, groth16_params *out, const uint8_t *buf, size_t len, unsigned flags,
                                 cuzk_error *err);
cuzk_status groth16_vk_parse(groth16_vk *out, const uint8_t *buf, size_t len, cuzk_error *err);

/* The same from a file, memory-mapped for the duration of the call. CUZK_ERR_IO if it cannot be opened. */
cuzk_status groth16_params_read(pool_t *pool, groth16_params *out, const char *path, unsigned flags, cuzk_error *err);
cuzk_status groth16_vk_read(groth16_vk *out, const char *path, cuzk_error *err);

/* ---- cuzk's own layout, memory-mapped (the warm tier of parameter residency) ----
 * groth16_params_native_write: p in a file that is its in-memory image (4 KiB header, page-aligned arrays), stamped
 * with the size and modification time of source, the bellperson file p was read from; written to path.tmp and
 * renamed. groth16_params_map: maps such a file read-only and shared (the page cache holds the bases; nothing is
 * decoded) and checks the header, the file length and the verifying key (not the bases: a cache is trusted);
 * CUZK_ERR_FORMAT / CUZK_ERR_TRUNCATED for a damaged file. groth16_params_load_mapped: source's parameters
 * through the cache file: mapped when the cache matches source's stamp, otherwise read from source (flags as for
 * groth16_params_read), written to cache and mapped (*remade = 1; remade may be NULL). */
cuzk_status groth16_params_native_write(const groth16_params *p, const char *source, const char *path, cuzk_error *err);
cuzk_status groth16_params_map(groth16_params *out, const char *path, cuzk_error *err);
/* groth16_params_map's checks on a cache image in memory: *out's arrays point into buf (only out->vk needs
 * freeing: groth16_vk_free, not groth16_params_free). source may be NULL for groth16_params_native_write (no
 * stamp: size and time 0). */
cuzk_status groth16_params_native_view(const uint8_t *buf, size_t len, groth16_params *out, cuzk_error *err);
cuzk_status groth16_params_load_mapped(pool_t *pool, groth16_params *out, const char *source, const char *cache,
                                       unsigned flags, int *remade, cuzk_error *err);

/* Write in bellperson's layout (byte-identical to Parameters::write / VerifyingKey::write).
 * Encoding runs in parallel over pool. */
cuzk_status groth16_params_write(pool_t *pool, const groth16_params *p, const char *path, cuzk_error *err);
cuzk_status groth16_vk_write(const groth16_vk *vk, const char *path, cuzk_error *err);
/* Sizes in bytes of the files the writers produce. */
size_t groth16_params_file_size(const groth16_params *p);
size_t groth16_vk_file_size(const groth16_vk *vk);

/* ---- setup ---- */

/* The secret trapdoors. All must be non-zero; tau must not be a root of t (tau^m != 1). */
typedef struct groth16_toxic {
    fr_t alpha, beta, gamma, delta, tau;
} groth16_toxic;

/* Fixed-base multiplications by a group generator, done by another engine (the GPU: gpu/gpu_setup.h).
 * table: the generator's window table of w-bit windows, as groth16_generator_table_g1/_g2 make it;
 * out[i] = s[i] * G for i < n (scalars and points in the CPU layouts). */
typedef struct groth16_fixed_base {
    void *ctx;
    unsigned w; /* window bits of the tables the engine wants (1..20) */
    /* pool: the setup's, for host-side work (may be NULL) */
    cuzk_status (*g1)(void *ctx, pool_t *pool, const g1_affine_t *table, unsigned w, const fr_t *s, size_t n,
                      g1_affine_t *out, cuzk_error *err);
    cuzk_status (*g2)(void *ctx, pool_t *pool, const g2_affine_t *table, unsigned w, const fr_t *s, size_t n,
                      g2_affine_t *out, cuzk_error *err);
} groth16_fixed_base;

/* Window tables of the generators for fixed-base multiplication: for window j < ceil(255 / w) and digit
 * 1 <= d < 2^w, (*out)[j * (2^w - 1) + d - 1] = d * 2^(w j) * G, affine. *out is malloc'd (free()). */
cuzk_status groth16_generator_table_g1(pool_t *pool, unsigned w, g1_affine_t **out, cuzk_error *err);
cuzk_status groth16_generator_table_g2(pool_t *pool, unsigned w, g2_affine_t **out, cuzk_error *err);

typedef struct groth16_setup_options {
    const groth16_fixed_base *fixed_base; /* NULL: on the pool's CPU threads */
    /* Called after each step (may be NULL): what was done. For the progress of long setups. */
    void (*progress)(void *ctx, const char *step);
    void *progress_ctx;
} groth16_setup_options;

/* Parameters for a finalized r1cs (shape only is enough), computed as bellperson's generate_parameters:
 * identity points are filtered from a, b_g1, b_g2 (so their lengths match the r1cs density popcounts);
 * an aux variable whose l base is the identity fails with CUZK_ERR_INVALID_ARG ("unconstrained").
 * opts may be NULL (CPU, no progress). The same toxic waste gives the same parameters on every engine. */
cuzk_status groth16_setup_with_toxic(pool_t *pool, const r1cs *cs, const groth16_toxic *toxic,
                                     const groth16_setup_options *opts, groth16_params *out, cuzk_error *err);
/* Toxic waste drawn from the operating system and wiped after use; parameters stay in memory. */
cuzk_status groth16_setup_opts(pool_t *pool, const r1cs *cs, const groth16_setup_options *opts, groth16_params *out,
                               cuzk_error *err);
/* groth16_setup_opts on the CPU. */
cuzk_status groth16_setup(pool_t *pool, const r1cs *cs, groth16_params *out, cuzk_error *err);
/* groth16_setup_opts, then writes params_path and vk_path (either may be NULL) and frees the parameters. */
cuzk_status groth16_setup_files(pool_t *pool, const r1cs *cs, const groth16_setup_options *opts,
                                const char *params_path, const char *vk_path, cuzk_error *err);

/* ---- prover ---- */

/* Wall-clock milliseconds per stage; prove_start fills the first six, prove_finish the last two. */
typedef struct groth16_timings {
    double eval_abc_ms; /* a, b, c = A·w, B·w, C·w */
    double h_ms;        /* the NTTs and pointwise work of poly_compute_h */
    double msm_h_ms, msm_l_ms, msm_a_ms, msm_b_g1_ms;
    double msm_b_g2_ms;
    double assembly_ms; /* blinding with r, s and conversion to affine */
} groth16_timings;

/* What prove_start hands to prove_finish: the four G1 MSM results, and borrowed pointers to what the
 * B_G2 MSM still needs (params, witness, density), which must stay alive until prove_finish returns.
 * A GPU backend fills the same struct and calls groth16_prove_finish; when it computed B_G2 as well it sets
 * b_g2_done and b_g2, and prove_finish skips the B_G2 MSM. */
typedef struct groth16_pending {
    const groth16_params *params;
    const fr_t *inputs, *aux;
    size_t num_inputs, num_aux;
    const r1cs_density *density;
    g1_jac_t h, l, a, b_g1; /* a and b_g1 without blinding (the MSMs over inputs and aux) */
    int b_g2_done;
    g2_jac_t b_g2;
} groth16_pending;

/* The size relations bellperson (and supraseal's entry assertions) rely on, between params and a circuit of n
 * constraints with n_in inputs, n_aux aux and densities dn over domain d. CUZK_ERR_INVALID_ARG ("prove: ...")
 * naming the mismatch. Every backend's prove_start checks them. */
cuzk_status groth16_check_shapes(const groth16_params *p, size_t n_in, size_t n_aux, size_t n, const r1cs_density *dn,
                                 const domain_t *d, cuzk_error *err);

/* Everything an accelerator would do: a/b/c from cs and the witness (inputs[0] must be 1), H, and the
 * H, L, A, B_G1 MSMs. The a/b/c buffers are allocated and freed inside. Sizes of params are checked
 * against cs and density (CUZK_ERR_INVALID_ARG naming the mismatch). timings may be NULL. */
cuzk_status groth16_prove_start(pool_t *pool, const groth16_params *params, const r1cs *cs, const fr_t *inputs,
                                const fr_t *aux, const r1cs_density *density, groth16_pending *pending,
                                groth16_timings *timings, cuzk_error *err);
/* groth16_prove_start without the a/b/c evaluation, for pipelines whose synthesis stage already computed
 * them (groth16_prove_start evaluates a/b/c and calls it): a, b, c hold num_constraints evaluations each in
 * buffers of m elements (m the power-of-two domain of num_constraints); they are scratch and hold nothing
 * useful on return, so the caller may free them as soon as this returns. inputs (inputs[0] == 1), aux and
 * density are borrowed by pending until prove_finish. timings->eval_abc_ms is left untouched. */
cuzk_status groth16_prove_start_abc(pool_t *pool, const groth16_params *params, size_t num_constraints, fr_t *a,
                                    fr_t *b, fr_t *c, const fr_t *inputs, size_t num_inputs, const fr_t *aux,
                                    size_t num_aux, const r1cs_density *density, groth16_pending *pending,
                                    groth16_timings *timings, cuzk_error *err);
/* B_G2 MSM, blinding with r, s (both given, or both NULL to draw them from os_random) and assembly:
 *   A = alpha + a + r·delta,  B = beta + b_g2 + s·delta,
 *   C = s·a + r·b_g1 + r·s·delta + s·alpha + r·beta + h + l   (bellperson's formula). */
cuzk_status groth16_prove_finish(pool_t *pool, const groth16_pending *pending, const fr_t *r, const fr_t *s,
                                 groth16_proof *proof, groth16_timings *timings, cuzk_error *err);
/* Both, with the density computed from cs. Uses cs's own witness when inputs and aux are NULL. */
cuzk_status groth16_prove(pool_t *pool, const groth16_params *params, const r1cs *cs, const fr_t *inputs,
                          const fr_t *aux, const fr_t *r, const fr_t *s, groth16_proof *proof, groth16_timings *timings,
                          cuzk_error *err);

/* ---- verifier ---- */

typedef struct groth16_pvk {
    fp12_t alpha_beta;                    /* e(alpha_g1, beta_g2) */
    g2_prepared_t *neg_gamma, *neg_delta; /* -gamma_g2, -delta_g2 */
    g2_prepared_t *beta;                  /* beta_g2, for batch verification */
    g1_affine_t alpha_g1;
    size_t ic_len;
    g1_affine_t *ic; /* owned copy */
} groth16_pvk;

cuzk_status groth16_pvk_prepare(groth16_pvk *out, const groth16_vk *vk, cuzk_error *err);
void groth16_pvk_free(groth16_pvk *pvk);

/* inputs: the public inputs without the constant ONE (num_inputs == ic_len - 1, else CUZK_ERR_INVALID_ARG).
 * Returns CUZK_OK for a valid proof and CUZK_ERR_INVALID_PROOF otherwise (also for points off the curve
 * or outside their subgroups). pool may be NULL. */
cuzk_status groth16_verify(pool_t *pool, const groth16_pvk *pvk, const groth16_proof *proof, const fr_t *inputs,
                           size_t num_inputs, cuzk_error *err);
/* All proofs at once by a random linear combination (128-bit coefficients from os_random) and one
 * multi-pairing. inputs: n_proofs rows of num_inputs values, row i at inputs + i * num_inputs.
 * CUZK_OK iff every proof is valid (with overwhelming probability). */
cuzk_status groth16_verify_batch(pool_t *pool, const groth16_pvk *pvk, const groth16_proof *proofs, size_t n_proofs,
                                 const fr_t *inputs, size_t num_inputs, cuzk_error *err);

/* ---- proof encoding: A compressed (48) ‖ B compressed (96) ‖ C compressed (48) ---- */

void groth16_proof_write(uint8_t out[GROTH16_PROOF_BYTES], const groth16_proof *proof);
/* Checks flags, curve and subgroup of each point and rejects points at infinity (as bellperson's
 * Proof::read): the decoder's status, or CUZK_ERR_FORMAT for infinity; the message names the point. */
cuzk_status groth16_proof_read(groth16_proof *proof, const uint8_t in[GROTH16_PROOF_BYTES], cuzk_error *err);
/* A multi-partition proof: the plain concatenation of n 192-byte proofs. */
void groth16_proofs_write(uint8_t *out, const groth16_proof *proofs, size_t n);
/* len must be exactly n * 192 (else CUZK_ERR_FORMAT); errors name the partition. */
cuzk_status groth16_proofs_read(groth16_proof *proofs, size_t n, const uint8_t *in, size_t len, cuzk_error *err);

#endif
