/* CUPTI kernel records under concurrency: two launching threads (each its own communicator) name
 * their launches and start one collective after each, while a consumer flushes CUPTI (the test
 * kit's thread-safe stand-in, which hands each launch's kernel back with its external correlation)
 * and drains the ring. Every launch must be named and unnamed once, every kernel come out once,
 * and every collective name a launch whose kernel says it ran one operation. Built also with
 * ThreadSanitizer. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "driver/cupti_stand_in.h"
#include "harness.h"
#include "kernel_records.h"

#define THREADS 2
#define LAUNCHES 3000

/* The stand-in's CUPTI functions, as dlsym would find them in its library. */
cupti_result cuptiActivityRegisterCallbacks(cupti_buffer_requested_fn, cupti_buffer_completed_fn);
cupti_result cuptiActivityEnable(uint32_t);
cupti_result cuptiActivityDisable(uint32_t);
cupti_result cuptiActivityFlushAll(uint32_t);
cupti_result cuptiActivityGetNextRecord(uint8_t*, size_t, void**);
cupti_result cuptiActivityPushExternalCorrelationId(uint32_t, uint64_t);
cupti_result cuptiActivityPopExternalCorrelationId(uint32_t, uint64_t*);
cupti_result cuptiGetResultString(cupti_result, const char**);
cupti_result cuptiActivityEnableDriverApi(uint32_t, uint8_t);

static void* contexts[THREADS];
static _Atomic int launchers_done;

static void* launcher(void* arg) {
  int t = (int)(uintptr_t)arg;
  for (int i = 0; i < LAUNCHES; i++) {
    void* launch = test_launch(contexts[t]); /* start, stop: named and unnamed */
    if (launch == NULL) abort();
    void* op = test_coll(contexts[t], "AllReduce", (uint64_t)i, 65536, "ncclFloat32", 0);
    if (op == NULL) abort();
    test_stop(op); /* no channels announced: complete at its stop */
  }
  atomic_fetch_add(&launchers_done, 1);
  return NULL;
}

typedef struct tally {
  long long kernels, kernels_one_op, ops, ops_named;
  uint8_t* seen_kernel; /* by launch id */
  uint8_t* seen_op;
} tally;

static void drain_into(tally* t) {
  static uint8_t buf[1 << 20];
  for (;;) {
    nccl_inspector_defer_flush();
    long long n = nccl_inspector_drain(buf, sizeof buf);
    if (n <= 0) return;
    for (long long off = 0; off < n;) {
      const op_record* x = (const op_record*)(buf + off);
      if (x->kind == RECORD_KIND_KERNEL) {
        const kernel_record* k = (const kernel_record*)x;
        t->kernels++;
        if (k->ops == 1) t->kernels_one_op++;
        else if (t->kernels - t->kernels_one_op <= 3) fprintf(stderr, "launch %llu: ops %u\n", (unsigned long long)k->launch_id, k->ops);
        if (k->launch_id < THREADS * LAUNCHES + 1) {
          CHECK_EQ(t->seen_kernel[k->launch_id], 0);
          t->seen_kernel[k->launch_id] = 1;
        }
        CHECK_EQ(k->end_ns - k->start_ns, 1000);
      } else if (x->kind == RECORD_KIND_COLL) {
        t->ops++;
        if (x->launch_id != 0 && x->launch_id < THREADS * LAUNCHES + 1) {
          t->ops_named++;
          CHECK_EQ(t->seen_op[x->launch_id], 0);
          t->seen_op[x->launch_id] = 1;
        }
      }
      off += (long long)x->cells * INSPECTOR_CELL_BYTES;
    }
  }
}

static void every_launch_and_kernel_once_under_concurrency(void) {
  test_config cfg = test_defaults();
  cfg.ring_cells = 1 << 16;
  test_enable(cfg);
  static long long starts[THREADS * LAUNCHES], ends[THREADS * LAUNCHES];
  for (int i = 0; i < THREADS * LAUNCHES; i++) {
    starts[i] = 1000000 + 10000LL * i;
    ends[i] = starts[i] + 1000;
  }
  cupti_stand_in_reset(starts, ends, THREADS * LAUNCHES, 0);
  const cupti_api stand_in = {cuptiActivityRegisterCallbacks, cuptiActivityEnable, cuptiActivityDisable,
                              cuptiActivityFlushAll, cuptiActivityGetNextRecord,
                              cuptiActivityPushExternalCorrelationId, cuptiActivityPopExternalCorrelationId,
                              cuptiGetResultString, NULL, NULL, cuptiActivityEnableDriverApi};
  CHECK_EQ(kernel_records_start_with(&stand_in), KERNEL_RECORDS_ACTIVE);
  for (int t = 0; t < THREADS; t++) contexts[t] = test_comm(0x2000 + (uint64_t)t, 0, 2);
  tally tl = {0, 0, 0, 0, calloc(THREADS * LAUNCHES + 1, 1), calloc(THREADS * LAUNCHES + 1, 1)};
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++) pthread_create(&threads[t], NULL, launcher, (void*)(uintptr_t)t);
  while (atomic_load(&launchers_done) < THREADS) {
    kernel_records_flush();
    drain_into(&tl);
  }
  for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
  kernel_records_flush();
  drain_into(&tl);
  CHECK_EQ(cupti_stand_in_pushes(), THREADS * LAUNCHES);
  CHECK_EQ(cupti_stand_in_pops(), THREADS * LAUNCHES);
  CHECK_EQ(cupti_stand_in_unbalanced_pops(), 0);
  CHECK_EQ(tl.ops, THREADS * LAUNCHES);
  CHECK_EQ(tl.ops_named, THREADS * LAUNCHES);
  CHECK_EQ(tl.kernels + test_counter("kernel_record_lost"), THREADS * LAUNCHES);
  CHECK_EQ(tl.kernels_one_op, tl.kernels);
  for (long long id = 1; id <= THREADS * LAUNCHES; id++) {
    if (tl.seen_kernel[id] && !tl.seen_op[id]) {
      fprintf(stderr, "kernel of launch %lld without its collective\n", id);
      test_failures++;
      break;
    }
  }
  printf("     %lld launches, %lld kernel records joined, %lld lost to a full ring\n", cupti_stand_in_pushes(),
         tl.kernels, test_counter("kernel_record_lost"));
  free(tl.seen_kernel);
  free(tl.seen_op);
  test_shutdown();
}

int main(void) {
  RUN(every_launch_and_kernel_once_under_concurrency);
  return test_failures == 0 ? 0 : 1;
}
