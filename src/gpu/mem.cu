/* The allocation seam (mem.cuh): live bytes per device, the cap, the peak (gpu.h's gpu_mem_*). */
#include <chrono>
#include <mutex>
#include <unordered_map>

#include "ctx_impl.cuh"

#define MEM_DEVICES 64

namespace {
struct mem_entry {
    size_t bytes;
    int device;
};
std::mutex mem_mu;
/* Every live allocation made through the seam. A map (not a header before each block) because the pointers are
 * handed to CUDA, cub and kernels as they are. */
std::unordered_map<void *, mem_entry> mem_live_map;
size_t mem_held[MEM_DEVICES], mem_peak_b[MEM_DEVICES];

int mem_device(void)
{
    int d = 0;
    if (cudaGetDevice(&d) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return d;
}

/* Reserves bytes on device against cap (0: none); 0 when that would pass it. Under mem_mu. */
int mem_reserve(int device, size_t bytes, size_t cap)
{
    if (device < 0 || device >= MEM_DEVICES) return 1;
    if (cap && (bytes > cap || mem_held[device] > cap - bytes)) return 0;
    mem_held[device] += bytes;
    if (mem_held[device] > mem_peak_b[device]) mem_peak_b[device] = mem_held[device];
    return 1;
}

void mem_unreserve(int device, size_t bytes)
{
    if (device >= 0 && device < MEM_DEVICES) mem_held[device] -= bytes < mem_held[device] ? bytes : mem_held[device];
}

template <class Alloc> cudaError_t mem_alloc(void **p, size_t bytes, Alloc alloc)
{
    int device = mem_device();
    size_t cap = gpu_mem_cap();
    {
        std::lock_guard<std::mutex> lk(mem_mu);
        if (!mem_reserve(device, bytes, cap)) {
            *p = NULL;
            return cudaErrorMemoryAllocation;
        }
    }
    cudaError_t e = alloc(p, bytes);
    std::lock_guard<std::mutex> lk(mem_mu);
    if (e != cudaSuccess || *p == NULL) {
        mem_unreserve(device, bytes);
        return e;
    }
    try {
        mem_live_map[*p] = mem_entry{bytes, device};
    } catch (...) {
        /* No host memory for the map's node: the allocation is given back, as if the device were full. */
        mem_unreserve(device, bytes);
        (void)cudaFree(*p);
        *p = NULL;
        return cudaErrorMemoryAllocation;
    }
    return e;
}

/* Forgets p (allocated through the seam or not: a pointer from elsewhere only passes through). */
void mem_forget(void *p)
{
    if (p == NULL) return;
    std::lock_guard<std::mutex> lk(mem_mu);
    auto it = mem_live_map.find(p);
    if (it == mem_live_map.end()) return;
    mem_unreserve(it->second.device, it->second.bytes);
    mem_live_map.erase(it);
}

size_t mem_held_on(int device)
{
    std::lock_guard<std::mutex> lk(mem_mu);
    return device >= 0 && device < MEM_DEVICES ? mem_held[device] : 0;
}
} // namespace

size_t gpu_mem_cap(void)
{
    return gpu_tune_get().memory_limit;
}

cudaError_t gpu_malloc_async_v(void **p, size_t bytes, cudaStream_t s)
{
    return mem_alloc(p, bytes, [s](void **q, size_t b) { return cudaMallocAsync(q, b, s); });
}

cudaError_t gpu_malloc_v(void **p, size_t bytes)
{
    return mem_alloc(p, bytes, [](void **q, size_t b) { return cudaMalloc(q, b); });
}

cudaError_t gpu_free_async(void *p, cudaStream_t s)
{
    mem_forget(p);
    return cudaFreeAsync(p, s);
}

cudaError_t gpu_free(void *p)
{
    mem_forget(p);
    return cudaFree(p);
}

cudaError_t gpu_mem_get_info(size_t *free_b, size_t *total_b)
{
    size_t f = 0, t = 0;
    uint64_t reserved = 0, used = 0;
    cudaMemPool_t pool;
    int device = mem_device();
    cudaError_t e = cudaMemGetInfo(&f, &t);
    if (e != cudaSuccess) return e;
    if ((e = cudaDeviceGetDefaultMemPool(&pool, device)) != cudaSuccess) return e;
    if ((e = cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved)) != cudaSuccess) return e;
    if ((e = cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used)) != cudaSuccess) return e;
    f += reserved > used ? (size_t)(reserved - used) : 0;
    size_t cap = gpu_mem_cap();
    if (cap) {
        size_t held = mem_held_on(device);
        size_t left = cap > held ? cap - held : 0;
        if (t > cap) t = cap;
        if (f > left) f = left;
    }
    if (free_b) *free_b = f;
    if (total_b) *total_b = t;
    return cudaSuccess;
}

cudaError_t gpu_mem_free_for_scratch(int device, size_t *free_b)
{
    cudaError_t e = cudaSetDevice(device);
    if (e != cudaSuccess) return e;
    return gpu_mem_get_info(free_b, NULL);
}

extern "C" size_t gpu_mem_live(int device)
{
    return mem_held_on(device);
}

extern "C" size_t gpu_mem_peak(int device)
{
    std::lock_guard<std::mutex> lk(mem_mu);
    return device >= 0 && device < MEM_DEVICES ? mem_peak_b[device] : 0;
}

extern "C" void gpu_mem_reset_peak(int device)
{
    std::lock_guard<std::mutex> lk(mem_mu);
    if (device >= 0 && device < MEM_DEVICES) mem_peak_b[device] = mem_held[device];
}

extern "C" cuzk_status gpu_mem_try_alloc(int device, size_t bytes, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    void *p = NULL;
    GPU_TRY(cudaSetDevice(device));
    GPU_TRY(gpu_malloc(&p, bytes));
    GPU_TRY(gpu_free(p));
done:
    return st;
}

extern "C" cuzk_status gpu_debug_mem_cost(int device, unsigned n, double *ns_seam, double *ns_raw, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    cudaStream_t s = NULL;
    void *p = NULL;
    std::chrono::steady_clock::time_point t0, t1, t2;
    GPU_TRY(cudaSetDevice(device));
    GPU_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (unsigned i = 0; i < 64; i++) { /* warm the pool */
        GPU_TRY(cudaMallocAsync(&p, 4096, s));
        GPU_TRY(cudaFreeAsync(p, s));
    }
    t0 = std::chrono::steady_clock::now();
    for (unsigned i = 0; i < n; i++) {
        GPU_TRY(gpu_malloc_async(&p, 4096, s));
        GPU_TRY(gpu_free_async(p, s));
    }
    t1 = std::chrono::steady_clock::now();
    for (unsigned i = 0; i < n; i++) {
        GPU_TRY(cudaMallocAsync(&p, 4096, s));
        GPU_TRY(cudaFreeAsync(p, s));
    }
    t2 = std::chrono::steady_clock::now();
    GPU_TRY(cudaStreamSynchronize(s));
    *ns_seam = std::chrono::duration<double, std::nano>(t1 - t0).count() / (n ? n : 1);
    *ns_raw = std::chrono::duration<double, std::nano>(t2 - t1).count() / (n ? n : 1);
done:
    if (s) cudaStreamDestroy(s);
    return st;
}
