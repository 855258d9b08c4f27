/* Native-only loop over the exported v5 table, for profiling the core without a JVM: collectives
 * with two kernel channels (8 callbacks each), a consumer thread draining the ring concurrently,
 * the producer paced to keep the ring under a quarter full.
 *
 *   make -C inspector-native bench [OPS=2000000] [SLOTS=2048]
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "harness.h"

static long rss_kib(void) {
  FILE* f = fopen("/proc/self/statm", "r");
  long pages = 0, resident = 0;
  if (f) {
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(f);
  }
  return resident * 4;
}

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000ll + t.tv_nsec;
}

int main(int argc, char** argv) {
  int ops = argc > 1 ? atoi(argv[1]) : 2000000;
  test_config c = test_defaults();
  c.op_slots = argc > 2 ? atoi(argv[2]) : 2048;
  test_enable(c);
  void* ctx = test_comm(3, 0, 8);
  test_drainer_start(100000);
  long long t0 = now_ns();
  long rss_early = 0;
  for (int i = 0; i < ops; i++) {
    if (i == ops / 10) rss_early = rss_kib();
    void* op = test_coll(ctx, "AllReduce", (uint64_t)i, 8192, "ncclFloat32", 2);
    test_stop(op);
    void* a = test_channel(op, 0, 1000 + (uint64_t)i);
    void* b = test_channel(op, 1, 1000 + (uint64_t)i);
    test_channel_done(a, 2000 + (uint64_t)i);
    test_channel_done(b, 2100 + (uint64_t)i);
    if ((i & 1023) == 0) {
      while (nccl_inspector_ring_used_cells() > c.ring_cells / 4) {
      }
    }
  }
  long long t1 = now_ns();
  printf("%.1f ns per callback (%d collectives x 8 callbacks, %d slots), ring_full %lld, "
         "resident set %ld KiB at 10%% of the run, %ld KiB at the end\n",
         (double)(t1 - t0) / (ops * 8.0), ops, c.op_slots, test_counter("ring_full"), rss_early, rss_kib());
  test_drainer_stop();
  ncclProfiler_v5.finalize(ctx);
  test_shutdown();
  return 0;
}
