/* Every collective call appears in the output (api_ledger.h): calls linked to their operation
 * event, calls NCCL gives no operation event (NCCL >= 2.29's Broadcast), numbering, bounds. */
#include <stdint.h>

#include "harness.h"

#include "driver/profiler_table_driver.h"

/* The NCCL release the core asks for (nccl_release.h): the table driver linked into this
 * executable stands in for NCCL and exports ncclGetVersion (the test is linked with -rdynamic). */
static void nccl_release(int code) { profiler_driver_set_nccl_version(code); }

static const uint64_t SEC = 1000000000ull;
static uint64_t now_mono = SEC;

static void at(uint64_t mono) {
  now_mono = mono;
  nccl_inspector_set_virtual_clock(1, mono, 1795942870000000000ull + mono);
}

static void* coll_of(void* ctx, void* api, const char* func, uint64_t seq, uint64_t count) {
  return test_coll_in(ctx, api, func, seq, count, "ncclFloat32", 0);
}

static test_config with_expiry(void) {
  test_config c = test_defaults();
  c.expiry_ns = (long long)(10 * SEC);
  return c;
}

/* The communicator's record says which NCCL release runs it (nccl_release.h). */
static int32_t created_release(void) {
  static uint8_t buf[1 << 16];
  int32_t release = -1;
  nccl_inspector_defer_flush();
  long long n = nccl_inspector_drain(buf, sizeof(buf));
  for (long long off = 0; off < n;) {
    const comm_record* r = (const comm_record*)(buf + off);
    if (r->kind == RECORD_KIND_COMM_CREATED) release = r->nccl_version;
    off += (long long)r->cells * INSPECTOR_CELL_BYTES;
  }
  return release;
}

static void linked_calls_give_one_record_each(void) {
  nccl_release(22809);
  at(SEC);
  test_enable(with_expiry());
  void* ctx = test_comm(0x11, 0, 2);
  CHECK_EQ(created_release(), 22809);
  for (int i = 0; i < 3; i++) {
    void* api = test_call(ctx, "AllReduce", 1024, "ncclFloat32", 0, 0);
    CHECK(api != NULL);
    void* op = coll_of(ctx, api, "AllReduce", (uint64_t)i, 1024);
    test_stop(op); /* no channels announced: complete at its stop */
    decoded d = test_drain();
    CHECK_EQ(d.ops, 1);
    CHECK_EQ(d.last.api_sn, i);
    CHECK(!(d.last.flags & RECORD_FLAG_NOT_PROFILED_BY_NCCL));
  }
  at(60 * SEC);
  CHECK_EQ(nccl_inspector_sweep(), 0);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 0); /* nothing left unlinked */
  ncclProfiler_v5.finalize(ctx);
  d = test_drain();
  CHECK_EQ(d.ops, 0);
  CHECK_EQ(test_counter("not_profiled_by_nccl"), 0);
  test_shutdown();
  nccl_inspector_set_virtual_clock(0, 0, 0);
}

/* NCCL 2.29+ Broadcast: CollApi only. Recorded at the expiry, untimed, with the known reason;
 * numbered per operation like NCCL's seqNumber. */
static void broadcast_without_events_is_recorded_at_expiry(void) {
  nccl_release(23007);
  at(SEC);
  test_enable(with_expiry());
  void* ctx = test_comm(0x22, 1, 2);
  CHECK_EQ(created_release(), 23007);
  void* ar = test_call(ctx, "AllReduce", 256, "ncclFloat32", 0, 0);
  test_stop(coll_of(ctx, ar, "AllReduce", 0, 256));
  (void)test_drain();
  at(2 * SEC);
  (void)test_call(ctx, "Broadcast", 1 << 20, "ncclBfloat16", 1, 0);
  (void)test_call(ctx, "Broadcast", 1 << 18, "ncclBfloat16", 0, 0);
  at(11 * SEC); /* 9 s after the calls: not yet */
  nccl_inspector_sweep();
  CHECK_EQ(test_drain().ops, 0);
  nccl_inspector_defer_flush();
  at(12 * SEC + 1);
  nccl_inspector_sweep();
  static uint8_t buf[1 << 16];
  nccl_inspector_defer_flush();
  long long n = nccl_inspector_drain(buf, sizeof(buf));
  int seen = 0;
  for (long long off = 0; off < n;) {
    const op_record* r = (const op_record*)(buf + off);
    if (r->kind == RECORD_KIND_COLL) {
      CHECK(r->flags & RECORD_FLAG_NOT_PROFILED_BY_NCCL);
      CHECK_EQ(r->timing_source, 0); /* none */
      CHECK_EQ(r->exec_ns, 0);
      CHECK_EQ(r->untimed_reason, UNTIMED_NCCL_BROADCAST_ALLGATHERV);
      CHECK_EQ(r->api_sn, 1 + seen);
      CHECK_EQ(r->seq, seen); /* the communicator's Broadcast calls, from 0 */
      CHECK_EQ(r->peer_or_root, seen == 0 ? 1 : 0);
      CHECK_EQ(r->bytes, seen == 0 ? 2u << 20 : 2u << 18);
      CHECK_EQ(r->rank, 1);
      CHECK_EQ(r->nranks, 2);
      CHECK_EQ(r->comm_id, 0x22);
      CHECK(r->start_wall_ns != 0);
      seen++;
    }
    off += (long long)r->cells * INSPECTOR_CELL_BYTES;
  }
  CHECK_EQ(seen, 2);
  CHECK_EQ(test_counter("not_profiled_by_nccl"), 2);
  ncclProfiler_v5.finalize(ctx);
  test_shutdown();
  nccl_inspector_set_virtual_clock(0, 0, 0);
}

/* Calls still unlinked when the communicator ends are recorded before its end; on a release
 * without the Broadcast defect the reason is the generic one. At close, every communicator's. */
static void finalize_and_close_record_unlinked_calls(void) {
  nccl_release(22809);
  at(SEC);
  test_enable(with_expiry());
  void* a = test_comm(0x33, 0, 2);
  void* b = test_comm(0x44, 0, 2);
  (void)test_drain();
  (void)test_call(a, "AllReduce", 4096, "ncclFloat32", 0, 0);
  (void)test_call(b, "ReduceScatter", 4096, "ncclFloat32", 0, 0);
  ncclProfiler_v5.finalize(a);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(d.comms_destroyed, 1);
  CHECK_EQ(d.last.comm_id, 0x33);
  CHECK_EQ(d.last.untimed_reason, UNTIMED_NCCL_NO_OPERATION_EVENT);
  CHECK(d.last.flags & RECORD_FLAG_NOT_PROFILED_BY_NCCL);
  nccl_inspector_close();
  d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(d.last.comm_id, 0x44);
  nccl_inspector_release();
  ncclProfiler_v5.finalize(b);
  (void)test_drain();
  nccl_inspector_set_virtual_clock(0, 0, 0);
}

/* Graph captures are not entered (their Coll events come at every replay); calls below the
 * minimum size are counted as their operation would be; paused calls are not entered. */
static void captures_small_calls_and_pauses(void) {
  nccl_release(23007);
  at(SEC);
  test_config c = with_expiry();
  c.min_size = 4096;
  test_enable(c);
  void* ctx = test_comm(0x55, 0, 2);
  (void)test_drain();
  void* captured = test_call(ctx, "Broadcast", 1 << 20, "ncclInt8", 0, 1);
  CHECK(captured != NULL);
  long long below = test_counter("below_min_size");
  (void)test_call(ctx, "Broadcast", 16, "ncclInt8", 0, 0);
  nccl_inspector_set_paused(1);
  void* paused = test_call(ctx, "Broadcast", 1 << 20, "ncclInt8", 0, 0);
  CHECK(paused == NULL); /* no tag, no ledger: nothing to carry */
  nccl_inspector_set_paused(0);
  at(30 * SEC);
  nccl_inspector_sweep();
  CHECK_EQ(test_drain().ops, 0);
  CHECK_EQ(test_counter("below_min_size") - below, 1);
  ncclProfiler_v5.finalize(ctx);
  CHECK_EQ(test_drain().ops, 0);
  test_shutdown();
  nccl_inspector_set_virtual_clock(0, 0, 0);
}

/* More unlinked calls than the ledger holds: the rest are counted, never overwritten; an
 * operation event that comes after its call was recorded is counted late; stale or foreign
 * handles never link. */
static void a_full_ledger_is_counted(void) {
  nccl_release(23007);
  at(SEC);
  test_config c = with_expiry();
  c.op_slots = 16; /* the ledger's minimum is 1024 entries */
  test_enable(c);
  void* ctx = test_comm(0x66, 0, 2);
  void* other = test_comm(0x77, 0, 2);
  (void)test_drain();
  void* first = test_call(ctx, "Broadcast", 1024, "ncclInt8", 0, 0);
  for (int i = 1; i < 1024; i++) (void)test_call(ctx, "Broadcast", 1024, "ncclInt8", 0, 0);
  long long full = test_counter("api_ledger_full");
  void* extra = test_call(ctx, "Broadcast", 1024, "ncclInt8", 0, 0);
  CHECK_EQ(test_counter("api_ledger_full") - full, 1);
  /* The thread-tag handle: none without tags. The deferred mode hands out its log handle, which
   * its replay maps to the same outcome. */
  if (!nccl_inspector_deferred_active()) CHECK(extra == NULL);
  /* A Coll of another communicator naming this call does not link it. */
  long long invalid = test_counter("invalid_handle");
  test_stop(coll_of(other, first, "Broadcast", 0, 1024));
  CHECK_EQ(test_counter("invalid_handle") - invalid, 1);
  at(20 * SEC);
  nccl_inspector_sweep();
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1024 + 1); /* the 1024 calls, and the other communicator's operation */
  /* The first call's operation event after all: late, recorded as itself too. */
  long long late = test_counter("api_link_late");
  test_stop(coll_of(ctx, first, "Broadcast", 0, 1024));
  CHECK_EQ(test_counter("api_link_late") - late, 1);
  d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(d.last.api_sn, 0xffffffffu);
  /* The ledger is free again. */
  CHECK(test_call(ctx, "Broadcast", 1024, "ncclInt8", 0, 0) != NULL);
  ncclProfiler_v5.finalize(ctx);
  ncclProfiler_v5.finalize(other);
  test_shutdown();
  nccl_inspector_set_virtual_clock(0, 0, 0);
}

/* The release is asked once per calling library and enabled session (nccl_release.c): a mapped
 * library cannot change release, so a later communicator gets the answer kept, not a new dlopen;
 * the next session asks again. */
static void the_release_is_asked_once_per_library_and_session(void) {
  nccl_release(22809);
  at(SEC);
  test_enable(with_expiry());
  void* a = test_comm(0x71, 0, 2);
  CHECK_EQ(created_release(), 22809);
  nccl_release(23007); /* what a second ask would answer */
  void* b = test_comm(0x72, 0, 2);
  CHECK_EQ(created_release(), 22809);
  ncclProfiler_v5.finalize(a);
  ncclProfiler_v5.finalize(b);
  (void)test_drain();
  test_shutdown();
  test_enable(with_expiry());
  void* c = test_comm(0x73, 0, 2);
  CHECK_EQ(created_release(), 23007);
  ncclProfiler_v5.finalize(c);
  test_shutdown();
  nccl_inspector_set_virtual_clock(0, 0, 0);
}

int main(void) {
  RUN(the_release_is_asked_once_per_library_and_session);
  RUN(linked_calls_give_one_record_each);
  RUN(broadcast_without_events_is_recorded_at_expiry);
  RUN(finalize_and_close_record_unlinked_calls);
  RUN(captures_small_calls_and_pauses);
  RUN(a_full_ledger_is_counted);
  return test_failures ? 1 : 0;
}
