/* The recording mode: every callback lands in the trace ring with what NCCL passed. */
#include <string.h>

#include "harness.h"
#include "trace_recorder.h"

static void callbacks_are_recorded_with_their_fields(void) {
  test_enable(test_defaults());
  CHECK_EQ(nccl_inspector_trace_start(1024), 0);
  nccl_inspector_set_virtual_clock(1, 5000, 1795942870000005000ull);
  void* ctx = test_comm(0xfeedull, 1, 4);
  void* op = test_coll(ctx, "AllGather", 17, 2048, "ncclInt8", 1);
  void* ch = test_channel(op, 3, 111);
  test_stop(op);
  test_channel_done(ch, 222);
  ncclProfiler_v5.finalize(ctx);
  static uint8_t buf[1 << 16];
  long long n = nccl_inspector_drain_trace(buf, sizeof buf);
  CHECK_EQ(n, 7 * (long long)sizeof(trace_event)); /* init, start, start, stop, state, stop, fini */
  const trace_event* e = (const trace_event*)buf;
  CHECK_EQ(e[0].ev, TRACE_EV_INIT);
  CHECK_EQ(e[0].a, 0xfeed);
  CHECK_EQ(e[0].rank, 1);
  CHECK_EQ(e[0].nranks, 4);
  CHECK(strcmp(e[0].comm_name, "test") == 0);
  CHECK(e[0].context == (uint64_t)(uintptr_t)ctx);
  CHECK_EQ(e[0].t_mono, 5000);
  CHECK_EQ(e[0].t_wall, 1795942870000005000ull);
  CHECK_EQ(e[1].ev, TRACE_EV_START);
  CHECK_EQ(e[1].type, ncclProfileColl);
  CHECK(e[1].handle == (uint64_t)(uintptr_t)op);
  CHECK_EQ(e[1].a, 17);
  CHECK_EQ(e[1].count, 2048);
  CHECK(strcmp(e[1].func, "AllGather") == 0 && strcmp(e[1].datatype, "ncclInt8") == 0);
  CHECK(strcmp(e[1].algo, "RING") == 0 && strcmp(e[1].proto, "SIMPLE") == 0);
  CHECK_EQ(e[2].type, ncclProfileKernelCh);
  CHECK(e[2].parent == (uint64_t)(uintptr_t)op);
  CHECK_EQ(e[2].channel_id, 3);
  CHECK_EQ(e[2].a, 111);
  CHECK_EQ(e[3].ev, TRACE_EV_STOP);
  CHECK_EQ(e[4].ev, TRACE_EV_STATE);
  CHECK_EQ(e[4].state, ncclProfilerKernelChStop);
  CHECK_EQ(e[4].a, 222);
  CHECK_EQ(e[6].ev, TRACE_EV_FINI);
  CHECK_EQ(e[0].tid, e[6].tid);
  CHECK(e[0].tid != 0);
  /* Off again: nothing more is recorded. */
  nccl_inspector_trace_stop();
  void* ctx2 = test_comm(0xbeef, 0, 2);
  ncclProfiler_v5.finalize(ctx2);
  CHECK_EQ(nccl_inspector_drain_trace(buf, sizeof buf), 0);
  nccl_inspector_set_virtual_clock(0, 0, 0);
  test_shutdown();
}

static void a_full_trace_ring_drops_and_counts(void) {
  test_enable(test_defaults());
  CHECK_EQ(nccl_inspector_trace_start(1024), 0); /* 1024 cells: 341 events */
  void* ctx = test_comm(1, 0, 2);
  for (int i = 0; i < 400; i++) test_stop(NULL);
  CHECK(test_counter("trace_ring_full") > 0);
  ncclProfiler_v5.finalize(ctx);
  test_shutdown();
}

int main(void) {
  RUN(callbacks_are_recorded_with_their_fields);
  RUN(a_full_trace_ring_drops_and_counts);
  if (test_failures) fprintf(stderr, "%d check(s) failed\n", test_failures);
  return test_failures ? 1 : 0;
}
