/* ns per callback, per callback kind, median and p99, with 1, 2 or 4 producer threads (each its
 * own communicator, as NCCL's threads of different communicators), a consumer draining the ring
 * concurrently. Each call through the exported v5 table is timed with two clock reads; the same
 * calls into a do-nothing table, timed the same way, are the baseline of the same run.
 *
 *   make -C inspector-native bench-callbacks [THREADS="1 2 4"] [OPS=200000]
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "harness.h"

enum { K_COLL_START, K_COLL_STOP, K_CH_START, K_CH_RECORD, K_CH_STOP, K_COUNT };
static const char* const kind_names[K_COUNT] = {"start Coll", "stop Coll", "start KernelCh",
                                                "recordEventState", "stop KernelCh"};

typedef struct samples {
  uint32_t* v[K_COUNT];
  size_t n[K_COUNT];
} samples;

static const ncclProfiler_v5_t* table;
static int ops_per_thread;

static ncclResult_t null_start(void* c, void** h, ncclProfilerEventDescr_v5_t* d) {
  (void)c;
  *h = (d->type & (ncclProfileColl | ncclProfileKernelCh)) ? (void*)1 : NULL;
  return ncclSuccess;
}
static ncclResult_t null_stop(void* h) { (void)h; return ncclSuccess; }
static ncclResult_t null_record(void* h, ncclProfilerEventState_v5_t s, ncclProfilerEventStateArgs_v5_t* a) {
  (void)h; (void)s; (void)a;
  return ncclSuccess;
}
static const ncclProfiler_v5_t null_table = {"null", NULL, null_start, null_stop, null_record, NULL};

static inline uint64_t now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

#define TIMED(s, kind, call)                          \
  do {                                                \
    uint64_t _t0 = now();                             \
    call;                                             \
    uint64_t _d = now() - _t0;                        \
    (s)->v[kind][(s)->n[kind]++] = (uint32_t)(_d > 0xffffffffu ? 0xffffffffu : _d); \
  } while (0)

typedef struct producer_arg {
  void* ctx;
  samples* s;
} producer_arg;

static void* producer(void* p) {
  producer_arg* a = p;
  samples* s = a->s;
  ncclProfilerEventDescr_v5_t coll, ch;
  memset(&coll, 0, sizeof(coll));
  coll.type = ncclProfileColl;
  coll.coll.func = "AllReduce";
  coll.coll.datatype = "ncclFloat32";
  coll.coll.algo = "RING";
  coll.coll.proto = "SIMPLE";
  coll.coll.count = 1 << 20;
  coll.coll.nChannels = 2;
  memset(&ch, 0, sizeof(ch));
  ch.type = ncclProfileKernelCh;
  ncclProfilerEventStateArgs_v5_t args;
  for (int i = 0; i < ops_per_thread; i++) {
    void* op = NULL;
    void* c[2];
    coll.coll.seqNumber = (uint64_t)i;
    TIMED(s, K_COLL_START, table->startEvent(a->ctx, &op, &coll));
    TIMED(s, K_COLL_STOP, table->stopEvent(op));
    for (int k = 0; k < 2; k++) {
      ch.parentObj = op;
      ch.kernelCh.channelId = (uint8_t)k;
      ch.kernelCh.pTimer = 1795942870000000000ull + (uint64_t)i * 1000;
      c[k] = NULL;
      TIMED(s, K_CH_START, table->startEvent(a->ctx, &c[k], &ch));
    }
    for (int k = 0; k < 2; k++) {
      args.kernelCh.pTimer = 1795942870000000500ull + (uint64_t)i * 1000 + (uint64_t)k;
      TIMED(s, K_CH_RECORD, table->recordEventState(c[k], ncclProfilerKernelChStop, &args));
      TIMED(s, K_CH_STOP, table->stopEvent(c[k]));
    }
    if ((i & 255) == 255) {
      while (nccl_inspector_ring_used_cells() > (1 << 15)) {
      }
    }
  }
  return NULL;
}

static int cmp(const void* a, const void* b) {
  uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  return x < y ? -1 : x > y;
}

static uint32_t pct(uint32_t* v, size_t n, double p) {
  size_t i = (size_t)(p * (double)(n - 1));
  return v[i];
}

static void run(int threads, const ncclProfiler_v5_t* t, samples* merged) {
  table = t;
  samples per[8];
  void* ctx[8];
  pthread_t th[8];
  test_drainer_start(200000);
  for (int i = 0; i < threads; i++) {
    ctx[i] = test_comm(0x100u + (uint64_t)i, 0, 8);
    memset(&per[i], 0, sizeof(per[i]));
    for (int k = 0; k < K_COUNT; k++) per[i].v[k] = malloc(sizeof(uint32_t) * (size_t)ops_per_thread * 2);
  }
  producer_arg args[8];
  for (int i = 0; i < threads; i++) {
    args[i].ctx = ctx[i];
    args[i].s = &per[i];
    pthread_create(&th[i], NULL, producer, &args[i]);
  }
  for (int i = 0; i < threads; i++) pthread_join(th[i], NULL);
  test_drainer_stop();
  for (int i = 0; i < threads; i++) ncclProfiler_v5.finalize(ctx[i]);
  (void)test_drain();
  for (int k = 0; k < K_COUNT; k++) {
    size_t total = 0;
    for (int i = 0; i < threads; i++) total += per[i].n[k];
    merged->v[k] = malloc(sizeof(uint32_t) * total);
    merged->n[k] = 0;
    for (int i = 0; i < threads; i++) {
      memcpy(merged->v[k] + merged->n[k], per[i].v[k], per[i].n[k] * sizeof(uint32_t));
      merged->n[k] += per[i].n[k];
      free(per[i].v[k]);
    }
    qsort(merged->v[k], merged->n[k], sizeof(uint32_t), cmp);
  }
}

int main(int argc, char** argv) {
  ops_per_thread = argc > 1 ? atoi(argv[1]) : 200000;
  printf("%-8s %-17s %10s %12s %12s %12s %12s %12s\n", "threads", "callback", "calls", "base p50",
         "p50", "p99", "own p50", "own p99");
  for (int a = 2; a < argc || a == 2; a++) {
    int threads = argc > a ? atoi(argv[a]) : 1;
    if (threads < 1 || threads > 8) continue;
    test_config c = test_defaults();
    c.ring_cells = 1 << 16;
    c.op_slots = 2048;
    test_enable(c);
    samples base, mine;
    run(threads, &null_table, &base);
    run(threads, &ncclProfiler_v5, &mine);
    long long dropped = test_counter("ring_full") + test_counter("evicted_table_full");
    test_shutdown();
    size_t nb = 0, nm = 0;
    for (int k = 0; k < K_COUNT; k++) {
      nb += base.n[k];
      nm += mine.n[k];
    }
    uint32_t* all_base = malloc(nb * sizeof(uint32_t));
    uint32_t* all_mine = malloc(nm * sizeof(uint32_t));
    nb = nm = 0;
    for (int k = 0; k < K_COUNT; k++) {
      memcpy(all_base + nb, base.v[k], base.n[k] * sizeof(uint32_t));
      memcpy(all_mine + nm, mine.v[k], mine.n[k] * sizeof(uint32_t));
      nb += base.n[k];
      nm += mine.n[k];
    }
    qsort(all_base, nb, sizeof(uint32_t), cmp);
    qsort(all_mine, nm, sizeof(uint32_t), cmp);
    for (int k = 0; k < K_COUNT; k++) {
      uint32_t b50 = pct(base.v[k], base.n[k], 0.5), b99 = pct(base.v[k], base.n[k], 0.99);
      uint32_t m50 = pct(mine.v[k], mine.n[k], 0.5), m99 = pct(mine.v[k], mine.n[k], 0.99);
      printf("%-8d %-17s %10zu %9u ns %9u ns %9u ns %9d ns %9d ns\n", threads, kind_names[k], mine.n[k],
             b50, m50, m99, (int)m50 - (int)b50, (int)m99 - (int)b99);
      free(base.v[k]);
      free(mine.v[k]);
    }
    uint32_t b50 = pct(all_base, nb, 0.5), b99 = pct(all_base, nb, 0.99);
    uint32_t m50 = pct(all_mine, nm, 0.5), m99 = pct(all_mine, nm, 0.99);
    printf("%-8d %-17s %10zu %9u ns %9u ns %9u ns %9d ns %9d ns\n", threads, "all callbacks", nm, b50, m50,
           m99, (int)m50 - (int)b50, (int)m99 - (int)b99);
    free(all_base);
    free(all_mine);
    if (dropped) printf("         (%lld records dropped or evicted)\n", dropped);
    if (argc <= 2) break;
  }
  return 0;
}
