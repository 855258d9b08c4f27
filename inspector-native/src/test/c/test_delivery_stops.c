/* NCCL that stops delivering kernel events (2.29-2.30 after a Broadcast on their AllGatherV path):
 * operations whose announced channels never come, on a communicator whose operations got them
 * before, are untimed and quarantined as kernel_events_missing, whatever the GPU-timing filter;
 * before the communicator ever got kernel events, an expired operation is an ordinary one. */
#include <string.h>

#include "harness.h"

static const uint64_t SEC = 1000000000ull;
static const uint64_t T0 = 1795942870000000000ull;

static void at(uint64_t mono) { nccl_inspector_set_virtual_clock(1, mono, T0 + mono); }

static void missing_channels_after_delivered_ones_are_quarantined(void) {
  at(SEC);
  test_config c = test_defaults();
  c.expiry_ns = (long long)(10 * SEC);
  c.require_gpu = 1; /* the default: untimed records would be dropped, these are not */
  test_enable(c);
  void* ctx = test_comm(0x99, 0, 2);
  (void)test_drain();
  /* Before any kernel event: an operation whose channels never come expires as before (dropped
   * by the GPU-timing filter, counted). */
  void* early = test_coll(ctx, "AllReduce", 0, 4096, "ncclFloat32", 2);
  test_stop(early);
  at(12 * SEC);
  nccl_inspector_sweep();
  CHECK_EQ(test_drain().ops, 0);
  CHECK_EQ(test_counter("no_gpu_timing"), 1);
  /* One with its channels. */
  void* ok = test_coll(ctx, "AllReduce", 1, 4096, "ncclFloat32", 1);
  void* ch = test_channel(ok, 0, T0 + 12 * SEC);
  test_stop(ok);
  test_channel_done(ch, T0 + 12 * SEC + 5000);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(d.last.quarantine_reason, QUARANTINE_NONE);
  /* Then three that announce channels and get none. */
  for (int i = 0; i < 3; i++) test_stop(test_coll(ctx, "AllReduce", 2 + (uint64_t)i, 4096, "ncclFloat32", 2));
  at(25 * SEC);
  nccl_inspector_sweep();
  d = test_drain();
  CHECK_EQ(d.ops, 3);
  CHECK_EQ(d.last.quarantine_reason, QUARANTINE_KERNEL_EVENTS_MISSING);
  CHECK_EQ(d.last.timing_source, 0);
  CHECK_EQ(d.last.exec_ns, 0);
  CHECK(d.last.flags & RECORD_FLAG_QUARANTINED);
  CHECK(d.last.flags & RECORD_FLAG_EXPIRED);
  CHECK_EQ(test_counter("kernel_events_missing"), 3);
  /* An operation without channels announced (complete at stop) is not one of them. */
  test_stop(test_coll(ctx, "AllReduce", 9, 4096, "ncclFloat32", 0));
  CHECK_EQ(test_drain().ops, 0);
  CHECK_EQ(test_counter("kernel_events_missing"), 3);
  ncclProfiler_v5.finalize(ctx);
  test_shutdown();
  nccl_inspector_set_virtual_clock(0, 0, 0);
}

int main(void) {
  RUN(missing_channels_after_delivered_ones_are_quarantined);
  return test_failures ? 1 : 0;
}
