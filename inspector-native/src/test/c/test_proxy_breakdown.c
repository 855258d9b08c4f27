/* The network breakdown from proxy events (proxy_breakdown.h): what an operation's record says
 * of its sends and receives, that it waits for proxy operations that stop after its kernel, and
 * that every way proxy events go wrong is bounded and counted. */
#include <string.h>

#include "harness.h"
#include "proxy_breakdown.h"

#define T0 1795942870000000000ull /* wall-clock ns of the virtual clock's mono 1 s */
#define MONO0 1000000000ull

static void at(uint64_t us) { nccl_inspector_set_virtual_clock(1, MONO0 + us * 1000, T0 + us * 1000); }

/* One send step of `bytes`: posted at `post`, ready at `ready`, on the network, done at `done`
 * (virtual µs). */
static void send_step(void* op, int step, uint64_t post, uint64_t ready, uint64_t done, uint64_t bytes) {
  at(post);
  void* s = test_proxy_step(op, step);
  test_proxy_state(s, ncclProfilerProxyStepSendGPUWait, bytes);
  at(ready);
  test_proxy_state(s, ncclProfilerProxyStepSendPeerWait_v4, bytes);
  test_proxy_state(s, ncclProfilerProxyStepSendWait, bytes);
  at(done);
  test_stop(s);
}

static void recv_step(void* op, int step, uint64_t post, uint64_t arrived, uint64_t done, uint64_t bytes) {
  at(post);
  void* s = test_proxy_step(op, step);
  test_proxy_state(s, ncclProfilerProxyStepRecvWait, bytes);
  at(arrived);
  test_proxy_state(s, ncclProfilerProxyStepRecvFlushWait, bytes);
  test_proxy_state(s, ncclProfilerProxyStepRecvGPUWait, bytes);
  at(done);
  test_stop(s);
}

static void an_operation_waits_for_its_proxy_operations_and_reports_where_time_went(void) {
  test_config c = test_defaults();
  c.verbose = 1;
  test_enable(c);
  at(0);
  void* ctx = test_comm(0x51, 0, 3);
  CHECK((test_comm_mask(0x52) & (ncclProfileProxyOp | ncclProfileProxyStep)) ==
        (ncclProfileProxyOp | ncclProfileProxyStep));
  test_drain();
  void* op = test_coll(ctx, "AllReduce", 1, 1 << 20, "ncclFloat32", 1);
  test_stop(op);
  void* send = test_proxy_op(op, 0, 1, 2, 1);
  void* recv = test_proxy_op(op, 0, 2, 2, 0);
  CHECK(send != NULL && recv != NULL && send != recv);
  void* ch = test_channel(op, 0, 5000);
  /* Our GPU makes the first chunk 40 µs after the post; peer 2's first chunk comes after 300 µs. */
  send_step(send, 0, 10, 50, 80, 1 << 19);
  send_step(send, 1, 12, 90, 120, 1 << 19);
  recv_step(recv, 0, 11, 311, 320, 1 << 19);
  recv_step(recv, 1, 13, 340, 350, 1 << 19);
  at(360);
  test_channel_done(ch, 9000);
  /* The kernel is done, the proxy operations are not: no record yet. */
  CHECK_EQ(test_drain().ops, 0);
  test_stop(send);
  CHECK_EQ(test_drain().ops, 0);
  at(400);
  test_stop(recv);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(d.last.net_cells, 3); /* the summary and two details (verbose) */
  CHECK_EQ(d.last.cells, OP_RECORD_CELLS + 1 + 3);
  CHECK((d.last.flags & (RECORD_FLAG_PROXY_TRUNCATED | RECORD_FLAG_PROXY_INCOMPLETE)) == 0);
  net_record n = d.last_net;
  CHECK_EQ(n.bytes_sent, 1 << 20);
  CHECK_EQ(n.bytes_received, 1 << 20);
  CHECK_EQ(n.send_gpu_wait_ns, 40000);
  CHECK_EQ(n.recv_wait_ns, 300000);
  CHECK_EQ(n.slowest_peer, 2);
  CHECK_EQ(n.first_post_wall_ns, T0 + 10000);
  CHECK_EQ(n.last_done_wall_ns, T0 + 400000);
  CHECK_EQ(n.last_arrival_wall_ns, T0 + 340000);
  CHECK_EQ(n.proxy_ops, 2);
  CHECK_EQ(n.proxy_ops_tracked, 2);
  CHECK_EQ(n.detail_cells, 2);
  CHECK_EQ(d.last_proxy[0].peer, 1);
  CHECK_EQ(d.last_proxy[0].is_send, 1);
  CHECK_EQ(d.last_proxy[0].steps, 2);
  CHECK_EQ(d.last_proxy[0].steps_done, 2);
  CHECK_EQ(d.last_proxy[0].n_steps, 2);
  CHECK_EQ(d.last_proxy[0].first_ready_wall_ns, T0 + 50000);
  CHECK_EQ(d.last_proxy[1].peer, 2);
  CHECK_EQ(d.last_proxy[1].first_ready_wall_ns, T0 + 311000);
  CHECK_EQ(d.last_proxy[1].last_ready_wall_ns, T0 + 340000);
  CHECK_EQ(d.last_proxy[1].done_wall_ns, T0 + 400000);
  /* The kernel channel is still the operation's time. */
  CHECK_EQ(d.last.exec_ns, 4000);
  nccl_inspector_set_virtual_clock(0, 0, 0);
  test_shutdown();
}

static void without_verbose_only_the_summary_travels(void) {
  test_enable(test_defaults());
  at(0);
  void* ctx = test_comm(0x53, 0, 2);
  test_drain();
  void* op = test_p2p(ctx, "Recv", 1, 1 << 18, 1);
  void* recv = test_proxy_op(op, 3, 1, 1, 0);
  test_stop(op);
  void* ch = test_channel(op, 3, 5000);
  recv_step(recv, 0, 5, 25, 30, 1 << 20);
  test_stop(recv);
  at(40);
  test_channel_done(ch, 6000);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(d.last.net_cells, 1);
  CHECK_EQ(d.last.cells, OP_RECORD_CELLS + 1);
  CHECK_EQ(d.last_net.bytes_received, 1 << 20);
  CHECK_EQ(d.last_net.recv_wait_ns, 20000);
  CHECK_EQ(d.last_net.detail_cells, 0);
  nccl_inspector_set_virtual_clock(0, 0, 0);
  test_shutdown();
}

static void proxy_operations_beyond_the_cells_are_counted_and_flagged(void) {
  test_enable(test_defaults());
  at(0);
  void* ctx = test_comm(0x54, 0, 2);
  test_drain();
  long long untracked = test_counter("proxy_ops_untracked");
  void* op = test_coll(ctx, "AllGather", 1, 1 << 20, "ncclFloat32", 1);
  test_stop(op);
  void* px[OP_PROXY_CELLS + 3];
  for (int i = 0; i < OP_PROXY_CELLS + 3; i++) px[i] = test_proxy_op(op, i, 1, 1, i & 1);
  for (int i = 0; i < OP_PROXY_CELLS + 3; i++) CHECK((px[i] == NULL) == (i >= OP_PROXY_CELLS));
  CHECK_EQ(test_counter("proxy_ops_untracked") - untracked, 3);
  /* A step under an untracked proxy operation has a NULL parent: nothing, no harm. */
  CHECK(test_proxy_step(px[OP_PROXY_CELLS], 0) == NULL);
  void* ch = test_channel(op, 0, 100);
  test_channel_done(ch, 200);
  for (int i = 0; i < OP_PROXY_CELLS; i++) test_stop(px[i]);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK(d.last.flags & RECORD_FLAG_PROXY_TRUNCATED);
  CHECK_EQ(d.last_net.proxy_ops, OP_PROXY_CELLS + 3);
  CHECK_EQ(d.last_net.proxy_ops_tracked, OP_PROXY_CELLS);
  nccl_inspector_set_virtual_clock(0, 0, 0);
  test_shutdown();
}

static void a_proxy_operation_that_never_stops_closes_after_the_grace(void) {
  test_enable(test_defaults());
  at(0);
  void* ctx = test_comm(0x55, 0, 2);
  test_drain();
  long long incomplete = test_counter("proxy_incomplete");
  void* op = test_coll(ctx, "AllReduce", 1, 1 << 20, "ncclFloat32", 1);
  test_stop(op);
  void* send = test_proxy_op(op, 0, 1, 1, 1);
  void* step = test_proxy_step(send, 0);
  void* ch = test_channel(op, 0, 100);
  test_channel_done(ch, 200);
  at(10);
  nccl_inspector_sweep(); /* notes the wait */
  CHECK_EQ(test_drain().ops, 0);
  at(500000);
  nccl_inspector_sweep(); /* within the grace */
  CHECK_EQ(test_drain().ops, 0);
  at(1200000);
  nccl_inspector_sweep();
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK(d.last.flags & RECORD_FLAG_PROXY_INCOMPLETE);
  CHECK((d.last.flags & RECORD_FLAG_EXPIRED) == 0);
  CHECK_EQ(d.last.timing_source, 1); /* kernel_gpu: its channel was complete */
  CHECK_EQ(d.last_net.last_done_wall_ns, 0);
  CHECK_EQ(test_counter("proxy_incomplete") - incomplete, 1);
  /* The late events find the slot gone: counted stale, nothing touched. */
  long long stale = test_counter("stale_handle");
  test_proxy_state(step, ncclProfilerProxyStepSendWait, 64);
  test_stop(step);
  test_stop(send);
  CHECK_EQ(test_counter("stale_handle") - stale, 3);
  CHECK_EQ(test_drain().ops, 0);
  nccl_inspector_set_virtual_clock(0, 0, 0);
  test_shutdown();
}

static void turned_off_the_core_asks_for_no_proxy_events(void) {
  nccl_inspector_set_network_breakdown(0);
  test_enable(test_defaults());
  CHECK_EQ(test_comm_mask(0x56) & (ncclProfileProxyOp | ncclProfileProxyStep), 0);
  test_shutdown();
  nccl_inspector_set_network_breakdown(1);
  test_enable(test_defaults());
  CHECK(test_comm_mask(0x57) & ncclProfileProxyStep);
  test_shutdown();
}

static void handles_that_are_not_proxy_handles_are_refused(void) {
  test_enable(test_defaults());
  void* ctx = test_comm(0x58, 0, 2);
  void* op = test_coll(ctx, "AllReduce", 1, 1 << 20, "ncclFloat32", 1);
  void* ch = test_channel(op, 0, 100);
  long long invalid = test_counter("invalid_handle");
  CHECK(test_proxy_step(ch, 0) == NULL);       /* a kernel channel is no ProxyOp */
  CHECK(test_proxy_step(op, 0) == NULL);       /* nor is an operation */
  test_proxy_state(ch, ncclProfilerProxyStepRecvFlushWait, 8); /* a channel gets no step state */
  CHECK_EQ(test_counter("invalid_handle") - invalid, 3);
  test_stop(op);
  test_channel_done(ch, 200);
  CHECK_EQ(test_drain().ops, 1);
  test_shutdown();
}

int main(void) {
  RUN(an_operation_waits_for_its_proxy_operations_and_reports_where_time_went);
  RUN(without_verbose_only_the_summary_travels);
  RUN(proxy_operations_beyond_the_cells_are_counted_and_flagged);
  RUN(a_proxy_operation_that_never_stops_closes_after_the_grace);
  RUN(turned_off_the_core_asks_for_no_proxy_events);
  RUN(handles_that_are_not_proxy_handles_are_refused);
  return test_failures == 0 ? 0 : 1;
}
