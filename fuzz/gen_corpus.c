/* Writes the seed corpora of the fuzz targets: a few valid and invalid encodings per target.
 * Usage: gen_corpus DIR  (creates DIR/<target>/<seed name>; the committed seeds live in fuzz/corpus).
 * The inputs are deterministic, so regenerating gives the same files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ec/g1.h"
#include "ec/g2.h"
#include "formats/filecoin_params.h"
#include "formats/post_vanilla_gen.h"
#include "ff/fp.h"
#include "ff/fp2.h"
#include "ff/fr.h"
#include "formats/snap_vanilla.h"
#include "groth16/groth16.h"
#include "kind_request.h"
#include "util/rng.h"

static const char *g_dir;
static int g_failed;

static void make_dir(const char *path)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "gen_corpus: mkdir %s: %s\n", path, strerror(errno));
        g_failed = 1;
    }
}

/* One seed: the selector byte, then the encoding. */
static void seed(const char *target, const char *name, uint8_t selector, const uint8_t *enc, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", g_dir, target);
    make_dir(path);
    snprintf(path, sizeof path, "%s/%s/%s", g_dir, target, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        fprintf(stderr, "gen_corpus: %s: %s\n", path, strerror(errno));
        g_failed = 1;
        return;
    }
    if (fwrite(&selector, 1, 1, f) != 1 || fwrite(enc, 1, len, f) != len) g_failed = 1;
    if (fclose(f) != 0) g_failed = 1;
}

/* Big-endian bytes of little-endian limbs. */
static void limbs_to_be(uint8_t *out, const uint64_t *limbs, int n)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 8; k++) out[8 * n - 1 - (8 * i + k)] = (uint8_t)(limbs[i] >> (8 * k));
}

static void reverse(uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n / 2; i++) {
        uint8_t t = b[i];
        b[i] = b[n - 1 - i];
        b[n - 1 - i] = t;
    }
}

static void field_seeds(rng_t *rng)
{
    const char *t = "fuzz_fp_decode";
    uint8_t b[FP2_BYTES];
    fp_t x;
    fr_t y;

    /* Selectors: 0 Fp BE, 1 Fp LE, 2 Fr BE, 3 Fr LE, 4 Fp2. */
    memset(b, 0, FP_BYTES);
    seed(t, "fp_be_zero", 0, b, FP_BYTES);
    fp_set_one(&x);
    fp_to_bytes_be(b, &x);
    seed(t, "fp_be_one", 0, b, FP_BYTES);
    fp_random(&x, rng);
    fp_to_bytes_be(b, &x);
    seed(t, "fp_be_random", 0, b, FP_BYTES);
    limbs_to_be(b, FP_MODULUS, FP_LIMBS);
    seed(t, "fp_be_p_invalid", 0, b, FP_BYTES);
    reverse(b, FP_BYTES);
    seed(t, "fp_le_p_invalid", 1, b, FP_BYTES);
    b[0]--; /* p - 1: the low byte of p is 0xab */
    seed(t, "fp_le_p_minus_1", 1, b, FP_BYTES);
    memset(b, 0xff, FP_BYTES);
    seed(t, "fp_be_all_ff_invalid", 0, b, FP_BYTES);

    fr_random(&y, rng);
    fr_to_bytes_be(b, &y);
    seed(t, "fr_be_random", 2, b, FR_BYTES);
    fr_to_bytes_le(b, &y);
    seed(t, "fr_le_random", 3, b, FR_BYTES);
    limbs_to_be(b, FR_MODULUS, FR_LIMBS);
    seed(t, "fr_be_r_invalid", 2, b, FR_BYTES);
    b[FR_BYTES - 1]--; /* r - 1: the low byte of r is 0x01 */
    seed(t, "fr_be_r_minus_1", 2, b, FR_BYTES);

    fp2_t z;
    fp2_random(&z, rng);
    fp2_to_bytes_be(b, &z);
    seed(t, "fp2_random", 4, b, FP2_BYTES);
    limbs_to_be(b + FP_BYTES, FP_MODULUS, FP_LIMBS);
    seed(t, "fp2_c0_p_invalid", 4, b, FP2_BYTES);
}

/* Selector 0: compressed, 1: uncompressed. */
static void g1_seeds(rng_t *rng)
{
    const char *t = "fuzz_g1_decode";
    uint8_t b[G1_UNCOMPRESSED_BYTES];
    g1_jac_t j;
    g1_affine_t p;

    p = G1_GENERATOR;
    g1_to_compressed(b, &p);
    seed(t, "generator_c", 0, b, G1_COMPRESSED_BYTES);
    g1_to_uncompressed(b, &p);
    seed(t, "generator_u", 1, b, G1_UNCOMPRESSED_BYTES);

    g1_random(&j, rng);
    g1_jac_to_affine(&p, &j);
    g1_to_compressed(b, &p);
    seed(t, "random_c", 0, b, G1_COMPRESSED_BYTES);
    g1_to_uncompressed(b, &p);
    seed(t, "random_u", 1, b, G1_UNCOMPRESSED_BYTES);
    /* The same point with y changed: off the curve. */
    b[G1_UNCOMPRESSED_BYTES - 1] ^= 1;
    seed(t, "random_u_off_curve", 1, b, G1_UNCOMPRESSED_BYTES);
    g1_to_compressed(b, &p);
    b[0] ^= 0x20;
    seed(t, "random_c_other_sign", 0, b, G1_COMPRESSED_BYTES);
    b[0] &= 0x7f;
    seed(t, "random_c_no_flag", 0, b, G1_COMPRESSED_BYTES);

    /* On the curve, but (with overwhelming probability) outside the subgroup. */
    g1_random_on_curve(&p, rng);
    g1_to_compressed(b, &p);
    seed(t, "no_subgroup_c", 0, b, G1_COMPRESSED_BYTES);
    g1_to_uncompressed(b, &p);
    seed(t, "no_subgroup_u", 1, b, G1_UNCOMPRESSED_BYTES);

    g1_affine_set_inf(&p);
    g1_to_compressed(b, &p);
    seed(t, "infinity_c", 0, b, G1_COMPRESSED_BYTES);
    b[G1_COMPRESSED_BYTES - 1] = 1;
    seed(t, "infinity_c_dirty", 0, b, G1_COMPRESSED_BYTES);
    g1_to_uncompressed(b, &p);
    seed(t, "infinity_u", 1, b, G1_UNCOMPRESSED_BYTES);

    memset(b, 0xff, sizeof b);
    seed(t, "all_ff_c", 0, b, G1_COMPRESSED_BYTES);
    b[0] = 0x1f;
    seed(t, "x_not_canonical_u", 1, b, G1_UNCOMPRESSED_BYTES);
}

/* Selector 0: compressed, 1: uncompressed. */
static void g2_seeds(rng_t *rng)
{
    const char *t = "fuzz_g2_decode";
    uint8_t b[G2_UNCOMPRESSED_BYTES];
    g2_jac_t j;
    g2_affine_t p;

    p = G2_GENERATOR;
    g2_to_compressed(b, &p);
    seed(t, "generator_c", 0, b, G2_COMPRESSED_BYTES);
    g2_to_uncompressed(b, &p);
    seed(t, "generator_u", 1, b, G2_UNCOMPRESSED_BYTES);

    g2_random(&j, rng);
    g2_jac_to_affine(&p, &j);
    g2_to_compressed(b, &p);
    seed(t, "random_c", 0, b, G2_COMPRESSED_BYTES);
    g2_to_uncompressed(b, &p);
    seed(t, "random_u", 1, b, G2_UNCOMPRESSED_BYTES);
    /* The same point with y changed: off the curve. */
    b[G2_UNCOMPRESSED_BYTES - 1] ^= 1;
    seed(t, "random_u_off_curve", 1, b, G2_UNCOMPRESSED_BYTES);
    g2_to_compressed(b, &p);
    b[0] ^= 0x20;
    seed(t, "random_c_other_sign", 0, b, G2_COMPRESSED_BYTES);
    b[0] &= 0x7f;
    seed(t, "random_c_no_flag", 0, b, G2_COMPRESSED_BYTES);

    /* On the curve, but (with overwhelming probability) outside the subgroup. */
    g2_random_on_curve(&p, rng);
    g2_to_compressed(b, &p);
    seed(t, "no_subgroup_c", 0, b, G2_COMPRESSED_BYTES);
    g2_to_uncompressed(b, &p);
    seed(t, "no_subgroup_u", 1, b, G2_UNCOMPRESSED_BYTES);

    g2_affine_set_inf(&p);
    g2_to_compressed(b, &p);
    seed(t, "infinity_c", 0, b, G2_COMPRESSED_BYTES);
    b[G2_COMPRESSED_BYTES - 1] = 1;
    seed(t, "infinity_c_dirty", 0, b, G2_COMPRESSED_BYTES);
    g2_to_uncompressed(b, &p);
    seed(t, "infinity_u", 1, b, G2_UNCOMPRESSED_BYTES);

    memset(b, 0xff, sizeof b);
    seed(t, "all_ff_c", 0, b, G2_COMPRESSED_BYTES);
    b[0] = 0x1f;
    seed(t, "x_not_canonical_u", 1, b, G2_UNCOMPRESSED_BYTES);
}

/* fuzz_params_native: a small valid parameter cache (random subgroup points, no source stamp) with its file
 * image as the seed. */
static void native_seeds(rng_t *rng)
{
    enum { N = 3 };
    g1_affine_t ic[2], g1s[N];
    g2_affine_t g2s[N];
    g1_jac_t j1;
    g2_jac_t j2;
    for (int i = 0; i < N; i++) {
        g1_random(&j1, rng);
        g1_jac_to_affine(&g1s[i], &j1);
        g2_random(&j2, rng);
        g2_jac_to_affine(&g2s[i], &j2);
    }
    ic[0] = g1s[0];
    ic[1] = g1s[1];
    groth16_params p;
    memset(&p, 0, sizeof p);
    p.vk.alpha_g1 = g1s[0];
    p.vk.beta_g1 = g1s[1];
    p.vk.delta_g1 = g1s[2];
    p.vk.beta_g2 = g2s[0];
    p.vk.gamma_g2 = g2s[1];
    p.vk.delta_g2 = g2s[2];
    p.vk.ic = ic;
    p.vk.ic_len = 2;
    p.h = p.l = p.a = p.b_g1 = g1s;
    p.h_len = p.l_len = p.a_len = p.b_g1_len = N;
    p.b_g2 = g2s;
    p.b_g2_len = N;
    char path[4096];
    snprintf(path, sizeof path, "%s/fuzz_params_native", g_dir);
    make_dir(path);
    snprintf(path, sizeof path, "%s/fuzz_params_native/small", g_dir);
    cuzk_error err;
    if (groth16_params_native_write(&p, NULL, path, &err) != CUZK_OK) {
        fprintf(stderr, "gen_corpus: %s\n", err.msg);
        g_failed = 1;
    }
}

/* fuzz_snap_vanilla: partition 0 of a random encoded 2 KiB (selector 0) and 32 KiB (selector 1) sector. */
static void snap_seeds(rng_t *rng)
{
    static const char *const sizes[2] = {"2KiB", "32KiB"};
    for (uint8_t sel = 0; sel < 2; sel++) {
        cuzk_error err;
        const update_geometry *g;
        update_circuit c;
        if (update_geometry_parse(sizes[sel], &g, &err) != CUZK_OK || update_circuit_init(&c, g, &err) != CUZK_OK) {
            g_failed = 1;
            return;
        }
        uint64_t n = g->nodes;
        fr_t *old = calloc(n, sizeof(fr_t)), *data = calloc(n, sizeof(fr_t)), comm_c;
        for (uint64_t i = 0; old && data && i < n; i++) {
            fr_from_u64(&old[i], rng_next(rng));
            fr_from_u64(&data[i], rng_next(rng));
        }
        fr_from_u64(&comm_c, rng_next(rng));
        update_encoded e;
        snap_partition_proof p;
        uint8_t *bin;
        size_t len;
        if (!old || !data || update_encode(&e, &c, 0, old, data, &comm_c, &err) != CUZK_OK) {
            g_failed = 1;
        } else {
            if (snap_partition_proof_from_encoded(&p, &c, &e, 0, &err) == CUZK_OK &&
                snap_partition_proof_encode(&p, &c, &bin, &len, &err) == CUZK_OK) {
                seed("fuzz_snap_vanilla", sel ? "partition0-32kib" : "partition0-2kib", sel, bin, len);
                free(bin);
            } else {
                g_failed = 1;
            }
            snap_partition_proof_free(&p);
            update_encoded_free(&e);
        }
        free(old);
        free(data);
        update_circuit_free(&c);
    }
}

/* fuzz_post_vanilla: synthetic vanilla proofs (selector = registered PoSt proof id; bit 7 = the JSON form). */
static void post_seeds(void)
{
    static const struct {
        unsigned id;
        const char *name;
    } kinds[] = {{10, "window_2kib"}, {13, "window_32gib"}, {14, "window_64gib"}, {0, "winning_2kib"}};
    uint8_t r[32] = {7, 7, 7};
    cuzk_error err;
    for (size_t q = 0; q < sizeof kinds / sizeof kinds[0]; q++) {
        const post_proof_type *t = post_proof_type_by_id(kinds[q].id);
        post_vanilla v;
        if (post_vanilla_synth(&v, t, 1, 1000, r, 42, NULL, &err) != CUZK_OK) {
            fprintf(stderr, "gen_corpus: %s\n", err.msg);
            g_failed = 1;
            return;
        }
        size_t n = post_vanilla_sector_encoded_size(&v, &v.sectors[0]);
        uint8_t *b = malloc(n);
        if (b) {
            post_vanilla_encode_sector(&v, 0, b);
            seed("fuzz_post_vanilla", kinds[q].name, (uint8_t)kinds[q].id, b, n);
            if (q == 0) seed("fuzz_post_vanilla", "window_2kib_truncated", (uint8_t)kinds[q].id, b, n - 33);
        }
        free(b);
        post_vanilla_free(&v);
    }
    static const char json[] = "[\"AQIDBA==\"]";
    seed("fuzz_post_vanilla", "json_short", 0x80 | 10, (const uint8_t *)json, sizeof json - 1);
}

/* fuzz_kind_request: one request the kind table accepts per kind (checked here: a seed that stopped being accepted
 * is an error), so that the fuzzer starts past every kind's validation. The PoRep seed's C1 is fuzz_c1's seed. */
static unsigned kind_index(const engine_kind *k)
{
    size_t count = 0;
    const engine_kind *const *kinds = engine_kinds(&count);
    for (size_t i = 0; i < count; i++)
        if (kinds[i] == k) return (unsigned)i;
    return 0;
}

static void kind_seed(const char *name, const engine_kind *k, const engine_kind_input *in)
{
    cuzk_error err;
    void *job = NULL;
    engine_kind_plan plan;
    if ((k->check && k->check(in, &err) != CUZK_OK) || k->parse(in, &job, &plan, &err) != CUZK_OK) {
        fprintf(stderr, "gen_corpus: fuzz_kind_request seed %s refused: %s\n", name, err.msg);
        g_failed = 1;
        return;
    }
    if (k->job_free) k->job_free(job);
    size_t cap = KIND_REQ_HEADER + 5 * (8 + in->n_vanilla_proofs) + in->vanilla_proof.len + 96 + 32 +
                 (in->circuit ? strlen(in->circuit) : 0);
    for (size_t i = 0; i < in->n_vanilla_proofs; i++) cap += in->vanilla_proofs[i].len;
    uint8_t *buf = malloc(cap);
    if (!buf) {
        g_failed = 1;
        return;
    }
    kind_request_header(buf, kind_index(k), in);
    size_t pos = KIND_REQ_HEADER;
    int bad = 0;
    if (in->vanilla_proof.len)
        bad |= kind_request_record(buf, cap, &pos, KIND_REQ_VANILLA, in->vanilla_proof.data, in->vanilla_proof.len);
    for (size_t i = 0; i < in->n_vanilla_proofs; i++)
        bad |= kind_request_record(buf, cap, &pos, KIND_REQ_VANILLA_ENTRY, in->vanilla_proofs[i].data,
                                   in->vanilla_proofs[i].len);
    const engine_bytes *fields[4] = {&in->randomness, &in->comm_r_old, &in->comm_r_new, &in->comm_d_new};
    for (int f = 0; f < 4; f++)
        if (fields[f]->len)
            bad |= kind_request_record(buf, cap, &pos, (uint8_t)(KIND_REQ_RANDOMNESS + f), fields[f]->data,
                                       fields[f]->len);
    if (in->circuit) bad |= kind_request_record(buf, cap, &pos, KIND_REQ_CIRCUIT, in->circuit, strlen(in->circuit));
    if (bad) {
        fprintf(stderr, "gen_corpus: fuzz_kind_request seed %s does not fit its buffer\n", name);
        g_failed = 1;
    } else {
        /* seed() writes a selector byte first: the header's kind byte is that selector. */
        seed("fuzz_kind_request", name, buf[0], buf + 1, pos - 1);
    }
    free(buf);
}

static void kind_seeds(rng_t *rng)
{
    cuzk_error err;
    engine_kind_input in;
    /* PoRep C2: fuzz_c1's 2 KiB C1. */
    char path[4096];
    snprintf(path, sizeof path, "%s/fuzz_c1/c1-2kib.json", g_dir);
    FILE *f = fopen(path, "rb");
    uint8_t *c1 = NULL;
    long c1_len = 0;
    if (f && fseek(f, 0, SEEK_END) == 0 && (c1_len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (c1 = malloc((size_t)c1_len)) != NULL && fread(c1, 1, (size_t)c1_len, f) == (size_t)c1_len) {
        memset(&in, 0, sizeof in);
        in.vanilla_proof = (engine_bytes){c1, (size_t)c1_len};
        in.sector_size = 2048;
        kind_seed("porep_2kib", &engine_kind_porep_c2, &in);
    } else {
        fprintf(stderr, "gen_corpus: %s: cannot read it (fuzz_kind_request's PoRep seed)\n", path);
        g_failed = 1;
    }
    free(c1);
    if (f) fclose(f);

    /* WindowPoSt (2 sectors) and WinningPoSt (1 sector) of 2 KiB, synthetic vanilla proofs. */
    static const struct {
        unsigned id;
        size_t sectors;
        const engine_kind *kind;
        const char *name;
    } posts[] = {{10, 2, &engine_kind_window_post, "wpost_2kib"}, {0, 1, &engine_kind_winning_post, "winning_2kib"}};
    for (size_t q = 0; q < 2; q++) {
        uint8_t rnd[32];
        for (int i = 0; i < 32; i++) rnd[i] = (uint8_t)rng_next(rng);
        rnd[31] &= 0x3f;
        post_vanilla v;
        if (post_vanilla_synth(&v, post_proof_type_by_id(posts[q].id), posts[q].sectors, 500, rnd, 42, NULL, &err) !=
            CUZK_OK) {
            fprintf(stderr, "gen_corpus: %s\n", err.msg);
            g_failed = 1;
            continue;
        }
        engine_bytes vps[2];
        for (size_t s2 = 0; s2 < posts[q].sectors; s2++) {
            size_t len = post_vanilla_sector_encoded_size(&v, &v.sectors[s2]);
            uint8_t *b = malloc(len);
            if (b) post_vanilla_encode_sector(&v, s2, b);
            vps[s2] = (engine_bytes){b, b ? len : 0};
        }
        memset(&in, 0, sizeof in);
        in.registered_proof = posts[q].id;
        in.vanilla_proofs = vps;
        in.n_vanilla_proofs = posts[q].sectors;
        in.randomness = (engine_bytes){rnd, 32};
        in.miner_id = 1234;
        kind_seed(posts[q].name, posts[q].kind, &in);
        for (size_t s2 = 0; s2 < posts[q].sectors; s2++) free((void *)vps[s2].data);
        post_vanilla_free(&v);
    }

    /* SnapDeals of an encoded 2 KiB sector. */
    const update_geometry *g;
    update_circuit c;
    if (update_geometry_parse("2KiB", &g, &err) != CUZK_OK || update_circuit_init(&c, g, &err) != CUZK_OK) {
        g_failed = 1;
        return;
    }
    fr_t *old = calloc(g->nodes, sizeof(fr_t)), *data = calloc(g->nodes, sizeof(fr_t)), comm_c;
    for (uint64_t i = 0; old && data && i < g->nodes; i++) {
        fr_from_u64(&old[i], rng_next(rng));
        fr_from_u64(&data[i], rng_next(rng));
    }
    fr_from_u64(&comm_c, rng_next(rng));
    update_encoded e;
    snap_partition_proof p;
    uint8_t *bin = NULL;
    size_t len = 0;
    if (old && data && update_encode(&e, &c, 0, old, data, &comm_c, &err) == CUZK_OK) {
        if (snap_partition_proof_from_encoded(&p, &c, &e, 0, &err) == CUZK_OK &&
            snap_partition_proof_encode(&p, &c, &bin, &len, &err) == CUZK_OK) {
            uint8_t cm[3][32];
            fr_to_bytes_le(cm[0], &e.comm_r_old);
            fr_to_bytes_le(cm[1], &e.comm_r_new);
            fr_to_bytes_le(cm[2], &e.comm_d_new);
            engine_bytes vp = {bin, len};
            memset(&in, 0, sizeof in);
            in.vanilla_proofs = &vp;
            in.n_vanilla_proofs = 1;
            in.comm_r_old = (engine_bytes){cm[0], 32};
            in.comm_r_new = (engine_bytes){cm[1], 32};
            in.comm_d_new = (engine_bytes){cm[2], 32};
            kind_seed("snap_2kib", &engine_kind_snap_update, &in);
            free(bin);
        } else {
            g_failed = 1;
        }
        snap_partition_proof_free(&p);
        update_encoded_free(&e);
    } else {
        g_failed = 1;
    }
    free(old);
    free(data);
    update_circuit_free(&c);

    /* CIRCUIT_SPEC. */
    memset(&in, 0, sizeof in);
    in.circuit = "synthetic:k=5";
    kind_seed("spec_k5", &engine_kind_circuit_spec, &in);
}

/* fuzz_params_layout: a .params of 1 ic point, 1 h base, empty l, a, b_g1 and 1 b_g2 base (the points zero: only
 * the lengths are read), and the same one byte short. */
static void params_layout_seeds(void)
{
    size_t n = GROTH16_VK_FIXED_BYTES + 96 + 4 + 96 + 3 * 4 + 4 + 192;
    uint8_t *b = calloc(1, n);
    if (!b) {
        g_failed = 1;
        return;
    }
    size_t pos = GROTH16_VK_FIXED_BYTES - 4;
    const uint32_t lens[6] = {1, 1, 0, 0, 0, 1};
    for (int i = 0; i < 6; i++) {
        b[pos + 3] = (uint8_t)lens[i];
        pos += 4 + lens[i] * (i == 5 ? 192 : 96);
    }
    if (pos != n) g_failed = 1;
    seed("fuzz_params_layout", "tiny", b[0], b + 1, n - 1);
    seed("fuzz_params_layout", "tiny_truncated", b[0], b + 1, n - 2);
    free(b);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_corpus DIR\n");
        return 2;
    }
    g_dir = argv[1];
    make_dir(g_dir);
    rng_t rng;
    rng_seed(&rng, 0x637a6b66757a7a31ULL);
    field_seeds(&rng);
    g1_seeds(&rng);
    g2_seeds(&rng);
    native_seeds(&rng);
    snap_seeds(&rng);
    post_seeds();
    kind_seeds(&rng);
    params_layout_seeds();
    return g_failed;
}
