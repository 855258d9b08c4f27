#include "nccl_release.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

typedef int (*nccl_get_version_fn)(int* version); /* ncclResult_t ncclGetVersion(int*) */

static int32_t ask(nccl_get_version_fn fn) {
  int v = 0;
  if (fn == NULL || fn(&v) != 0 || v <= 0) return 0;
  return (int32_t)v;
}

/* Releases already asked, by the load address of the library that called. Reopening it with
 * RTLD_NOLOAD takes the loader's lock and looks the file up again: 15-20 us of every
 * communicator's init on NCCL's thread, for an answer that does not change while the library stays
 * mapped. A library unloaded and another loaded at the same address within one enabled session
 * would be taken for the first; nccl_release_forget (at every enable) bounds that. Each entry is
 * one word, the address's page number above the code (RELEASE_CODE_BITS), written once (a CAS from
 * 0) and read whole: relaxed, nothing else is published with it. */
#define RELEASE_CACHE 4
#define RELEASE_CODE_BITS 28
static _Atomic uint64_t g_known[RELEASE_CACHE];

void nccl_release_forget(void) {
  for (int i = 0; i < RELEASE_CACHE; i++) atomic_store_explicit(&g_known[i], 0, memory_order_relaxed);
}

static uint64_t cache_key(const void* base) {
  uint64_t page = (uint64_t)(uintptr_t)base >> 12;
  return page != 0 && page < (1ull << (64 - RELEASE_CODE_BITS)) ? page : 0;
}

static bool cached(uint64_t key, int32_t* code) {
  for (int i = 0; key != 0 && i < RELEASE_CACHE; i++) {
    uint64_t w = atomic_load_explicit(&g_known[i], memory_order_relaxed);
    if (w >> RELEASE_CODE_BITS == key) {
      *code = (int32_t)(w & ((1ull << RELEASE_CODE_BITS) - 1));
      return true;
    }
  }
  return false;
}

/* Keeps `code` (0: no NCCL answered, which a mapped library will not change either) for `key`. */
static void remember(uint64_t key, int32_t code) {
  if (key == 0 || code < 0 || (uint64_t)code >= (1ull << RELEASE_CODE_BITS)) return;
  uint64_t w = key << RELEASE_CODE_BITS | (uint64_t)code;
  for (int i = 0; i < RELEASE_CACHE; i++) {
    uint64_t empty = 0;
    if (atomic_compare_exchange_strong_explicit(&g_known[i], &empty, w, memory_order_relaxed,
                                                memory_order_relaxed) ||
        empty == w) {
      return;
    }
  }
}

int32_t nccl_release_of_caller(const void* caller) {
  Dl_info info;
  uint64_t key = 0;
  if (caller != NULL && dladdr(caller, &info) != 0 && info.dli_fname != NULL) {
    key = cache_key(info.dli_fbase);
    int32_t known;
    if (cached(key, &known)) return known;
    /* RTLD_NOLOAD: only a handle to the library already mapped, never a load. */
    void* lib = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (lib != NULL) {
      int32_t v = ask((nccl_get_version_fn)dlsym(lib, "ncclGetVersion"));
      dlclose(lib); /* drops the reference taken above; the library stays mapped */
      if (v != 0) {
        remember(key, v);
        return v;
      }
    }
  }
  /* The caller's library has no ncclGetVersion of its own (or does not export it): whichever
   * NCCL the process sees, kept for that caller too, as is finding none. */
  int32_t v = ask((nccl_get_version_fn)dlsym(RTLD_DEFAULT, "ncclGetVersion"));
  remember(key, v);
  return v;
}

int nccl_release_parts(int32_t code, int* major, int* minor, int* patch) {
  if (code < 20900) return 0; /* older codes used major * 1000 + minor * 100 + patch */
  *major = code / 10000;
  *minor = (code / 100) % 100;
  *patch = code % 100;
  return 1;
}
