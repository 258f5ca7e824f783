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
    unsigned turn; /* the turn reserve's epoch it was drawn from (0: not the turn holder's) */
};
std::mutex mem_mu;
/* Every live allocation made through the seam. A map (not a header before each block) because the pointers are
 * handed to CUDA, cub and kernels as they are. */
std::unordered_map<void *, mem_entry> mem_live_map;
size_t mem_held[MEM_DEVICES], mem_peak_b[MEM_DEVICES];
/* The turn reserve (gpu_mem_turn_reserve): bytes kept for the allocations of the thread that holds the device's
 * turn, less what that thread holds now from them (turn_live, counting the entries of the reserve's epoch). */
size_t mem_turn_bytes[MEM_DEVICES], mem_turn_live[MEM_DEVICES];
unsigned mem_turn_epoch[MEM_DEVICES];
thread_local int mem_turn_thread = -1; /* the device whose turn this thread holds (gpu_mem_turn_holder) */

int mem_device(void)
{
    int d = 0;
    if (cudaGetDevice(&d) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return d;
}

/* The bytes of device's turn reserve that the calling thread must leave free: none for the turn's holder. Under
 * mem_mu. */
size_t mem_kept(int device)
{
    if (device < 0 || device >= MEM_DEVICES || mem_turn_thread == device) return 0;
    return mem_turn_bytes[device] > mem_turn_live[device] ? mem_turn_bytes[device] - mem_turn_live[device] : 0;
}

/* Reserves bytes on device against cap (0: none) less what the turn reserve keeps from the calling thread; 0 when
 * that would pass it. *turn: the reserve's epoch when the caller holds the turn (its bytes count in turn_live), else
 * 0. Under mem_mu. */
int mem_reserve(int device, size_t bytes, size_t cap, unsigned *turn)
{
    *turn = 0;
    if (device < 0 || device >= MEM_DEVICES) return 1;
    if (cap) {
        size_t kept = mem_kept(device), limit = cap > kept ? cap - kept : 0;
        if (bytes > limit || mem_held[device] > limit - bytes) return 0;
    }
    if (mem_turn_thread == device) {
        *turn = mem_turn_epoch[device];
        mem_turn_live[device] += bytes;
    }
    mem_held[device] += bytes;
    if (mem_held[device] > mem_peak_b[device]) mem_peak_b[device] = mem_held[device];
    return 1;
}

void mem_unreserve(int device, size_t bytes, unsigned turn)
{
    if (device < 0 || device >= MEM_DEVICES) return;
    mem_held[device] -= bytes < mem_held[device] ? bytes : mem_held[device];
    if (turn != 0 && turn == mem_turn_epoch[device])
        mem_turn_live[device] -= bytes < mem_turn_live[device] ? bytes : mem_turn_live[device];
}

template <class Alloc> cudaError_t mem_alloc(void **p, size_t bytes, Alloc alloc)
{
    int device = mem_device();
    size_t cap = gpu_mem_cap();
    unsigned turn = 0;
    {
        std::lock_guard<std::mutex> lk(mem_mu);
        if (!mem_reserve(device, bytes, cap, &turn)) {
            *p = NULL;
            return cudaErrorMemoryAllocation;
        }
    }
    cudaError_t e = alloc(p, bytes);
    std::lock_guard<std::mutex> lk(mem_mu);
    if (e != cudaSuccess || *p == NULL) {
        mem_unreserve(device, bytes, turn);
        return e;
    }
    try {
        mem_live_map[*p] = mem_entry{bytes, device, turn};
    } catch (...) {
        /* No host memory for the map's node: the allocation is given back, as if the device were full. */
        mem_unreserve(device, bytes, turn);
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
    mem_unreserve(it->second.device, it->second.bytes, it->second.turn);
    mem_live_map.erase(it);
}

size_t mem_held_on(int device)
{
    std::lock_guard<std::mutex> lk(mem_mu);
    return device >= 0 && device < MEM_DEVICES ? mem_held[device] : 0;
}

/* What the calling thread may still take on device under cap: cap - held - the turn reserve it must leave. */
size_t mem_left_on(int device, size_t cap)
{
    std::lock_guard<std::mutex> lk(mem_mu);
    if (device < 0 || device >= MEM_DEVICES) return cap;
    size_t used = mem_held[device] + mem_kept(device);
    return cap > used ? cap - used : 0;
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
        size_t left = mem_left_on(device, cap);
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

extern "C" void gpu_mem_turn_reserve(int device, size_t bytes)
{
    std::lock_guard<std::mutex> lk(mem_mu);
    if (device < 0 || device >= MEM_DEVICES) return;
    if (++mem_turn_epoch[device] == 0) mem_turn_epoch[device] = 1; /* 0 marks entries of no reserve */
    mem_turn_bytes[device] = bytes;
    mem_turn_live[device] = 0;
}

extern "C" size_t gpu_mem_turn_reserved(int device)
{
    std::lock_guard<std::mutex> lk(mem_mu);
    return device >= 0 && device < MEM_DEVICES ? mem_turn_bytes[device] : 0;
}

extern "C" void gpu_mem_turn_holder(int device)
{
    mem_turn_thread = device;
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
