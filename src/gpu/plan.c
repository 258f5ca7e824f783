/* The prover's device-memory plan (plan.h). */
#include "gpu/plan.h"

#include <stdio.h>
#include <string.h>

/* Bytes of one domain vector of Fr: 32 * 2^log_m (saturating). */
static size_t vec_bytes(unsigned log_m)
{
    return log_m >= 58 ? (size_t)-1 : (size_t)32 << log_m;
}

static size_t sat_mul(size_t a, size_t k)
{
    return a > (size_t)-1 / k ? (size_t)-1 : a * k;
}

void gpu_plan_bases(const gpu_plan_in *in, gpu_plan *out)
{
    memset(out, 0, sizeof *out);
    if (!in->cap) {
        size_t used = 0;
        for (int k = 0; k < GPU_PLAN_SECTIONS; k++) {
            if (in->stream_all || (double)(used + in->sect[k]) > GPU_PLAN_RESIDENT_SHARE * (double)in->total) continue;
            out->resident[k] = 1;
            used += in->sect[k];
        }
        out->b_g2_resident = 1; /* tried: when it does not fit, B_G2 runs on the CPU */
        out->resident_bytes = used + in->b_g2;
        return;
    }
    out->work = sat_mul(vec_bytes(in->log_m), 5);
    size_t room = in->total > in->held ? in->total - in->held : 0;
    room = room > out->work ? room - out->work : 0;
    /* Never more than the uncapped share either: the MSMs' scratch grows with what is free. */
    size_t share = (size_t)(GPU_PLAN_RESIDENT_SHARE * (double)in->total);
    if (room > share) room = share;
    size_t used = 0;
    if (in->b_g2 && in->b_g2 <= room) {
        out->b_g2_resident = 1;
        used = in->b_g2;
    }
    for (int k = 0; k < GPU_PLAN_SECTIONS; k++) {
        if (in->stream_all || in->sect[k] > room - used) continue;
        out->resident[k] = 1;
        used += in->sect[k];
    }
    out->resident_bytes = used;
}

void gpu_plan_partition(size_t total, size_t cap, size_t held, unsigned log_m, int three_ok, gpu_plan_part *out)
{
    size_t v = vec_bytes(log_m);
    memset(out, 0, sizeof *out);
    out->need = sat_mul(v, 4);
    out->room = (size_t)-1;
    if (!cap) {
        out->fits = out->witness_early = out->overlap = 1;
        return;
    }
    out->ntt_three = three_ok != 0;
    out->ntt_in_place = !out->ntt_three;
    size_t k = out->ntt_three ? 3 : 4;
    out->need = sat_mul(v, k);
    size_t room = total > held ? total - held : 0;
    out->room = room;
    out->fits = out->need <= room;
    out->witness_early = sat_mul(v, k + 1) <= room;
    /* Of the H step's kV only the H scalars (1V) outlive it, so wherever it fits, at least 2V are left for the H
     * MSM's and the other queries' pieces and scratch side by side (each sizes its pieces and scratch from the
     * memory free when it starts, prove.cu and msm.cu). */
    out->overlap = out->fits;
}

int gpu_plan_glv(size_t total, size_t cap, size_t held, size_t h_bytes, size_t free_b)
{
    if (cap || h_bytes == 0 || h_bytes > (size_t)-1 / 2) return 0;
    double after = (double)held + (double)h_bytes;
    return after <= GPU_PLAN_RESIDENT_SHARE * (double)total && 2 * h_bytes <= free_b / 2;
}

int gpu_plan_abc_on_device(size_t device_bytes)
{
    return device_bytes >= GPU_PLAN_ABC_DEVICE_MIN;
}

size_t gpu_plan_implicit_cap(size_t total, size_t free_b)
{
    if (total >= GPU_PLAN_UNCAPPED_MIN) return 0;
    return free_b && free_b < total ? free_b : total;
}

void gpu_plan_describe(const gpu_plan_in *in, const gpu_plan *p, char *buf, size_t n)
{
    static const char *const name[GPU_PLAN_SECTIONS] = {"h", "l", "a", "b_g1"};
    const double gib = 1024.0 * 1024.0 * 1024.0;
    size_t streamed = 0;
    int o = snprintf(
        buf, n, "gpu plan: device %.2f GiB%s, held %.2f GiB, work %.2f GiB (2^%u); resident:", (double)in->total / gib,
        in->cap ? " (capped)" : "", (double)in->held / gib, (double)p->work / gib, in->log_m);
    for (int k = 0; k < GPU_PLAN_SECTIONS; k++) {
        if (!p->resident[k]) streamed += in->sect[k];
        if (o >= 0 && (size_t)o < n && p->resident[k])
            o += snprintf(buf + o, n - (size_t)o, " %s %.2f", name[k], (double)in->sect[k] / gib);
    }
    if (o >= 0 && (size_t)o < n && p->b_g2_resident)
        o += snprintf(buf + o, n - (size_t)o, " b_g2 %.2f", (double)in->b_g2 / gib);
    if (o >= 0 && (size_t)o < n) o += snprintf(buf + o, n - (size_t)o, "; streamed:");
    for (int k = 0; k < GPU_PLAN_SECTIONS; k++)
        if (o >= 0 && (size_t)o < n && !p->resident[k] && in->sect[k])
            o += snprintf(buf + o, n - (size_t)o, " %s %.2f", name[k], (double)in->sect[k] / gib);
    if (in->cap && !p->b_g2_resident && in->b_g2) {
        streamed += in->b_g2;
        if (o >= 0 && (size_t)o < n) o += snprintf(buf + o, n - (size_t)o, " b_g2 %.2f", (double)in->b_g2 / gib);
    }
    if (o >= 0 && (size_t)o < n) snprintf(buf + o, n - (size_t)o, " (%.2f GiB a partition)", (double)streamed / gib);
}
