/* Channel recovery under concurrency: application threads that launch collectives and sends/
 * receives to self (the channels lag), proxy threads up to 100 operations behind (so that readings
 * fail the launch-bound guard and go through the causal and order tests, the launch windows and the
 * parked readings, channel_recovery.c), and a consumer draining. Each reading carries the
 * timestamps of the newest launched item of its slot, as NCCL's ring would. Every collective must
 * come out exactly once, however its channels were judged. Built also with ThreadSanitizer. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "harness.h"

#define COMMS 2
#define OPS_PER_COMM 6000
#define QUEUE 100

static const uint64_t T0 = 1795942870000000000ull;

typedef struct pending {
  void* op;
  uint32_t base; /* its host count on channels 0 and 1 */
} pending;

static pending slots[COMMS][OPS_PER_COMM];
static test_handoff queues[COMMS];
static void* contexts[COMMS];
static _Atomic uint32_t launched_items[COMMS]; /* device items launched on channels 0 and 1 */
static _Atomic long long read_ops[COMMS];         /* operations the proxy thread has read */
static _Atomic int app_done[COMMS];
static _Atomic long long collectives[COMMS];
static _Atomic int producers_done;
static _Atomic long long drained_colls;

static void* application(void* arg) {
  int c = (int)(uintptr_t)arg;
  uint32_t host = 0;
  for (int i = 0; i < OPS_PER_COMM; i++) {
    test_launch(contexts[c]);
    if (i % 8 == 7) {
      /* A round to self: one device item on each channel, no host count. */
      void* s = test_p2p(contexts[c], "Send", 0, 65536, 2);
      void* r = test_p2p(contexts[c], "Recv", 0, 65536, 2);
      if (s != NULL) test_stop(s);
      if (r != NULL) test_stop(r);
      atomic_fetch_add(&launched_items[c], 1);
      continue;
    }
    void* op = test_coll(contexts[c], "AllReduce", (uint64_t)i, 65536, "ncclFloat32", 2);
    if (op == NULL) abort();
    host++;
    /* Release: the proxy thread that sees the count sees the item launched. */
    atomic_fetch_add_explicit(&launched_items[c], 1, memory_order_release);
    atomic_fetch_add(&collectives[c], 1);
    test_stop(op);
    slots[c][i] = (pending){op, host};
    test_handoff_push(&queues[c], &slots[c][i]);
    /* In the first half the proxy thread stays fewer than 32 operations behind (its readings pass
     * the launch-bound guard and are handed on, whatever the scheduling); in the second half it
     * falls 80 to QUEUE behind (readings read late: resolution, parking). */
    if (i < OPS_PER_COMM / 2) {
      while (atomic_load(&collectives[c]) - atomic_load(&read_ops[c]) > 32) sched_yield();
    }
    while ((i & 255) == 255 && nccl_inspector_ring_used_cells() > (1 << 15)) sched_yield();
  }
  atomic_store(&app_done[c], 1);
  test_handoff_close(&queues[c]);
  return NULL;
}

static void* proxy(void* arg) {
  int c = (int)(uintptr_t)arg;
  void* h;
  while (test_handoff_pop(&queues[c], &h)) {
    pending* p = h;
    /* In the second half the proxy thread reads only once the application is 80 collectives
     * ahead (or done): its readings are read late, whatever the scheduling. */
    if (p - slots[c] >= OPS_PER_COMM / 2) {
      while (atomic_load(&collectives[c]) - atomic_load(&read_ops[c]) < 80 && !atomic_load(&app_done[c])) {
        sched_yield();
      }
    }
    /* NCCL reads slot base % 64: it holds the newest launched item of that slot. */
    uint32_t launched = atomic_load_explicit(&launched_items[c], memory_order_acquire);
    uint32_t item = p->base + (launched - p->base) / 64 * 64;
    uint64_t start = T0 + (uint64_t)item * 1000;
    void* a = test_channel(p->op, 0, start);
    void* b = test_channel(p->op, 1, start + 3);
    test_channel_done(a, start + 500); /* records the stop timestamp and stops the channel */
    test_channel_done(b, start + 497);
    atomic_fetch_add(&read_ops[c], 1);
  }
  return NULL;
}

static void* consumer(void* arg) {
  static uint8_t buf[1 << 20];
  for (;;) {
    int finished = atomic_load(&producers_done) == COMMS;
    if (finished) nccl_inspector_defer_flush();
    long long n = nccl_inspector_drain(buf, sizeof buf);
    for (long long off = 0; off < n;) {
      const op_record* r = (const op_record*)(buf + off);
      if (r->kind == RECORD_KIND_COLL) atomic_fetch_add(&drained_colls, 1);
      off += (long long)r->cells * INSPECTOR_CELL_BYTES;
    }
    if (finished && n == 0) break;
    nccl_inspector_sweep();
  }
  return arg;
}

static void every_collective_comes_out_once_while_channels_lag_and_are_read_late(void) {
  test_config cfg = test_defaults();
  cfg.op_slots = 4096;
  cfg.ring_cells = 1 << 16;
  cfg.expiry_ns = 60ll * 1000000000ll;
  cfg.min_size = 4096;
  test_enable(cfg);
  for (int c = 0; c < COMMS; c++) {
    test_handoff_init(&queues[c], QUEUE);
    contexts[c] = test_comm(0x200u + (uint64_t)c, 0, 2);
  }
  pthread_t apps[COMMS], proxies[COMMS], drain;
  pthread_create(&drain, NULL, consumer, NULL);
  for (int c = 0; c < COMMS; c++) {
    pthread_create(&proxies[c], NULL, proxy, (void*)(uintptr_t)c);
    pthread_create(&apps[c], NULL, application, (void*)(uintptr_t)c);
  }
  for (int c = 0; c < COMMS; c++) {
    pthread_join(apps[c], NULL);
    pthread_join(proxies[c], NULL);
  }
  /* Operations still waiting for a reading (their reader's never came) close at finalize. */
  for (int c = 0; c < COMMS; c++) ncclProfiler_v5.finalize(contexts[c]);
  atomic_store(&producers_done, COMMS);
  pthread_join(drain, NULL);
  (void)test_drain();
  long long total = 0;
  for (int c = 0; c < COMMS; c++) total += atomic_load(&collectives[c]);
  CHECK_EQ(atomic_load(&drained_colls), total);
  CHECK_EQ(test_counter("ring_full"), 0);
  CHECK_EQ(test_counter("stale_handle"), 0);
  CHECK_EQ(test_counter("evicted_table_full"), 0);
  CHECK_EQ(test_counter("recovery_off"), 0);
  /* The paths under test were taken. */
  CHECK(test_counter("recovered_channels") > 0);
  CHECK(test_counter("recovery_order_placed") + test_counter("recovery_parked") > 0);
  fprintf(stderr, "     %lld collectives; recovered %lld, causal %lld, order %lld, window %lld, parked %lld (placed %lld), found %lld, lost %lld\n",
          total, test_counter("recovered_channels"), test_counter("recovery_causal_placed"),
          test_counter("recovery_order_placed"), test_counter("recovery_window_placed"),
          test_counter("recovery_parked"), test_counter("recovery_parked_placed"),
          test_counter("recovery_found_placed"), test_counter("recovery_lost_slot_reused"));
  test_shutdown();
}

int main(void) {
  RUN(every_collective_comes_out_once_while_channels_lag_and_are_read_late);
  return test_failures ? 1 : 0;
}
