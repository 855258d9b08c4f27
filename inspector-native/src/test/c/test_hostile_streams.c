/* Odd and hostile event streams: none may crash, leak or corrupt; each odd case is counted by
 * reason, and records built from bad GPU timestamps are quarantined with the reason. */
#include <string.h>

#include "harness.h"
#include "names.h"

static const uint64_t T0 = 1795942870000000000ull;

static test_config permissive(void) {
  test_config c = test_defaults();
  c.require_gpu = 0;
  return c;
}

static op_record op_with_channel(void* ctx, uint64_t gpu_start, uint64_t gpu_stop) {
  void* op = test_coll(ctx, "AllReduce", 0, 4096, "ncclFloat32", 1);
  test_stop(op);
  void* ch = test_channel(op, 0, gpu_start);
  test_channel_done(ch, gpu_stop);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  return d.last;
}

static void bad_gpu_timestamps_are_quarantined_with_the_reason(void) {
  test_config c = test_defaults(); /* GPU timing required: quarantined records still travel */
  test_enable(c);
  void* ctx = test_comm(1, 0, 2);
  (void)test_drain();
  op_record zero = op_with_channel(ctx, 0, T0);
  CHECK(zero.flags & RECORD_FLAG_QUARANTINED);
  CHECK_EQ(zero.quarantine_reason, QUARANTINE_GPU_TIMESTAMP_ZERO);
  op_record zero_stop = op_with_channel(ctx, T0, 0);
  CHECK_EQ(zero_stop.quarantine_reason, QUARANTINE_GPU_TIMESTAMP_ZERO);
  op_record reversed = op_with_channel(ctx, T0 + 100, T0 + 50);
  CHECK_EQ(reversed.quarantine_reason, QUARANTINE_GPU_TIMESTAMP_REVERSED);
  CHECK(reversed.timing_source != TIMING_KERNEL_GPU);
  op_record absurd = op_with_channel(ctx, T0, T0 + 7200ull * 1000000000ull);
  CHECK_EQ(absurd.quarantine_reason, QUARANTINE_GPU_TIMESTAMP_ABSURD);
  op_record fine = op_with_channel(ctx, T0, T0 + 1000);
  CHECK_EQ(fine.quarantine_reason, QUARANTINE_NONE);
  CHECK_EQ(fine.timing_source, TIMING_KERNEL_GPU);
  CHECK_EQ(test_counter("gpu_timestamp_zero"), 2);
  CHECK_EQ(test_counter("gpu_timestamp_reversed"), 1);
  CHECK_EQ(test_counter("gpu_timestamp_absurd"), 1);
  CHECK_EQ(test_counter("no_gpu_timing"), 0);
  ncclProfiler_v5.finalize(ctx);
  test_shutdown();
}

static void events_after_stop_and_on_strange_handles(void) {
  test_enable(permissive());
  void* ctx = test_comm(2, 0, 2);
  (void)test_drain();
  void* op = test_coll(ctx, "AllReduce", 0, 4096, "ncclFloat32", 1);
  void* ch = test_channel(op, 0, T0);
  test_stop(op);
  test_channel_done(ch, T0 + 10); /* completes the operation */
  CHECK_EQ(test_drain().ops, 1);
  long long stale = test_counter("stale_handle");
  test_stop(op);                  /* stop after completion */
  test_channel_done(ch, T0 + 20); /* state and stop after stop */
  ncclProfilerEventStateArgs_v5_t args = {.kernelCh = {T0}};
  ncclProfiler_v5.recordEventState(op, ncclProfilerKernelChStop, &args); /* state on an op handle */
  CHECK_EQ(test_counter("stale_handle") - stale, 3);
  long long invalid = test_counter("invalid_handle");
  /* A kernel-channel stop state on a handle that was never a kernel channel. */
  void* op2 = test_coll(ctx, "AllReduce", 1, 4096, "ncclFloat32", 1);
  ncclProfiler_v5.recordEventState(op2, ncclProfilerKernelChStop, &args);
  ncclProfiler_v5.recordEventState(op2, (ncclProfilerEventState_t)12345, NULL); /* unknown state */
  ncclProfiler_v5.recordEventState(NULL, ncclProfilerKernelChStop, &args);
  ncclProfiler_v5.recordEventState((void*)(uintptr_t)0xdeadbeefcafe, ncclProfilerKernelChStop, NULL);
  ncclProfiler_v5.stopEvent((void*)(uintptr_t)0xfffffffffffffff3ull); /* reads as a thread tag: nothing to stop */
  CHECK_EQ(test_counter("invalid_handle") - invalid, 1);
  /* Unknown type bits and a NULL descriptor. */
  ncclProfilerEventDescr_v5_t d;
  memset(&d, 0, sizeof(d));
  void* h = (void*)1;
  d.type = 1ull << 40;
  ncclProfiler_v5.startEvent(ctx, &h, &d);
  CHECK(h == NULL);
  h = (void*)1;
  ncclProfiler_v5.startEvent(ctx, &h, NULL);
  CHECK(h == NULL);
  ncclProfiler_v5.startEvent(ctx, NULL, &d);
  /* PXN: a proxy event from another process's context with a parent that is not ours. */
  d.type = ncclProfileProxyOp;
  d.parentObj = (void*)(uintptr_t)0x7f0000001234ull;
  d.proxyOp.pid = 999999;
  ncclProfiler_v5.startEvent(ctx, &h, &d);
  CHECK(h == NULL);
  test_stop(op2);
  ncclProfiler_v5.finalize(ctx);
  test_shutdown();
}

static void null_strings_and_odd_channel_counts(void) {
  test_enable(permissive());
  void* ctx = test_comm(3, 0, 2);
  (void)test_drain();
  ncclProfilerEventDescr_v5_t d;
  memset(&d, 0, sizeof(d));
  d.type = ncclProfileColl;
  d.coll.count = 1024;
  d.coll.datatype = "ncclInt8";
  d.coll.nChannels = 0; /* func, algo, proto NULL */
  void* h = NULL;
  ncclProfiler_v5.startEvent(ctx, &h, &d);
  CHECK(h != NULL);
  test_stop(h);
  decoded got = test_drain();
  CHECK_EQ(got.ops, 1);
  CHECK_EQ(got.last.func, FUNC_NONE); /* named "Unknown" */
  CHECK_EQ(got.last.algo, ALGO_NONE);
  CHECK_EQ(test_counter("null_operation_name"), 1);
  /* More channels than announced: all are timed, the record is flagged. */
  void* op = test_coll(ctx, "AllGather", 0, 1 << 20, "ncclInt8", 1);
  void* a = test_channel(op, 0, T0);
  void* b = test_channel(op, 9, T0 + 5);
  test_stop(op);
  test_channel_done(b, T0 + 100);
  test_channel_done(a, T0 + 50); /* the announced count is reached at the first channel's stop */
  got = test_drain();
  CHECK_EQ(got.ops, 1);
  CHECK(got.last.flags & RECORD_FLAG_EXTRA_CHANNELS);
  CHECK_EQ(got.last.channels_seen, 2);
  /* More than the 64 channels an operation can have. */
  void* many = test_coll(ctx, "AllReduce", 1, 1 << 20, "ncclInt8", 64);
  void* chs[64];
  for (int i = 0; i < 64; i++) chs[i] = test_channel(many, i, T0);
  void* extra = test_channel(many, 64, T0);
  /* The deferred mode hands out a log handle at once; its replay counts the same. */
  if (!nccl_inspector_deferred_active()) CHECK(extra == NULL);
  CHECK_EQ(test_counter("too_many_channels"), 1);
  test_stop(many);
  for (int i = 0; i < 64; i++) test_channel_done(chs[i], T0 + 1 + (uint64_t)i);
  got = test_drain();
  CHECK_EQ(got.ops, 1);
  CHECK_EQ(got.last.exec_ns, 64);
  ncclProfiler_v5.finalize(ctx);
  test_shutdown();
}

static void thousands_of_communicators(void) {
  test_config c = permissive();
  c.comm_slots = 64;
  test_enable(c);
  long long records = 0;
  for (int round = 0; round < 5000; round++) {
    void* ctx = test_comm(0x1000u + (uint64_t)round, round % 8, 8);
    CHECK(ctx != NULL);
    void* op = test_coll(ctx, "AllReduce", 0, 4096, "ncclFloat32", 0);
    test_stop(op);
    ncclProfiler_v5.finalize(ctx);
    if (round % 100 == 99) records += test_drain().ops;
  }
  records += test_drain().ops;
  CHECK_EQ(records, 5000);
  CHECK_EQ(nccl_inspector_live_comms(), 0);
  /* A full table: the next communicator gets no context, and that is counted. */
  void* live[64];
  for (int i = 0; i < 64; i++) live[i] = test_comm(0x9000u + (uint64_t)i, 0, 2);
  CHECK(test_comm(0xffff, 0, 2) == NULL);
  CHECK_EQ(test_counter("comm_table_full"), 1);
  for (int i = 0; i < 64; i++) ncclProfiler_v5.finalize(live[i]);
  test_shutdown();
}

int main(void) {
  RUN(bad_gpu_timestamps_are_quarantined_with_the_reason);
  RUN(events_after_stop_and_on_strange_handles);
  RUN(null_strings_and_odd_channel_counts);
  RUN(thousands_of_communicators);
  if (test_failures) fprintf(stderr, "%d check(s) failed\n", test_failures);
  return test_failures ? 1 : 0;
}
