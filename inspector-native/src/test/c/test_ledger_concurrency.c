/* The API ledger under concurrency (also under ThreadSanitizer: make test-tsan): application
 * threads enter collective calls; half of them get their operation event on another thread (as
 * NCCL's host callbacks do), half never; a sweeper closes unlinked calls with a 1 ms expiry while
 * all this runs, and a consumer drains. Every call must come out exactly once as a not-profiled
 * record, or as its operation's record, or (linked after its call was closed) as both, counted. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "harness.h"

#define THREADS 3
#define CALLS 20000
#define QUEUE 128

static test_handoff queues[THREADS];
static void* contexts[THREADS];
static _Atomic int running;
static _Atomic long long operation_records, unlinked_records;
/* Calls the ledger had no entry for (its handle NULL): by kind, counted by the calling thread. */
static _Atomic long long full_broadcasts, full_allreduces;

static void* application(void* arg) {
  int t = (int)(uintptr_t)arg;
  for (int i = 0; i < CALLS; i++) {
    void* h = test_call(contexts[t], (i % 2) ? "Broadcast" : "AllReduce", 4096, "ncclFloat32", 0, 0);
    if (h == NULL) atomic_fetch_add_explicit((i % 2) ? &full_broadcasts : &full_allreduces, 1, memory_order_relaxed);
    if (i % 2 == 0) test_handoff_push(&queues[t], h); /* the AllReduces get their Coll event elsewhere */
    /* NCCL takes microseconds per call; faster producers would fill the ledger within the 1 ms
     * expiry, which a_full_ledger_is_counted (test_api_ledger.c) covers. A sweeper starved of CPU
     * (ThreadSanitizer on a loaded machine: 1 run in 300) fills it too: those calls are counted,
     * by kind, and the accounting below holds with them. */
    if ((i & 7) == 7) {
      struct timespec pause = {0, 20000};
      nanosleep(&pause, NULL);
    }
    while ((i & 255) == 255 && nccl_inspector_ring_used_cells() > (1 << 15)) sched_yield();
    /* In the deferred mode the records come from the consumer's replay: pace on its backlog too. */
    while ((i & 63) == 63 && defer_backlog() > DEFER_LOG_UNITS / 8) sched_yield();
  }
  test_handoff_close(&queues[t]);
  return NULL;
}

static void* host_callback(void* arg) {
  int t = (int)(uintptr_t)arg;
  void* api;
  uint64_t seq = 0;
  while (test_handoff_pop(&queues[t], &api)) {
    void* op = test_coll_in(contexts[t], api, "AllReduce", seq++, 4096, "ncclFloat32", 0);
    test_stop(op); /* no channels announced: complete at its stop */
  }
  return NULL;
}

static void count_records(const uint8_t* buf, long long n) {
  for (long long off = 0; off < n;) {
    const op_record* r = (const op_record*)(buf + off);
    if (r->kind == RECORD_KIND_COLL) {
      if (r->flags & RECORD_FLAG_NOT_PROFILED_BY_NCCL) {
        atomic_fetch_add_explicit(&unlinked_records, 1, memory_order_relaxed);
      } else {
        atomic_fetch_add_explicit(&operation_records, 1, memory_order_relaxed);
      }
    }
    off += (long long)r->cells * INSPECTOR_CELL_BYTES;
  }
}

static void* sweeper_and_consumer(void* arg) {
  (void)arg;
  static uint8_t buf[1 << 20];
  while (atomic_load_explicit(&running, memory_order_acquire)) {
    nccl_inspector_sweep();
    count_records(buf, nccl_inspector_drain(buf, sizeof(buf)));
    sched_yield();
  }
  return NULL;
}

static void calls_come_out_exactly_once(void) {
  test_config c = test_defaults();
  c.op_slots = 16384;
  /* Room for the bursts the deferred mode's consumer writes when it catches up (ThreadSanitizer). */
  c.ring_cells = 1 << 18;
  c.expiry_ns = 1000000; /* 1 ms: sweeps race with links */
  test_enable(c);
  for (int t = 0; t < THREADS; t++) {
    contexts[t] = test_comm(0x100 + (uint64_t)t, 0, 2);
    test_handoff_init(&queues[t], QUEUE);
  }
  atomic_store_explicit(&running, 1, memory_order_release);
  pthread_t app[THREADS], cb[THREADS], sweeper;
  pthread_create(&sweeper, NULL, sweeper_and_consumer, NULL);
  for (int t = 0; t < THREADS; t++) {
    pthread_create(&app[t], NULL, application, (void*)(uintptr_t)t);
    pthread_create(&cb[t], NULL, host_callback, (void*)(uintptr_t)t);
  }
  for (int t = 0; t < THREADS; t++) {
    pthread_join(app[t], NULL);
    pthread_join(cb[t], NULL);
  }
  atomic_store_explicit(&running, 0, memory_order_release);
  pthread_join(sweeper, NULL);
  for (int t = 0; t < THREADS; t++) ncclProfiler_v5.finalize(contexts[t]);
  static uint8_t buf[1 << 20];
  long long n;
  nccl_inspector_defer_flush();
  while ((n = nccl_inspector_drain(buf, sizeof(buf))) > 0) count_records(buf, n);
  long long late = test_counter("api_link_late");
  long long calls = (long long)THREADS * CALLS;
  long long full = (long long)full_broadcasts + (long long)full_allreduces;
  printf("     %lld calls: %lld operation records, %lld not profiled, %lld linked late, ledger full %lld\n",
         calls, (long long)operation_records, (long long)unlinked_records, late,
         test_counter("api_ledger_full"));
  CHECK_EQ(operation_records, calls / 2);
  if (!nccl_inspector_deferred_active()) {
    /* Every call the ledger turned away is counted, and only those. */
    CHECK_EQ(test_counter("api_ledger_full"), full);
    /* The Broadcasts the ledger held come out as not-profiled records, plus the AllReduces linked
     * after their call was closed. */
    CHECK_EQ(unlinked_records, calls / 2 - (long long)full_broadcasts + late);
  } else {
    /* The deferred mode hands every call a log handle; whether the ledger took it is known only at
     * its replay, so the turned-away calls are not known by kind here: at most all of them were
     * Broadcasts (which then leave no record). */
    long long turned_away = test_counter("api_ledger_full");
    CHECK(unlinked_records <= calls / 2 + late);
    CHECK(unlinked_records >= calls / 2 - turned_away + late);
  }
  CHECK_EQ(test_counter("not_profiled_by_nccl"), unlinked_records);
  CHECK_EQ(test_counter("ring_full"), 0);
  test_shutdown();
}

int main(void) {
  RUN(calls_come_out_exactly_once);
  return test_failures ? 1 : 0;
}
