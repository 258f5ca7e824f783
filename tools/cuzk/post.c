/* cuzk's PoSt commands: circuit-info of wpost:/winning: specs, prove --post (vanilla proofs + public values ->
 * proof through the engine) and verify-post (a proof from public values only). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "circuits/post/post_public.h"
#include "circuits/spec.h"
#include "engine/post.h"
#include "formats/post_info.h"
#include "formats/post_vanilla.h"
#include "groth16/groth16.h"
#include "cuzk.h"

static double post_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int cli_is_post_spec(const char *spec)
{
    return strncmp(spec, "wpost:", 6) == 0 || strncmp(spec, "winning:", 8) == 0;
}

int cmd_post_circuit_info(int argc, char **argv)
{
    const char *text = NULL;
    int want_hash = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--circuit") == 0 && i + 1 < argc)
            text = argv[++i];
        else if (strcmp(argv[i], "--hash") == 0)
            want_hash = 1;
        else {
            fprintf(stderr, "cuzk circuit-info: unexpected argument '%s'\n", argv[i]);
            return EXIT_BAD_INPUT;
        }
    }
    cuzk_error err;
    circuit_spec spec;
    cuzk_status st = circuit_spec_parse(text ? text : "", &spec, &err);
    if (st == CUZK_OK && spec.kind != CIRCUIT_POST)
        st = cuzk_error_set(&err, CUZK_ERR_INVALID_ARG, "'%s' is not a PoSt circuit", text);
    if (st) return cli_report("circuit-info", st, &err);
    const post_proof_type *t = spec.post;
    post_info info;
    if ((st = post_circuit_info(t->kind, t->sector_size, &info, &err)) != CUZK_OK)
        return cli_report("circuit-info", st, &err);
    unsigned S, C;
    post_circuit_dims(t, &S, &C);
    printf("%s %s (%s), %u sectors x %u challenges: %zu constraints, %zu inputs including ONE (%zu constraints "
           "with the prover's input constraints), %zu aux variables\n",
           post_kind_name(t->kind), post_proof_type_geometry(t)->name, t->name, S, C, info.synth_constraints,
           info.inputs, info.constraints, info.aux);
    return cli_circuit_files_and_hash(
        &spec, t->kind == POST_WINDOW ? FILECOIN_PARAMS_WINDOW_POST : FILECOIN_PARAMS_WINNING_POST, t->sector_size,
        want_hash);
}

/* The request's sectors from the vanilla proofs agree with INFO's (when INFO lists them). */
static cuzk_status post_sectors_agree(const post_info_file *info, const post_vanilla *v, cuzk_error *err)
{
    if (info->n == 0) return CUZK_OK;
    if (info->n != v->count)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARG, "the info lists %zu sectors, the vanilla proofs %zu", info->n,
                              v->count);
    for (size_t i = 0; i < v->count; i++)
        if (info->sectors[i].sector_id != v->sectors[i].sector_id ||
            memcmp(info->sectors[i].comm_r, v->sectors[i].comm_r, 32) != 0)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARG,
                                  "sector %zu: the info has id %llu, the vanilla proof id %llu (or another comm_r)", i,
                                  (unsigned long long)info->sectors[i].sector_id,
                                  (unsigned long long)v->sectors[i].sector_id);
    return CUZK_OK;
}

int cmd_prove_post(pool_t *pool, const cli_post_prove *a)
{
    if (!a->info || !a->params || !a->out) {
        fprintf(stderr, "cuzk prove: --post needs --info, --params and --out (try 'cuzk --help')\n");
        return EXIT_BAD_INPUT;
    }
    cuzk_error err;
    post_info_file info;
    post_vanilla v;
    groth16_params params;
    groth16_vk vk;
    int have_v = 0, have_params = 0, have_vk = 0;
    engine_post_job *job = NULL;
    engine_post_circuit *pc = NULL;
    engine_host *host = NULL;
    engine_backend_choice choice = ENGINE_BACKEND_AUTO;
    engine_result res;
    memset(&res, 0, sizeof res);
    double t0 = post_now_s(), t_load = 0, t_check = 0, t_prove = 0;
    cuzk_status st = post_info_read(&info, a->info, &err);
    if (st) return cli_report("prove", st, &err);
    if ((st = post_vanilla_read_json(&v, info.type, a->vanilla, &err)) == CUZK_OK) have_v = 1;
    if (st == CUZK_OK) st = post_sectors_agree(&info, &v, &err);
    if (st == CUZK_OK) fprintf(stderr, "cuzk prove: %s: %s, %zu sectors\n", a->vanilla, info.type->name, v.count);
    if (st == CUZK_OK && (st = groth16_params_read(pool, &params, a->params,
                                                   a->trusted ? GROTH16_LOAD_SKIP_SUBGROUP_CHECK : 0, &err)) == CUZK_OK)
        have_params = 1;
    if (st == CUZK_OK && a->vk && (st = groth16_vk_read(&vk, a->vk, &err)) == CUZK_OK) have_vk = 1;
    t_load = post_now_s() - t0;
    if (st == CUZK_OK) st = engine_post_job_create(&job, &v, info.randomness, pool, &err);
    t_check = post_now_s() - t0 - t_load;
    if (st == CUZK_OK) st = engine_post_circuit_create(info.type, &params, pool, &pc, &err);
    if (st == CUZK_OK) st = cli_backend_choice(a->backend, &choice, &err);
    if (st == CUZK_OK) {
        engine_open_config oc = {.backend = choice,
                                 .pool = pool,
                                 .finish_threads = a->threads,
                                 .abc_on_device = -1,
                                 .engine = {.synth_pool = pool}};
        st = engine_open(&oc, &host, &err);
    }
    if (st == CUZK_OK && choice == ENGINE_BACKEND_AUTO && !host->on_devices)
        fprintf(stderr, "cuzk prove: %s; proving on the CPU\n",
                host->backend_note[0] ? host->backend_note
                                      : "no CUDA device (none visible, or cuzk was built without "
                                        "CUDA)");
    if (st == CUZK_OK && host->cap_note[0]) fprintf(stderr, "cuzk prove: %s\n", host->cap_note);
    if (st == CUZK_OK && host->abc_note[0]) fprintf(stderr, "cuzk prove: %s\n", host->abc_note);
    if (st == CUZK_OK) {
        double t1 = post_now_s();
        engine_request rq;
        uint64_t id;
        engine_priority prio = info.type->kind == POST_WINNING ? ENGINE_PRIO_CRITICAL : ENGINE_PRIO_HIGH;
        if ((st = engine_post_request(pc, job, prio, &rq, &err)) == CUZK_OK &&
            (st = engine_submit(host->eng, &rq, &id, &err)) == CUZK_OK)
            st = engine_wait(host->eng, id, &res, &err);
        t_prove = post_now_s() - t1;
        if (st == CUZK_OK && !res.verified)
            st = cuzk_error_set(&err, CUZK_ERR_INTERNAL, "the engine did not self-verify the proof");
    }
    /* An independent check against the inputs derived from public values and the --vk file. */
    if (st == CUZK_OK && have_vk) {
        fr_t *pub;
        size_t n;
        groth16_pvk pvk;
        if ((st = engine_post_job_public_inputs(job, &pub, &n, &err)) == CUZK_OK) {
            if (n + 1 != vk.ic_len)
                st = cuzk_error_set(&err, CUZK_ERR_INVALID_ARG, "%s: %zu public inputs, the circuit has %zu", a->vk,
                                    vk.ic_len - 1, n);
            else if ((st = groth16_pvk_prepare(&pvk, &vk, &err)) == CUZK_OK) {
                st = groth16_verify(pool, &pvk, &res.proofs[0], pub, n, &err);
                groth16_pvk_free(&pvk);
                if (st == CUZK_ERR_INVALID_PROOF)
                    st = cuzk_error_set(&err, CUZK_ERR_INVALID_ARG,
                                        "the proof does not verify with %s: it is not the "
                                        "key of %s",
                                        a->vk, a->params);
            }
            free(pub);
        }
    }
    if (st == CUZK_OK) {
        uint8_t bytes[GROTH16_PROOF_BYTES];
        groth16_proof_write(bytes, &res.proofs[0]);
        st = cli_write_file(a->out, bytes, sizeof bytes, &err);
    }
    if (st == CUZK_OK)
        fprintf(stderr,
                "cuzk prove: wrote %s (%d bytes); load %.2f s, checks %.2f s, prove %.2f s (synthesis %.2f s, %s "
                "%.2f s, finish %.2f s), total %.2f s\n",
                a->out, GROTH16_PROOF_BYTES, t_load, t_check, t_prove, res.synth_ms / 1e3, host->backend->name,
                res.gpu_ms / 1e3, res.finish_ms / 1e3, post_now_s() - t0);
    engine_result_free(&res);
    engine_close(host); /* the backend's copies of params go with it */
    engine_post_circuit_free(pc);
    engine_post_job_free(job);
    if (have_vk) groth16_vk_free(&vk);
    if (have_params) groth16_params_free(&params);
    if (have_v) post_vanilla_free(&v);
    post_info_free(&info);
    return cli_report("prove", st, &err);
}

int cmd_verify_post(int argc, char **argv)
{
    const char *info_path = NULL, *proof_path = NULL, *vk_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char **slot = NULL;
        if (strcmp(argv[i], "--info") == 0)
            slot = &info_path;
        else if (strcmp(argv[i], "--proof") == 0)
            slot = &proof_path;
        else if (strcmp(argv[i], "--vk") == 0)
            slot = &vk_path;
        else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: cuzk verify-post --info INFO.json --proof FILE --vk FILE\n"
                   "  exit 0 valid, 1 invalid, 2 bad input\n");
            return 0;
        }
        if (!slot || i + 1 >= argc) {
            fprintf(stderr, "cuzk verify-post: unexpected argument '%s'\n", argv[i]);
            return EXIT_BAD_INPUT;
        }
        *slot = argv[++i];
    }
    if (!info_path || !proof_path || !vk_path) {
        fprintf(stderr, "cuzk verify-post: --info, --proof and --vk are required\n");
        return EXIT_BAD_INPUT;
    }
    cuzk_error err;
    post_info_file info;
    cuzk_status st = post_info_read(&info, info_path, &err);
    if (st) return cli_report("verify-post", st, &err);
    groth16_vk vk;
    groth16_pvk pvk;
    int have_vk = 0, have_pvk = 0;
    uint8_t *bytes = NULL;
    size_t len = 0, n = 0;
    fr_t *pub = NULL;
    groth16_proof proof;
    pool_t *pool = NULL;
    if (info.n == 0) st = cuzk_error_set(&err, CUZK_ERR_FORMAT, "%s: no sectors", info_path);
    if (st == CUZK_OK) st = post_public_inputs(info.type, info.randomness, info.sectors, info.n, &pub, &n, &err);
    if (st == CUZK_OK && (st = groth16_vk_read(&vk, vk_path, &err)) == CUZK_OK) have_vk = 1;
    /* Checked before the proof is decoded: a key of another circuit is unusable input, not an invalid proof. */
    if (st == CUZK_OK && vk.ic_len != n + 1)
        st = cuzk_error_set(&err, CUZK_ERR_INVALID_ARG,
                            "%s expects %zu public inputs, %s has %zu: a key of another "
                            "circuit",
                            vk_path, vk.ic_len - 1, info.type->name, n);
    if (st == CUZK_OK) st = cli_read_file(proof_path, &bytes, &len, &err);
    if (st == CUZK_OK && len != GROTH16_PROOF_BYTES)
        st = cuzk_error_set(&err, CUZK_ERR_FORMAT, "%s: %zu bytes, a PoSt proof has %d", proof_path, len,
                            GROTH16_PROOF_BYTES);
    if (st == CUZK_OK && (st = groth16_proof_read(&proof, bytes, &err)) != CUZK_OK) {
        /* a proof that does not decode is an invalid proof, not unusable input */
        cuzk_error_prefix(&err, "%s: ", proof_path);
        st = CUZK_ERR_INVALID_PROOF;
    }
    if (st == CUZK_OK && (st = groth16_pvk_prepare(&pvk, &vk, &err)) == CUZK_OK) have_pvk = 1;
    if (st == CUZK_OK && (st = pool_create(&pool, 0, &err)) == CUZK_OK)
        st = groth16_verify(pool, &pvk, &proof, pub, n, &err);
    if (st == CUZK_OK)
        printf("valid\n");
    else if (st == CUZK_ERR_INVALID_PROOF)
        printf("invalid\n");
    pool_destroy(pool);
    free(pub);
    free(bytes);
    if (have_pvk) groth16_pvk_free(&pvk);
    if (have_vk) groth16_vk_free(&vk);
    post_info_free(&info);
    return cli_report("verify-post", st, &err);
}
