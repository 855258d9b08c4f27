/* The floor of a "log now, work later" profiler plugin: a measuring instrument, not a profiler.
 *
 * Each callback does only what a core that defers all its work to another thread must still do on
 * NCCL's thread: hand out a handle (a number, nothing allocated), copy the descriptor's fields that
 * later work needs into the calling thread's log, read the clock where a CPU time is owed (an
 * operation's start), and publish the entry. A thread of the plugin empties every log each 0.1 ms
 * and does nothing with what it reads. What it costs NCCL's thread, measured with the same driver
 * as this inspector and NVIDIA's (bench/log-floor), bounds from below what any core could cost
 * whose work is all deferred (BENCHMARKS.md, "The floor of a deferred core"). Entries that find a
 * log full are dropped and counted (printed at the last finalize): a floor with drops is too low.
 *
 *   cc -O2 -fPIC -shared -pthread -I inspector-native/src/main/c -o /tmp/floor.so bench/c/log_floor_plugin.c
 *
 * Settings: FLOOR_MASK, the event types it asks for and logs (default: those this inspector's core
 * asks for or reads: Coll, P2p, KernelCh, CollApi, P2pApi, KernelLaunch, ProxyOp, ProxyStep, CeColl;
 * NCCL makes Group and GroupApi starts whatever the mask, and they return at once here);
 * FLOOR_STAMP_ALL=1, a clock read at every callback logged, as a consumer merging several threads'
 * logs in time order would need.
 *
 * Memory order: each log has one producer (its thread) and one consumer (the drain thread). The
 * producer release-stores its tail after the entry's fields, the consumer acquire-loads it before
 * reading them; the consumer release-stores its head after reading, the producer acquire-loads it
 * (only when its cached head says the log is full) before overwriting those entries. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "nccl_profiler_abi.h"

#define LOG_ENTRIES 65536 /* a power of two; 64-byte entries, 4 MiB a thread */
#define MAX_LOGS 64

typedef struct {
  uint8_t kind;     /* 1 start, 2 stop, 3 state */
  uint8_t type;     /* the event type's bit index */
  uint8_t channel;  /* KernelCh: channel id; op: nChannels */
  uint8_t n_warps;
  int32_t peer_or_root;
  uint64_t handle;
  uint64_t parent;
  uint64_t value;   /* KernelCh: a GPU timer; op: count; state: the state argument */
  uint64_t seq;
  const char* func;
  const char* datatype;
  uint64_t stamp;   /* TSC at an operation's start (or every callback with FLOOR_STAMP_ALL) */
} log_entry;

_Static_assert(sizeof(log_entry) == 64, "one cache line an entry");

typedef struct {
  _Alignas(64) _Atomic uint64_t tail; /* producer: release-store after the entry */
  uint64_t head_cache;                /* producer only */
  uint64_t next_handle;               /* producer only */
  uint64_t dropped;                   /* producer only: entries not logged, the log full */
  _Alignas(64) _Atomic uint64_t head; /* consumer: release-store after reading */
  _Alignas(64) log_entry entries[LOG_ENTRIES];
} thread_log;

static thread_log* g_logs[MAX_LOGS];
static _Atomic int g_n_logs;
static __thread thread_log* t_log;
static int g_mask = ncclProfileColl | ncclProfileP2p | ncclProfileKernelCh | ncclProfileCollApi | ncclProfileP2pApi |
                    ncclProfileKernelLaunch | ncclProfileProxyOp | ncclProfileProxyStep | ncclProfileCeColl;
static int g_stamp_all;
static pthread_t g_drain;
static _Atomic int g_running;
static _Atomic int g_comms;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static void* drain_main(void* arg) {
  (void)arg;
  uint64_t sink = 0;
  while (atomic_load_explicit(&g_running, memory_order_relaxed)) {
    /* Acquire: the logs registered before the count was raised are fully set up. */
    int n = atomic_load_explicit(&g_n_logs, memory_order_acquire);
    for (int i = 0; i < n; i++) {
      thread_log* l = g_logs[i];
      uint64_t head = atomic_load_explicit(&l->head, memory_order_relaxed); /* own variable */
      uint64_t tail = atomic_load_explicit(&l->tail, memory_order_acquire); /* entries up to it written */
      for (; head < tail; head++) sink += l->entries[head & (LOG_ENTRIES - 1)].handle;
      atomic_store_explicit(&l->head, head, memory_order_release); /* entries read: reusable */
    }
    struct timespec ts = {0, 100000}; /* 0.1 ms: the logs never fill between two rounds */
    nanosleep(&ts, NULL);
  }
  return (void*)(uintptr_t)sink;
}

/* The thread's log, registered at its first callback (the only allocation, once a thread). */
static thread_log* log_of_thread(void) {
  thread_log* l = t_log;
  if (__builtin_expect(l != NULL, 1)) return l;
  l = aligned_alloc(64, sizeof(thread_log));
  if (l == NULL) return NULL;
  memset(l, 0, sizeof(*l));
  l->next_handle = (uint64_t)1 << 16;
  pthread_mutex_lock(&g_lock);
  int n = atomic_load_explicit(&g_n_logs, memory_order_relaxed);
  if (n == MAX_LOGS) {
    pthread_mutex_unlock(&g_lock);
    free(l);
    return NULL;
  }
  l->next_handle |= (uint64_t)n << 56;
  g_logs[n] = l;
  atomic_store_explicit(&g_n_logs, n + 1, memory_order_release); /* publishes g_logs[n] */
  pthread_mutex_unlock(&g_lock);
  t_log = l;
  return l;
}

/* The next free entry, or NULL (counted) when the consumer is a whole log behind. */
static inline log_entry* claim(thread_log* l, uint64_t* tail_out) {
  uint64_t tail = atomic_load_explicit(&l->tail, memory_order_relaxed); /* own variable */
  if (__builtin_expect(tail - l->head_cache >= LOG_ENTRIES, 0)) {
    l->head_cache = atomic_load_explicit(&l->head, memory_order_acquire); /* its reads are done */
    if (tail - l->head_cache >= LOG_ENTRIES) {
      l->dropped++;
      return NULL;
    }
  }
  *tail_out = tail;
  return &l->entries[tail & (LOG_ENTRIES - 1)];
}

static inline void publish(thread_log* l, uint64_t tail) {
  atomic_store_explicit(&l->tail, tail + 1, memory_order_release); /* the entry's fields first */
}

static ncclResult_t floor_init(void** context, uint64_t commId, int* mask, const char* name, int nNodes,
                               int nranks, int rank, ncclDebugLogger_t logfn) {
  (void)commId; (void)name; (void)nNodes; (void)nranks; (void)rank; (void)logfn;
  pthread_mutex_lock(&g_lock);
  if (atomic_fetch_add_explicit(&g_comms, 1, memory_order_relaxed) == 0) {
    const char* m = getenv("FLOOR_MASK");
    if (m != NULL) g_mask = (int)strtol(m, NULL, 0);
    const char* s = getenv("FLOOR_STAMP_ALL");
    g_stamp_all = s != NULL && s[0] == '1';
    atomic_store_explicit(&g_running, 1, memory_order_relaxed);
    pthread_create(&g_drain, NULL, drain_main, NULL);
  }
  pthread_mutex_unlock(&g_lock);
  *mask = g_mask;
  *context = (void*)(uintptr_t)1;
  return ncclSuccess;
}

static ncclResult_t floor_finalize(void* context) {
  (void)context;
  pthread_mutex_lock(&g_lock);
  if (atomic_fetch_sub_explicit(&g_comms, 1, memory_order_relaxed) == 1) {
    atomic_store_explicit(&g_running, 0, memory_order_relaxed);
    pthread_join(g_drain, NULL);
    uint64_t dropped = 0, logged = 0;
    for (int i = 0; i < atomic_load_explicit(&g_n_logs, memory_order_relaxed); i++) {
      dropped += g_logs[i]->dropped; /* the producers are between passes: no callback runs */
      logged += atomic_load_explicit(&g_logs[i]->tail, memory_order_relaxed);
    }
    if (dropped != 0) fprintf(stderr, "log floor: %llu entries dropped of %llu\n",
                              (unsigned long long)dropped, (unsigned long long)(dropped + logged));
  }
  pthread_mutex_unlock(&g_lock);
  return ncclSuccess;
}

static ncclResult_t floor_start(void* context, void** handle, ncclProfilerEventDescr_v5_t* d) {
  (void)context;
  *handle = NULL;
  if ((d->type & (uint64_t)g_mask) == 0) return ncclSuccess; /* not asked for: no handle, no children */
  thread_log* l = log_of_thread();
  if (l == NULL) return ncclSuccess;
  uint64_t tail;
  log_entry* e = claim(l, &tail);
  if (e == NULL) return ncclSuccess;
  uint64_t h = l->next_handle++;
  e->kind = 1;
  e->type = (uint8_t)__builtin_ctzll(d->type | (1ull << 63));
  e->handle = h;
  e->parent = (uint64_t)(uintptr_t)d->parentObj;
  switch (d->type) {
    case ncclProfileColl:
      e->channel = d->coll.nChannels;
      e->n_warps = d->coll.nWarps;
      e->peer_or_root = d->coll.root;
      e->value = d->coll.count;
      e->seq = d->coll.seqNumber;
      e->func = d->coll.func;
      e->datatype = d->coll.datatype;
      e->stamp = __rdtsc();
      break;
    case ncclProfileP2p:
      e->channel = d->p2p.nChannels;
      e->peer_or_root = d->p2p.peer;
      e->value = d->p2p.count;
      e->func = d->p2p.func;
      e->datatype = d->p2p.datatype;
      e->stamp = __rdtsc();
      break;
    case ncclProfileKernelCh:
      e->channel = d->kernelCh.channelId;
      e->value = d->kernelCh.pTimer;
      e->stamp = g_stamp_all ? __rdtsc() : 0;
      break;
    case ncclProfileCollApi:
      e->value = d->collApi.count;
      e->func = d->collApi.func;
      e->datatype = d->collApi.datatype;
      e->peer_or_root = d->collApi.root;
      e->stamp = g_stamp_all ? __rdtsc() : 0;
      break;
    default:
      e->stamp = g_stamp_all ? __rdtsc() : 0;
      break;
  }
  publish(l, tail);
  *handle = (void*)(uintptr_t)h;
  return ncclSuccess;
}

/* A stop or a state: one entry naming the handle. */
static void log_handle_event(void* handle, uint8_t kind, uint8_t type, uint64_t value) {
  if (handle == NULL) return;
  thread_log* l = log_of_thread();
  if (l == NULL) return;
  uint64_t tail;
  log_entry* e = claim(l, &tail);
  if (e == NULL) return;
  e->kind = kind;
  e->type = type;
  e->handle = (uint64_t)(uintptr_t)handle;
  e->value = value;
  e->stamp = g_stamp_all ? __rdtsc() : 0;
  publish(l, tail);
}

static ncclResult_t floor_stop(void* handle) {
  log_handle_event(handle, 2, 0, 0);
  return ncclSuccess;
}

static ncclResult_t floor_state(void* handle, ncclProfilerEventState_v5_t state,
                                ncclProfilerEventStateArgs_v5_t* args) {
  log_handle_event(handle, 3, (uint8_t)state, args != NULL ? args->kernelCh.pTimer : 0);
  return ncclSuccess;
}

__attribute__((visibility("default"))) ncclProfiler_v5_t ncclProfiler_v5 = {
    "LogFloor", floor_init, floor_start, floor_stop, floor_state, floor_finalize};
