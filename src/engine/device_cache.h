/* Objects built once per (key, tag, device) and shared by the callers that need them: the GPU backend's
 * parameter sets' bases and circuits' matrices on each device (backend_gpu.c). A build (an upload of up to tens
 * of GB) runs outside the cache's lock, so that a caller whose object is built already never waits behind
 * another's build: a CRITICAL WinningPoSt whose bases are resident goes ahead while a PoRep set uploads. Callers
 * of the key being built wait for that build; one whose build fails leaves no entry, and the next caller builds
 * again. Whether builds on one device may run side by side is the build function's business.
 *
 * An acquired entry is held (a user) until device_cache_release; a dropped entry is freed once its last user
 * has released it. Every function is thread-safe. */
#ifndef CUZK_ENGINE_DEVICE_CACHE_H
#define CUZK_ENGINE_DEVICE_CACHE_H

#include <stdint.h>

#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct device_cache device_cache;
typedef struct device_cache_entry device_cache_entry;

/* Builds key's object on device: *obj and its device bytes *bytes on success. Called without the cache's lock. */
typedef cuzk_status (*device_cache_build_fn)(void *ctx, const void *key, int device, void **obj, uint64_t *bytes,
                                             cuzk_error *err);
/* Frees an object build made. Called without the cache's lock. */
typedef void (*device_cache_free_fn)(void *ctx, void *obj);

typedef struct device_cache_config {
    int devices; /* device ids 0 .. devices-1 */
    device_cache_build_fn build;
    device_cache_free_fn free_obj;
    void *ctx; /* passed to build and free_obj */
    /* 1: before a build on a device, that device's entries without users are freed (a device keeps the objects in
     * use and at most one more; the circuits' matrices) */
    int free_unused_before_build;
} device_cache_config;

/* A new empty cache. CUZK_ERR_INVALID_ARG: NULL out, no build or free function, devices < 1. */
cuzk_status device_cache_create(const device_cache_config *cfg, device_cache **out, cuzk_error *err);

/* Frees every object and the cache. No caller may hold or be acquiring an entry. NULL: nothing. */
void device_cache_destroy(device_cache *c);

/* *out: the entry of (key, tag, device), built by this call when there is none (or waiting for the build in
 * progress), held until device_cache_release. The build's error when it fails; CUZK_ERR_INVALID_ARG for NULL
 * arguments or a device outside the cache's. */
cuzk_status device_cache_acquire(device_cache *c, const void *key, uint64_t tag, int device, device_cache_entry **out,
                                 cuzk_error *err);

/* The object of an acquired entry. */
void *device_cache_object(const device_cache_entry *e);

/* Gives back an acquired entry; the last user of a dropped entry frees it. NULL: nothing. */
void device_cache_release(device_cache *c, device_cache_entry *e);

/* Drops every entry of key (each tag and device), after waiting for its builds in progress: no later acquire finds
 * them, and each is freed now or at its last release. */
void device_cache_drop(device_cache *c, const void *key);

/* Frees the entries without users on device (-1: every device). */
void device_cache_free_unused(device_cache *c, int device);

/* The device bytes and the number of the objects built on device and not yet freed (dropped ones in use
 * included). Reads counters only: never waits for a build. */
uint64_t device_cache_bytes(const device_cache *c, int device);
unsigned device_cache_count(const device_cache *c, int device);

#ifdef __cplusplus
}
#endif

#endif
