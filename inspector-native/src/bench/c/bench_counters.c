/* The cost of counting from many threads: every operation NCCL reports that the core does not
 * track (below the minimum size, P2P not wanted, paused...) bumps a counter from NCCL's calling
 * thread. Two measurements, each with 1 and 2 threads (and more if asked):
 *
 *   1. filtered starts: startEvent of a collective below the minimum size through the exported v5
 *      table (the core's real path, counter included), against the same calls into a do-nothing
 *      table in the same run;
 *   2. the counter alone: counter_add as built, against one shared, unpadded array of atomics (the
 *      layout before the counters were striped per thread) in the same run.
 *
 * ns per call = wall time of the run / calls per thread (threads run concurrently).
 *
 *   make -C inspector-native bench-counters [THREADS="1 2"] [COUNTER_OPS=20000000]
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "event_counters.h"
#include "harness.h"

static long ops;
static _Atomic int go;

static ncclResult_t null_start(void* c, void** h, ncclProfilerEventDescr_v5_t* d) {
  (void)c;
  (void)d;
  *h = NULL;
  return ncclSuccess;
}
static const ncclProfiler_v5_t null_table = {"null", NULL, null_start, NULL, NULL, NULL};

/* The pre-striping layout: one array, every thread adds into the same cache lines. */
static _Atomic uint64_t shared_counters[CTR_COUNT];

static inline uint64_t now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

typedef struct arg {
  int mode; /* 0 core table, 1 null table, 2 counter_add, 3 shared array */
  void* ctx;
} arg;

static void* worker(void* p) {
  arg* a = p;
  while (!atomic_load_explicit(&go, memory_order_acquire)) {
  }
  if (a->mode <= 1) {
    const ncclProfiler_v5_t* t = a->mode == 0 ? &ncclProfiler_v5 : &null_table;
    ncclProfilerEventDescr_v5_t d;
    memset(&d, 0, sizeof(d));
    d.type = ncclProfileColl;
    d.coll.func = "AllReduce";
    d.coll.datatype = "ncclFloat32";
    d.coll.count = 16; /* 64 bytes: below the minimum size */
    d.coll.nChannels = 1;
    for (long i = 0; i < ops; i++) {
      void* h;
      t->startEvent(a->ctx, &h, &d);
      __asm__ volatile("" ::: "memory");
    }
  } else if (a->mode == 2) {
    for (long i = 0; i < ops; i++) counter_add(CTR_BELOW_MIN_SIZE, 1);
  } else {
    for (long i = 0; i < ops; i++) {
      atomic_fetch_add_explicit(&shared_counters[CTR_BELOW_MIN_SIZE], 1, memory_order_relaxed);
    }
  }
  return NULL;
}

static double run(int mode, int threads, void** ctxs) {
  pthread_t t[64];
  arg a[64];
  atomic_store(&go, 0);
  for (int i = 0; i < threads; i++) {
    a[i].mode = mode;
    a[i].ctx = ctxs[i];
    pthread_create(&t[i], NULL, worker, &a[i]);
  }
  uint64_t t0 = now();
  atomic_store_explicit(&go, 1, memory_order_release);
  for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
  return (double)(now() - t0) / (double)ops;
}

int main(int argc, char** argv) {
  ops = argc > 1 ? atol(argv[1]) : 20000000;
  test_config c = test_defaults();
  c.min_size = 1 << 20;
  test_enable(c);
  void* ctxs[64];
  for (int i = 0; i < 64; i++) ctxs[i] = test_comm(0x1000 + (uint64_t)i, 0, 2);
  printf("%-8s %-34s %10s %12s %8s\n", "threads", "what", "ns/call", "baseline", "ratio");
  for (int ai = 2; ai < argc || ai == 2; ai++) {
    int threads = argc > ai ? atoi(argv[ai]) : 1;
    if (threads < 1 || threads > 64) continue;
    for (int rep = 0; rep < 3; rep++) {
      double core = run(0, threads, ctxs), null = run(1, threads, ctxs);
      printf("%-8d %-34s %10.2f %12.2f %8.2f\n", threads, "filtered start (core vs null table)",
             core, null, core / null);
      double striped = run(2, threads, ctxs), shared = run(3, threads, ctxs);
      printf("%-8d %-34s %10.2f %12.2f %8.2f\n", threads, "counter_add (vs one shared array)",
             striped, shared, striped / shared);
    }
    if (argc <= 2) break;
  }
  long long counted = test_counter("below_min_size");
  printf("below_min_size counted: %lld\n", counted);
  test_shutdown();
  return 0;
}
