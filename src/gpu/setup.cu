/* Fixed-base multiplications for setup (gpu_setup.h). One thread per scalar walks the w-bit windows of its
 * canonical scalar and adds each non-zero digit's table entry to an XYZZ accumulator; a second kernel makes the
 * results affine, each thread inverting the product of its points' ZZZ once (Montgomery's trick over a strided
 * set of points): x = X (ZZ / ZZZ)^2, y = Y / ZZZ. */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "ec_g1.cuh"
#include "ec_g2.cuh"
#include "ctx_impl.cuh"
#include "ff_mont.cuh"

extern "C" {
#include "gpu/gpu_setup.h"
}

static_assert(sizeof(g1_affine_t) == sizeof(g1_aff_d), "device and host G1 affine layouts agree");
static_assert(sizeof(g2_affine_t) == sizeof(g2_aff_d), "device and host G2 affine layouts agree");
static_assert(sizeof(fr_t) == sizeof(fr_d), "device and host Fr layouts agree");

#define FB_THREADS 128
#define FB_CHUNK ((size_t)1 << 22)

struct g1_fb_ops {
    typedef fp_d F;
    typedef g1_aff_d A;
    typedef g1_xyzz_d X;
    static MONT_DEV void inf(X &r)
    {
        g1_xyzz_inf(r);
    }
    static MONT_DEV bool is_inf(const X &a)
    {
        return g1_xyzz_is_inf(a);
    }
    static MONT_DEV void madd(X &r, const A &b)
    {
        g1_xyzz_madd(r, b, false);
    }
    static MONT_DEV void one(F &r)
    {
        mont_set_one<fp_cfg>(r);
    }
    static MONT_DEV void zero(F &r)
    {
        mont_set_zero<fp_cfg>(r);
    }
    static MONT_DEV void mul(F &r, const F &a, const F &b)
    {
        mont_mul<fp_cfg>(r, a, b);
    }
    static MONT_DEV void sqr(F &r, const F &a)
    {
        mont_sqr<fp_cfg>(r, a);
    }
    static MONT_DEV void inv(F &r, const F &a)
    {
        g1_fp_inv(r, a);
    }
};

struct g2_fb_ops {
    typedef fp2_d F;
    typedef g2_aff_d A;
    typedef g2_xyzz_d X;
    static MONT_DEV void inf(X &r)
    {
        g2_xyzz_inf(r);
    }
    static MONT_DEV bool is_inf(const X &a)
    {
        return g2_xyzz_is_inf(a);
    }
    static MONT_DEV void madd(X &r, const A &b)
    {
        g2_xyzz_madd(r, b);
    }
    static MONT_DEV void one(F &r)
    {
        fp2_set_one(r);
    }
    static MONT_DEV void zero(F &r)
    {
        mont_set_zero<fp_cfg>(r.c0);
        mont_set_zero<fp_cfg>(r.c1);
    }
    static MONT_DEV void mul(F &r, const F &a, const F &b)
    {
        fp2_mul(r, a, b);
    }
    static MONT_DEV void sqr(F &r, const F &a)
    {
        fp2_sqr(r, a);
    }
    /* 1/(c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2). */
    static MONT_DEV void inv(F &r, const F &a)
    {
        fp_d n, t;
        mont_sqr<fp_cfg>(n, a.c0);
        mont_sqr<fp_cfg>(t, a.c1);
        mont_add<fp_cfg>(n, n, t);
        g1_fp_inv(n, n);
        mont_mul<fp_cfg>(r.c0, a.c0, n);
        mont_mul<fp_cfg>(t, a.c1, n);
        mont_neg<fp_cfg>(r.c1, t);
    }
};

template <class G>
__global__ void __launch_bounds__(FB_THREADS)
    fb_accumulate(const typename G::A *table, unsigned w, unsigned nwin, const fr_d *s, size_t n, typename G::X *acc)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_d k;
    mont_from<fr_cfg>(k, s[i]);
    typename G::X r;
    G::inf(r);
    const uint32_t per = (1u << w) - 1;
    for (unsigned j = 0; j < nwin; j++) {
        unsigned bit = j * w, limb = bit / 32, sh = bit % 32;
        uint32_t d = k.v[limb] >> sh;
        if (sh + w > 32 && limb + 1 < fr_cfg::N) d |= k.v[limb + 1] << (32 - sh);
        d &= per;
        if (d) G::madd(r, table[(size_t)j * per + d - 1]);
    }
    acc[i] = r;
}

/* Thread t converts points t, t + T, t + 2T, ... (T threads in all) with one inversion. pre[i] holds the
 * product of the ZZZ of this thread's earlier finite points. */
template <class G>
__global__ void __launch_bounds__(FB_THREADS)
    fb_to_affine(const typename G::X *acc, typename G::F *pre, size_t n, typename G::A *out)
{
    typedef typename G::F F;
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, T = (size_t)gridDim.x * blockDim.x;
    if (t >= n) return;
    F p, inv;
    G::one(p);
    size_t last = t;
    for (size_t i = t; i < n; i += T) {
        pre[i] = p;
        if (!G::is_inf(acc[i])) G::mul(p, p, acc[i].zzz);
        last = i;
    }
    G::inv(inv, p);
    for (size_t i = last;; i -= T) {
        const typename G::X &a = acc[i];
        typename G::A o;
        if (G::is_inf(a)) {
            G::zero(o.x);
            G::zero(o.y);
        } else {
            F zinv, u;
            G::mul(zinv, inv, pre[i]); /* 1 / ZZZ */
            G::mul(inv, inv, a.zzz);
            G::mul(u, zinv, a.zz); /* ZZ / ZZZ = 1 / Z */
            G::sqr(u, u);
            G::mul(o.x, a.x, u);
            G::mul(o.y, a.y, zinv);
        }
        out[i] = o;
        if (i < T) break;
    }
}

struct gpu_fixed_base {
    gpu_ctx *ctx;
    void *pin_in, *pin_out; /* FB_CHUNK scalars; FB_CHUNK G2 affine points (the larger kind) */
};

extern "C" cuzk_status gpu_fixed_base_create(gpu_ctx *ctx, gpu_fixed_base **out, cuzk_error *err)
{
    *out = NULL;
    if (!ctx) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "gpu_fixed_base_create: NULL context");
    gpu_fixed_base *fb = (gpu_fixed_base *)calloc(1, sizeof *fb);
    if (!fb) return cuzk_error_set(err, CUZK_ERR_NOMEM, "gpu_fixed_base_create: out of host memory");
    fb->ctx = ctx;
    *out = fb;
    return CUZK_OK;
}

extern "C" void gpu_fixed_base_destroy(gpu_fixed_base *fb)
{
    if (!fb) return;
    if (fb->pin_in) {
        memset(fb->pin_in, 0, FB_CHUNK * sizeof(fr_t)); /* scalars of the trapdoors */
        cudaFreeHost(fb->pin_in);
    }
    if (fb->pin_out) cudaFreeHost(fb->pin_out);
    free(fb);
}

template <class G, class HostA>
static cuzk_status fixed_base(gpu_fixed_base *fb, pool_t *pool, const HostA *table, unsigned w, const fr_t *s, size_t n,
                              HostA *out, const char *name, cuzk_error *err)
{
    typedef typename G::A A;
    typedef typename G::X X;
    typedef typename G::F F;
    cuzk_status st = CUZK_OK;
    A *d_table = NULL, *d_out = NULL;
    X *d_acc = NULL;
    F *d_pre = NULL;
    fr_d *d_s = NULL;
    size_t chunk = n < FB_CHUNK ? n : FB_CHUNK;
    unsigned nwin = 0;
    size_t per = 0;
    gpu_ctx *ctx = fb ? fb->ctx : NULL;

    if (n == 0) return CUZK_OK;
    if (!fb || !table || !s || !out) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: NULL argument", name);
    if (w < 1 || w > 20) return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s: window of %u bits", name, w);
    nwin = (255 + w - 1) / w;
    per = ((size_t)1 << w) - 1;
    st = gpu_ctx_enter(ctx, err);
    if (st != CUZK_OK) return st;
    if (!fb->pin_in) GPU_TRY(cudaMallocHost(&fb->pin_in, FB_CHUNK * sizeof(fr_t)));
    if (!fb->pin_out) GPU_TRY(cudaMallocHost(&fb->pin_out, FB_CHUNK * sizeof(g2_affine_t)));
    GPU_TRY(gpu_malloc_async((void **)&d_table, nwin * per * sizeof(A), ctx->stream));
    GPU_TRY(cudaMemcpyAsync(d_table, table, nwin * per * sizeof(A), cudaMemcpyHostToDevice, ctx->stream));
    GPU_TRY(gpu_malloc_async((void **)&d_s, chunk * sizeof(fr_d), ctx->stream));
    GPU_TRY(gpu_malloc_async((void **)&d_acc, chunk * sizeof(X), ctx->stream));
    GPU_TRY(gpu_malloc_async((void **)&d_pre, chunk * sizeof(F), ctx->stream));
    GPU_TRY(gpu_malloc_async((void **)&d_out, chunk * sizeof(A), ctx->stream));
    for (size_t off = 0; off < n; off += chunk) {
        size_t c = n - off < chunk ? n - off : chunk;
        size_t threads = (size_t)ctx->sm_count * 4 * FB_THREADS;
        if (threads > c) threads = c;
        /* The previous chunk's points have left pin_out (synchronised below), pin_in is free again. */
        pool_memcpy(pool, fb->pin_in, s + off, c * sizeof(fr_d));
        GPU_TRY(cudaMemcpyAsync(d_s, fb->pin_in, c * sizeof(fr_d), cudaMemcpyHostToDevice, ctx->stream));
        fb_accumulate<G><<<(unsigned)((c + FB_THREADS - 1) / FB_THREADS), FB_THREADS, 0, ctx->stream>>>(
            d_table, w, nwin, d_s, c, d_acc);
        GPU_LAUNCHED("fb_accumulate");
        fb_to_affine<G><<<(unsigned)((threads + FB_THREADS - 1) / FB_THREADS), FB_THREADS, 0, ctx->stream>>>(
            d_acc, d_pre, c, d_out);
        GPU_LAUNCHED("fb_to_affine");
        GPU_TRY(cudaMemcpyAsync(fb->pin_out, d_out, c * sizeof(A), cudaMemcpyDeviceToHost, ctx->stream));
        GPU_TRY(cudaStreamSynchronize(ctx->stream));
        pool_memcpy(pool, out + off, fb->pin_out, c * sizeof(A));
    }
done:
    /* The scalars derive from the setup's trapdoors. */
    if (d_s) cudaMemsetAsync(d_s, 0, chunk * sizeof(fr_d), ctx->stream);
    if (d_s) gpu_free_async(d_s, ctx->stream);
    if (d_table) gpu_free_async(d_table, ctx->stream);
    if (d_acc) gpu_free_async(d_acc, ctx->stream);
    if (d_pre) gpu_free_async(d_pre, ctx->stream);
    if (d_out) gpu_free_async(d_out, ctx->stream);
    if (ctx) {
        cudaError_t e = cudaStreamSynchronize(ctx->stream);
        if (st == CUZK_OK && e != cudaSuccess) st = gpu_fail(err, e, "cudaStreamSynchronize", __FILE__, __LINE__);
    }
    if (fb && fb->pin_in) memset(fb->pin_in, 0, chunk * sizeof(fr_t));
    if (st != CUZK_OK) {
        (void)cudaGetLastError();
        cuzk_error_prefix(err, "%s(n=%zu): ", name, n);
    }
    return st;
}

extern "C" cuzk_status gpu_fixed_base_g1(gpu_fixed_base *fb, pool_t *pool, const g1_affine_t *table, unsigned w,
                                         const fr_t *s, size_t n, g1_affine_t *out, cuzk_error *err)
{
    return fixed_base<g1_fb_ops>(fb, pool, table, w, s, n, out, "gpu_fixed_base_g1", err);
}

extern "C" cuzk_status gpu_fixed_base_g2(gpu_fixed_base *fb, pool_t *pool, const g2_affine_t *table, unsigned w,
                                         const fr_t *s, size_t n, g2_affine_t *out, cuzk_error *err)
{
    return fixed_base<g2_fb_ops>(fb, pool, table, w, s, n, out, "gpu_fixed_base_g2", err);
}

static cuzk_status engine_g1(void *ctx, pool_t *pool, const g1_affine_t *table, unsigned w, const fr_t *s, size_t n,
                             g1_affine_t *out, cuzk_error *err)
{
    return gpu_fixed_base_g1((gpu_fixed_base *)ctx, pool, table, w, s, n, out, err);
}

static cuzk_status engine_g2(void *ctx, pool_t *pool, const g2_affine_t *table, unsigned w, const fr_t *s, size_t n,
                             g2_affine_t *out, cuzk_error *err)
{
    return gpu_fixed_base_g2((gpu_fixed_base *)ctx, pool, table, w, s, n, out, err);
}

extern "C" void gpu_fixed_base_engine(gpu_fixed_base *fb, groth16_fixed_base *out)
{
    out->ctx = fb;
    out->w = GPU_FIXED_BASE_WINDOW;
    out->g1 = engine_g1;
    out->g2 = engine_g2;
}
