/* The prover's device-memory plan (plan.c): which base sections stay resident and how a partition's working set
 * is laid out, from the device's memory as the cap sees it (mem.cuh, gpu_tune.memory_limit). Plain C, no CUDA, so
 * that its arithmetic is tested without a device (tests/gpu/test_gpu_plan.c).
 *
 * Without a cap the plan is the measured default on the H200: G1 sections h, l, a, b_g1 resident in that order
 * while they fit RESIDENT_SHARE of the device, B_G2 uploaded when it fits at all, the H MSM overlapped, the witness
 * uploaded beside another prover's compute. Under a cap every step's working set is reserved up front instead of
 * being found out by running out of memory:
 * - the H step (NTTs in place over the device a, b, c: 3 vectors + 1 scratch vector of the domain, 4V) plus the
 *   next prover's witness (1V) is the partition's peak: work = 5V, V = 32 * 2^log_m bytes;
 * - resident bases take what is left after what the device already holds (shapes, other sets) and work, at most
 *   RESIDENT_SHARE: B_G2 first, then h, l, a, b_g1 (an order, not a measured choice: every section is read once
 *   a partition, so each byte resident saves the same bus time), each skipped when it does not fit; the others,
 *   B_G2 included, stream in pieces of stream_chunk points from page-locked memory (prove.cu);
 * - a, b, c from the host (not evaluated on the device) in the bellperson form: the H step keeps 3V (a*b formed
 *   on the coset before c comes in; gpu_ntt_h_device_3), so that a 16 GiB cap holds a 2^27 partition;
 * - the H MSM overlaps the other queries wherever the H step fits: after it only the H scalars (1V) of its 3V or
 *   4V are held, and the MSMs size their pieces and scratch from the memory then free;
 * - the witness waits for the device's turn when 1V more than the H step does not fit beside the resident bases;
 * - when even the H step does not fit, the partition cannot be proved under the cap: CUZK_ERR_NOMEM before any
 *   work. */
#ifndef CUZK_GPU_PLAN_H
#define CUZK_GPU_PLAN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A G1 section stays on the host when the sections before it and it would hold more than this share of the
 * device (uncapped plan): the rest is the proving's scratch (an MSM of 2^27 points alone needs ~30 GB). */
#define GPU_PLAN_RESIDENT_SHARE 0.75

enum { GPU_PLAN_H = 0, GPU_PLAN_L = 1, GPU_PLAN_A = 2, GPU_PLAN_B_G1 = 3, GPU_PLAN_SECTIONS = 4 };

typedef struct gpu_plan_in {
    size_t total;                   /* the device's memory: min(real total, cap) */
    size_t cap;                     /* the cap (0: none) */
    size_t held;                    /* bytes the backend already holds on the device (shapes, other parameter sets) */
    size_t sect[GPU_PLAN_SECTIONS]; /* G1 base sections h, l, a, b_g1, bytes */
    size_t b_g2;                    /* B_G2 bases, bytes */
    unsigned log_m;                 /* the H domain: 2^log_m */
    int stream_all;                 /* CUZK_GPU_BASES=stream: no G1 section resident */
} gpu_plan_in;

typedef struct gpu_plan {
    int resident[GPU_PLAN_SECTIONS]; /* 1: uploaded; 0: streamed */
    int b_g2_resident;               /* 1: upload B_G2 (uncapped: try; failure leaves it on the CPU) */
    size_t resident_bytes;           /* of the sections planned resident (B_G2 included) */
    size_t work;                     /* bytes reserved for a partition's working set (0 uncapped) */
} gpu_plan;

/* The bases' plan. */
void gpu_plan_bases(const gpu_plan_in *in, gpu_plan *out);

/* A partition's plan under a cap, from the device's memory (min(real, cap)), what it holds before the partition
 * (resident bases, the shape, other sets) and the domain: whether the H step fits at all, whether the witness may
 * go up before the device's turn and whether the H MSM may overlap. Uncapped: everything allowed. */
typedef struct gpu_plan_part {
    int fits;          /* 0: the H step does not fit; the partition fails with CUZK_ERR_NOMEM up front */
    int witness_early; /* 1: the witness uploads before the turn, beside another prover's compute */
    int overlap;       /* 1: the H MSM may overlap the other queries */
    int ntt_in_place;  /* 1: the H NTTs run in the device a, b, c buffers (no copies into their own) */
    int ntt_three;     /* 1: a, b, c come from the host and the H step keeps three vectors (gpu_ntt_h_device_3) */
    size_t need;       /* the H step's peak: 4V, or 3V with ntt_three (bytes) */
    size_t room;       /* bytes the H step and what goes up before the turn may take: total - held (uncapped: max) */
} gpu_plan_part;

/* three_ok: a, b, c come from the host in the bellperson form (the three-vector H applies). */
void gpu_plan_partition(size_t total, size_t cap, size_t held, unsigned log_m, int three_ok, gpu_plan_part *out);

/* Whether resident H (h_bytes on the device) also keeps its images under phi for GLV (prove.cu glv_h): uncapped
 * only, since a cap's plan has no room for them. The images are resident bases like the others: everything the
 * backend holds on the device with them (held, H and the other parameter sets included) stays within
 * GPU_PLAN_RESIDENT_SHARE of the device, so that a second set on the device does not eat the proving's scratch.
 * The new buffer (H and its images, 2 h_bytes, made beside the old H) takes at most half of the memory free. */
int gpu_plan_glv(size_t total, size_t cap, size_t held, size_t h_bytes, size_t free_b);

/* Where a, b, c are evaluated when the configuration leaves it open (engine_open's abc_on_device -1): on the
 * device when it holds at least GPU_PLAN_ABC_DEVICE_MIN bytes (min(real total, cap)), else on the host. A 32 GiB
 * PoRep partition evaluated on the device needs its H step's 4 domain vectors of 2^27 (16 GiB) beside the
 * circuit's matrices (5.55 GiB), which a 16 or 20 GB card cannot hold (every partition would fail up front); from
 * the host the H step keeps 3 (12 GiB). 24 GB cards keep the device path (measured under a 24 GiB cap on the
 * H200). */
#define GPU_PLAN_ABC_DEVICE_MIN ((size_t)22 << 30)
int gpu_plan_abc_on_device(size_t device_bytes);

/* Without a configured cap (gpus.memory_limit, CUZK_GPU_MEMORY_LIMIT), a device under GPU_PLAN_UNCAPPED_MIN bytes is
 * planned as capped at the memory free on it when the engine opens (engine_open). The uncapped plan (the G1
 * sections resident within 3/4 of the device, B_G2 wherever it fits, H's GLV images, the next prover's H step
 * beside this one's MSMs) leaves the working sets to what is left, and on an 80 GB H100 a 32 GiB PoRep partition's
 * H step ran out of memory beside the other prover's MSMs (every batch failed, 2026-12-07); its peak for a 2^27
 * circuit is ~80 GB of bases and images plus two provers' working sets (an H step of 16 GiB, an MSM's scratch of
 * ~30 GB), which the H200's 140 GB holds. The capped plan reserves each working set up front. Returns the implicit
 * cap in bytes (free_b, or total when free_b is 0), or 0: none. */
#define GPU_PLAN_UNCAPPED_MIN ((size_t)120 << 30)
size_t gpu_plan_implicit_cap(size_t total, size_t free_b);

/* One line describing the plans (no newline), e.g. for CUZK_GPU_PROFILE. */
void gpu_plan_describe(const gpu_plan_in *in, const gpu_plan *p, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
