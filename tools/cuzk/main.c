/* cuzk: set up, prove, verify and inspect Groth16 circuits over BLS12-381.
 * Exit status: 0 success (a valid proof), 1 invalid proof, 2 bad input or usage, 3 internal error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "circuits/porep/c1.h"
#include "circuits/porep/challenges.h"
#include "circuits/post/post_public.h"
#include "circuits/spec.h"
#include "circuits/stacked/stacked.h"
#include "engine/engine.h"
#include "engine/open.h"
#include "engine/porep.h"
#include "formats/json.h"
#include "formats/porep_c1.h"
#include "formats/snarkjs_json.h"
#include "formats/wtns.h"
#include "formats/zkey.h"
#include "gpu/gpu.h"
#include "gpu/gpu_prove.h"
#include "gpu/gpu_setup.h"
#include "groth16/groth16.h"
#include "util/pool.h"
#include "cuzk.h"

static const char *USAGE =
    "usage: cuzk <command> [options]\n"
    "\n"
    "commands:\n"
    "  setup    --circuit SPEC [--api 1.0|1.1|1.2] --params FILE --vk FILE [--backend cpu|gpu]\n"
    "           parameters for one of our circuits from fresh toxic waste (bellperson .params/.vk layout);\n"
    "           --api sets the PoRep API version of a porep: SPEC; the fixed-base multiplications run on the\n"
    "           GPU when one is present (--backend forces one). A 32GiB partition needs ~80 GiB of memory and\n"
    "           writes a ~60 GB file\n"
    "  prove    --circuit SPEC --params FILE --proof FILE [--public FILE]\n"
    "           prove the circuit's witness; writes the 192-byte proof and the public inputs as JSON\n"
    "  prove    --porep C1 --params FILE --out FILE [--backend cpu|gpu]\n"
    "           PoRep C2: prove every partition of a C1 output (JSON or Lotus/Curio envelope) through the\n"
    "           proving engine, on the GPU when one is present (--backend forces one); every proof is verified\n"
    "           (also against --vk if given) and the partitions' 192-byte proofs are written in order\n"
    "  prove    --zkey FILE --wtns FILE --proof proof.json [--public public.json] [--backend cpu|gpu]\n"
    "           prove a snarkjs Groth16 circuit (bls12381) on the GPU when one is present (--backend forces\n"
    "           one); writes snarkjs' proof.json and public.json\n"
    "           (every proof is verified before it is written)\n"
    "  verify   --vk FILE --proof FILE (--public FILE | --circuit SPEC)\n"
    "           check a 192-byte proof against a bellperson .vk\n"
    "  verify   --porep C1 --vk FILE --proof FILE\n"
    "           check a PoRep C2 proof (partitions x 192 bytes) against the C1's public inputs\n"
    "  prove    --post VANILLA.json --info INFO.json --params FILE --out FILE [--vk FILE] [--backend cpu|gpu]\n"
    "           WindowPoSt / WinningPoSt: prove a request's vanilla proofs (a JSON array of base64 bincode\n"
    "           FallbackPoStSectorProofs) for INFO's registered_proof and randomness through the engine; the proof\n"
    "           is self-verified (and against --vk) before its 192 bytes are written\n"
    "  verify-post --info INFO.json --proof FILE --vk FILE\n"
    "           check a PoSt proof from public values only, as filecoin-ffi's VerifyWindowPoSt/VerifyWinningPoSt:\n"
    "           INFO = {\"registered_proof\": N, \"randomness\": HEX, \"prover_id\": HEX,\n"
    "                   \"sectors\": [{\"sector_id\": N, \"comm_r\": HEX}, ...]}\n"
    "  verify   --vk verification_key.json --proof proof.json --public public.json\n"
    "           check a snarkjs proof (chosen when --vk ends in .json)\n"
    "  porep    seal | synth-c1 | check-c1 | check-circuit ...\n"
    "           Filecoin PoRep test data: seal a small sector or synthesize a C1 of any size; check a C1\n"
    "           file, or its witness against the whole partition circuit\n"
    "           ('cuzk porep --help')\n"
    "  circuit-info --circuit porep:SIZE|wpost:SIZE|winning:SIZE|snap:SIZE [--hash]\n"
    "           constraint and public-input counts of one PoRep or SnapDeals partition or PoSt circuit, counted\n"
    "           without storing it, its published parameter file names, and with --hash (PoRep) bellperson's\n"
    "           constraint-system hash\n"
    "  post     vanilla | synth-vanilla | check-vanilla ...  PoSt vanilla proofs ('cuzk post --help')\n"
    "  snap     encode | synth-vanilla ...   SnapDeals test data ('cuzk snap --help')\n"
    "  prove    --snap VPROOF.json --commitments FILE --params FILE --out FILE [--backend cpu|gpu]\n"
    "  verify-snap --commitments FILE --proof FILE --vk FILE   (SnapDeals; 'cuzk snap --help')\n"
    "  verify-seal --info INFO.json --proof PROOF [--vk VK | --params-dir DIR] | --records FILE\n"
    "           filecoin-ffi's VerifySeal from a sector's public values ('cuzk verify-seal --help')\n"
    "  params check [DIR]\n"
    "           size, digest and section lengths of every published parameter file in DIR\n"
    "  selftest [--params-dir DIR]\n"
    "           seal, prove and verify a 2 KiB sector and check the parameter files there, one line a check\n"
    "  inspect  FILE...\n"
    "           say what a .params, .vk, .zkey, .wtns, proof or snarkjs .json file holds and whether it is valid\n"
    "\n"
    "options:\n"
    "  --threads N   worker threads (default: one per CPU)\n"
    "  --trusted     skip the subgroup check of the proving bases when loading .params or .zkey\n"
    "  -h, --help    this text\n"
    "\n"
    "SPEC: synthetic:k=K[,seed=S]  the synthetic PoRep-shaped circuit of about 2^K constraints\n"
    "      porep:SIZE[,api=1.0|1.1|1.2][,kind=interactive|synthetic|ni]\n"
    "                                 one partition of the StackedDRG PoRep circuit (default api 1.1, interactive)\n"
    "      wpost:SIZE, winning:SIZE   the WindowPoSt partition / WinningPoSt circuit\n"
    "\n"
    "Public inputs are a JSON array of decimal strings (the constant ONE excluded), as snarkjs writes them.\n"
    "Exit status: 0 success or valid proof, 1 invalid proof, 2 bad input or usage, 3 internal error.\n";

typedef struct options {
    const char *circuit, *params, *vk, *proof, *public_path, *zkey, *wtns, *porep, *out, *backend, *api, *post, *info;
    unsigned threads;
    int trusted;
    int nfiles;
    char **files;
} options;

static int exit_code(cuzk_status st)
{
    switch (st) {
    case CUZK_OK: return EXIT_VALID;
    case CUZK_ERR_INVALID_PROOF: return EXIT_INVALID;
    case CUZK_ERR_NOMEM:
    case CUZK_ERR_INTERNAL:
    case CUZK_ERR_GPU:
    case CUZK_ERR_CANCELLED: return EXIT_INTERNAL;
    default: return EXIT_BAD_INPUT;
    }
}

int cli_report(const char *cmd, cuzk_status st, const cuzk_error *err)
{
    if (st != CUZK_OK) fprintf(stderr, "cuzk %s: %s: %s\n", cmd, cuzk_status_name(st), err->msg);
    return exit_code(st);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void progress(const char *cmd, const char *step, double since)
{
    fprintf(stderr, "cuzk %s: %s (%.2f s)\n", cmd, step, now_s() - since);
}

static int parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->files = calloc((size_t)argc + 1, sizeof *o->files);
    if (!o->files) return -1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = NULL;
        if (strcmp(a, "--circuit") == 0)
            slot = &o->circuit;
        else if (strcmp(a, "--params") == 0)
            slot = &o->params;
        else if (strcmp(a, "--vk") == 0)
            slot = &o->vk;
        else if (strcmp(a, "--proof") == 0)
            slot = &o->proof;
        else if (strcmp(a, "--public") == 0)
            slot = &o->public_path;
        else if (strcmp(a, "--zkey") == 0)
            slot = &o->zkey;
        else if (strcmp(a, "--wtns") == 0)
            slot = &o->wtns;
        else if (strcmp(a, "--porep") == 0)
            slot = &o->porep;
        else if (strcmp(a, "--out") == 0)
            slot = &o->out;
        else if (strcmp(a, "--backend") == 0)
            slot = &o->backend;
        else if (strcmp(a, "--api") == 0)
            slot = &o->api;
        else if (strcmp(a, "--post") == 0)
            slot = &o->post;
        else if (strcmp(a, "--info") == 0)
            slot = &o->info;
        else if (strcmp(a, "--trusted") == 0) {
            o->trusted = 1;
            continue;
        } else if (strcmp(a, "--threads") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "cuzk: --threads needs a value\n");
                return -1;
            }
            char *end;
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (*end || v == 0 || v > 4096) {
                fprintf(stderr, "cuzk: --threads must be a number from 1 to 4096\n");
                return -1;
            }
            o->threads = (unsigned)v;
            continue;
        } else if (a[0] == '-' && a[1] != 0) {
            fprintf(stderr, "cuzk: unknown option '%s' (try 'cuzk --help')\n", a);
            return -1;
        } else {
            o->files[o->nfiles++] = argv[i];
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "cuzk: %s needs a value\n", a);
            return -1;
        }
        *slot = argv[++i];
    }
    return 0;
}

static int need(const char *cmd, const char *value, const char *name)
{
    if (value) return 1;
    fprintf(stderr, "cuzk %s: %s is required (try 'cuzk --help')\n", cmd, name);
    return 0;
}

cuzk_status cli_read_file(const char *path, uint8_t **out, size_t *len, cuzk_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return cuzk_error_set(err, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat stt;
    if (fstat(fileno(f), &stt) != 0 || !S_ISREG(stt.st_mode)) {
        fclose(f);
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: not a regular file", path);
    }
    size_t n = (size_t)stt.st_size;
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        fclose(f);
        return cuzk_error_set(err, CUZK_ERR_NOMEM, "%s: cannot allocate %zu bytes", path, n);
    }
    if (fread(buf, 1, n, f) != n) {
        free(buf);
        fclose(f);
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: read failed", path);
    }
    fclose(f);
    *out = buf;
    *len = n;
    return CUZK_OK;
}

cuzk_status cli_write_file(const char *path, const void *data, size_t len, cuzk_error *err)
{
    FILE *f = fopen(path, "wb");
    if (!f) return cuzk_error_set(err, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    int ok = fwrite(data, 1, len, f) == len;
    ok &= fclose(f) == 0;
    return ok ? CUZK_OK : cuzk_error_set(err, CUZK_ERR_IO, "%s: write failed", path);
}

/* The spec of --circuit, with --api applied to a porep spec. */
static cuzk_status parse_spec(const options *o, circuit_spec *spec, cuzk_error *err)
{
    if (!o->api) return circuit_spec_parse(o->circuit, spec, err);
    if (strncmp(o->circuit, "porep:", 6) != 0 || strstr(o->circuit, "api="))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "--api goes with --circuit porep:SIZE (without api=)");
    char text[256];
    snprintf(text, sizeof text, "%s,api=%s", o->circuit, o->api);
    return circuit_spec_parse(text, spec, err);
}

static cuzk_status build_circuit(pool_t *pool, const char *text, unsigned what, r1cs *cs, cuzk_error *err)
{
    circuit_spec spec;
    cuzk_status st = circuit_spec_parse(text, &spec, err);
    if (st) return st;
    return circuit_spec_build(pool, &spec, what, cs, err);
}

typedef struct setup_progress_ctx {
    double t0;
} setup_progress_ctx;

static void setup_progress_cb(void *ctx, const char *step)
{
    progress("setup", step, ((setup_progress_ctx *)ctx)->t0);
}

/* Bytes of memory a setup needs at its peak: the compiled circuit (~72 bytes a constraint), the parameters (a and
 * b at their full lengths, an upper bound) and the QAP evaluations still alive at the end. */
static double setup_peak_bytes(double constraints, double inputs, double aux)
{
    double n_var = inputs + aux, m = 1;
    while (m < constraints) m *= 2;
    return 72 * constraints + (m + aux + 2 * n_var) * G1_UNCOMPRESSED_BYTES + n_var * 2 * G1_UNCOMPRESSED_BYTES +
           2 * n_var * sizeof(fr_t);
}

static double mem_total_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    double kib = 0;
    if (f) {
        if (fscanf(f, "MemTotal: %lf kB", &kib) != 1) kib = 0;
        fclose(f);
    }
    return kib * 1024;
}

static int cmd_setup(pool_t *pool, const options *o)
{
    if (!need("setup", o->circuit, "--circuit") || !need("setup", o->params, "--params") ||
        !need("setup", o->vk, "--vk"))
        return EXIT_BAD_INPUT;
    cuzk_error err;
    circuit_spec spec;
    cuzk_status st = parse_spec(o, &spec, &err);
    if (st) return cli_report("setup", st, &err);
    const char *want = o->backend;
    if (want && strcmp(want, "cpu") != 0 && strcmp(want, "gpu") != 0)
        return cli_report(
            "setup", cuzk_error_set(&err, CUZK_ERR_INVALID_ARG, "--backend must be cpu or gpu, not '%s'", want), &err);
    char canon[128];
    circuit_spec_format(&spec, canon, sizeof canon);
    double t0 = now_s();
    uint64_t big = spec.kind == CIRCUIT_POREP  ? spec.porep->sector_size
                   : spec.kind == CIRCUIT_POST ? spec.post->sector_size
                   : spec.kind == CIRCUIT_SNAP ? spec.snap->nodes * 32
                                               : 0;
    if (big > (16ull << 20)) {
        /* Counted first (seconds), so that a machine too small says so instead of running out of memory. */
        stacked_info info;
        if (spec.kind == CIRCUIT_POREP) {
            st = stacked_circuit_info(spec.porep->sector_size, &info, &err);
        } else if (spec.kind == CIRCUIT_POST) {
            post_info pi;
            st = post_circuit_info(spec.post->kind, spec.post->sector_size, &pi, &err);
            info = (stacked_info){pi.synth_constraints, pi.constraints, pi.inputs, pi.aux};
        } else {
            update_circuit uc;
            update_info ui;
            if ((st = update_circuit_init(&uc, spec.snap, &err)) == CUZK_OK) st = update_circuit_info(&uc, &ui, &err);
            update_circuit_free(&uc);
            info = (stacked_info){0, ui.constraints, ui.inputs, ui.aux};
        }
        if (st != CUZK_OK) return cli_report("setup", st, &err);
        double need_bytes = setup_peak_bytes((double)info.constraints, (double)info.inputs, (double)info.aux);
        double have = mem_total_bytes();
        fprintf(stderr, "cuzk setup: %s: about %.1f GiB of memory at the peak\n", canon, need_bytes / 1073741824.0);
        if (have > 0 && need_bytes > have)
            return cli_report("setup",
                              cuzk_error_set(&err, CUZK_ERR_UNSUPPORTED,
                                             "%s: the setup needs about %.1f GiB of memory and this machine has "
                                             "%.1f GiB",
                                             canon, need_bytes / 1073741824.0, have / 1073741824.0),
                              &err);
    }
    r1cs cs;
    st = circuit_spec_build(pool, &spec, R1CS_MATRICES, &cs, &err);
    if (st) return cli_report("setup", st, &err);
    progress("setup", "circuit built", t0);
    fprintf(stderr, "cuzk setup: %s: %zu constraints, %zu inputs, %zu aux\n", canon, cs.num_constraints, cs.num_inputs,
            cs.num_aux);
    groth16_fixed_base gpu_fb;
    setup_progress_ctx pc = {t0};
    groth16_setup_options opts = {NULL, setup_progress_cb, &pc};
    gpu_ctx *gctx = NULL;
    gpu_fixed_base *gfb = NULL;
    if (!want || strcmp(want, "gpu") == 0) {
        if (gpu_device_count() > 0 && (st = gpu_ctx_create(&gctx, 0, &err)) == CUZK_OK &&
            (st = gpu_fixed_base_create(gctx, &gfb, &err)) == CUZK_OK) {
            gpu_fixed_base_engine(gfb, &gpu_fb);
            opts.fixed_base = &gpu_fb;
            fprintf(stderr, "cuzk setup: fixed-base multiplications on GPU 0\n");
        } else {
            if (st == CUZK_OK) st = cuzk_error_set(&err, CUZK_ERR_UNSUPPORTED, "no CUDA device is visible");
            if (want) {
                r1cs_free(&cs);
                gpu_ctx_destroy(gctx);
                return cli_report("setup", st, &err);
            }
            if (gpu_device_count() > 0) fprintf(stderr, "cuzk setup: %s; on the CPU instead\n", err.msg);
        }
    }
    st = groth16_setup_files(pool, &cs, &opts, o->params, o->vk, &err);
    r1cs_free(&cs);
    gpu_fixed_base_destroy(gfb);
    gpu_ctx_destroy(gctx);
    if (st == CUZK_OK) progress("setup", "parameters written", t0);
    return cli_report("setup", st, &err);
}

static cuzk_status zkey_gpu_start(void *ctx, pool_t *pool, const groth16_params *params, size_t m, const fr_t *a,
                                  const fr_t *b, const fr_t *c, const fr_t *inputs, size_t n_in, const fr_t *aux,
                                  size_t n_aux, const r1cs_density *density, groth16_pending *pending, cuzk_error *err)
{
    (void)ctx;
    return gpu_prove_start_once(0, pool, params, m, a, b, c, inputs, n_in, aux, n_aux, density, pending, err);
}

static int cmd_prove_zkey(pool_t *pool, const options *o)
{
    if (!need("prove", o->wtns, "--wtns") || !need("prove", o->proof, "--proof")) return EXIT_BAD_INPUT;
    cuzk_error err;
    zkey z;
    wtns w;
    groth16_vk vk;
    groth16_proof proof;
    double t0 = now_s();
    cuzk_status st = zkey_read(pool, &z, o->zkey, o->trusted ? ZKEY_SKIP_SUBGROUP_CHECK : 0, &err);
    if (st) return cli_report("prove", st, &err);
    progress("prove", "zkey loaded", t0);
    fprintf(stderr, "cuzk prove: %u signals, %u public, domain 2^%u\n", z.n_vars, z.n_public, z.log_domain);
    st = wtns_read(&w, o->wtns, &err);
    if (st) {
        zkey_free(&z);
        return cli_report("prove", st, &err);
    }
    const char *want = o->backend;
    int on_gpu = 0;
    if (want && strcmp(want, "cpu") != 0 && strcmp(want, "gpu") != 0)
        st = cuzk_error_set(&err, CUZK_ERR_INVALID_ARG, "--backend must be cpu or gpu, not '%s'", want);
    else if (want && !strcmp(want, "gpu") && gpu_device_count() == 0)
        st = cuzk_error_set(&err, CUZK_ERR_UNSUPPORTED, "--backend gpu: no CUDA device is visible");
    else
        on_gpu = (!want || !strcmp(want, "gpu")) && gpu_device_count() > 0;
    if (st == CUZK_OK)
        st = zkey_prove_with(pool, &z, w.values, w.n, NULL, NULL, on_gpu ? zkey_gpu_start : NULL, NULL, &proof, &err);
    if (st == CUZK_OK) fprintf(stderr, "cuzk prove: proved on the %s\n", on_gpu ? "GPU" : "CPU");
    if (st == CUZK_OK) {
        progress("prove", "proved", t0);
        st = zkey_vk(&z, &vk, &err);
        if (st == CUZK_OK) {
            st = snarkjs_verify(&vk, &proof, w.values + 1, z.n_public, &err);
            groth16_vk_free(&vk);
            if (st == CUZK_ERR_INVALID_PROOF)
                st = cuzk_error_set(&err, CUZK_ERR_INTERNAL, "the new proof failed self-verification; not written");
        }
    }
    if (st == CUZK_OK) st = snarkjs_proof_write(o->proof, &proof, &err);
    if (st == CUZK_OK && o->public_path) st = snarkjs_public_write(o->public_path, w.values + 1, z.n_public, &err);
    if (st == CUZK_OK) progress("prove", "proof verified and written", t0);
    wtns_free(&w);
    zkey_free(&z);
    return cli_report("prove", st, &err);
}

/* ---- PoRep C2 ---- */

typedef struct porep_progress {
    const char *backend;
    unsigned partitions;
} porep_progress;

/* One line per partition and stage, from the engine's events. */
static void porep_event(void *ctx, const engine_event *ev)
{
    const porep_progress *pp = ctx;
    if (ev->partition < 0) return;
    if (ev->type == ENGINE_EV_SYNTH_END)
        fprintf(stderr, "cuzk prove: partition %d/%u synthesized (%.0f ms)\n", ev->partition + 1, pp->partitions,
                ev->ms);
    else if (ev->type == ENGINE_EV_GPU_END)
        fprintf(stderr, "cuzk prove: partition %d/%u H, L, A, B_G1 on %s (%.0f ms)\n", ev->partition + 1,
                pp->partitions, pp->backend, ev->ms);
    else if (ev->type == ENGINE_EV_FINISH_END)
        fprintf(stderr, "cuzk prove: partition %d/%u finished and self-verified (%.0f ms)\n", ev->partition + 1,
                pp->partitions, ev->ms);
}

/* The backend --backend names, or AUTO (the GPU when one is present and the CPU otherwise). */
cuzk_status cli_backend_choice(const char *want, engine_backend_choice *out, cuzk_error *err)
{
    if (want && strcmp(want, "cpu") != 0 && strcmp(want, "gpu") != 0)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "--backend must be cpu or gpu, not '%s'", want);
    *out = !want ? ENGINE_BACKEND_AUTO : !strcmp(want, "gpu") ? ENGINE_BACKEND_GPU : ENGINE_BACKEND_CPU;
    return CUZK_OK;
}

static int cmd_prove_porep(pool_t *pool, const options *o)
{
    const char *out = o->out ? o->out : o->proof;
    if (!need("prove", o->params, "--params") || !need("prove", out, "--out")) return EXIT_BAD_INPUT;
    cuzk_error err;
    porep_c1 c1;
    groth16_params params;
    groth16_vk vk;
    int have_params = 0, have_vk = 0;
    engine_porep_circuit *pc = NULL;
    engine_host *host = NULL;
    engine_backend_choice choice = ENGINE_BACKEND_AUTO;
    engine_result res;
    memset(&res, 0, sizeof res);
    uint8_t *bytes = NULL;
    double t0 = now_s(), t_load = 0, t_compile = 0, t_prove = 0;
    int64_t sector_num = 0;
    cuzk_status st = porep_c1_read_file(&c1, o->porep, &sector_num, &err);
    if (st) return cli_report("prove", st, &err);
    fprintf(stderr, "cuzk prove: %s: %s, %u partition%s x %u challenges\n", o->porep, c1.type->name, c1.partitions,
            c1.partitions == 1 ? "" : "s", c1.challenges);
    st = groth16_params_read(pool, &params, o->params, o->trusted ? GROTH16_LOAD_SKIP_SUBGROUP_CHECK : 0, &err);
    if (st == CUZK_OK) have_params = 1;
    if (st == CUZK_OK && o->vk && (st = groth16_vk_read(&vk, o->vk, &err)) == CUZK_OK) have_vk = 1;
    t_load = now_s() - t0;
    if (st == CUZK_OK) progress("prove", "C1 and parameters loaded", t0);
    if (st == CUZK_OK && (st = engine_porep_circuit_create(c1.type, &params, pool, &pc, &err)) == CUZK_OK) {
        t_compile = now_s() - t0 - t_load;
        const engine_circuit *ec = engine_porep_circuit_get(pc);
        fprintf(stderr, "cuzk prove: circuit compiled (%.2f s): %zu constraints, domain %zu\n", t_compile,
                ec->shape->num_constraints, ec->m);
    }
    if (st == CUZK_OK) st = cli_backend_choice(o->backend, &choice, &err);
    porep_progress pp = {"?", c1.partitions};
    if (st == CUZK_OK) {
        /* B_G2 and assembly on a pool of their own (GPU), so that they overlap the next partition's device work. */
        engine_open_config oc = {.backend = choice,
                                 .pool = pool,
                                 .finish_threads = o->threads,
                                 .abc_on_device = -1,
                                 .engine = {.synth_pool = pool, .event_cb = porep_event, .event_ctx = &pp}};
        st = engine_open(&oc, &host, &err);
    }
    engine_backend *be = host ? host->backend : NULL;
    engine *e = host ? host->eng : NULL;
    if (st == CUZK_OK) {
        pp.backend = be->name;
        if (choice == ENGINE_BACKEND_AUTO && !host->on_devices)
            fprintf(stderr, "cuzk prove: %s; proving on the CPU\n",
                    host->backend_note[0] ? host->backend_note
                                          : "no CUDA device (none visible, or cuzk was built "
                                            "without CUDA)");
        if (host->cap_note[0]) fprintf(stderr, "cuzk prove: %s\n", host->cap_note);
        if (host->abc_note[0]) fprintf(stderr, "cuzk prove: %s\n", host->abc_note);
    }
    if (st == CUZK_OK) {
        double t1 = now_s();
        engine_request rq;
        uint64_t id;
        fprintf(stderr, "cuzk prove: proving %u partition%s on %s\n", c1.partitions, c1.partitions == 1 ? "" : "s",
                be->name);
        if ((st = engine_porep_request(pc, &c1, ENGINE_PRIO_NORMAL, &rq, &err)) == CUZK_OK &&
            (st = engine_submit(e, &rq, &id, &err)) == CUZK_OK)
            st = engine_wait(e, id, &res, &err);
        t_prove = now_s() - t1;
        if (st == CUZK_OK && !res.verified)
            st = cuzk_error_set(&err, CUZK_ERR_INTERNAL, "the engine did not self-verify the proofs");
    }
    /* An independent check that the --vk file is the one paired with these parameters. */
    for (unsigned k = 0; st == CUZK_OK && have_vk && k < c1.partitions; k++) {
        groth16_pvk pvk;
        fr_t *pub;
        size_t n;
        if ((st = engine_porep_public_inputs(&c1, k, &pub, &n, &err)) != CUZK_OK) break;
        if (n + 1 != vk.ic_len)
            st = cuzk_error_set(&err, CUZK_ERR_INVALID_ARG, "%s: %zu public inputs, the circuit has %zu", o->vk,
                                vk.ic_len - 1, n);
        else if ((st = groth16_pvk_prepare(&pvk, &vk, &err)) == CUZK_OK) {
            st = groth16_verify(pool, &pvk, &res.proofs[k], pub, n, &err);
            groth16_pvk_free(&pvk);
            if (st == CUZK_ERR_INVALID_PROOF)
                st = cuzk_error_set(&err, CUZK_ERR_INVALID_ARG,
                                    "partition %u does not verify with %s: it is not the key of %s", k, o->vk,
                                    o->params);
        }
        free(pub);
    }
    size_t len = (size_t)c1.partitions * GROTH16_PROOF_BYTES;
    if (st == CUZK_OK && !(bytes = malloc(len))) st = cuzk_error_set(&err, CUZK_ERR_NOMEM, "out of memory");
    if (st == CUZK_OK) {
        groth16_proofs_write(bytes, res.proofs, c1.partitions);
        st = cli_write_file(out, bytes, len, &err);
    }
    if (st == CUZK_OK) {
        fprintf(stderr, "cuzk prove: wrote %s (%u x %d bytes)\n", out, c1.partitions, GROTH16_PROOF_BYTES);
        fprintf(stderr,
                "cuzk prove: timings: load %.2f s, compile %.2f s, prove %.2f s (synthesis %.2f s, %s %.2f s, "
                "finish %.2f s, summed over partitions), total %.2f s\n",
                t_load, t_compile, t_prove, res.synth_ms / 1e3, be->name, res.gpu_ms / 1e3, res.finish_ms / 1e3,
                now_s() - t0);
    }
    free(bytes);
    engine_result_free(&res);
    engine_close(host); /* the backend's copies of params go with it */
    engine_porep_circuit_free(pc);
    if (have_vk) groth16_vk_free(&vk);
    if (have_params) groth16_params_free(&params);
    porep_c1_free(&c1);
    return cli_report("prove", st, &err);
}

static int cmd_verify_porep(pool_t *pool, const options *o)
{
    if (!need("verify", o->vk, "--vk") || !need("verify", o->proof, "--proof")) return EXIT_BAD_INPUT;
    cuzk_error err;
    porep_c1 c1;
    cuzk_status st = porep_c1_read_file(&c1, o->porep, NULL, &err);
    if (st) return cli_report("verify", st, &err);
    groth16_vk vk;
    groth16_pvk pvk;
    int have_vk = 0, have_pvk = 0;
    uint8_t *bytes = NULL;
    size_t len = 0;
    groth16_proof *proofs = NULL;
    fr_t *pub = NULL;
    size_t n = 0;
    unsigned bad = 0;
    if ((st = groth16_vk_read(&vk, o->vk, &err)) == CUZK_OK) have_vk = 1;
    if (st == CUZK_OK) st = cli_read_file(o->proof, &bytes, &len, &err);
    if (st == CUZK_OK && len != (size_t)c1.partitions * GROTH16_PROOF_BYTES)
        st = cuzk_error_set(&err, CUZK_ERR_FORMAT, "%s: %zu bytes; %s has %u partition%s, so %zu are expected",
                            o->proof, len, o->porep, c1.partitions, c1.partitions == 1 ? "" : "s",
                            (size_t)c1.partitions * GROTH16_PROOF_BYTES);
    /* Checked before the proofs are decoded: a key of another circuit is unusable input, not an invalid proof. */
    size_t want_inputs = 3 + (size_t)POREP_INPUTS_PER_CHALLENGE * c1.challenges;
    if (st == CUZK_OK && vk.ic_len != want_inputs + 1)
        st = cuzk_error_set(&err, CUZK_ERR_INVALID_ARG,
                            "%s expects %zu public inputs, %s has %zu: a key of another "
                            "circuit",
                            o->vk, vk.ic_len - 1, c1.type->name, want_inputs);
    if (st == CUZK_OK && !(proofs = malloc(c1.partitions * sizeof *proofs)))
        st = cuzk_error_set(&err, CUZK_ERR_NOMEM, "out of memory");
    if (st == CUZK_OK && (st = groth16_proofs_read(proofs, c1.partitions, bytes, len, &err)) != CUZK_OK &&
        st != CUZK_ERR_NOMEM) {
        /* a proof that does not decode is an invalid proof, not unusable input */
        cuzk_error_prefix(&err, "%s: ", o->proof);
        st = CUZK_ERR_INVALID_PROOF;
    }
    if (st == CUZK_OK && (st = groth16_pvk_prepare(&pvk, &vk, &err)) == CUZK_OK) have_pvk = 1;
    for (unsigned k = 0; st == CUZK_OK && k < c1.partitions; k++) {
        free(pub);
        pub = NULL;
        if ((st = engine_porep_public_inputs(&c1, k, &pub, &n, &err)) != CUZK_OK) break;
        cuzk_status vs = groth16_verify(pool, &pvk, &proofs[k], pub, n, &err);
        if (vs == CUZK_ERR_INVALID_PROOF) {
            fprintf(stderr, "cuzk verify: partition %u/%u: invalid\n", k + 1, c1.partitions);
            bad++;
        } else if (vs != CUZK_OK) {
            st = vs;
        }
    }
    if (st == CUZK_OK && bad)
        st = cuzk_error_set(&err, CUZK_ERR_INVALID_PROOF, "%u of %u partition proofs are invalid", bad, c1.partitions);
    if (st == CUZK_OK)
        printf("valid\n");
    else if (st == CUZK_ERR_INVALID_PROOF)
        printf("invalid\n");
    free(pub);
    free(proofs);
    free(bytes);
    if (have_pvk) groth16_pvk_free(&pvk);
    if (have_vk) groth16_vk_free(&vk);
    porep_c1_free(&c1);
    return cli_report("verify", st, &err);
}

static int cmd_prove(pool_t *pool, const options *o)
{
    if (o->porep) return cmd_prove_porep(pool, o);
    if (o->post) {
        cli_post_prove a = {o->post,    o->info,    o->params, o->vk, o->out ? o->out : o->proof,
                            o->backend, o->threads, o->trusted};
        return cmd_prove_post(pool, &a);
    }
    if (o->zkey) return cmd_prove_zkey(pool, o);
    if (!need("prove", o->circuit, "--circuit (or --zkey)") || !need("prove", o->params, "--params") ||
        !need("prove", o->proof, "--proof"))
        return EXIT_BAD_INPUT;
    cuzk_error err;
    groth16_params params;
    r1cs cs;
    groth16_pvk pvk;
    groth16_proof proof;
    groth16_timings tm;
    double t0 = now_s();
    cuzk_status st =
        groth16_params_read(pool, &params, o->params, o->trusted ? GROTH16_LOAD_SKIP_SUBGROUP_CHECK : 0, &err);
    if (st) return cli_report("prove", st, &err);
    progress("prove", "parameters loaded", t0);
    st = build_circuit(pool, o->circuit, R1CS_MATRICES | R1CS_WITNESS, &cs, &err);
    if (st) {
        groth16_params_free(&params);
        return cli_report("prove", st, &err);
    }
    progress("prove", "witness synthesized", t0);
    st = groth16_prove(pool, &params, &cs, NULL, NULL, NULL, NULL, &proof, &tm, &err);
    if (st == CUZK_OK) {
        fprintf(stderr,
                "cuzk prove: proved (%.2f s): a/b/c %.0f ms, H %.0f ms, MSM H %.0f ms, L %.0f ms, A %.0f ms, "
                "B1 %.0f ms, B2 %.0f ms, assembly %.0f ms\n",
                now_s() - t0, tm.eval_abc_ms, tm.h_ms, tm.msm_h_ms, tm.msm_l_ms, tm.msm_a_ms, tm.msm_b_g1_ms,
                tm.msm_b_g2_ms, tm.assembly_ms);
        st = groth16_pvk_prepare(&pvk, &params.vk, &err);
        if (st == CUZK_OK) {
            st = groth16_verify(pool, &pvk, &proof, cs.inputs + 1, cs.num_inputs - 1, &err);
            groth16_pvk_free(&pvk);
            if (st == CUZK_ERR_INVALID_PROOF)
                st = cuzk_error_set(&err, CUZK_ERR_INTERNAL, "the new proof failed self-verification; not written");
        }
    }
    if (st == CUZK_OK) {
        uint8_t bytes[GROTH16_PROOF_BYTES];
        groth16_proof_write(bytes, &proof);
        st = cli_write_file(o->proof, bytes, sizeof bytes, &err);
    }
    if (st == CUZK_OK && o->public_path)
        st = snarkjs_public_write(o->public_path, cs.inputs + 1, cs.num_inputs - 1, &err);
    if (st == CUZK_OK) progress("prove", "proof verified and written", t0);
    r1cs_free(&cs);
    groth16_params_free(&params);
    return cli_report("prove", st, &err);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int cmd_verify_snarkjs(const options *o)
{
    if (!need("verify", o->public_path, "--public")) return EXIT_BAD_INPUT;
    cuzk_error err;
    groth16_vk vk;
    groth16_proof proof;
    fr_t *pub = NULL;
    size_t n_pub = 0;
    cuzk_status st = snarkjs_vk_read(&vk, o->vk, &err);
    if (st) return cli_report("verify", st, &err);
    st = snarkjs_public_read(&pub, &n_pub, o->public_path, &err);
    if (st == CUZK_OK) {
        st = snarkjs_proof_read(&proof, o->proof, &err);
        /* a proof that does not decode is an invalid proof */
        if (st == CUZK_ERR_FORMAT || st == CUZK_ERR_NOT_ON_CURVE || st == CUZK_ERR_NOT_IN_SUBGROUP) {
            cuzk_error_prefix(&err, "%s: ", o->proof);
            st = CUZK_ERR_INVALID_PROOF;
        }
    }
    if (st == CUZK_OK) st = snarkjs_verify(&vk, &proof, pub, n_pub, &err);
    if (st == CUZK_OK)
        printf("valid\n");
    else if (st == CUZK_ERR_INVALID_PROOF)
        printf("invalid\n");
    free(pub);
    groth16_vk_free(&vk);
    return cli_report("verify", st, &err);
}

static int cmd_verify(pool_t *pool, const options *o)
{
    if (o->porep) return cmd_verify_porep(pool, o);
    if (!need("verify", o->vk, "--vk") || !need("verify", o->proof, "--proof")) return EXIT_BAD_INPUT;
    if (ends_with(o->vk, ".json")) return cmd_verify_snarkjs(o);
    if (!o->public_path && !o->circuit) {
        fprintf(stderr, "cuzk verify: --public FILE or --circuit SPEC is required (try 'cuzk --help')\n");
        return EXIT_BAD_INPUT;
    }
    cuzk_error err;
    groth16_vk vk;
    cuzk_status st = groth16_vk_read(&vk, o->vk, &err);
    if (st) return cli_report("verify", st, &err);
    fr_t *inputs = NULL;
    size_t n_inputs = 0;
    uint8_t *bytes = NULL;
    size_t len = 0;
    groth16_proof *proofs = NULL;
    groth16_pvk pvk;
    int have_pvk = 0;
    if (o->public_path) {
        st = snarkjs_public_read(&inputs, &n_inputs, o->public_path, &err);
    } else {
        r1cs cs;
        st = build_circuit(pool, o->circuit, R1CS_WITNESS, &cs, &err);
        if (st == CUZK_OK) {
            n_inputs = cs.num_inputs - 1;
            inputs = malloc((n_inputs ? n_inputs : 1) * sizeof *inputs);
            if (!inputs)
                st = cuzk_error_set(&err, CUZK_ERR_NOMEM, "out of memory");
            else
                memcpy(inputs, cs.inputs + 1, n_inputs * sizeof *inputs);
            r1cs_free(&cs);
        }
    }
    if (st == CUZK_OK) st = cli_read_file(o->proof, &bytes, &len, &err);
    size_t n_proofs = len / GROTH16_PROOF_BYTES;
    if (st == CUZK_OK && (len == 0 || len % GROTH16_PROOF_BYTES != 0))
        st = cuzk_error_set(&err, CUZK_ERR_FORMAT, "%s: %zu bytes is not a whole number of 192-byte proofs", o->proof,
                            len);
    if (st == CUZK_OK && !(proofs = malloc(n_proofs * sizeof *proofs)))
        st = cuzk_error_set(&err, CUZK_ERR_NOMEM, "out of memory");
    if (st == CUZK_OK) {
        st = groth16_proofs_read(proofs, n_proofs, bytes, len, &err);
        /* a proof that does not decode is an invalid proof, not unusable input */
        if (st != CUZK_OK && st != CUZK_ERR_NOMEM) {
            cuzk_error_prefix(&err, "%s: ", o->proof);
            st = CUZK_ERR_INVALID_PROOF;
        }
    }
    if (st == CUZK_OK && n_proofs > 1) {
        st = cuzk_error_set(&err, CUZK_ERR_UNSUPPORTED,
                            "%zu proofs in %s, but one set of public inputs: give one proof per call", n_proofs,
                            o->proof);
    }
    if (st == CUZK_OK && n_inputs + 1 != vk.ic_len)
        st = cuzk_error_set(&err, CUZK_ERR_INVALID_ARG, "%zu public inputs given, the verifying key expects %zu",
                            n_inputs, vk.ic_len - 1);
    if (st == CUZK_OK && (st = groth16_pvk_prepare(&pvk, &vk, &err)) == CUZK_OK) have_pvk = 1;
    if (st == CUZK_OK) st = groth16_verify(pool, &pvk, &proofs[0], inputs, n_inputs, &err);
    if (st == CUZK_OK)
        printf("valid\n");
    else if (st == CUZK_ERR_INVALID_PROOF)
        printf("invalid\n");
    if (have_pvk) groth16_pvk_free(&pvk);
    free(proofs);
    free(bytes);
    free(inputs);
    groth16_vk_free(&vk);
    return cli_report("verify", st, &err);
}

static int inspect_one(pool_t *pool, const char *path, int trusted)
{
    cuzk_error err;
    cuzk_status st;
    if (ends_with(path, ".params")) {
        groth16_params p;
        st = groth16_params_read(pool, &p, path, trusted ? GROTH16_LOAD_SKIP_SUBGROUP_CHECK : 0, &err);
        if (st == CUZK_OK) {
            printf("%s: bellperson Groth16 parameters, valid%s\n  inputs (ic) %zu, h %zu (domain 2^%u), l %zu, a %zu, "
                   "b_g1 %zu, b_g2 %zu\n",
                   path, trusted ? " (subgroup checks of the bases skipped)" : "", p.vk.ic_len, p.h_len,
                   (unsigned)(p.h_len ? 64 - __builtin_clzll((unsigned long long)p.h_len) : 0), p.l_len, p.a_len,
                   p.b_g1_len, p.b_g2_len);
            groth16_params_free(&p);
        }
    } else if (ends_with(path, ".vk")) {
        groth16_vk vk;
        st = groth16_vk_read(&vk, path, &err);
        if (st == CUZK_OK) {
            printf("%s: bellperson Groth16 verifying key, valid\n  public inputs %zu (ic %zu, including ONE)\n", path,
                   vk.ic_len - 1, vk.ic_len);
            groth16_vk_free(&vk);
        }
    } else if (ends_with(path, ".zkey")) {
        zkey z;
        st = zkey_read(pool, &z, path, trusted ? ZKEY_SKIP_SUBGROUP_CHECK : 0, &err);
        if (st == CUZK_OK) {
            printf("%s: snarkjs Groth16 zkey (bls12381), valid%s\n  signals %u, public %u, domain 2^%u, "
                   "coefficients %zu\n",
                   path, trusted ? " (subgroup checks of the bases skipped)" : "", z.n_vars, z.n_public, z.log_domain,
                   z.n_coefs);
            zkey_free(&z);
        }
    } else if (ends_with(path, ".wtns")) {
        wtns w;
        st = wtns_read(&w, path, &err);
        if (st == CUZK_OK) {
            printf("%s: snarkjs witness, valid\n  %zu values\n", path, w.n);
            wtns_free(&w);
        }
    } else if (ends_with(path, ".json")) {
        groth16_vk vk;
        groth16_proof proof;
        fr_t *pub;
        size_t n;
        cuzk_error e2, e3;
        if ((st = snarkjs_proof_read(&proof, path, &err)) == CUZK_OK) {
            printf("%s: snarkjs Groth16 proof (bls12381), points on the curve and in their subgroups\n", path);
        } else if (snarkjs_vk_read(&vk, path, &e2) == CUZK_OK) {
            printf("%s: snarkjs verification key (bls12381), valid\n  public inputs %zu\n", path, vk.ic_len - 1);
            groth16_vk_free(&vk);
            st = CUZK_OK;
        } else if (snarkjs_public_read(&pub, &n, path, &e3) == CUZK_OK) {
            printf("%s: public inputs, %zu values below the scalar field modulus\n", path, n);
            free(pub);
            st = CUZK_OK;
        } else {
            char proof_msg[160];
            snprintf(proof_msg, sizeof proof_msg, "%.150s", err.msg);
            st = cuzk_error_set(&err, CUZK_ERR_FORMAT,
                                "not a snarkjs proof (%.150s), verification key (%.150s) or public inputs (%.150s)",
                                proof_msg, e2.msg, e3.msg);
        }
    } else {
        uint8_t *bytes;
        size_t len;
        st = cli_read_file(path, &bytes, &len, &err);
        if (st) return cli_report("inspect", st, &err);
        if (len > 0 && len % GROTH16_PROOF_BYTES == 0) {
            size_t n = len / GROTH16_PROOF_BYTES;
            groth16_proof *proofs = malloc(n * sizeof *proofs);
            if (!proofs)
                st = cuzk_error_set(&err, CUZK_ERR_NOMEM, "out of memory");
            else
                st = groth16_proofs_read(proofs, n, bytes, len, &err);
            if (st == CUZK_OK)
                printf("%s: %zu Groth16 proof%s (192 bytes each), points well-formed and in their subgroups\n", path, n,
                       n == 1 ? "" : "s");
            free(proofs);
        } else {
            st = cuzk_error_set(&err, CUZK_ERR_FORMAT,
                                "%s: not recognised (expected .params, .vk, .zkey, .wtns, .json, or 192-byte proofs)",
                                path);
        }
        free(bytes);
    }
    if (st != CUZK_OK) printf("%s: INVALID: %s\n", path, err.msg);
    return exit_code(st);
}

static int cmd_inspect(pool_t *pool, const options *o)
{
    if (o->nfiles == 0) {
        fprintf(stderr, "cuzk inspect: give at least one file\n");
        return EXIT_BAD_INPUT;
    }
    int worst = 0;
    for (int i = 0; i < o->nfiles; i++) {
        int rc = inspect_one(pool, o->files[i], o->trusted);
        if (rc > worst) worst = rc;
    }
    return worst;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(USAGE, stderr);
        return EXIT_BAD_INPUT;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        fputs(USAGE, stdout);
        return 0;
    }
    if (strcmp(cmd, "porep") == 0) return cmd_porep(argc - 1, argv + 1);
    if (strcmp(cmd, "snap") == 0) return cmd_snap(argc - 1, argv + 1);
    if (strcmp(cmd, "verify-snap") == 0) return cmd_verify_snap(argc - 1, argv + 1);
    for (int i = 2; i + 1 < argc; i++) {
        if (strcmp(cmd, "circuit-info") == 0 && strcmp(argv[i], "--circuit") == 0 &&
            strncmp(argv[i + 1], "snap:", 5) == 0) {
            int want_hash = 0;
            for (int k = 2; k < argc; k++) want_hash |= strcmp(argv[k], "--hash") == 0;
            return cmd_snap_circuit_info(argv[i + 1], want_hash);
        }
        if (strcmp(cmd, "prove") == 0 && strcmp(argv[i], "--snap") == 0) return cmd_snap_prove(argc - 1, argv + 1, 0);
    }
    if (strcmp(cmd, "post") == 0) return cmd_post_data(argc - 1, argv + 1);
    if (strcmp(cmd, "circuit-info") == 0) {
        for (int i = 2; i + 1 < argc; i++)
            if (strcmp(argv[i], "--circuit") == 0 && cli_is_post_spec(argv[i + 1]))
                return cmd_post_circuit_info(argc - 1, argv + 1);
        return cmd_circuit_info(argc - 1, argv + 1);
    }
    if (strcmp(cmd, "verify-post") == 0) return cmd_verify_post(argc - 1, argv + 1);
    if (strcmp(cmd, "verify-seal") == 0) return cmd_verify_seal(argc - 1, argv + 1);
    if (strcmp(cmd, "params") == 0) return cmd_params(argc - 1, argv + 1);
    if (strcmp(cmd, "selftest") == 0) return cmd_selftest(argc - 1, argv + 1);
    options o;
    if (parse_options(argc - 2, argv + 2, &o) != 0) {
        free(o.files);
        return EXIT_BAD_INPUT;
    }
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(USAGE, stdout);
            free(o.files);
            return 0;
        }
    int (*fn)(pool_t *, const options *) = NULL;
    if (strcmp(cmd, "setup") == 0)
        fn = cmd_setup;
    else if (strcmp(cmd, "prove") == 0)
        fn = cmd_prove;
    else if (strcmp(cmd, "verify") == 0)
        fn = cmd_verify;
    else if (strcmp(cmd, "inspect") == 0)
        fn = cmd_inspect;
    if (!fn) {
        fprintf(stderr, "cuzk: unknown command '%s' (try 'cuzk --help')\n", cmd);
        free(o.files);
        return EXIT_BAD_INPUT;
    }
    if (o.nfiles > 0 && fn != cmd_inspect) {
        fprintf(stderr, "cuzk %s: unexpected argument '%s'\n", cmd, o.files[0]);
        free(o.files);
        return EXIT_BAD_INPUT;
    }
    cuzk_error err;
    pool_t *pool = NULL;
    cuzk_status st = pool_create(&pool, o.threads, &err);
    if (st) {
        free(o.files);
        return cli_report(cmd, st, &err);
    }
    int rc = fn(pool, &o);
    pool_destroy(pool);
    free(o.files);
    return rc;
}
