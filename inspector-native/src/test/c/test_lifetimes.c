/* Event lifetimes through the exported v5 table: the cases where the reference plugins leak,
 * crash or lose records. */
#include <string.h>
#include <sys/resource.h>

#include "core_state.h"
#include "handles.h"
#include "inflight_query.h"
#include "names.h"
#include "harness.h"
#include "op_table.h"

static const uint64_t T0 = 1795942870000000000ull;

static void coll_stopped_before_its_channels_start(void) {
  test_enable(test_defaults());
  void* ctx = test_comm(0xabcdef0123456789ull, 0, 2);
  CHECK(ctx != NULL);
  void* op = test_coll(ctx, "AllReduce", 7, 262144, "ncclFloat32", 2);
  CHECK(op != NULL);
  test_stop(op); /* enqueue done: the operation must stay valid for its channels */
  void* c1 = test_channel(op, 1, T0 + 1000);
  void* c0 = test_channel(op, 0, T0 + 2000);
  CHECK(c0 != NULL && c1 != NULL);
  test_channel_done(c1, T0 + 9000);
  decoded early = test_drain();
  CHECK_EQ(early.ops, 0); /* one channel still running */
  CHECK_EQ(early.comms_created, 1);
  test_channel_done(c0, T0 + 5000);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(d.last.timing_source, TIMING_KERNEL_GPU);
  CHECK_EQ(d.last.exec_ns, 8000);      /* longest channel: 9000 - 1000 */
  CHECK_EQ(d.last.gpu_start_ns, T0 + 1000);
  CHECK_EQ(d.last.gpu_span_ns, 8000);
  CHECK_EQ(d.last.bytes, 262144 * 4);
  CHECK_EQ(d.last.seq, 7);
  CHECK_EQ(d.last.comm_id, (long long)0xabcdef0123456789ull);
  CHECK_EQ(d.last.channels_seen, 2);
  CHECK_EQ(d.last.func, FUNC_ALL_REDUCE);
  ncclProfiler_v5.finalize(ctx);
  CHECK_EQ(test_drain().comms_destroyed, 1);
  test_shutdown();
}

static void channels_finishing_before_the_stop(void) {
  test_enable(test_defaults());
  void* ctx = test_comm(1, 0, 2);
  void* op = test_coll(ctx, "AllGather", 0, 1 << 20, "ncclInt8", 1);
  void* c = test_channel(op, 5, T0);
  test_channel_done(c, T0 + 100);
  CHECK_EQ(test_drain().ops, 0);
  test_stop(op);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(d.last.exec_ns, 100);
  ncclProfiler_v5.finalize(ctx);
  test_shutdown();
}

static void events_for_recycled_handles_are_dropped_and_counted(void) {
  test_config cfg = test_defaults();
  cfg.op_slots = 4;
  test_enable(cfg);
  void* ctx = test_comm(2, 0, 2);
  void* old_op = test_coll(ctx, "AllReduce", 0, 4096, "ncclFloat32", 1);
  void* old_ch = test_channel(old_op, 0, T0);
  test_stop(old_op);
  test_channel_done(old_ch, T0 + 10);
  CHECK_EQ(test_drain().ops, 1);
  /* Reuse every slot, including the old operation's. */
  void* live[4];
  for (int i = 0; i < 4; i++) live[i] = test_coll(ctx, "AllReduce", (uint64_t)i + 1, 4096, "ncclFloat32", 1);
  long long stale_before = test_counter("stale_handle");
  test_stop(old_op);                 /* the old operation again */
  test_channel_done(old_ch, T0 + 99); /* its channel again (record + stop) */
  void* late_ch = test_channel(old_op, 3, T0);
  /* The deferred mode hands out a log handle at once; its replay finds the parent stale all the same. */
  if (!nccl_inspector_deferred_active()) CHECK(late_ch == NULL);
  CHECK_EQ(test_counter("stale_handle") - stale_before, 4);
  /* The live operations are untouched: each completes normally with its own data. */
  for (int i = 0; i < 4; i++) {
    void* ch = test_channel(live[i], 0, T0 + 1000);
    test_stop(live[i]);
    test_channel_done(ch, T0 + 1000 + 10 * (i + 1));
  }
  decoded d = test_drain();
  CHECK_EQ(d.ops, 4);
  CHECK_EQ(d.last.exec_ns, 40);
  CHECK_EQ(d.last.seq, 4);
  /* A value that was never a handle is recognised as such. */
  long long invalid_before = test_counter("invalid_handle");
  test_stop((void*)(uintptr_t)0x1234564); /* tag bits 0 (an API ledger entry) with an index beyond the ledger */
  CHECK_EQ(test_counter("invalid_handle") - invalid_before, 1);
  ncclProfiler_v5.finalize(ctx);
  test_shutdown();
}

static long rss_kb(void) {
  FILE* f = fopen("/proc/self/statm", "r");
  long pages = 0, resident = 0;
  if (f) {
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(f);
  }
  return resident * 4;
}

/* A million collectives whose kernel channels never come (no KernelCh, no proxy events): memory
 * stays flat and every one is either written with CPU timing or counted, as configured. */
static void million_collectives_without_children(int require_gpu) {
  test_config cfg = test_defaults();
  cfg.require_gpu = require_gpu;
  test_enable(cfg);
  void* ctx = test_comm(3, 0, 8);
  const int total = 1000000;
  long long written = 0;
  long rss_after_warmup = 0;
  for (int i = 0; i < total; i++) {
    void* op = test_coll(ctx, "AllReduce", (uint64_t)i, 8192, "ncclFloat32", 2);
    test_stop(op);
    if ((i & 4095) == 4095) written += test_drain().ops;
    if (i == 100000) rss_after_warmup = rss_kb();
  }
  long rss_end = rss_kb();
  ncclProfiler_v5.finalize(ctx); /* flushes what is still in flight */
  written += test_drain().ops;
  long long evicted = test_counter("evicted_table_full");
  long long flushed = test_counter("flushed_at_finalize");
  long long no_gpu = test_counter("no_gpu_timing");
  long long ring_full = test_counter("ring_full");
  CHECK_EQ(evicted + flushed, total);
  CHECK_EQ(ring_full, 0);
  if (require_gpu) {
    CHECK_EQ(written, 0);
    CHECK_EQ(no_gpu, total);
  } else {
    CHECK_EQ(written, total);
    CHECK_EQ(no_gpu, 0);
  }
  CHECK(rss_end - rss_after_warmup < 512); /* KiB: nothing grows per collective */
  printf("     1M collectives without children (require_gpu=%d): written %lld, evicted %lld, "
         "flushed %lld, rss %ld -> %ld KiB\n", require_gpu, written, evicted, flushed,
         rss_after_warmup, rss_end);
  test_shutdown();
}

static void million_without_children_written(void) { million_collectives_without_children(0); }
static void million_without_children_counted(void) { million_collectives_without_children(1); }

static void operations_that_never_get_channels_complete_at_stop(void) {
  test_enable(test_defaults());
  void* ctx = test_comm(4, 1, 2);
  void* self = test_p2p(ctx, "Send", 1, 1 << 20, 2); /* peer == own rank */
  void* none = test_coll(ctx, "AllReduce", 0, 4096, "ncclFloat32", 0);
  test_stop(self);
  test_stop(none);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 2);
  CHECK_EQ(d.last.timing_source, TIMING_COLLECTIVE_CPU);
  CHECK(d.last.flags & RECORD_FLAG_NO_KERNEL_EVENTS);
  CHECK_EQ(test_counter("completed_without_kernel"), 2);
  ncclProfiler_v5.finalize(ctx);
  test_shutdown();
}

static void finalize_flushes_operations_in_flight(void) {
  test_enable(test_defaults());
  void* ctx = test_comm(5, 0, 2);
  void* op = test_coll(ctx, "ReduceScatter", 3, 1 << 16, "ncclBfloat16", 2);
  void* ch = test_channel(op, 0, T0);
  test_stop(op);
  ncclProfiler_v5.finalize(ctx);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK(d.last.flags & RECORD_FLAG_INCOMPLETE);
  CHECK(d.last.flags & RECORD_FLAG_FLUSHED);
  CHECK_EQ(d.comms_destroyed, 1);
  /* Events after finalize find nothing: counted, not crashed. */
  long long stale = test_counter("stale_handle");
  test_channel_done(ch, T0 + 5);
  CHECK_EQ(test_counter("stale_handle") - stale, 2);
  long long unknown = test_counter("unknown_context");
  void* late_op = test_coll(ctx, "AllReduce", 4, 4096, "ncclFloat32", 1);
  /* The deferred mode hands out a log handle at once; its replay finds the context gone all the same. */
  if (!nccl_inspector_deferred_active()) CHECK(late_op == NULL);
  ncclProfiler_v5.finalize(ctx); /* double finalize */
  CHECK_EQ(test_counter("unknown_context") - unknown, 2);
  test_shutdown();
}

static void filters_and_odd_descriptors(void) {
  test_config cfg = test_defaults();
  cfg.min_size = 8192;
  test_enable(cfg);
  void* ctx = test_comm(6, 0, 2);
  CHECK(test_coll(ctx, "AllReduce", 0, 1024, "ncclFloat32", 1) == NULL); /* 4 KiB < 8 KiB */
  CHECK_EQ(test_counter("below_min_size"), 1);
  CHECK(test_coll(ctx, "AllReduce", 1, 1 << 20, "ncclMystery", 1) == NULL);
  CHECK(test_coll(ctx, "AllReduce", 2, 1 << 20, NULL, 1) == NULL);
  CHECK_EQ(test_counter("unknown_datatype"), 2);
  void* u8 = test_coll(ctx, "AllReduce", 3, 10000, "Unknown", 0); /* NCCL 2.28's name for uint8 */
  test_stop(u8);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(d.last.bytes, 10000);
  CHECK(d.last.flags & RECORD_FLAG_UINT8_AS_UNKNOWN);
  void* op = test_coll(ctx, "AllReduce", 4, 1 << 20, "ncclFloat32", 1);
  test_stop(op);
  test_stop(op);
  CHECK_EQ(test_counter("duplicate_stop"), 1);
  void* ch = test_channel(op, 0, T0);
  test_channel_done(ch, T0 + 50);
  CHECK_EQ(test_drain().ops, 1);
  CHECK(test_coll(NULL, "AllReduce", 5, 1 << 20, "ncclFloat32", 1) == NULL);
  ncclProfiler_v5.finalize(ctx);
  test_shutdown();
}

static void init_after_full_finalize_and_reenable(void) {
  for (int round = 0; round < 3; round++) {
    test_enable(test_defaults());
    void* a = test_comm(100 + (uint64_t)round, 0, 2);
    void* b = test_comm(200 + (uint64_t)round, 1, 2);
    CHECK(a != NULL && b != NULL);
    ncclProfiler_v5.finalize(a);
    ncclProfiler_v5.finalize(b);
    void* c = test_comm(300 + (uint64_t)round, 0, 2); /* NCCL's next load cycle */
    void* op = test_coll(c, "AllReduce", 0, 4096, "ncclFloat32", 0);
    test_stop(op);
    decoded d = test_drain();
    CHECK_EQ(d.comms_created, 3);
    CHECK_EQ(d.ops, 1);
    ncclProfiler_v5.finalize(c);
    test_shutdown();
    CHECK_EQ(nccl_inspector_state(), 0);
  }
  /* A communicator that outlives close keeps the tables until it is finalized. */
  test_enable(test_defaults());
  void* survivor = test_comm(400, 0, 2);
  test_shutdown();
  CHECK_EQ(nccl_inspector_state(), 3);
  CHECK(test_coll(survivor, "AllReduce", 0, 4096, "ncclFloat32", 0) == NULL);
  ncclProfiler_v5.finalize(survivor);
  CHECK_EQ(nccl_inspector_state(), 0);
  /* Not enabled: NCCL gets a NULL context and nothing is tracked. */
  CHECK(test_comm(401, 0, 2) == NULL);
}

static void expiry_closes_operations_that_no_channel_joined(void) {
  test_config cfg = test_defaults();
  cfg.expiry_ns = 1000000000ll; /* 1 s */
  test_enable(cfg);
  nccl_inspector_set_virtual_clock(1, 1000000000ull, T0);
  void* ctx = test_comm(7, 0, 2);
  void* lonely = test_coll(ctx, "AllReduce", 0, 4096, "ncclFloat32", 2);
  test_stop(lonely);
  void* busy = test_coll(ctx, "AllReduce", 1, 4096, "ncclFloat32", 2);
  void* ch = test_channel(busy, 0, T0);
  test_stop(busy);
  nccl_inspector_set_virtual_clock(1, 1500000000ull, T0 + 500000000ull);
  CHECK_EQ(nccl_inspector_sweep(), 0);
  nccl_inspector_set_virtual_clock(1, 2500000000ull, T0 + 1500000000ull);
  CHECK_EQ(nccl_inspector_sweep(), 1); /* only the one that no channel joined */
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK(d.last.flags & RECORD_FLAG_EXPIRED);
  CHECK_EQ(test_counter("expired_no_kernel"), 1);
  test_channel_done(ch, T0 + 10);
  void* ch1 = test_channel(busy, 1, T0);
  test_channel_done(ch1, T0 + 20);
  CHECK_EQ(test_drain().ops, 1);
  ncclProfiler_v5.finalize(ctx);
  test_shutdown();
  nccl_inspector_set_virtual_clock(0, 0, 0);
}

/* The sweep, the finalize's flush and the in-flight query visit the slots up to the highest ever
 * claimed (op_table_used_bound), not the whole table. 40 operations in flight at once take slots
 * 0..39; the one left open in the highest of them is still expired by the sweep, and a later one,
 * back in a low slot, is flushed at finalize; slots above stay unvisited. */
static void scans_reach_the_highest_slot_used(void) {
  test_config cfg = test_defaults();
  cfg.expiry_ns = 1000000000ll; /* 1 s */
  test_enable(cfg);
  nccl_inspector_set_virtual_clock(1, 1000000000ull, T0);
  void* ctx = test_comm(9, 0, 2);
  (void)test_drain();
  /* A fresh table (first in main; a test that leaves a communicator live keeps the tables). */
  CHECK_EQ(atomic_load(&g_core.ops.used_bound), 0);
  void* ops[40];
  for (int i = 0; i < 40; i++) ops[i] = test_coll(ctx, "AllReduce", (uint64_t)i, 4096, "ncclFloat32", 1);
  nccl_inspector_defer_flush();
  CHECK_EQ(atomic_load(&g_core.ops.used_bound), 40);
  uint32_t top = 0;
  for (int i = 0; i < 40; i++) {
    if (handle_index(defer_core_handle(ops[i])) > handle_index(defer_core_handle(ops[top]))) top = (uint32_t)i;
  }
  CHECK_EQ(handle_index(defer_core_handle(ops[top])), 39);
  for (int i = 0; i < 40; i++) {
    if ((uint32_t)i == top) continue;
    void* ch = test_channel(ops[i], 0, T0);
    test_stop(ops[i]);
    test_channel_done(ch, T0 + 10);
    test_stop(ch);
  }
  CHECK_EQ(test_drain().ops, 39);
  test_stop(ops[top]); /* no channel will come */
  nccl_inspector_set_virtual_clock(1, 1200000000ull, T0 + 200000000ull);
  inflight_entry e[4];
  CHECK_EQ(nccl_inspector_inflight(0, e, 4), 1);
  nccl_inspector_set_virtual_clock(1, 2500000000ull, T0 + 1500000000ull);
  CHECK_EQ(nccl_inspector_sweep(), 1);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK(d.last.flags & RECORD_FLAG_EXPIRED);
  void* late = test_coll(ctx, "AllGather", 40, 4096, "ncclFloat32", 1);
  CHECK(handle_index(defer_core_handle(late)) < 40);
  test_stop(late);
  ncclProfiler_v5.finalize(ctx);
  d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK(d.last.flags & RECORD_FLAG_FLUSHED);
  CHECK_EQ(atomic_load(&g_core.ops.used_bound), 40);
  test_shutdown();
  nccl_inspector_set_virtual_clock(0, 0, 0);
}

static void verbose_records_carry_their_channels(void) {
  test_config cfg = test_defaults();
  cfg.verbose = 1;
  test_enable(cfg);
  void* ctx = test_comm(8, 0, 2);
  void* op = test_p2p(ctx, "Recv", 1, 1 << 20, 2);
  void* a = test_channel(op, 6, T0 + 1);
  void* b = test_channel(op, 7, T0 + 2);
  test_stop(op);
  test_channel_done(b, T0 + 30);
  test_channel_done(a, T0 + 20);
  static uint8_t buf[1 << 16];
  nccl_inspector_defer_flush();
  long long n = nccl_inspector_drain(buf, sizeof(buf));
  const op_record* r = NULL;
  for (long long off = 0; off < n;) {
    const op_record* x = (const op_record*)(buf + off);
    if (x->kind == RECORD_KIND_P2P) r = x;
    off += (long long)x->cells * INSPECTOR_CELL_BYTES;
  }
  CHECK(r != NULL);
  if (r != NULL) {
    CHECK_EQ(r->cells, 5);
    const channel_record* ch = (const channel_record*)((const uint8_t*)r + sizeof(op_record));
    CHECK_EQ(ch[0].channel_id, 6);
    CHECK_EQ(ch[1].channel_id, 7);
    CHECK_EQ(ch[0].gpu_stop_ns - ch[0].gpu_start_ns, 19);
    CHECK_EQ(r->start_sn, 1);
    CHECK_EQ(r->stop_sn, 4);
    CHECK_EQ(ch[1].stop_sn, 6);
    CHECK_EQ(r->exec_ns, 28);
  }
  ncclProfiler_v5.finalize(ctx);
  test_shutdown();
}

int main(void) {
  RUN(scans_reach_the_highest_slot_used);
  RUN(coll_stopped_before_its_channels_start);
  RUN(channels_finishing_before_the_stop);
  RUN(events_for_recycled_handles_are_dropped_and_counted);
  RUN(million_without_children_written);
  RUN(million_without_children_counted);
  RUN(operations_that_never_get_channels_complete_at_stop);
  RUN(finalize_flushes_operations_in_flight);
  RUN(filters_and_odd_descriptors);
  RUN(init_after_full_finalize_and_reenable);
  RUN(expiry_closes_operations_that_no_channel_joined);
  RUN(verbose_records_carry_their_channels);
  if (test_failures) fprintf(stderr, "%d check(s) failed\n", test_failures);
  return test_failures ? 1 : 0;
}
