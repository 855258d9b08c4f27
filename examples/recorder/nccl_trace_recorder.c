/* A profiler plugin for validation runs of programs without a JVM (PyTorch): it writes down every
 * callback NCCL makes, in the trace format of testdata/traces/FORMAT.md, and forwards each one to an
 * inner plugin (NVIDIA's reference Inspector, for its output of the same run), if one is named.
 * The recording is then replayed through this project's inspector (nccl-inspector replay), whose
 * output is compared with the run's CUPTI kernel durations.
 *
 * Not a production component: it takes a lock and writes to a file on NCCL's threads, and never
 * frees an event (a validation run is short).
 *
 * Environment:
 *   NCCL_RECORDER_DIR          where trace-pid<PID>.jsonl goes (required; nothing is recorded without it)
 *   NCCL_RECORDER_INNER        path of a plugin to forward to (optional)
 *   NCCL_RECORDER_MASK         event types asked for besides the inner plugin's (default: what this
 *                              project's core asks for, plus ProxyOp and ProxyStep)
 *   NCCL_RECORDER_PROXY_SLEEP_US  sleep this long in every ProxyStep callback (a slow proxy thread,
 *                              planted to see that the network breakdown names it)
 *
 * build: gcc -O2 -shared -fPIC -I inspector-native/src/main/c examples/recorder/nccl_trace_recorder.c \
 *          -o libnccl-trace-recorder.so -ldl -lpthread
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "nccl_profiler_abi.h"

#define EXPORT __attribute__((visibility("default")))

typedef struct rec_event {
  uint64_t id;
  uint64_t type;
  void* inner; /* the inner plugin's handle, NULL if it was not told */
} rec_event;

typedef struct rec_context {
  uint64_t id;
  void* inner;
  int inner_mask;
  int abi;
} rec_context;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE* out;
static int opened;
static uint64_t next_id = 1, next_ctx = 1;
static void* inner_lib;
static const ncclProfiler_v5_t* inner_v5;
static const ncclProfiler_v6_t* inner_v6;
static long proxy_sleep_us;

static const int DEFAULT_MASK = ncclProfileColl | ncclProfileP2p | ncclProfileKernelCh | ncclProfileCeColl |
                                ncclProfileKernelLaunch | ncclProfileProxyOp | ncclProfileProxyStep;

static uint64_t now(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void close_file(void) {
  pthread_mutex_lock(&lock);
  if (out != NULL) fflush(out);
  pthread_mutex_unlock(&lock);
}

/* Opens the file and the inner plugin once (under the lock). */
static void open_once(void) {
  if (opened) return;
  opened = 1;
  const char* dir = getenv("NCCL_RECORDER_DIR");
  if (dir != NULL && *dir) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/trace-pid%d.jsonl", dir, (int)getpid());
    out = fopen(path, "w");
    if (out != NULL) {
      setvbuf(out, NULL, _IOFBF, 1 << 20);
      atexit(close_file);
    } else {
      fprintf(stderr, "nccl-trace-recorder: cannot write %s\n", path);
    }
  }
  const char* inner = getenv("NCCL_RECORDER_INNER");
  if (inner != NULL && *inner) {
    inner_lib = dlopen(inner, RTLD_NOW | RTLD_LOCAL);
    if (inner_lib == NULL) {
      fprintf(stderr, "nccl-trace-recorder: cannot load %s: %s\n", inner, dlerror());
    } else {
      inner_v6 = dlsym(inner_lib, "ncclProfiler_v6");
      inner_v5 = dlsym(inner_lib, "ncclProfiler_v5");
    }
  }
  const char* sleep = getenv("NCCL_RECORDER_PROXY_SLEEP_US");
  proxy_sleep_us = sleep ? strtol(sleep, NULL, 10) : 0;
}

/* ---- JSON output (under the lock) ---- */
static void head(const char* ev) {
  fprintf(out, "{\"t\":%" PRIu64 ",\"wall\":%" PRIu64 ",\"tid\":%ld,\"ev\":\"%s\"", now(CLOCK_MONOTONIC),
          now(CLOCK_REALTIME), (long)syscall(SYS_gettid), ev);
}
static void str(const char* k, const char* v) {
  if (v == NULL) {
    fprintf(out, ",\"%s\":null", k);
    return;
  }
  fprintf(out, ",\"%s\":\"", k);
  for (const char* p = v; *p; p++) {
    if (*p == '"' || *p == '\\') fputc('\\', out);
    if ((unsigned char)*p >= 0x20) fputc(*p, out);
  }
  fputc('"', out);
}
static void num(const char* k, long long v) { fprintf(out, ",\"%s\":%lld", k, v); }
static void unum(const char* k, uint64_t v) { fprintf(out, ",\"%s\":%" PRIu64, k, v); }
static void ptr(const char* k, const void* v) { fprintf(out, ",\"%s\":\"0x%" PRIxPTR "\"", k, (uintptr_t)v); }
static uint64_t id_of(const void* h) { return h ? ((const rec_event*)h)->id : 0; }
static void* inner_of(const void* h) { return h ? ((const rec_event*)h)->inner : NULL; }

static const char* type_name(uint64_t t) {
  switch (t) {
    case ncclProfileGroup: return "Group";
    case ncclProfileColl: return "Coll";
    case ncclProfileP2p: return "P2p";
    case ncclProfileProxyOp: return "ProxyOp";
    case ncclProfileProxyStep: return "ProxyStep";
    case ncclProfileProxyCtrl: return "ProxyCtrl";
    case ncclProfileKernelCh: return "KernelCh";
    case ncclProfileNetPlugin: return "NetPlugin";
    case ncclProfileGroupApi: return "GroupApi";
    case ncclProfileCollApi: return "CollApi";
    case ncclProfileP2pApi: return "P2pApi";
    case ncclProfileKernelLaunch: return "KernelLaunch";
    case ncclProfileCeColl: return "CeColl";
    case ncclProfileCeSync: return "CeSync";
    case ncclProfileCeBatch: return "CeBatch";
    default: return "Unknown";
  }
}

static void descriptor(const ncclProfilerEventDescr_v6_t* d, int abi) {
  switch (d->type) {
    case ncclProfileColl:
      unum("seq", d->coll.seqNumber); str("func", d->coll.func); ptr("sendBuff", d->coll.sendBuff);
      ptr("recvBuff", d->coll.recvBuff); unum("count", d->coll.count); num("root", d->coll.root);
      str("datatype", d->coll.datatype); num("nChannels", d->coll.nChannels); num("nWarps", d->coll.nWarps);
      str("algo", d->coll.algo); str("proto", d->coll.proto); unum("parentGroup", id_of(d->coll.parentGroup));
      break;
    case ncclProfileP2p:
      str("func", d->p2p.func); ptr("buff", d->p2p.buff); str("datatype", d->p2p.datatype);
      unum("count", d->p2p.count); num("peer", d->p2p.peer); num("nChannels", d->p2p.nChannels);
      unum("parentGroup", id_of(d->p2p.parentGroup));
      break;
    case ncclProfileProxyOp:
      num("pid", d->proxyOp.pid); num("channelId", d->proxyOp.channelId); num("peer", d->proxyOp.peer);
      num("nSteps", d->proxyOp.nSteps); num("chunkSize", d->proxyOp.chunkSize); num("isSend", d->proxyOp.isSend);
      break;
    case ncclProfileProxyStep: num("step", d->proxyStep.step); break;
    case ncclProfileKernelCh:
      num("channelId", d->kernelCh.channelId); unum("pTimer", d->kernelCh.pTimer);
      break;
    case ncclProfileGroupApi:
      num("graphCaptured", d->groupApi.graphCaptured); num("groupDepth", d->groupApi.groupDepth);
      break;
    case ncclProfileCollApi:
      str("func", d->collApi.func); unum("count", d->collApi.count); str("datatype", d->collApi.datatype);
      num("root", d->collApi.root); ptr("stream", d->collApi.stream); num("graphCaptured", d->collApi.graphCaptured);
      break;
    case ncclProfileP2pApi:
      str("func", d->p2pApi.func); unum("count", d->p2pApi.count); str("datatype", d->p2pApi.datatype);
      ptr("stream", d->p2pApi.stream); num("graphCaptured", d->p2pApi.graphCaptured);
      break;
    case ncclProfileKernelLaunch: ptr("stream", d->kernelLaunch.stream); break;
    case ncclProfileCeColl:
      if (abi >= 6) {
        unum("seq", d->ceColl.seqNumber); str("func", d->ceColl.func); unum("count", d->ceColl.count);
        num("root", d->ceColl.root); str("datatype", d->ceColl.datatype); ptr("stream", d->ceColl.stream);
        str("syncStrategy", d->ceColl.syncStrategy); num("batchSize", d->ceColl.batchSize);
        num("numBatches", d->ceColl.numBatches);
      }
      break;
    default:
      break;
  }
}

/* Whether NCCL would have made this event for the inner plugin alone (facts doc 1.5). */
static int inner_wants(const rec_context* c, uint64_t type) {
  const int op_level = ncclProfileColl | ncclProfileP2p | ncclProfileProxyOp | ncclProfileProxyStep |
                       ncclProfileKernelCh | ncclProfileNetPlugin | ncclProfileCeColl;
  const uint64_t implied = ncclProfileGroup | ncclProfileGroupApi | ncclProfileCollApi | ncclProfileP2pApi;
  if ((uint64_t)c->inner_mask & type) return 1;
  return (type & implied) && (c->inner_mask & op_level);
}

static int is_child(uint64_t type) {
  return type == ncclProfileKernelCh || type == ncclProfileProxyOp || type == ncclProfileProxyStep ||
         type == ncclProfileNetPlugin || type == ncclProfileCeSync || type == ncclProfileCeBatch;
}

/* ---- the table ---- */
static int32_t nccl_version_of(const void* caller) {
  typedef int (*get_version_fn)(int*);
  Dl_info info;
  get_version_fn fn = NULL;
  if (dladdr(caller, &info) && info.dli_fname) {
    void* l = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (l) {
      fn = (get_version_fn)dlsym(l, "ncclGetVersion");
      dlclose(l);
    }
  }
  if (fn == NULL) fn = (get_version_fn)dlsym(RTLD_DEFAULT, "ncclGetVersion");
  int v = 0;
  if (fn == NULL || fn(&v) != 0) v = 0;
  return v;
}

static ncclResult_t do_init(int abi, void** context, uint64_t comm_id, int* mask, const char* name, int nnodes,
                            int nranks, int rank, ncclDebugLogger_t logfn, const void* caller) {
  int32_t version = nccl_version_of(caller);
  pthread_mutex_lock(&lock);
  open_once();
  pthread_mutex_unlock(&lock);
  rec_context* c = calloc(1, sizeof(*c));
  if (c == NULL) {
    *context = NULL;
    return ncclSuccess;
  }
  c->abi = abi;
  if (abi >= 6 && inner_v6) {
    inner_v6->init(&c->inner, comm_id, &c->inner_mask, name, nnodes, nranks, rank, logfn);
  } else if (inner_v5) {
    inner_v5->init(&c->inner, comm_id, &c->inner_mask, name, nnodes, nranks, rank, logfn);
  }
  const char* m = getenv("NCCL_RECORDER_MASK");
  int own = m ? (int)strtol(m, NULL, 0) : DEFAULT_MASK;
  *mask = own | c->inner_mask;
  pthread_mutex_lock(&lock);
  c->id = next_ctx++;
  if (out) {
    head("init");
    unum("ctx", c->id); fprintf(out, ",\"commId\":\"0x%" PRIx64 "\"", comm_id); str("commName", name);
    num("nNodes", nnodes); num("nranks", nranks); num("rank", rank); num("mask", *mask);
    num("innerMask", c->inner_mask); num("abi", abi);
    if (version) num("ncclVersion", version);
    fputs("}\n", out);
  }
  pthread_mutex_unlock(&lock);
  *context = c;
  return ncclSuccess;
}

static ncclResult_t do_start(int abi, void* context, void** handle, ncclProfilerEventDescr_v6_t* d) {
  rec_context* c = context;
  rec_event* e = calloc(1, sizeof(*e));
  *handle = e;
  if (e == NULL || d == NULL) return ncclSuccess;
  e->type = d->type;
  pthread_mutex_lock(&lock);
  e->id = next_id++;
  if (out) {
    head("start");
    unum("ctx", c ? c->id : 0); unum("h", e->id); str("type", type_name(d->type));
    unum("parent", id_of(d->parentObj)); num("rank", d->rank);
    descriptor(d, abi);
    fputs("}\n", out);
  }
  pthread_mutex_unlock(&lock);
  if (d->type == ncclProfileProxyStep && proxy_sleep_us > 0) usleep((useconds_t)proxy_sleep_us);
  if (c == NULL || c->inner == NULL || !inner_wants(c, d->type)) return ncclSuccess;
  if (is_child(d->type) && inner_of(d->parentObj) == NULL) return ncclSuccess;
  int ce = d->type & (ncclProfileCeColl | ncclProfileCeSync | ncclProfileCeBatch);
  ncclProfilerEventDescr_v6_t copy = *d; /* the inner plugin sees its own handles */
  copy.parentObj = inner_of(d->parentObj);
  if (d->type == ncclProfileColl) copy.coll.parentGroup = inner_of(d->coll.parentGroup);
  if (d->type == ncclProfileP2p) copy.p2p.parentGroup = inner_of(d->p2p.parentGroup);
  if (abi >= 6 && inner_v6) {
    inner_v6->startEvent(c->inner, &e->inner, &copy);
  } else if (inner_v5 && !ce) {
    inner_v5->startEvent(c->inner, &e->inner, (ncclProfilerEventDescr_v5_t*)&copy);
  }
  return ncclSuccess;
}

static ncclResult_t rec_stop(void* handle) {
  rec_event* e = handle;
  if (e == NULL) return ncclSuccess;
  pthread_mutex_lock(&lock);
  if (out) {
    head("stop");
    unum("h", e->id);
    fputs("}\n", out);
  }
  pthread_mutex_unlock(&lock);
  if (e->inner) {
    if (inner_v6) inner_v6->stopEvent(e->inner); else if (inner_v5) inner_v5->stopEvent(e->inner);
  }
  return ncclSuccess;
}

static ncclResult_t rec_state(void* handle, ncclProfilerEventState_v5_t state, ncclProfilerEventStateArgs_v5_t* args) {
  rec_event* e = handle;
  if (e == NULL) return ncclSuccess;
  pthread_mutex_lock(&lock);
  if (out) {
    head("state");
    unum("h", e->id); num("state", state);
    if (args != NULL) { /* only the states that carry an argument are read (facts doc 2.6) */
      if (state == ncclProfilerKernelChStop) unum("pTimer", args->kernelCh.pTimer);
      else if ((state >= 8 && state <= 12) || state == 20) unum("transSize", args->proxyStep.transSize);
      else if (state >= 13 && state <= 18) num("appendedProxyOps", args->proxyCtrl.appendedProxyOps);
    }
    fputs("}\n", out);
  }
  pthread_mutex_unlock(&lock);
  if (e->inner) {
    if (inner_v6) inner_v6->recordEventState(e->inner, state, args);
    else if (inner_v5) inner_v5->recordEventState(e->inner, state, args);
  }
  return ncclSuccess;
}

static ncclResult_t rec_finalize(void* context) {
  rec_context* c = context;
  if (c == NULL) return ncclSuccess;
  pthread_mutex_lock(&lock);
  if (out) {
    head("fini");
    unum("ctx", c->id);
    fputs("}\n", out);
    fflush(out);
  }
  pthread_mutex_unlock(&lock);
  if (c->inner) {
    if (c->abi >= 6 && inner_v6) inner_v6->finalize(c->inner); else if (inner_v5) inner_v5->finalize(c->inner);
  }
  return ncclSuccess;
}

static ncclResult_t init_v6(void** context, uint64_t comm_id, int* mask, const char* name, int nnodes, int nranks,
                            int rank, ncclDebugLogger_t logfn) {
  return do_init(6, context, comm_id, mask, name, nnodes, nranks, rank, logfn, __builtin_return_address(0));
}
static ncclResult_t init_v5(void** context, uint64_t comm_id, int* mask, const char* name, int nnodes, int nranks,
                            int rank, ncclDebugLogger_t logfn) {
  return do_init(5, context, comm_id, mask, name, nnodes, nranks, rank, logfn, __builtin_return_address(0));
}
static ncclResult_t start_v6(void* context, void** handle, ncclProfilerEventDescr_v6_t* d) {
  return do_start(6, context, handle, d);
}
static ncclResult_t start_v5(void* context, void** handle, ncclProfilerEventDescr_v5_t* d) {
  ncclProfilerEventDescr_v6_t copy;
  memset(&copy, 0, sizeof(copy));
  if (d != NULL) memcpy(&copy, d, sizeof(*d)); /* v5 is v6 without the CE members */
  return do_start(5, context, handle, d ? &copy : NULL);
}

EXPORT ncclProfiler_v6_t ncclProfiler_v6 = {"nccl-trace-recorder", init_v6, start_v6, rec_stop, rec_state,
                                            rec_finalize};
EXPORT ncclProfiler_v5_t ncclProfiler_v5 = {"nccl-trace-recorder", init_v5, start_v5, rec_stop, rec_state,
                                            rec_finalize};
