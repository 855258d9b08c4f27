#include "kernel_records.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_state.h"
#include "event_counters.h"
#include "record_emit.h"
#include "record_format.h"

/* A launch whose operations are being counted. The launching thread writes it: the id, then one
 * more operation at each operation start, then LAUNCH_FINAL at the first stop of one of them (NCCL
 * starts every operation of a plan before it stops any: hostStreamPlanTask). The parsing thread
 * uses the count only once it is final. */
typedef struct launch_slot {
  _Atomic uint64_t id;
  _Atomic uint32_t ops; /* count, | LAUNCH_FINAL */
  uint32_t pad;
} launch_slot;
#define LAUNCH_FINAL 0x80000000u

/* One half of a join, waiting for the other (guarded by g_lock). correlation 0: empty. */
typedef struct external_entry {
  uint32_t correlation;
  uint64_t launch_id;
} external_entry;
typedef struct kernel_entry {
  uint32_t correlation;
  uint32_t device;
  uint32_t stream;
  uint64_t start_ns;
  uint64_t end_ns;
} kernel_entry;

/* A joined kernel whose launch's operation count is not final yet (its operations have not all
 * started): it waits here, retried at each parse and flush. */
typedef struct waiting_kernel {
  uint64_t launch_id;
  kernel_entry kernel;
} waiting_kernel;
static waiting_kernel g_waiting[KR_WAITING]; /* a ring: g_waiting_count entries from g_wait_head */
static uint32_t g_wait_head, g_waiting_count;
#define WAITING_AT(i) g_waiting[(g_wait_head + (i)) % KR_WAITING]

static _Atomic int g_state = KERNEL_RECORDS_OFF;
static cupti_api g_api;
static char g_reason[320] = "off";
/* Serialises start, stop and the parse of buffers (CUPTI's thread and the flushing thread). */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* Launch ids: never 0, unique in the process. Each start of the records begins a new session;
 * a thread's launch id of an earlier session counts as none. */
static _Atomic uint64_t g_next_launch = 1;
static _Atomic uint32_t g_session = 0;
static _Thread_local uint64_t tls_launch_id;
static _Thread_local uint32_t tls_session;
static launch_slot g_launches[KR_LAUNCH_SLOTS];

static external_entry g_external[KR_CORRELATION_SLOTS];
static kernel_entry g_kernels[KR_CORRELATION_SLOTS];

/* The buffers: allocated at the first start, kept for the process (CUPTI may hold one until its
 * last flush). A set bit in g_free is a buffer not with CUPTI. */
static uint8_t* g_buffers[KR_BUFFERS];
static _Atomic uint32_t g_free;

static void set_reason(const char* what, cupti_result r) {
  const char* text = NULL;
  if (g_api.result_string == NULL || g_api.result_string(r, &text) != CUPTI_OK || text == NULL) text = "?";
  snprintf(g_reason, sizeof(g_reason), "%s: CUPTI error %d (%s)", what, r, text);
}

/* CUPTI asks for a buffer, on whatever thread fills one (NCCL's launching thread included): a
 * lock-free take from the pool, no allocation. None free: CUPTI drops records, counted. */
static void buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;
  /* Acquire: the buffer's last parse (released by its give-back) is over before CUPTI reuses it. */
  uint32_t free_mask = atomic_load_explicit(&g_free, memory_order_acquire);
  while (free_mask != 0) {
    uint32_t bit = free_mask & -free_mask;
    if (atomic_compare_exchange_weak_explicit(&g_free, &free_mask, free_mask & ~bit, memory_order_acquire,
                                              memory_order_acquire)) {
      *buffer = g_buffers[__builtin_ctz(bit)];
      *size = KR_BUFFER_BYTES;
      return;
    }
  }
  counter_add(CTR_KERNEL_RECORDS_NO_BUFFER, 1);
  *buffer = NULL;
  *size = 0;
}

static void give_back(const uint8_t* buffer) {
  for (int i = 0; i < KR_BUFFERS; i++) {
    if (g_buffers[i] == buffer) {
      /* Release: this thread's reads of the buffer happen before its next hand-out. */
      atomic_fetch_or_explicit(&g_free, 1u << i, memory_order_release);
      return;
    }
  }
}

/* The final operation count of a launch: 0 if the slot went to a launch 16384 later (unknown: the
 * record will not be used), -1 while the launch's operations may still start. */
static int64_t final_ops(uint64_t launch_id) {
  launch_slot* slot = &g_launches[launch_id % KR_LAUNCH_SLOTS];
  /* Acquire: pairs with the release that made the count final (kernel_records_op_stopped), so the
   * count read is every start's. */
  uint32_t ops = atomic_load_explicit(&slot->ops, memory_order_acquire);
  /* Relaxed: the launching thread resets the count before the id names the slot; a mismatch only
   * means the slot went to a later launch (read as unknown). */
  if (atomic_load_explicit(&slot->id, memory_order_relaxed) != launch_id) return 0;
  return (ops & LAUNCH_FINAL) ? (int64_t)(ops & ~LAUNCH_FINAL) : -1;
}

/* Writes the joined kernel into the ring, if the core still has one. */
static void write_kernel(uint64_t launch_id, const kernel_entry* k, uint32_t ops) {
  if (!core_has_tables()) return;
  kernel_record r;
  memset(&r, 0, sizeof(r));
  r.kind = RECORD_KIND_KERNEL;
  r.cells = 1;
  r.ops = ops;
  r.launch_id = launch_id;
  r.start_ns = k->start_ns;
  r.end_ns = k->end_ns;
  r.device = k->device;
  r.stream = k->stream;
  r.correlation_id = k->correlation;
  if (record_put_in_ring(&r, 1, 0, CTR_KERNEL_RECORD_LOST)) counter_add(CTR_KERNEL_RECORDS_JOINED, 1);
}

/* Under g_lock. A kernel joined to its launch goes into the ring once its launch's operation
 * count is final; until then it waits (the oldest waiting is given up when the list is full:
 * a launch whose operations never stop, or ran on another thread, times nothing anyway). */
static void emit(uint64_t launch_id, const kernel_entry* k) {
  int64_t ops = final_ops(launch_id);
  if (ops >= 0) {
    write_kernel(launch_id, k, (uint32_t)ops);
    return;
  }
  if (g_waiting_count == KR_WAITING) { /* the oldest is given up */
    g_wait_head = (g_wait_head + 1) % KR_WAITING;
    g_waiting_count--;
    counter_add(CTR_KERNEL_RECORDS_OTHER, 1);
  }
  WAITING_AT(g_waiting_count) = (waiting_kernel){launch_id, *k};
  g_waiting_count++;
}

/* Under g_lock: the waiting kernels whose launch is final now go into the ring, in order. */
static void retry_waiting_locked(void) {
  uint32_t kept = 0;
  for (uint32_t i = 0; i < g_waiting_count; i++) {
    waiting_kernel w = WAITING_AT(i);
    int64_t ops = final_ops(w.launch_id);
    if (ops >= 0) {
      write_kernel(w.launch_id, &w.kernel, (uint32_t)ops);
    } else {
      WAITING_AT(kept) = w; /* kept <= i: compacted in place, order kept */
      kept++;
    }
  }
  g_waiting_count = kept;
}

static uint64_t read_u64(const uint8_t* p, size_t at) {
  uint64_t v;
  memcpy(&v, p + at, sizeof(v));
  return v;
}
static uint32_t read_u32(const uint8_t* p, size_t at) {
  uint32_t v;
  memcpy(&v, p + at, sizeof(v));
  return v;
}

/* Under g_lock. The two halves of a join come in either order (CUPTI writes the external
 * correlation at the launch and the kernel at its end, possibly into different buffers); the one
 * that comes first waits in its table, overwritten by a later correlation id of the same slot. */
static void accept_locked(const void* record) {
  const uint8_t* p = record;
  uint32_t kind = read_u32(p, 0);
  if (kind == CUPTI_KIND_CONCURRENT_KERNEL) {
    kernel_entry k = {read_u32(p, CUPTI_KERNEL_CORRELATION), read_u32(p, CUPTI_KERNEL_DEVICE),
                      read_u32(p, CUPTI_KERNEL_STREAM), read_u64(p, CUPTI_KERNEL_START), read_u64(p, CUPTI_KERNEL_END)};
    if (k.correlation == 0) return;
    external_entry* e = &g_external[k.correlation % KR_CORRELATION_SLOTS];
    if (e->correlation == k.correlation) {
      emit(e->launch_id, &k);
      e->correlation = 0;
    } else {
      kernel_entry* w = &g_kernels[k.correlation % KR_CORRELATION_SLOTS];
      if (w->correlation != 0) counter_add(CTR_KERNEL_RECORDS_OTHER, 1);
      *w = k;
    }
  } else if (kind == CUPTI_KIND_EXTERNAL_CORRELATION) {
    cupti_external_correlation x;
    memcpy(&x, p, sizeof(x));
    if (x.external_kind != CUPTI_EXTERNAL_KIND_CUSTOM2 || x.correlation_id == 0 || x.external_id == 0) return;
    kernel_entry* w = &g_kernels[x.correlation_id % KR_CORRELATION_SLOTS];
    if (w->correlation == x.correlation_id) {
      emit(x.external_id, w);
      w->correlation = 0;
    } else {
      external_entry* e = &g_external[x.correlation_id % KR_CORRELATION_SLOTS];
      e->correlation = x.correlation_id;
      e->launch_id = x.external_id;
    }
  }
}

/* Under g_lock: whether buffers are parsed into the ring (active, or stopping: the last flush). */
static int parsing_locked(void) {
  int state = atomic_load_explicit(&g_state, memory_order_relaxed);
  return state == KERNEL_RECORDS_ACTIVE || state == KERNEL_RECORDS_STOPPING;
}

void kernel_records_accept(const void* record) {
  if (record == NULL) return;
  pthread_mutex_lock(&g_lock);
  if (parsing_locked()) accept_locked(record);
  pthread_mutex_unlock(&g_lock);
}

/* CUPTI hands a buffer back (its own thread, or the thread in cuptiActivityFlushAll). */
static void buffer_completed(void* context, uint32_t stream_id, uint8_t* buffer, size_t size, size_t valid) {
  (void)context;
  (void)stream_id;
  (void)size;
  if (buffer == NULL) return;
  pthread_mutex_lock(&g_lock);
  /* Only while the records run or stop: once stopped (under this lock, so no parse is under way),
   * the core may free its ring, and a buffer CUPTI hands back late is only given back. */
  if (parsing_locked()) {
    void* record = NULL;
    while (valid > 0 && g_api.get_next_record(buffer, valid, &record) == CUPTI_OK) {
      accept_locked(record);
    }
    retry_waiting_locked();
  }
  pthread_mutex_unlock(&g_lock);
  give_back(buffer);
}

/* API records for the functions NCCL launches its kernels with: CUPTI writes an external
 * correlation record (the launch id) only with one (cupti_abi.h). Just those functions where this
 * CUPTI can select them, else every driver function's. Undoes what it did when it fails. */
static cupti_result launch_api_records(int on) {
  static const uint32_t cbids[] = CUPTI_LAUNCH_CBIDS;
  if (g_api.enable_driver_api == NULL) {
    return on ? g_api.enable(CUPTI_KIND_DRIVER) : g_api.disable(CUPTI_KIND_DRIVER);
  }
  for (size_t i = 0; i < sizeof(cbids) / sizeof(cbids[0]); i++) {
    cupti_result r = g_api.enable_driver_api(cbids[i], (uint8_t)(on != 0));
    if (r != CUPTI_OK && on) {
      while (i-- > 0) g_api.enable_driver_api(cbids[i], 0);
      return r;
    }
  }
  return CUPTI_OK;
}

static int start_locked(const cupti_api* api) {
  int state = atomic_load_explicit(&g_state, memory_order_relaxed);
  if (state == KERNEL_RECORDS_ACTIVE) return state;
  g_api = *api;
  if (g_api.subscribe != NULL && g_api.unsubscribe != NULL) {
    /* Another CUPTI tool (Nsight Systems, PyTorch's profiler) holds the one subscriber slot and
     * reads activity records: registering ours would take its buffers. The probe gives the slot
     * back at once, so a tool that comes later still gets it. */
    void* probe = NULL;
    cupti_result r = g_api.subscribe(&probe, NULL, NULL);
    if (r == CUPTI_MULTIPLE_SUBSCRIBERS) {
      set_reason("another CUPTI tool is subscribed (a profiler such as Nsight Systems or PyTorch's): its "
                 "activity records are left to it", r);
      atomic_store_explicit(&g_state, KERNEL_RECORDS_UNAVAILABLE, memory_order_relaxed);
      return KERNEL_RECORDS_UNAVAILABLE;
    }
    if (r == CUPTI_OK) g_api.unsubscribe(probe);
    /* Any other answer: registering below says whether CUPTI can be had. */
  }
  for (int i = 0; i < KR_BUFFERS; i++) {
    if (g_buffers[i] != NULL) continue;
    g_buffers[i] = aligned_alloc(8, KR_BUFFER_BYTES);
    if (g_buffers[i] == NULL) {
      snprintf(g_reason, sizeof(g_reason), "no memory for CUPTI's buffers");
      atomic_store_explicit(&g_state, KERNEL_RECORDS_UNAVAILABLE, memory_order_relaxed);
      return KERNEL_RECORDS_UNAVAILABLE;
    }
    /* Release: a new buffer joins the pool only once allocated (a buffer of an earlier start stays
     * with CUPTI until it hands it back, whatever this start does). */
    atomic_fetch_or_explicit(&g_free, 1u << i, memory_order_release);
  }
  memset(g_external, 0, sizeof(g_external));
  memset(g_kernels, 0, sizeof(g_kernels));
  g_wait_head = g_waiting_count = 0;
  cupti_result r = g_api.register_callbacks(buffer_requested, buffer_completed);
  if (r != CUPTI_OK) {
    set_reason("registering activity buffers failed (another CUPTI client, such as a profiler, may hold CUPTI)", r);
    atomic_store_explicit(&g_state, KERNEL_RECORDS_UNAVAILABLE, memory_order_relaxed);
    return KERNEL_RECORDS_UNAVAILABLE;
  }
  /* Each step undoes the ones before it when it fails. */
  if ((r = g_api.enable(CUPTI_KIND_EXTERNAL_CORRELATION)) != CUPTI_OK) {
    set_reason("enabling external correlation records failed (no GPU or driver, or CUPTI held by another tool)", r);
  } else if ((r = launch_api_records(1)) != CUPTI_OK) {
    g_api.disable(CUPTI_KIND_EXTERNAL_CORRELATION);
    set_reason("enabling API records of the kernel launches failed (no GPU or driver, or CUPTI held by another tool)",
               r);
  } else if ((r = g_api.enable(CUPTI_KIND_CONCURRENT_KERNEL)) != CUPTI_OK) {
    launch_api_records(0);
    g_api.disable(CUPTI_KIND_EXTERNAL_CORRELATION);
    set_reason("enabling kernel activity records failed (no GPU or driver, or CUPTI held by another tool)", r);
  }
  if (r != CUPTI_OK) {
    atomic_store_explicit(&g_state, KERNEL_RECORDS_UNAVAILABLE, memory_order_relaxed);
    return KERNEL_RECORDS_UNAVAILABLE;
  }
  snprintf(g_reason, sizeof(g_reason), "%s",
           g_api.enable_driver_api != NULL ? "active"
                                           : "active (API records of every driver function: this CUPTI cannot "
                                             "select the launch functions)");
  /* Relaxed: a thread whose launch id is of an older session reads it as none; the session only
   * needs to differ. */
  atomic_fetch_add_explicit(&g_session, 1, memory_order_relaxed);
  /* Release: NCCL's threads that see ACTIVE (acquire in launch_start) see the table above. */
  atomic_store_explicit(&g_state, KERNEL_RECORDS_ACTIVE, memory_order_release);
  return KERNEL_RECORDS_ACTIVE;
}

int kernel_records_start_with(const cupti_api* api) {
  if (api == NULL || api->register_callbacks == NULL || api->enable == NULL || api->disable == NULL ||
      api->flush_all == NULL || api->get_next_record == NULL || api->push_external_id == NULL ||
      api->pop_external_id == NULL) {
    pthread_mutex_lock(&g_lock);
    snprintf(g_reason, sizeof(g_reason), "CUPTI lacks a function this tool needs");
    atomic_store_explicit(&g_state, KERNEL_RECORDS_UNAVAILABLE, memory_order_relaxed);
    pthread_mutex_unlock(&g_lock);
    return KERNEL_RECORDS_UNAVAILABLE;
  }
  pthread_mutex_lock(&g_lock);
  int state = start_locked(api);
  pthread_mutex_unlock(&g_lock);
  return state;
}

/* The CUPTI libraries this one loaded (resolved paths; the first four: a process rarely starts the
 * records with more than one). Under g_lock. */
#define KR_OWN_CUPTI 4
static char g_own_cupti[KR_OWN_CUPTI][PATH_MAX];

static int own_cupti(const char* path) {
  for (int i = 0; i < KR_OWN_CUPTI; i++) {
    if (strcmp(g_own_cupti[i], path) == 0) return 1;
  }
  return 0;
}

/* Under g_lock: remembers `path` as a CUPTI this library loaded (in the first free place). */
static void remember_own_cupti(const char* path) {
  if (own_cupti(path)) return;
  for (int i = 0; i < KR_OWN_CUPTI; i++) {
    if (g_own_cupti[i][0] == '\0') {
      snprintf(g_own_cupti[i], sizeof(g_own_cupti[i]), "%s", path);
      return;
    }
  }
}

/* Under g_lock: the path of a libcupti mapped into the process that is not the one this library
 * loaded, copied into `found`; 0 if none (or the mappings cannot be read: nothing to go by). Read
 * once per start, never on NCCL's threads. */
static int cupti_mapped_elsewhere(const char* maps, char* found, size_t size) {
  if (maps == NULL) return 0; /* the user shares CUPTI knowingly (NCCL_INSPECTOR_CUPTI_SHARED) */
  FILE* f = fopen(maps, "r");
  if (f == NULL) return 0;
  char line[1024];
  int hit = 0;
  while (!hit && fgets(line, sizeof(line), f) != NULL) {
    char* path = strchr(line, '/');
    if (path == NULL) continue;
    path[strcspn(path, "\n")] = '\0';
    const char* base = strrchr(path, '/') + 1;
    if (strncmp(base, "libcupti", 8) != 0 || own_cupti(path)) continue;
    snprintf(found, size, "%s", path);
    hit = 1;
  }
  fclose(f);
  return hit;
}

int kernel_records_start(const char* library) { return kernel_records_start_in(library, "/proc/self/maps"); }

int kernel_records_start_in(const char* library, const char* maps) {
  static const char* const names[] = {"libcupti.so", "libcupti.so.13", "libcupti.so.12"};
  char elsewhere[256];
  pthread_mutex_lock(&g_lock);
  /* Relaxed: under the lock that every change of the state holds. Already running: nothing to ask. */
  if (atomic_load_explicit(&g_state, memory_order_relaxed) == KERNEL_RECORDS_ACTIVE) {
    pthread_mutex_unlock(&g_lock);
    return KERNEL_RECORDS_ACTIVE;
  }
  int taken = cupti_mapped_elsewhere(maps, elsewhere, sizeof(elsewhere));
  if (taken) {
    /* Measured on an H100 (2026-12-05): a program's own CUPTI client got 0 of its 400 kernels once
     * the inspector had registered its buffers. */
    snprintf(g_reason, sizeof(g_reason),
             "CUPTI is already loaded in the process (%.96s): another part of the program may collect its "
             "activity records, which the inspector's would take over (NCCL_INSPECTOR_CUPTI_SHARED=1 starts them anyway)",
             elsewhere);
    atomic_store_explicit(&g_state, KERNEL_RECORDS_UNAVAILABLE, memory_order_relaxed);
  }
  pthread_mutex_unlock(&g_lock);
  if (taken) return KERNEL_RECORDS_UNAVAILABLE;
  void* lib = NULL;
  const char* tried = library;
  if (library != NULL && library[0] != '\0') {
    lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  } else {
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && lib == NULL; i++) {
      tried = names[i];
      lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    }
  }
  if (lib == NULL) {
    const char* err = dlerror();
    pthread_mutex_lock(&g_lock);
    snprintf(g_reason, sizeof(g_reason), "CUPTI not found (%s): %s", tried, err != NULL ? err : "?");
    atomic_store_explicit(&g_state, KERNEL_RECORDS_UNAVAILABLE, memory_order_relaxed);
    pthread_mutex_unlock(&g_lock);
    return KERNEL_RECORDS_UNAVAILABLE;
  }
  /* Kept loaded for the process: CUPTI may call back into this library until it is unloaded. */
  struct link_map* map = NULL;
  char resolved[PATH_MAX];
  /* The mappings name files by their resolved path (libcupti.so is usually a link). */
  if (dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map != NULL && map->l_name != NULL &&
      realpath(map->l_name, resolved) != NULL) {
    pthread_mutex_lock(&g_lock);
    remember_own_cupti(resolved);
    pthread_mutex_unlock(&g_lock);
  }
  cupti_api api;
  *(void**)&api.register_callbacks = dlsym(lib, "cuptiActivityRegisterCallbacks");
  *(void**)&api.enable = dlsym(lib, "cuptiActivityEnable");
  *(void**)&api.disable = dlsym(lib, "cuptiActivityDisable");
  *(void**)&api.flush_all = dlsym(lib, "cuptiActivityFlushAll");
  *(void**)&api.get_next_record = dlsym(lib, "cuptiActivityGetNextRecord");
  *(void**)&api.push_external_id = dlsym(lib, "cuptiActivityPushExternalCorrelationId");
  *(void**)&api.pop_external_id = dlsym(lib, "cuptiActivityPopExternalCorrelationId");
  *(void**)&api.result_string = dlsym(lib, "cuptiGetResultString");
  *(void**)&api.subscribe = dlsym(lib, "cuptiSubscribe");
  *(void**)&api.unsubscribe = dlsym(lib, "cuptiUnsubscribe");
  *(void**)&api.enable_driver_api = dlsym(lib, "cuptiActivityEnableDriverApi");
  return kernel_records_start_with(&api);
}

void kernel_records_flush(void) {
  /* Acquire: pairs with the release in start_locked (the function table). */
  if (atomic_load_explicit(&g_state, memory_order_acquire) != KERNEL_RECORDS_ACTIVE) return;
  g_api.flush_all(0);
  pthread_mutex_lock(&g_lock);
  if (parsing_locked()) retry_waiting_locked(); /* launches that became final since the last buffer */
  pthread_mutex_unlock(&g_lock);
}

void kernel_records_stop(void) {
  pthread_mutex_lock(&g_lock);
  int active = atomic_load_explicit(&g_state, memory_order_relaxed) == KERNEL_RECORDS_ACTIVE;
  /* Relaxed: no launch is named from now on; one that still saw ACTIVE pushes an id whose kernel
   * is joined by the last flush below or not at all. Buffers are still parsed while stopping. */
  if (active) atomic_store_explicit(&g_state, KERNEL_RECORDS_STOPPING, memory_order_relaxed);
  pthread_mutex_unlock(&g_lock);
  if (!active) return;
  g_api.disable(CUPTI_KIND_CONCURRENT_KERNEL);
  launch_api_records(0);
  g_api.disable(CUPTI_KIND_EXTERNAL_CORRELATION);
  /* Outside the lock: the flush hands the last buffers to buffer_completed on this thread. */
  g_api.flush_all(1); /* CUPTI_ACTIVITY_FLAG_FLUSH_FORCED: also buffers not yet full */
  pthread_mutex_lock(&g_lock);
  retry_waiting_locked();
  if (g_waiting_count > 0) counter_add(CTR_KERNEL_RECORDS_OTHER, g_waiting_count);
  g_waiting_count = 0;
  /* Under the lock: no parse is under way, and none writes into the ring after this (the core
   * closes and may free it once this returns). */
  atomic_store_explicit(&g_state, KERNEL_RECORDS_OFF, memory_order_relaxed);
  snprintf(g_reason, sizeof(g_reason), "stopped");
  pthread_mutex_unlock(&g_lock);
}

int kernel_records_state(void) { return atomic_load_explicit(&g_state, memory_order_relaxed); }

const char* kernel_records_reason(void) { return g_reason; }

int kernel_records_launch_start(void) {
  /* Acquire: the function table and session published by start_locked. */
  if (atomic_load_explicit(&g_state, memory_order_acquire) != KERNEL_RECORDS_ACTIVE) return 0;
  /* Relaxed: only uniqueness matters. */
  uint64_t id = atomic_fetch_add_explicit(&g_next_launch, 1, memory_order_relaxed);
  launch_slot* slot = &g_launches[id % KR_LAUNCH_SLOTS];
  /* Named before CUPTI hears of the launch: CUPTI's record of it reaches the parsing thread through
   * CUPTI's own hand-over, after these stores. Relaxed: the count is reset before the id names the
   * slot, and it counts only once final (release in kernel_records_op_stopped). */
  atomic_store_explicit(&slot->ops, 0, memory_order_relaxed);
  atomic_store_explicit(&slot->id, id, memory_order_relaxed);
  if (g_api.push_external_id(CUPTI_EXTERNAL_KIND_CUSTOM2, id) != CUPTI_OK) {
    counter_add(CTR_KERNEL_LAUNCH_ID_REFUSED, 1);
    tls_launch_id = 0;
    return 0;
  }
  tls_launch_id = id;
  tls_session = atomic_load_explicit(&g_session, memory_order_relaxed);
  return 1;
}

void kernel_records_launch_stop(void) {
  uint64_t last = 0;
  g_api.pop_external_id(CUPTI_EXTERNAL_KIND_CUSTOM2, &last);
}

int kernel_records_active(void) {
  return atomic_load_explicit(&g_state, memory_order_relaxed) == KERNEL_RECORDS_ACTIVE;
}

uint64_t kernel_records_op_launch(void) {
  /* Relaxed: see below; checked first, so that without CUPTI no thread-local is read. */
  if (atomic_load_explicit(&g_state, memory_order_relaxed) != KERNEL_RECORDS_ACTIVE) return 0;
  uint64_t id = tls_launch_id;
  if (id == 0) return 0;
  /* Relaxed: see kernel_records_launch_start. */
  if (tls_session != atomic_load_explicit(&g_session, memory_order_relaxed) ||
      atomic_load_explicit(&g_state, memory_order_relaxed) != KERNEL_RECORDS_ACTIVE) {
    return 0;
  }
  launch_slot* slot = &g_launches[id % KR_LAUNCH_SLOTS];
  if (atomic_load_explicit(&slot->id, memory_order_relaxed) != id) return 0;
  /* Relaxed: the count is published by the release that makes it final (op_stopped). A launch
   * already final (an operation of it stopped) takes no more: this one is not of its plan. */
  uint32_t ops = atomic_load_explicit(&slot->ops, memory_order_relaxed);
  do {
    if (ops & LAUNCH_FINAL) return 0;
  } while (!atomic_compare_exchange_weak_explicit(&slot->ops, &ops, ops + 1, memory_order_relaxed,
                                                  memory_order_relaxed));
  return id;
}

void kernel_records_op_stopped(uint64_t launch_id) {
  if (launch_id == 0) return;
  launch_slot* slot = &g_launches[launch_id % KR_LAUNCH_SLOTS];
  /* Relaxed id check: a reused slot is left alone. Release: the parsing thread that sees FINAL
   * (acquire in final_ops) sees every count added before. */
  if (atomic_load_explicit(&slot->id, memory_order_relaxed) != launch_id) return;
  atomic_fetch_or_explicit(&slot->ops, LAUNCH_FINAL, memory_order_release);
}
