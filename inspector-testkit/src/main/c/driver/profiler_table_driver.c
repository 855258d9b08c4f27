#include "profiler_table_driver.h"

#include <dlfcn.h>
#include <link.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver_play.h"
#include "nccl_profiler_abi.h" /* the core's copy of NCCL's profiler ABI (inspector-native) */

_Static_assert(sizeof(driver_event) == 128, "driver event is 128 bytes");

typedef void (*virtual_clock_fn)(int enabled, unsigned long long mono_ns, unsigned long long wall_ns);

static void* lib;
static const ncclProfiler_v5_t* table;
/* The plugin's v6 table, called through the v5 type: the two tables have the same members and
 * signatures, and a v6 descriptor starts with the v5 one (nccl_profiler_abi.h). */
static const ncclProfiler_v5_t* table_v6;
static uint8_t* context_v6; /* per context id: driven through table_v6 */
static int nccl_version;
static virtual_clock_fn set_clock;
static char error[512];
static char loaded_path[4096];
static void** handles;
static int handle_cap;
static void** contexts;
static int ctx_cap;
static int activation_mask;
static char** strings;
static int string_count, string_cap;

/* ---- the built-in null plugin: the cost of the call itself ---- */
static ncclResult_t null_init(void** c, uint64_t id, int* m, const char* n, int a, int b, int r,
                              ncclDebugLogger_t l) {
  (void)id; (void)n; (void)a; (void)b; (void)r; (void)l;
  *c = (void*)1;
  *m = ncclProfileColl | ncclProfileP2p | ncclProfileKernelCh;
  return ncclSuccess;
}
static ncclResult_t null_start(void* c, void** h, ncclProfilerEventDescr_v5_t* d) {
  (void)c;
  *h = (d->type & (ncclProfileColl | ncclProfileP2p | ncclProfileKernelCh)) ? (void*)1 : NULL;
  return ncclSuccess;
}
static ncclResult_t null_stop(void* h) { (void)h; return ncclSuccess; }
static ncclResult_t null_record(void* h, ncclProfilerEventState_v5_t s, ncclProfilerEventStateArgs_v5_t* a) {
  (void)h; (void)s; (void)a;
  return ncclSuccess;
}
static ncclResult_t null_fini(void* c) { (void)c; return ncclSuccess; }
static const ncclProfiler_v5_t null_table = {"null", null_init, null_start, null_stop, null_record, null_fini};

static void logger(ncclDebugLogLevel level, unsigned long flags, const char* file, int line,
                   const char* fmt, ...) {
  (void)level; (void)flags; (void)file; (void)line; (void)fmt;
}

static void reset_maps(void) {
  free(handles);
  free(contexts);
  free(context_v6);
  handles = NULL;
  contexts = NULL;
  context_v6 = NULL;
  handle_cap = ctx_cap = 0;
}

int profiler_driver_open(const char* library_path) {
  profiler_driver_close();
  lib = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    snprintf(error, sizeof(error), "dlopen(%s): %s", library_path, dlerror());
    return -1;
  }
  table = dlsym(lib, "ncclProfiler_v5");
  if (table == NULL) {
    snprintf(error, sizeof(error), "%s exports no ncclProfiler_v5", library_path);
    dlclose(lib);
    lib = NULL;
    return -1;
  }
  table_v6 = dlsym(lib, "ncclProfiler_v6");
  set_clock = (virtual_clock_fn)dlsym(lib, "nccl_inspector_set_virtual_clock");
  struct link_map* map = NULL;
  loaded_path[0] = 0;
  if (dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map != NULL && map->l_name != NULL) {
    snprintf(loaded_path, sizeof(loaded_path), "%s", map->l_name);
  }
  return 0;
}

int profiler_driver_exported_versions(void) {
  if (lib == NULL) return 0;
  int bits = 0;
  char name[32];
  for (int v = 1; v <= 9; v++) {
    snprintf(name, sizeof(name), "ncclProfiler_v%d", v);
    if (dlsym(lib, name) != NULL) bits |= 1 << v;
  }
  return bits;
}

int profiler_driver_open_null(void) {
  profiler_driver_close();
  table = &null_table;
  table_v6 = NULL;
  set_clock = NULL;
  snprintf(loaded_path, sizeof(loaded_path), "(built-in null plugin)");
  return 0;
}

const char* profiler_driver_error(void) { return error; }
const char* profiler_driver_loaded_path(void) { return loaded_path; }

int profiler_driver_prepare(int max_handle_id, int max_ctx_id) {
  reset_maps();
  if (max_handle_id < 0 || max_handle_id > DRIVER_MAX_ID || max_ctx_id < 0 || max_ctx_id > DRIVER_MAX_ID) {
    snprintf(error, sizeof(error), "id maps of %d handles and %d contexts: out of range 0..%d", max_handle_id,
             max_ctx_id, DRIVER_MAX_ID);
    return -1;
  }
  handle_cap = max_handle_id + 1;
  ctx_cap = max_ctx_id + 1;
  handles = calloc((size_t)handle_cap, sizeof(void*));
  contexts = calloc((size_t)ctx_cap, sizeof(void*));
  context_v6 = calloc((size_t)ctx_cap, 1);
  if (handles == NULL || contexts == NULL || context_v6 == NULL) {
    reset_maps();
    snprintf(error, sizeof(error), "out of memory for %d handles", handle_cap);
    return -1;
  }
  activation_mask = 0;
  return 0;
}

int profiler_driver_intern(const char* s) {
  if (s == NULL) return 0;
  for (int i = 1; i <= string_count; i++) {
    if (strcmp(strings[i], s) == 0) return i;
  }
  if (string_count + 2 > string_cap) {
    int cap = string_cap ? string_cap * 2 : 64;
    char** grown = realloc(strings, (size_t)cap * sizeof(char*));
    if (grown == NULL) return 0;
    strings = grown;
    string_cap = cap;
  }
  strings[++string_count] = strdup(s);
  return string_count;
}

static const char* str(uint16_t id) { return (id == 0 || id > string_count) ? NULL : strings[id]; }

/* NCCL emits an event type if its bit is in the mask, and the API and group events whenever any
 * operation-level event is asked for (facts doc 1.5). */
static int type_enabled(uint32_t type) {
  const uint32_t op_level = ncclProfileColl | ncclProfileP2p | ncclProfileProxyOp |
                            ncclProfileProxyStep | ncclProfileKernelCh | ncclProfileNetPlugin;
  const uint32_t implied = ncclProfileGroup | ncclProfileGroupApi | ncclProfileCollApi | ncclProfileP2pApi;
  if ((uint32_t)activation_mask & type) return 1;
  if ((type & implied) && ((uint32_t)activation_mask & op_level)) return 1;
  return 0;
}

static int is_child_of_operation(uint32_t type) {
  return type == ncclProfileKernelCh || type == ncclProfileProxyOp || type == ncclProfileProxyStep ||
         type == ncclProfileNetPlugin;
}

/* Every id comes from a file: compared unsigned against the map's size, so that no value (a -1
 * read as 0xffffffff, a wrapped 64-bit number) indexes outside it. */
static int handle_in_range(uint32_t id) { return id < (uint32_t)handle_cap; }
static int ctx_in_range(uint32_t id) { return id < (uint32_t)ctx_cap; }
static void* handle_of(uint32_t id) { return (id > 0 && handle_in_range(id)) ? handles[id] : NULL; }

static void build_descriptor(const driver_event* e, ncclProfilerEventDescr_v6_t* d) {
  memset(d, 0, sizeof(*d));
  d->type = e->type;
  d->parentObj = handle_of(e->parent);
  d->rank = e->rank;
  switch (e->type) {
    case ncclProfileGroupApi:
      d->groupApi.graphCaptured = e->graph_captured;
      d->groupApi.groupDepth = e->i0;
      break;
    case ncclProfileCollApi:
      d->collApi.func = str(e->func);
      d->collApi.count = e->count;
      d->collApi.datatype = str(e->datatype);
      d->collApi.root = e->peer_or_root;
      d->collApi.graphCaptured = e->graph_captured;
      break;
    case ncclProfileP2pApi:
      d->p2pApi.func = str(e->func);
      d->p2pApi.count = e->count;
      d->p2pApi.datatype = str(e->datatype);
      d->p2pApi.graphCaptured = e->graph_captured;
      break;
    case ncclProfileColl:
      d->coll.seqNumber = e->a;
      d->coll.func = str(e->func);
      d->coll.count = e->count;
      d->coll.root = e->peer_or_root;
      d->coll.datatype = str(e->datatype);
      d->coll.nChannels = e->n_channels;
      d->coll.nWarps = e->n_warps;
      d->coll.algo = str(e->algo);
      d->coll.proto = str(e->proto);
      d->coll.parentGroup = handle_of(e->parent_group);
      break;
    case ncclProfileP2p:
      d->p2p.func = str(e->func);
      d->p2p.datatype = str(e->datatype);
      d->p2p.count = e->count;
      d->p2p.peer = e->peer_or_root;
      d->p2p.nChannels = e->n_channels;
      d->p2p.parentGroup = handle_of(e->parent_group);
      break;
    case ncclProfileProxyOp:
      d->proxyOp.pid = e->i0;
      d->proxyOp.channelId = e->channel_id;
      d->proxyOp.peer = e->peer_or_root;
      d->proxyOp.nSteps = e->i1;
      d->proxyOp.chunkSize = e->i2;
      d->proxyOp.isSend = e->i3;
      break;
    case ncclProfileProxyStep:
      d->proxyStep.step = e->i0;
      break;
    case ncclProfileKernelCh:
      d->kernelCh.channelId = e->channel_id;
      d->kernelCh.pTimer = e->a;
      break;
    case ncclProfileCeColl:
      d->ceColl.seqNumber = e->a;
      d->ceColl.func = str(e->func);
      d->ceColl.count = e->count;
      d->ceColl.root = e->peer_or_root;
      d->ceColl.datatype = str(e->datatype);
      break;
    default:
      break;
  }
}

/* The table that drives a context: v6 for a communicator recorded under interface 6. */
static const ncclProfiler_v5_t* table_of(uint32_t ctx) {
  return (table_v6 != NULL && ctx_in_range(ctx) && context_v6[ctx]) ? table_v6 : table;
}

/* NCCL's ncclGetVersion, as this stand-in for NCCL answers it. */
__attribute__((visibility("default"))) int ncclGetVersion(int* version) {
  if (version == NULL) return ncclInvalidArgument;
  *version = nccl_version;
  return ncclSuccess;
}

void profiler_driver_set_nccl_version(int version_code) { nccl_version = version_code; }

static inline long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

long long driver_play(const driver_event* e, long long* call_ns) {
  long long calls = 0;
  long long t0 = 0;
  if (call_ns) *call_ns = 0;
  switch (e->op) {
    case DRIVER_OP_INIT: {
      if (!ctx_in_range(e->ctx)) break;
      void* ctx = NULL;
      nccl_version = e->i0; /* the release the trace recorded for this init, 0 when it did not */
      context_v6[e->ctx] = (uint8_t)(e->i1 == 6 && table_v6 != NULL);
      if (call_ns) t0 = now_ns();
      table_of(e->ctx)->init(&ctx, e->a, &activation_mask, str(e->func) ? str(e->func) : "", e->nnodes,
                             e->nranks, e->rank, logger);
      if (call_ns) *call_ns = now_ns() - t0;
      contexts[e->ctx] = ctx;
      calls++;
      break;
    }
    case DRIVER_OP_START: {
      if (!handle_in_range(e->handle) || !ctx_in_range(e->ctx)) break;
      if (!type_enabled(e->type)) break;
      if (is_child_of_operation(e->type) && handle_of(e->parent) == NULL) break;
      /* A parent id out of range would reach the plugin as no parent: not an event NCCL makes. */
      if ((e->parent != 0 && !handle_in_range(e->parent)) ||
          (e->parent_group != 0 && !handle_in_range(e->parent_group))) break;
      /* CE events exist only for a communicator driven through v6 (NCCL's v5 adapter drops them). */
      if ((e->type & (ncclProfileCeColl | ncclProfileCeSync | ncclProfileCeBatch)) && table_of(e->ctx) != table_v6) break;
      ncclProfilerEventDescr_v6_t d;
      build_descriptor(e, &d);
      void* h = NULL;
      if (call_ns) t0 = now_ns();
      table_of(e->ctx)->startEvent(contexts[e->ctx], &h, (ncclProfilerEventDescr_v5_t*)&d);
      if (call_ns) *call_ns = now_ns() - t0;
      handles[e->handle] = h;
      calls++;
      if (e->type == ncclProfileKernelLaunch && h != NULL) {
        /* NCCL stops a launch right after cuLaunchKernelEx, with nothing between on its thread;
         * a trace recorded by a plugin that gave launches no handle has no stop for them. The
         * recorded stop, if any, is then skipped. */
        table->stopEvent(h);
        handles[e->handle] = NULL;
        calls++;
      }
      break;
    }
    case DRIVER_OP_STOP: {
      void* h = handle_of(e->handle);
      if (h == NULL) break;
      if (call_ns) t0 = now_ns();
      table->stopEvent(h);
      if (call_ns) *call_ns = now_ns() - t0;
      calls++;
      break;
    }
    case DRIVER_OP_STATE: {
      void* h = handle_of(e->handle);
      if (h == NULL) break;
      ncclProfilerEventStateArgs_v5_t args;
      memset(&args, 0, sizeof(args));
      args.kernelCh.pTimer = e->a; /* every member sits at offset 0 */
      if (call_ns) t0 = now_ns();
      table->recordEventState(h, (ncclProfilerEventState_v5_t)e->state, &args);
      if (call_ns) *call_ns = now_ns() - t0;
      calls++;
      break;
    }
    case DRIVER_OP_FINI: {
      if (!ctx_in_range(e->ctx) || contexts[e->ctx] == NULL) break;
      if (call_ns) t0 = now_ns();
      table_of(e->ctx)->finalize(contexts[e->ctx]);
      if (call_ns) *call_ns = now_ns() - t0;
      contexts[e->ctx] = NULL;
      calls++;
      break;
    }
    default:
      break;
  }
  return calls;
}

int driver_ready(void) { return table != NULL && handles != NULL; }
int driver_has_clock(void) { return set_clock != NULL; }
int driver_handle_cap(void) { return handle_cap; }
int driver_ctx_cap(void) { return ctx_cap; }
void driver_set_clock(int enabled, unsigned long long mono_ns, unsigned long long wall_ns) {
  if (set_clock) set_clock(enabled, mono_ns, wall_ns);
}
char* driver_error_buffer(size_t* size) {
  *size = sizeof(error);
  return error;
}

long long profiler_driver_run(const void* events, long long count, int virtual_clock,
                              long long* call_ns) {
  if (!driver_ready()) {
    snprintf(error, sizeof(error), "driver not opened and prepared");
    return -1;
  }
  const driver_event* ev = events;
  long long calls = 0;
  for (long long i = 0; i < count; i++) {
    const driver_event* e = &ev[i];
    if (virtual_clock && set_clock) set_clock(1, e->t_mono, e->t_wall);
    calls += driver_play(e, call_ns ? &call_ns[i] : NULL);
  }
  return calls;
}

int profiler_driver_set_virtual_clock(int enabled, unsigned long long mono_ns, unsigned long long wall_ns) {
  if (set_clock == NULL) return -1;
  set_clock(enabled, mono_ns, wall_ns);
  return 0;
}

const char* profiler_driver_getenv(const char* name) { return name ? getenv(name) : NULL; }

int profiler_driver_setenv(const char* name, const char* value) {
  if (name == NULL) return -1;
  return value ? setenv(name, value, 1) : unsetenv(name);
}

long long profiler_driver_malloc_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  struct mallinfo2 m = mallinfo2();
  return (long long)(m.uordblks + m.hblkhd);
#else
  return -1;
#endif
}

int profiler_driver_finalize_open(void) {
  if (table == NULL || contexts == NULL) return 0;
  int n = 0;
  for (int i = 0; i < ctx_cap; i++) {
    if (contexts[i] == NULL) continue;
    table_of((uint32_t)i)->finalize(contexts[i]);
    contexts[i] = NULL;
    n++;
  }
  return n;
}

void profiler_driver_close(void) {
  reset_maps();
  if (lib != NULL) dlclose(lib);
  lib = NULL;
  table = NULL;
  table_v6 = NULL;
  set_clock = NULL;
}
