/* Names, lookup and digests of Filecoin's published parameter files (see the header for the sources). */
#include "formats/filecoin_params.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "circuits/hash/sha256.h"
#include "circuits/porep/geometry.h"
#include "circuits/porep/prf.h"
#include "circuits/stacked/stacked.h"
#include "groth16/groth16.h"

static const char *const KIND_NAMES[FILECOIN_PARAMS_KINDS] = {"porep",   "porep-ni", "wpost",
                                                              "winning", "snap",     "snap-poseidon"};

const char *filecoin_params_kind_name(filecoin_params_kind kind)
{
    return (unsigned)kind < FILECOIN_PARAMS_KINDS ? KIND_NAMES[kind] : "?";
}

cuzk_status filecoin_params_kind_parse(const char *text, filecoin_params_kind *out, cuzk_error *err)
{
    for (int k = 0; k < FILECOIN_PARAMS_KINDS; k++)
        if (strcasecmp(text, KIND_NAMES[k]) == 0) {
            *out = (filecoin_params_kind)k;
            return CUZK_OK;
        }
    return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                          "unknown parameter kind '%s' (porep, porep-ni, wpost, winning, snap, snap-poseidon)", text);
}

unsigned filecoin_window_post_sector_count(uint64_t sector_size)
{
    /* filecoin-proofs constants.rs WINDOW_POST_SECTOR_COUNT. */
    switch (sector_size) {
    case 2048ull:
    case 8ull << 20:
    case 512ull << 20: return 2;
    case 32ull << 30: return 2349;
    case 64ull << 30: return 2300;
    default: return 0;
    }
}

static cuzk_status published_geometry(filecoin_params_kind kind, uint64_t sector_size, const porep_geometry **g,
                                      cuzk_error *err)
{
    if ((unsigned)kind >= FILECOIN_PARAMS_KINDS)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "parameter kind %d is not one of the %d kinds", (int)kind,
                              FILECOIN_PARAMS_KINDS);
    *g = porep_geometry_for_size(sector_size);
    if (!*g || !(*g)->published || !filecoin_window_post_sector_count(sector_size))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "%s: sector size %llu has no published parameters (2KiB, 8MiB, 512MiB, 32GiB, 64GiB do)",
                              KIND_NAMES[kind], (unsigned long long)sector_size);
    /* The Poseidon-TreeD SnapDeals circuit was published for the 32 and 64 GiB sectors only (parameters.json). */
    if (kind == FILECOIN_PARAMS_SNAP_POSEIDON && sector_size < (32ull << 30))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                              "snap-poseidon: %s has no published parameters (only 32GiB "
                              "and 64GiB do)",
                              (*g)->name);
    return CUZK_OK;
}

static cuzk_status fits(int w, size_t n, const char *what, cuzk_error *err)
{
    if (w < 0 || (size_t)w >= n)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "%s does not fit in %zu bytes", what, n);
    return CUZK_OK;
}

/* The TreeR type's Display (MerkleTreeWrapper): "merkletree-poseidon_hasher-8-8-0". */
static void tree_name(const porep_geometry *g, char out[64])
{
    snprintf(out, 64, "merkletree-poseidon_hasher-%u-%u-%u", g->base_arity, g->sub_arity, g->top_arity);
}

cuzk_status filecoin_params_identifier(filecoin_params_kind kind, uint64_t sector_size, char *out, size_t n,
                                       cuzk_error *err)
{
    const porep_geometry *g = NULL;
    cuzk_status st = published_geometry(kind, sector_size, &g, err);
    if (st) return st;
    char tree[64];
    tree_name(g, tree);
    int w;
    switch (kind) {
    case FILECOIN_PARAMS_POREP:
    case FILECOIN_PARAMS_POREP_NI: {
        porep_kind pk = kind == FILECOIN_PARAMS_POREP ? POREP_INTERACTIVE : POREP_NON_INTERACTIVE;
        w = snprintf(out, n,
                     "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: %d "
                     "base_graph: drgraph::BucketGraph{size: %llu; degree: %d; hasher: poseidon_hasher} }, "
                     "challenges: LayerChallenges { layers: %u, max_count: %u }, tree: %s }",
                     POREP_EXP_DEGREE, (unsigned long long)g->nodes, POREP_DRG_DEGREE, g->layers,
                     porep_challenges(g, pk), tree);
        break;
    }
    case FILECOIN_PARAMS_WINDOW_POST:
    case FILECOIN_PARAMS_WINNING_POST: {
        int win = kind == FILECOIN_PARAMS_WINNING_POST;
        /* winning_post_setup_params: the 66 challenges of one sector become 66 sectors of one challenge. */
        w = snprintf(out, n, "FallbackPoSt::PublicParams{sector_size: %llu, challenge_count: %u, sector_count: %u}",
                     (unsigned long long)sector_size, win ? 1u : (unsigned)FILECOIN_WINDOW_POST_CHALLENGES,
                     win ? (unsigned)FILECOIN_WINNING_POST_CHALLENGES : filecoin_window_post_sector_count(sector_size));
        break;
    }
    default:
        w = snprintf(out, n, "empty_sector_update::PublicParams{ sector_nodes: %llu }", (unsigned long long)g->nodes);
        break;
    }
    return fits(w, n, "the parameter identifier", err);
}

cuzk_status filecoin_params_name(filecoin_params_kind kind, uint64_t sector_size, char *out, size_t n, cuzk_error *err)
{
    char id[512];
    cuzk_status st = filecoin_params_identifier(kind, sector_size, id, sizeof id, err);
    if (st) return st;
    const porep_geometry *g = porep_geometry_for_size(sector_size);
    char tree[64], prefix[128], hex[2 * SHA256_DIGEST_BYTES + 1];
    tree_name(g, tree);
    switch (kind) {
    case FILECOIN_PARAMS_POREP:
    case FILECOIN_PARAMS_POREP_NI:
        snprintf(prefix, sizeof prefix, "stacked-proof-of-replication-%s-sha256_hasher", tree);
        break;
    case FILECOIN_PARAMS_WINDOW_POST:
    case FILECOIN_PARAMS_WINNING_POST: snprintf(prefix, sizeof prefix, "proof-of-spacetime-fallback-%s", tree); break;
    case FILECOIN_PARAMS_SNAP: snprintf(prefix, sizeof prefix, "empty-sector-update-%s", tree); break;
    default: snprintf(prefix, sizeof prefix, "empty-sector-update-poseidon-%s", tree); break;
    }
    uint8_t d[SHA256_DIGEST_BYTES];
    sha256_digest(id, strlen(id), d);
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < SHA256_DIGEST_BYTES; i++) hex[2 * i] = digits[d[i] >> 4], hex[2 * i + 1] = digits[d[i] & 15];
    hex[2 * SHA256_DIGEST_BYTES] = 0;
    return fits(snprintf(out, n, "v%d-%s-%s", FILECOIN_PARAMS_VERSION, prefix, hex), n, "the parameter file name", err);
}

cuzk_status filecoin_params_own_name(filecoin_params_kind kind, uint64_t sector_size, char *out, size_t n,
                                     cuzk_error *err)
{
    const porep_geometry *g = NULL;
    cuzk_status st = published_geometry(kind, sector_size, &g, err);
    if (st) return st;
    /* "2KiB" -> "2k", "32GiB" -> "32g". */
    char size[16];
    size_t k = 0;
    for (const char *p = g->name; *p && k + 2 < sizeof size; p++) {
        if (*p >= '0' && *p <= '9')
            size[k++] = *p;
        else {
            size[k++] = (char)(*p - 'A' + 'a');
            break;
        }
    }
    size[k] = 0;
    /* Non-interactive PoRep as the daemon names its set: porep-2k-ni. */
    if (kind == FILECOIN_PARAMS_POREP_NI)
        return fits(snprintf(out, n, "porep-%s-ni", size), n, "the parameter file name", err);
    return fits(snprintf(out, n, "%s-%s", KIND_NAMES[kind], size), n, "the parameter file name", err);
}

cuzk_status filecoin_params_dir(const char *param_cache, char *out, size_t n, cuzk_error *err)
{
    const char *dir = param_cache && *param_cache ? param_cache : getenv("FIL_PROOFS_PARAMETER_CACHE");
    if (!dir || !*dir) dir = FILECOIN_PARAMS_DEFAULT_DIR;
    return fits(snprintf(out, n, "%s", dir), n, "the parameter directory", err);
}

static int is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

static cuzk_status read_exact(FILE *f, void *buf, size_t n, const char *path, const char *what, cuzk_error *err)
{
    if (fread(buf, 1, n, f) == n) return CUZK_OK;
    if (ferror(f)) return cuzk_error_set(err, CUZK_ERR_IO, "%s: reading %s: %s", path, what, strerror(errno));
    return cuzk_error_set(err, CUZK_ERR_TRUNCATED, "%s: ends inside %s", path, what);
}

cuzk_status filecoin_params_check_vk(const char *params_path, const char *vk_path, cuzk_error *err)
{
    groth16_vk vk;
    cuzk_status st = groth16_vk_read(&vk, vk_path, err);
    if (st) return st;
    size_t vk_len = GROTH16_VK_FIXED_BYTES + 96 * vk.ic_len;
    groth16_vk_free(&vk);
    uint8_t *a = malloc(vk_len), *b = malloc(vk_len);
    FILE *fa = fopen(params_path, "rb"), *fb = fopen(vk_path, "rb");
    if (!a || !b)
        st = cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory for a %zu-byte verifying key", vk_len);
    else if (!fa || !fb)
        st = cuzk_error_set(err, CUZK_ERR_IO, "%s: %s", fa ? vk_path : params_path, strerror(errno));
    if (st == CUZK_OK) st = read_exact(fa, a, vk_len, params_path, "its verifying key", err);
    if (st == CUZK_OK) st = read_exact(fb, b, vk_len, vk_path, "the verifying key", err);
    if (st == CUZK_OK && memcmp(a, b, vk_len) != 0) {
        size_t i = 0;
        while (a[i] == b[i]) i++;
        st = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s is not the verifying key of %s (they differ at byte %zu)",
                            vk_path, params_path, i);
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    free(a);
    free(b);
    return st;
}

cuzk_status filecoin_params_find(const char *dir, filecoin_params_kind kind, uint64_t sector_size,
                                 filecoin_params_files *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    char names[2][FILECOIN_PARAMS_NAME_MAX];
    cuzk_status st = filecoin_params_name(kind, sector_size, names[0], sizeof names[0], err);
    if (st == CUZK_OK) st = filecoin_params_own_name(kind, sector_size, names[1], sizeof names[1], err);
    if (st) return st;
    for (int i = 0; i < 2; i++) {
        if ((st = fits(snprintf(out->params, sizeof out->params, "%s/%s.params", dir, names[i]), sizeof out->params,
                       "the parameter path", err)))
            return st;
        if (!is_file(out->params)) continue;
        out->published = i == 0;
        char vk[sizeof out->vk];
        if ((st = fits(snprintf(vk, sizeof vk, "%s/%s.vk", dir, names[i]), sizeof vk, "the vk path", err))) return st;
        if (is_file(vk)) {
            if ((st = filecoin_params_check_vk(out->params, vk, err))) return st;
            memcpy(out->vk, vk, sizeof vk);
        }
        return CUZK_OK;
    }
    out->params[0] = 0;
    return cuzk_error_set(err, CUZK_ERR_IO, "%s %s: neither %s.params nor %s.params is in %s", KIND_NAMES[kind],
                          porep_geometry_for_size(sector_size)->name, names[0], names[1], dir);
}

cuzk_status filecoin_params_find_vk(const char *dir, filecoin_params_kind kind, uint64_t sector_size, char *out,
                                    size_t n, int *published, cuzk_error *err)
{
    char names[2][FILECOIN_PARAMS_NAME_MAX];
    cuzk_status st = filecoin_params_name(kind, sector_size, names[0], sizeof names[0], err);
    if (st == CUZK_OK) st = filecoin_params_own_name(kind, sector_size, names[1], sizeof names[1], err);
    if (st) return st;
    for (int i = 0; i < 2; i++) {
        if ((st = fits(snprintf(out, n, "%s/%s.vk", dir, names[i]), n, "the vk path", err))) return st;
        if (is_file(out)) {
            if (published) *published = i == 0;
            return CUZK_OK;
        }
    }
    if (n) out[0] = 0;
    return cuzk_error_set(err, CUZK_ERR_IO, "%s %s: neither %s.vk nor %s.vk is in %s", KIND_NAMES[kind],
                          porep_geometry_for_size(sector_size)->name, names[0], names[1], dir);
}

cuzk_status filecoin_params_digest(const char *path, char out[33], cuzk_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return cuzk_error_set(err, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    porep_blake2b_state s;
    porep_blake2b_init(&s, 64, NULL, 0);
    static const size_t CHUNK = 1u << 20;
    uint8_t *buf = malloc(CHUNK);
    if (!buf) {
        fclose(f);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "out of memory for a read buffer");
    }
    size_t got;
    while ((got = fread(buf, 1, CHUNK, f)) > 0) porep_blake2b_update(&s, buf, got);
    int bad = ferror(f);
    fclose(f);
    free(buf);
    if (bad) return cuzk_error_set(err, CUZK_ERR_IO, "%s: read error", path);
    uint8_t d[64];
    porep_blake2b_final(&s, d);
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) out[2 * i] = digits[d[i] >> 4], out[2 * i + 1] = digits[d[i] & 15];
    out[32] = 0;
    return CUZK_OK;
}

uint64_t filecoin_params_vk_bytes(uint64_t ic)
{
    return GROTH16_VK_FIXED_BYTES + 96 * ic;
}

uint64_t filecoin_params_file_bytes(const filecoin_params_layout *lo)
{
    return filecoin_params_vk_bytes(lo->ic) + 5 * 4 + 96 * (lo->h + lo->l + lo->a + lo->b_g1) + 192 * lo->b_g2;
}

cuzk_status filecoin_params_read_layout(const char *path, filecoin_params_layout *out, uint64_t *file_bytes,
                                        cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) return cuzk_error_set(err, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0) {
        fclose(f);
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    }
    uint64_t size = (uint64_t)sb.st_size, pos = GROTH16_VK_FIXED_BYTES - 4;
    *file_bytes = size;
    static const char *const names[6] = {"ic", "h", "l", "a", "b_g1", "b_g2"};
    uint64_t *lens[6] = {&out->ic, &out->h, &out->l, &out->a, &out->b_g1, &out->b_g2};
    cuzk_status st = CUZK_OK;
    for (int i = 0; st == CUZK_OK && i < 6; i++) {
        uint8_t b[4];
        if (pos + 4 > size || fseeko(f, (off_t)pos, SEEK_SET) != 0 || fread(b, 1, 4, f) != 4) {
            st = cuzk_error_set(err, CUZK_ERR_TRUNCATED, "%s: ends before the length of %s (byte %llu of %llu)", path,
                                names[i], (unsigned long long)pos, (unsigned long long)size);
            break;
        }
        *lens[i] = (uint64_t)b[0] << 24 | (uint64_t)b[1] << 16 | (uint64_t)b[2] << 8 | b[3];
        pos += 4 + *lens[i] * (i == 5 ? 192 : 96);
        if (pos > size)
            st = cuzk_error_set(err, CUZK_ERR_TRUNCATED, "%s: %s holds %llu points, which run to byte %llu of %llu",
                                path, names[i], (unsigned long long)*lens[i], (unsigned long long)pos,
                                (unsigned long long)size);
    }
    fclose(f);
    if (st == CUZK_OK && pos != size)
        st = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: %llu bytes after the last section", path,
                            (unsigned long long)(size - pos));
    return st;
}

cuzk_status filecoin_params_porep_layout(uint64_t sector_size, filecoin_params_layout *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    const porep_geometry *g = NULL;
    cuzk_status st = published_geometry(FILECOIN_PARAMS_POREP, sector_size, &g, err);
    if (st) return st;
    stacked_info info;
    if ((st = stacked_circuit_info(sector_size, &info, err))) return st;
    uint64_t dens[3][3] = {{0}}; /* [challenges][a_aux, b_input, b_aux] */
    unsigned top = g->challenges < 2 ? g->challenges : 2;
    for (unsigned ch = 1; st == CUZK_OK && ch <= top; ch++) {
        stacked_circuit c;
        r1cs cs;
        memset(&cs, 0, sizeof cs);
        st = stacked_circuit_init(&c, g->nodes, g->layers, ch, g->base_arity, g->sub_arity, g->top_arity, err);
        if (st == CUZK_OK) st = r1cs_create(&cs, 0, err);
        if (st == CUZK_OK) st = stacked_synthesize(&cs, &c, NULL, err);
        if (st == CUZK_OK) st = r1cs_finalize(&cs, err);
        r1cs_density d;
        memset(&d, 0, sizeof d);
        if (st == CUZK_OK) st = r1cs_compute_density(&cs, &d, err);
        if (st == CUZK_OK) dens[ch][0] = d.a_aux_count, dens[ch][1] = d.b_input_count, dens[ch][2] = d.b_aux_count;
        r1cs_density_free(&d);
        r1cs_free(&cs);
        stacked_circuit_free(&c);
    }
    if (st) return cuzk_error_prefix(err, "PoRep %s layout: ", g->name);
    uint64_t count[3];
    for (int i = 0; i < 3; i++)
        count[i] = dens[1][i] + (uint64_t)(g->challenges - 1) * (top == 2 ? dens[2][i] - dens[1][i] : 0);
    uint64_t domain = 1;
    while (domain < info.constraints) domain <<= 1;
    out->ic = info.inputs;
    out->h = domain - 1;
    out->l = info.aux;
    out->a = info.inputs + count[0];
    out->b_g1 = out->b_g2 = count[1] + count[2];
    return CUZK_OK;
}
