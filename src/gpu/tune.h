/* The GPU backend's tuning: every knob in one struct, read from the environment once (the first gpu_tune_get),
 * then changed only through gpu_tune_set (tests, cuzk-bench, the daemon's configuration). The defaults are the
 * measured best on the H200 (docs/GPU-NOTES.md, "Tuning", has the history of each); the environment overrides exist
 * for experiments and are listed there. Plain C, no CUDA: built with and without it. */
#ifndef CUZK_GPU_TUNE_H
#define CUZK_GPU_TUNE_H

#include <stddef.h>

#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A path forced by the environment, or chosen by size (GPU_TUNE_AUTO). */
typedef enum gpu_tune_path {
    GPU_TUNE_AUTO = 0,
    GPU_TUNE_XYZZ = 1,        /* XYZZ bucket sums */
    GPU_TUNE_AFFINE = 2,      /* batch-affine rounds, lane-per-output gathers */
    GPU_TUNE_AFFINE_WARP = 3, /* batch-affine rounds, warp gathers of round 1 (G1 MSM only) */
} gpu_tune_path;

typedef struct gpu_tune {
    /* CUZK_GPU_PROFILE (set: on), default off: one line per MSM / H / affine sum to stderr with the device time
     * of each phase (events between the stream's operations: costs a little, so off in production). */
    int profile;
    /* CUZK_GPU_TRACE=FILE, default "" (off): spans of the prover's device work (each streamed piece's copy and
     * compute, the tails' gathers, B_G2, the H step) recorded with events and no host synchronization, appended
     * to FILE at the end of each partition with a summary (the bus's and each stream's busy time; trace.cuh). */
    char trace[256];

    /* G1 MSM (msm.cu). */
    /* CUZK_GPU_MSM=xyzz|affine|affine-warp, default AUTO: affine-warp from 16 M bucket entries (2^24 points at
     * c = 20 and up), XYZZ below, where a round's scan and host sync cost more than the 4 products saved. */
    gpu_tune_path msm;
    /* 1 when CUZK_GPU_MSM was set (to anything): no XYZZ retry after an affine run out of device memory. */
    int msm_forced;
    /* CUZK_GPU_MSM_TAIL (0..8), default 2: buckets of at most 2^t points leave the affine rounds for one XYZZ
     * kernel (the top window's few large buckets made every other bucket pass through ~13 rounds). */
    unsigned msm_tail;
    /* CUZK_GPU_MSM_INV=fermat sets 0, default 1: inversions by Bernstein-Yang divsteps (~15 batches against
     * Fermat's 609 products; 2^26 374.5 -> 358.6 ms). */
    int msm_inv_by;
    /* CUZK_GPU_MSM_EARLY=0|1, default 1: buckets leave the rounds as soon as they are small enough. */
    int msm_early;
    /* CUZK_GPU_MSM_SHARE (1..16), default 4: an affine MSM's round lists take at most 1/share of the free device
     * memory (partition workers and the overlapped H MSM share the device). */
    unsigned msm_share;
    /* CUZK_GPU_GLV=0 turns it off, default 1: resident H bases keep their images under phi beside them (+96 bytes a
     * base; uncapped, when plan.h's gpu_plan_glv allows) and the H MSM splits its scalars (glv.h): 6 windows of 22
     * bits over 2n points instead of 13 of 20 over n (2^27: 633.26 against 674.03 ms; SnapDeals 32 GiB 0.993
     * against 1.031 s a partition). */
    int glv;
    /* CUZK_GPU_BATCH=xyzz|affine, default AUTO: the G1 batch addition is affine from 2^20 selected bases. */
    gpu_tune_path batch;

    /* G2 (msm.cu). CUZK_GPU_G2=xyzz|affine, default AUTO: affine batch additions from 2^16 selected bases and MSMs
     * from 2^20 bucket entries. CUZK_GPU_G2_TAIL (0..8), default 2: as msm_tail. */
    gpu_tune_path g2;
    unsigned g2_tail;

    /* CUZK_NTT_VARIANT (name or index of ntt.cu's table), default "" = the table's default (r4x256b3cf). An
     * unknown name fails gpu_ntt_plan_create with CUZK_ERR_INVALID_ARG. */
    char ntt_variant[32];
    /* CUZK_GPU_ABC (thread|hybrid or an index), default "" = gpu_abc_variant_default(). */
    char abc_variant[32];

    /* Host memory (ctx_host.cu). CUZK_HOST_ALLOC=cuda sets 1, default 0: pinned buffers are malloc'd (huge pages
     * asked for) and registered, not cudaHostAlloc'd (whose page faults run on the driver's one thread). */
    int host_alloc_cuda;

    /* The prover (prove.cu). */
    /* CUZK_GPU_BASES=stream sets 1, default 0: every base section streamed from the host in pieces, as if none
     * fitted on the device (tests of the streamed path). */
    int bases_stream;
    /* CUZK_GPU_PIN_STREAMED=0 sets 0, default 1: streamed sections are page-locked (the DMA reads them directly;
     * pageable memory goes through the driver's staging copies). */
    int pin_streamed;
    /* CUZK_GPU_STREAM_CHUNK (points, rounded down to a multiple of 64, at least 64), default 2^24: piece size of
     * streamed bases. */
    size_t stream_chunk;
    /* CUZK_GPU_COPY_SLICE (bytes, as CUZK_GPU_MEMORY_LIMIT; 0: whole copies), default 64 MiB: the streamed pieces'
     * and staged inputs' host-to-device copies are queued in slices of at most this many bytes, so that another
     * stream's copy waits behind one slice (~1.2 ms at 54 GB/s), not a whole 1.3-3.2 GB piece (the trace's tails
     * and the H MSM's first piece waited behind whole pieces). */
    size_t copy_slice;
    /* CUZK_GPU_OVERLAP=0 sets 0, default 1: the H MSM runs on a second context beside B_G2, L, A, B (2^27
     * partition 2201 -> 1938 ms). */
    int overlap;
    /* CUZK_GPU_TURN=0 sets 0, default 1: provers on one device take turns at their partitions' compute. */
    int turns;
    /* CUZK_GPU_TURN_SPLIT=0 sets 0, default 1: without a memory cap, the next prover's a, b, c and H NTTs run
     * beside this one's MSMs (the turn in two stages, prove.cu). */
    int turn_split;
    /* The streamed MSM stage under a memory cap, four switches, each on by default since the twenty-fourth session
     * ("0" turns one off): on an H100 (32 GiB PoRep, -n 2 -j 2 --partition-workers 3, BENCHMARKS.md "2026-12-07
     * (twenty-fourth session)"), all four gave 1.613, 1.632 and 1.608 s a partition at a 24 GiB cap against 1.692,
     * 1.695, 1.705 and 1.712 without, in three calls on one machine (-5 %), and 1.908 against 1.908 and 1.909 at
     * 16 GiB (--abc host). Uncapped none of them acts: the priorities are level, H and B_G2 are resident, and the
     * plan leaves room for the witness.
     * CUZK_GPU_QUERIES_ABOVE: under a cap a prover's stream (a, b, c, the NTTs, B_G2, L, A, B_G1) one priority
     * above its overlapped H MSM's, so that the queries' short kernels take SMs ahead of the H MSM's waiting
     * blocks (uncapped: level either way). */
    int queries_above;
    /* CUZK_GPU_H_FIRST: the queries wait until the overlapped H MSM over streamed bases has queued its first
     * piece's copy, so that it is not queued behind B_G2's (H2D copies run in the order queued: the trace showed the
     * H MSM starting 60-85 ms into the stage, behind B_G2's first 3.2 GB). */
    int h_first;
    /* CUZK_GPU_WITNESS_PACK=0|1|2, default 2: a witness from a shape goes up before the device's turn packed (its
     * ones as bits, the others with their indices: the L query's split, ~1.2 of 4.2 GB at 32 GiB PoRep) when that
     * fits beside the H step: 2 where the plan leaves no room for it as it is (a cap) while another prover holds
     * the turn (waiting for the classification then costs no device time); 1 always (tests); 0 never. */
    int witness_pack;
    /* CUZK_GPU_B2_OVERLAP: streamed B_G2's pieces copied beside the compute of the piece before (two device
     * buffers of a piece), as the G1 pieces are; "0": each piece copied, then computed. */
    int b_g2_overlap;

    /* Device memory (mem.cu). CUZK_GPU_MEMORY_LIMIT (bytes, or a number with K, M, G, T or KiB .. TiB: powers of
     * 1024; KB .. TB: powers of 1000; e.g. "16G"), default 0 = none: a cap on the bytes the backend holds on each
     * device, enforced at every allocation it makes (beyond it an allocation fails as if the device were full,
     * CUZK_ERR_NOMEM), with free and total memory reported against it, so that a smaller card can be reproduced on
     * a larger one. The prover plans its working sets from the capped figures (plan.h). A value that
     * does not parse leaves the limit as it was. Also the daemon's gpus.memory_limit, cuzk-bench's
     * --gpu-memory-limit. */
    size_t memory_limit;
} gpu_tune;

/* Parses a size as CUZK_GPU_MEMORY_LIMIT takes it ("16G", "1536MiB", "24000000000"); 0 on success, -1 when
 * text is not one (or overflows). */
int gpu_tune_parse_size(const char *text, size_t *out);

/* The current tuning (a copy; the first call reads the environment). Thread-safe. */
gpu_tune gpu_tune_get(void);
/* Replaces the tuning for every later call (calls already running keep theirs). Thread-safe. */
void gpu_tune_set(const gpu_tune *t);
/* The tuning replaced by the defaults and the environment as it is now (cuzk-bench's sweeps set the variables
 * between runs). */
void gpu_tune_reload_env(void);
/* The defaults, without the environment. */
void gpu_tune_defaults(gpu_tune *t);
/* t's fields overridden from the environment variables above (unset ones keep their value). */
void gpu_tune_from_env(gpu_tune *t);
/* The same from another source: get(ctx, NAME) gives a variable's value, or NULL where unset. get is asked for
 * every variable above, each once, in a fixed order (so a caller can tell the names it knows from the ones it
 * does not). */
typedef const char *(*gpu_tune_lookup)(void *ctx, const char *name);
void gpu_tune_from_vars(gpu_tune *t, gpu_tune_lookup get, void *ctx);
/* 1 for a variable the backend reads only while its provers and the parameters' device copy are set up (the cap,
 * GLV, the bases' placement, the provers' streams, the NTT plans): changing it later changes nothing. Else 0. */
int gpu_tune_var_at_setup(const char *name);
/* t changed by settings "NAME=VALUE ..." (separated by spaces, tabs or commas; "" or "-": none) as the same
 * variables in the environment would change it: cuzk-bench batch's --rounds, one batch each on one setup.
 * Refused with CUZK_ERR_INVALID_ARG and t unchanged: a setting without '=', a name the tuning does not read, one
 * read only at setup (gpu_tune_var_at_setup), a name twice, a value of other characters than letters, digits and
 * . _ - + / :, more than GPU_TUNE_MAX_SETTINGS settings or GPU_TUNE_SETTINGS_MAX bytes. A value the variable does
 * not take acts as it does in the environment (a path's unknown name: chosen by size). */
#define GPU_TUNE_MAX_SETTINGS 32
#define GPU_TUNE_SETTINGS_MAX 1024
cuzk_status gpu_tune_apply_settings(gpu_tune *t, const char *settings, cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
