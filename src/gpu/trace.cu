/* CUZK_GPU_TRACE (trace.cuh). */
#include <algorithm>
#include <errno.h>
#include <map>
#include <mutex>
#include <stdio.h>
#include <string.h>
#include <vector>

#include "gpu/tune.h"
#include "trace.cuh"

#define TRACE_DEVICES 64

namespace {
struct span {
    int device;
    cudaStream_t stream;
    const char *name;
    size_t n;
    cudaEvent_t begin, end;
    bool ended;
};

struct done_span {
    unsigned stream; /* a small number per stream, in the order first seen */
    const char *name;
    size_t n;
    double t0, t1;
};

std::mutex trace_mu;
std::map<int, span> trace_open; /* by id; ended spans wait here until their events have completed */
unsigned trace_next_id;
cudaEvent_t trace_base[TRACE_DEVICES]; /* recorded with the device's first span: the zero of its times */
std::map<cudaStream_t, unsigned> trace_streams;
FILE *trace_file;
char trace_path[sizeof(((gpu_tune *)0)->trace)]; /* the file trace_file is open on */

bool trace_on(void)
{
    return gpu_tune_get().trace[0] != '\0';
}

void destroy(span &s)
{
    if (s.begin) cudaEventDestroy(s.begin);
    if (s.end) cudaEventDestroy(s.end);
}

/* The length of the union of intervals (sorted by start here). */
double busy(std::vector<std::pair<double, double>> iv)
{
    std::sort(iv.begin(), iv.end());
    double sum = 0, a = 0, b = -1;
    for (const auto &x : iv) {
        if (x.first > b) {
            if (b > a) sum += b - a;
            a = x.first;
            b = x.second;
        } else if (x.second > b) {
            b = x.second;
        }
    }
    if (b > a) sum += b - a;
    return sum;
}
} // namespace

int gpu_trace_begin(cudaStream_t s, const char *name, size_t n)
{
    if (!trace_on()) return -1;
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= TRACE_DEVICES) {
        (void)cudaGetLastError();
        return -1;
    }
    span sp = {device, s, name, n, NULL, NULL, false};
    std::lock_guard<std::mutex> lk(trace_mu);
    if (trace_base[device] == NULL) {
        if (cudaEventCreate(&trace_base[device]) != cudaSuccess ||
            cudaEventRecord(trace_base[device], s) != cudaSuccess) {
            if (trace_base[device]) cudaEventDestroy(trace_base[device]);
            trace_base[device] = NULL;
            (void)cudaGetLastError();
            return -1;
        }
    }
    if (cudaEventCreate(&sp.begin) != cudaSuccess || cudaEventCreate(&sp.end) != cudaSuccess ||
        cudaEventRecord(sp.begin, s) != cudaSuccess) {
        destroy(sp);
        (void)cudaGetLastError();
        return -1;
    }
    int id = (int)(trace_next_id++ & 0x3fffffffu);
    trace_open[id] = sp;
    return id;
}

void gpu_trace_end(int id, cudaStream_t s)
{
    if (id < 0) return;
    std::lock_guard<std::mutex> lk(trace_mu);
    auto it = trace_open.find(id);
    if (it == trace_open.end()) return;
    if (cudaEventRecord(it->second.end, s) == cudaSuccess) {
        it->second.ended = true;
    } else {
        (void)cudaGetLastError();
        destroy(it->second);
        trace_open.erase(it);
    }
}

void gpu_trace_flush(int device, const char *label)
{
    if (!trace_on() || device < 0 || device >= TRACE_DEVICES) return;
    std::vector<done_span> done;
    std::lock_guard<std::mutex> lk(trace_mu);
    if (trace_base[device] == NULL) return;
    for (auto it = trace_open.begin(); it != trace_open.end();) {
        span &s = it->second;
        float t0 = 0, t1 = 0;
        /* Only spans whose work has run: another prover's are flushed with its own partition. */
        if (s.device != device || !s.ended || cudaEventQuery(s.end) != cudaSuccess) {
            (void)cudaGetLastError();
            ++it;
            continue;
        }
        if (cudaEventElapsedTime(&t0, trace_base[device], s.begin) == cudaSuccess &&
            cudaEventElapsedTime(&t1, trace_base[device], s.end) == cudaSuccess) {
            auto sid = trace_streams.emplace(s.stream, (unsigned)trace_streams.size()).first->second;
            done.push_back(done_span{sid, s.name, s.n, t0, t1});
        }
        (void)cudaGetLastError();
        destroy(s);
        it = trace_open.erase(it);
    }
    if (done.empty()) return;
    gpu_tune tune = gpu_tune_get();
    if (trace_file != NULL && strcmp(trace_path, tune.trace) != 0) {
        fclose(trace_file); /* the tuning names another file now */
        trace_file = NULL;
    }
    if (trace_file == NULL) {
        trace_file = fopen(tune.trace, "a");
        if (trace_file == NULL) {
            static bool told;
            if (!told) fprintf(stderr, "gpu trace: cannot open %s: %s; spans dropped\n", tune.trace, strerror(errno));
            told = true;
            return;
        }
        snprintf(trace_path, sizeof trace_path, "%s", tune.trace);
    }
    std::sort(done.begin(), done.end(), [](const done_span &a, const done_span &b) { return a.t0 < b.t0; });
    double w0 = done.front().t0, w1 = 0;
    std::vector<std::pair<double, double>> copies;
    std::map<unsigned, std::vector<std::pair<double, double>>> by_stream;
    for (const auto &d : done) {
        fprintf(trace_file, "%s device %d stream %u %s n=%zu %.3f %.3f\n", label, device, d.stream, d.name, d.n, d.t0,
                d.t1);
        w1 = std::max(w1, d.t1);
        if (strncmp(d.name, "copy", 4) == 0) copies.push_back({d.t0, d.t1});
        by_stream[d.stream].push_back({d.t0, d.t1});
    }
    double win = w1 - w0, bus = busy(copies);
    fprintf(trace_file, "%s summary: window %.1f ms; copies running %.1f ms (%.0f %%)", label, win, bus,
            win > 0 ? 100.0 * bus / win : 0.0);
    for (const auto &b : by_stream) fprintf(trace_file, "; stream %u busy %.1f ms", b.first, busy(b.second));
    fputc('\n', trace_file);
    fflush(trace_file);
}
