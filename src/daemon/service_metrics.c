/* GetMetrics: the Rust daemon's metric names, then the residency's, the devices' and the engine's. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/log.h"
#include "daemon/service_internal.h"

/* Per GPU: the device's total and free memory (every process and context, the provers' cached pools
 * included) and the parameter bases resident there. Nothing on the CPU backend. */
static void gpu_memory_metrics(daemon_service *s, FILE *f)
{
    if (!s->backend->device_memory) return;
    engine_device_memory m[DAEMON_MAX_DEVICES];
    int ok[DAEMON_MAX_DEVICES];
    for (size_t i = 0; i < s->host->num_devices; i++) {
        cuzk_error err;
        ok[i] = s->backend->device_memory(s->backend, s->host->devices[i], &m[i], &err) == CUZK_OK;
        if (!ok[i]) LOGD("device %d memory: %s", s->host->devices[i], err.msg);
    }
    fprintf(f, "# HELP cuzk_gpu_memory_bytes Device memory per GPU: total and free (the device's figures, every "
               "process included), and resident (parameter bases kept there).\n"
               "# TYPE cuzk_gpu_memory_bytes gauge\n");
    for (size_t i = 0; i < s->host->num_devices; i++)
        if (ok[i])
            fprintf(f,
                    "cuzk_gpu_memory_bytes{device=\"%d\",kind=\"total\"} %" PRIu64 "\n"
                    "cuzk_gpu_memory_bytes{device=\"%d\",kind=\"free\"} %" PRIu64 "\n"
                    "cuzk_gpu_memory_bytes{device=\"%d\",kind=\"resident\"} %" PRIu64 "\n",
                    m[i].device, m[i].total_bytes, m[i].device, m[i].free_bytes, m[i].device, m[i].resident_bytes);
    fprintf(f, "# HELP cuzk_gpu_resident_sets Parameter sets whose bases are kept on each GPU.\n"
               "# TYPE cuzk_gpu_resident_sets gauge\n");
    for (size_t i = 0; i < s->host->num_devices; i++)
        if (ok[i]) fprintf(f, "cuzk_gpu_resident_sets{device=\"%d\"} %u\n", m[i].device, m[i].resident_sets);
}

void service_metrics_reply(daemon_service *s, service_reply *reply)
{
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    if (!f) {
        service_reply_error(reply, RPC_INTERNAL, "out of memory writing the metrics");
        return;
    }
    engine_stats es;
    engine_get_stats(s->eng, &es);
    uint64_t completed = 0, failed = 0, c_k[MAX_KINDS], f_k[MAX_KINDS], cancelled = 0;
    double d_sum[MAX_KINDS];
    uint32_t queued = 0;
    pthread_mutex_lock(&s->mu);
    for (size_t k = 0; k < s->n_kinds; k++) {
        c_k[k] = s->completed[k];
        f_k[k] = s->failed[k];
        d_sum[k] = s->duration_sum[k];
        completed += c_k[k];
        failed += f_k[k];
        cancelled += s->cancelled[k];
    }
    uint32_t running = 0;
    for (job *j = s->jobs; j; j = j->next) {
        if (j->state == JOB_DONE) continue;
        if (j->submitted && service_started(s, j->engine_id, 0))
            running++;
        else
            queued++;
    }
    pthread_mutex_unlock(&s->mu);
    /* The Rust daemon's names first (dashboards built for it keep working), then cuzk's engine metrics. */
    fprintf(f,
            "# HELP cuzk_proofs_completed_total Total proofs completed\n# TYPE cuzk_proofs_completed_total counter\n"
            "cuzk_proofs_completed_total %" PRIu64 "\n",
            completed);
    fprintf(f,
            "# HELP cuzk_proofs_failed_total Total proofs failed\n# TYPE cuzk_proofs_failed_total counter\n"
            "cuzk_proofs_failed_total %" PRIu64 "\n",
            failed);
    fprintf(f,
            "# HELP cuzk_proofs_cancelled_total Total proofs cancelled\n"
            "# TYPE cuzk_proofs_cancelled_total counter\ncuzk_proofs_cancelled_total %" PRIu64 "\n",
            cancelled);
    fprintf(f,
            "# HELP cuzk_uptime_seconds Daemon uptime\n# TYPE cuzk_uptime_seconds gauge\n"
            "cuzk_uptime_seconds %" PRIu64 "\n",
            (uint64_t)(service_now() - s->t_start));
    fprintf(f,
            "# HELP cuzk_queue_depth Jobs waiting to start\n# TYPE cuzk_queue_depth gauge\n"
            "cuzk_queue_depth %" PRIu32 "\n",
            queued);
    fprintf(f, "# HELP cuzk_proofs_completed Per proof-kind completions\n# TYPE cuzk_proofs_completed counter\n");
    for (size_t k = 0; k < s->n_kinds; k++)
        fprintf(f, "cuzk_proofs_completed{proof_kind=\"%s\"} %" PRIu64 "\n", s->kinds[k]->metric, c_k[k]);
    fprintf(f, "# HELP cuzk_proofs_failed Per proof-kind failures\n# TYPE cuzk_proofs_failed counter\n");
    for (size_t k = 0; k < s->n_kinds; k++)
        fprintf(f, "cuzk_proofs_failed{proof_kind=\"%s\"} %" PRIu64 "\n", s->kinds[k]->metric, f_k[k]);
    fprintf(f, "# HELP cuzk_proof_duration_seconds Proof duration, submit to end\n"
               "# TYPE cuzk_proof_duration_seconds summary\n");
    for (size_t k = 0; k < s->n_kinds; k++) {
        fprintf(f, "cuzk_proof_duration_seconds_count{proof_kind=\"%s\"} %" PRIu64 "\n", s->kinds[k]->metric, c_k[k]);
        fprintf(f, "cuzk_proof_duration_seconds_sum{proof_kind=\"%s\"} %.3f\n", s->kinds[k]->metric, d_sum[k]);
    }
    fprintf(f,
            "# HELP cuzk_running_jobs Currently running proofs\n# TYPE cuzk_running_jobs gauge\n"
            "cuzk_running_jobs %" PRIu32 "\n",
            running);
    fprintf(f,
            "# HELP cuzk_gpu_workers Number of prover workers\n# TYPE cuzk_gpu_workers gauge\n"
            "cuzk_gpu_workers %u\n",
            (unsigned)s->host->num_devices * s->cfg.gpu_workers_per_device);
    fprintf(f,
            "# HELP cuzk_backend The prover backend in use (1 for the one in use)\n# TYPE cuzk_backend gauge\n"
            "cuzk_backend{backend=\"%s\",devices=\"%zu\"} 1\n",
            s->backend->name, s->host->on_devices ? s->host->num_devices : 0);
    gpu_memory_metrics(s, f);
    engine_residency_stats rs;
    service_residency_stats(s, &rs);
    fprintf(f,
            "# HELP cuzk_srs_loads_total Parameter set loads (setup or file read): done, or failed (also when "
            "the set did not fit the budget).\n# TYPE cuzk_srs_loads_total counter\n"
            "cuzk_srs_loads_total{outcome=\"ok\"} %" PRIu64 "\ncuzk_srs_loads_total{outcome=\"failed\"} %" PRIu64 "\n",
            rs.loads, rs.load_failures);
    fprintf(f,
            "# HELP cuzk_srs_evictions_total Parameter sets freed: by EvictSRS, to make room for a load, or idle "
            "for srs.idle_evict.\n# TYPE cuzk_srs_evictions_total counter\n"
            "cuzk_srs_evictions_total{reason=\"explicit\"} %" PRIu64 "\n"
            "cuzk_srs_evictions_total{reason=\"pressure\"} %" PRIu64 "\n"
            "cuzk_srs_evictions_total{reason=\"idle\"} %" PRIu64 "\n",
            rs.evictions - rs.pressure_evictions - rs.idle_evictions, rs.pressure_evictions, rs.idle_evictions);
    fprintf(f,
            "# HELP cuzk_srs_sets Parameter sets in memory: hot (in use), warm (idle), pinned (of either).\n"
            "# TYPE cuzk_srs_sets gauge\ncuzk_srs_sets{state=\"hot\"} %u\ncuzk_srs_sets{state=\"warm\"} %u\n"
            "cuzk_srs_sets{state=\"pinned\"} %u\n",
            rs.hot, rs.loaded - rs.hot, rs.pinned);
    fprintf(f,
            "# HELP cuzk_srs_bytes Bytes of parameter sets in memory, and of those pinned.\n"
            "# TYPE cuzk_srs_bytes gauge\ncuzk_srs_bytes{kind=\"loaded\"} %" PRIu64 "\n"
            "cuzk_srs_bytes{kind=\"pinned\"} %" PRIu64 "\n",
            rs.loaded_bytes, rs.pinned_bytes);
    fprintf(f,
            "# HELP cuzk_srs_pinned_budget_bytes Bytes of parameters that may be pinned (0: no pinned tier).\n"
            "# TYPE cuzk_srs_pinned_budget_bytes gauge\ncuzk_srs_pinned_budget_bytes %" PRIu64 "\n",
            rs.pinned_budget);
    fprintf(f,
            "# HELP cuzk_srs_pins_total Parameter sets pinned, and pins that failed.\n"
            "# TYPE cuzk_srs_pins_total counter\ncuzk_srs_pins_total{outcome=\"ok\"} %" PRIu64 "\n"
            "cuzk_srs_pins_total{outcome=\"failed\"} %" PRIu64 "\n",
            rs.pins, rs.pin_failures);
    fprintf(f,
            "# HELP cuzk_srs_unpins_total Parameter sets unpinned (for room, or freed).\n"
            "# TYPE cuzk_srs_unpins_total counter\ncuzk_srs_unpins_total %" PRIu64 "\n",
            rs.unpins);
    engine_metrics_write(s->eng, f);
    if (fclose(f) != 0 || !text) {
        free(text);
        service_reply_error(reply, RPC_INTERNAL, "out of memory writing the metrics");
        return;
    }
    Cuzk__V1__GetMetricsResponse r;
    cuzk__v1__get_metrics_response__init(&r);
    r.prometheus_text = text;
    service_reply_pack(reply, &r.base);
    free(text);
}
