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
  /* The summary's two cells, two details and four steps, two per cell (verbose). */
  CHECK_EQ(d.last.net_cells, 2 + 2 + 2);
  CHECK_EQ(d.last.cells, OP_RECORD_CELLS + 1 + 6);
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
  CHECK_EQ(d.last.net_cells, 2);
  CHECK_EQ(d.last.cells, OP_RECORD_CELLS + 2);
  CHECK_EQ(d.last_net.bytes_received, 1 << 20);
  CHECK_EQ(d.last_net.recv_wait_ns, 20000);
  CHECK_EQ(d.last_net.detail_cells, 0);
  CHECK_EQ(d.last_wait.step_cells, 0);
  CHECK_EQ(d.last_steps, 0);
  /* The flush took 0 virtual µs (both states at 25): known, and zero. */
  CHECK(d.last_wait.known & NET_KNOWN_FLUSH);
  CHECK_EQ(d.last_wait.flush_steps, 1);
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


/* A send step whose every transition comes at its own time (virtual µs): started, posted,
 * ready (SendPeerWait `peer_tries` times), handed to the network, done. peer_tries 0: no
 * SendPeerWait at all (interface v3). */
static void timed_send_step(void* op, int step, uint64_t start, uint64_t posted, uint64_t ready, int peer_tries,
                            uint64_t sent, uint64_t done, uint64_t bytes) {
  at(start);
  void* s = test_proxy_step(op, step);
  at(posted);
  test_proxy_state(s, ncclProfilerProxyStepSendGPUWait, bytes);
  for (int i = 0; i < peer_tries; i++) {
    at(ready + (uint64_t)i * 7);
    test_proxy_state(s, ncclProfilerProxyStepSendPeerWait_v4, bytes);
  }
  at(sent);
  test_proxy_state(s, ncclProfilerProxyStepSendWait, bytes);
  at(done);
  test_stop(s);
}

static void timed_recv_step(void* op, int step, uint64_t start, uint64_t posted, uint64_t arrived, uint64_t flushed,
                            uint64_t done, uint64_t bytes) {
  at(start);
  void* s = test_proxy_step(op, step);
  at(posted);
  test_proxy_state(s, ncclProfilerProxyStepRecvWait, 0);
  at(arrived);
  test_proxy_state(s, ncclProfilerProxyStepRecvFlushWait, bytes);
  at(flushed);
  test_proxy_state(s, ncclProfilerProxyStepRecvGPUWait, bytes);
  at(done);
  test_stop(s);
}

/* The waits inside the steps: the sends' wait for the peer's credit (from the first SendPeerWait
 * to SendWait, however often NCCL retried), the receives' flush, and the proxy thread's own time
 * from a step's start to its posted state; with the longest step and its peer, and each step's
 * phases in verbose mode. */
static void the_waits_inside_the_steps_are_summed_and_each_step_shown(void) {
  test_config c = test_defaults();
  c.verbose = 1;
  test_enable(c);
  at(0);
  void* ctx = test_comm(0x59, 0, 4);
  test_drain();
  void* op = test_coll(ctx, "AllReduce", 1, 1 << 20, "ncclFloat32", 1);
  test_stop(op);
  void* to1 = test_proxy_op(op, 0, 1, 1, 1);
  void* to3 = test_proxy_op(op, 1, 3, 1, 1);
  void* from2 = test_proxy_op(op, 0, 2, 2, 0);
  void* ch = test_channel(op, 0, 5000);
  /* To peer 1: posted 2 µs after its start, ready at 30, credit at 45 after three tries (15 µs). */
  timed_send_step(to1, 0, 10, 12, 30, 3, 45, 60, 4096);
  /* To peer 3: posted after 250 µs (a slow proxy thread), credit waited for 100 µs. */
  timed_send_step(to3, 0, 11, 261, 270, 1, 370, 380, 4096);
  /* From peer 2: two steps, flushes of 5 and 9 µs. */
  timed_recv_step(from2, 0, 12, 13, 100, 105, 110, 2048);
  timed_recv_step(from2, 1, 14, 16, 120, 129, 140, 2048);
  at(400);
  test_channel_done(ch, 9000);
  test_stop(to1);
  test_stop(to3);
  test_stop(from2);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  net_wait_record w = d.last_wait;
  CHECK_EQ(w.known, NET_KNOWN_PEER_WAIT | NET_KNOWN_FLUSH | NET_KNOWN_LAG);
  CHECK_EQ(w.send_peer_wait_ns, 15000 + 100000);
  CHECK_EQ(w.send_peer_wait_max_ns, 100000);
  CHECK_EQ(w.peer_wait_peer, 3);
  CHECK_EQ(w.peer_wait_channel, 1);
  CHECK_EQ(w.peer_wait_steps, 2);
  CHECK_EQ(w.recv_flush_ns, 5000 + 9000);
  CHECK_EQ(w.recv_flush_max_ns, 9000);
  CHECK_EQ(w.flush_steps, 2);
  CHECK_EQ(w.proxy_lag_ns, 2000 + 250000 + 1000 + 2000);
  CHECK_EQ(w.proxy_lag_max_ns, 250000);
  CHECK_EQ(w.lag_steps, 4);
  CHECK_EQ(w.steps, 4);
  /* The wait for the own GPU's first chunk counts from the step's start, as before: 20 µs to
   * peer 1, 259 µs to peer 3 (250 of them the proxy thread's own: proxy_lag tells them apart). */
  CHECK_EQ(d.last_net.send_gpu_wait_ns, 259000);
  /* Verbose: three details and four steps in two cells, oldest first per proxy operation. */
  CHECK_EQ(d.last_net.detail_cells, 3);
  CHECK_EQ(w.step_cells, 2);
  CHECK_EQ(d.last.net_cells, 2 + 3 + 2);
  CHECK_EQ(d.last_steps, 4);
  CHECK_EQ(d.last_proxy[0].ring_steps, 1);
  CHECK_EQ(d.last_proxy[2].ring_steps, 2);
  proxy_step_record s0 = d.last_step[0];
  CHECK_EQ(s0.detail, 0);
  CHECK_EQ(s0.state, PROXY_STEP_DONE);
  CHECK_EQ(s0.start_wall_ns, T0 + 10000);
  CHECK_EQ(s0.post_ns, 2000);
  CHECK_EQ(s0.wait_ns, 18000);  /* for the own GPU */
  CHECK_EQ(s0.move_ns, 15000);  /* for the peer's credit */
  CHECK_EQ(s0.done_ns, 15000);  /* on the network */
  proxy_step_record s3 = d.last_step[3];
  CHECK_EQ(s3.detail, 2);
  CHECK_EQ(s3.step, 1);
  CHECK_EQ(s3.post_ns, 2000);
  CHECK_EQ(s3.wait_ns, 104000); /* for the peer's data */
  CHECK_EQ(s3.move_ns, 9000);   /* the flush */
  CHECK_EQ(s3.done_ns, 11000);  /* the GPU consuming it */
  nccl_inspector_set_virtual_clock(0, 0, 0);
  test_shutdown();
}

/* Without SendPeerWait (NCCL's interface before v4 has no such state) the wait for the peer's
 * credit is not known: the record says so rather than a zero. */
static void without_send_peer_wait_the_peer_wait_is_unknown(void) {
  test_enable(test_defaults());
  at(0);
  void* ctx = test_comm(0x5a, 0, 2);
  test_drain();
  void* op = test_coll(ctx, "AllReduce", 1, 1 << 20, "ncclFloat32", 1);
  test_stop(op);
  void* send = test_proxy_op(op, 0, 1, 1, 1);
  void* ch = test_channel(op, 0, 5000);
  timed_send_step(send, 0, 10, 11, 0, 0, 40, 50, 4096);
  test_stop(send);
  test_channel_done(ch, 6000);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(d.last_wait.known & NET_KNOWN_PEER_WAIT, 0);
  CHECK_EQ(d.last_wait.known & NET_KNOWN_FLUSH, 0); /* no receive */
  CHECK(d.last_wait.known & NET_KNOWN_LAG);
  CHECK_EQ(d.last_wait.send_peer_wait_ns, 0);
  CHECK_EQ(d.last_wait.peer_wait_peer, -1);
  /* The first chunk handed to the network still ends the own GPU's wait. */
  CHECK_EQ(d.last_net.send_gpu_wait_ns, 30000);
  CHECK_EQ(d.last_net.bytes_sent, 4096);
  nccl_inspector_set_virtual_clock(0, 0, 0);
  test_shutdown();
}

/* More steps than the ring holds: each step's entry is reused by the step eight later, the sums
 * count every step, and the verbose record shows the last eight and says how many there were. */
static void the_ring_keeps_the_last_steps_and_the_sums_all(void) {
  test_config c = test_defaults();
  c.verbose = 1;
  test_enable(c);
  at(0);
  void* ctx = test_comm(0x5b, 0, 2);
  test_drain();
  void* op = test_coll(ctx, "AllReduce", 1, 1 << 20, "ncclFloat32", 1);
  test_stop(op);
  void* recv = test_proxy_op(op, 0, 1, 11, 0);
  void* ch = test_channel(op, 0, 5000);
  for (int i = 0; i < 11; i++) {
    uint64_t t = 100 + 50 * (uint64_t)i;
    timed_recv_step(recv, i, t, t + 1, t + 20, t + 20 + (uint64_t)i, t + 40, 1000);
  }
  test_stop(recv);
  at(1000);
  test_channel_done(ch, 6000);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(d.last_wait.steps, 11);
  CHECK_EQ(d.last_wait.flush_steps, 11);
  CHECK_EQ(d.last_wait.recv_flush_ns, 55000); /* 0 + 1 + ... + 10 µs */
  CHECK_EQ(d.last_wait.recv_flush_max_ns, 10000);
  CHECK_EQ(d.last_net.bytes_received, 11000);
  CHECK_EQ(d.last_proxy[0].steps, 11);
  CHECK_EQ(d.last_proxy[0].ring_steps, PROXY_STEP_RING);
  CHECK_EQ(d.last_steps, PROXY_STEP_RING);
  for (int i = 0; i < PROXY_STEP_RING; i++) {
    CHECK_EQ(d.last_step[i].step, (uint32_t)(3 + i));
    CHECK_EQ(d.last_step[i].move_ns, (uint32_t)(3 + i) * 1000);
  }
  nccl_inspector_set_virtual_clock(0, 0, 0);
  test_shutdown();
}

/* A step handle kept past its operation's record finds the slot's new generation: its events are
 * counted stale and the new operation's steps, which use the same cell and ring entry, keep
 * their own times. */
static void a_late_step_never_touches_the_next_operation_in_its_slot(void) {
  test_config c = test_defaults();
  c.verbose = 1;
  test_enable(c);
  at(0);
  void* ctx = test_comm(0x5c, 0, 2);
  test_drain();
  void* a = test_coll(ctx, "AllReduce", 1, 1 << 20, "ncclFloat32", 1);
  test_stop(a);
  void* a_send = test_proxy_op(a, 0, 1, 1, 1);
  void* a_ch = test_channel(a, 0, 5000);
  at(10);
  void* a_step = test_proxy_step(a_send, 0);
  test_stop(a_step);
  test_stop(a_send);
  test_channel_done(a_ch, 6000);
  CHECK_EQ(test_drain().ops, 1);
  void* b = test_coll(ctx, "AllReduce", 2, 1 << 20, "ncclFloat32", 1);
  test_stop(b);
  void* b_send = test_proxy_op(b, 0, 1, 1, 1);
  void* b_ch = test_channel(b, 0, 7000);
  timed_send_step(b_send, 0, 100, 101, 110, 1, 120, 130, 64);
  long long stale = test_counter("stale_handle");
  at(500);
  test_proxy_state(a_step, ncclProfilerProxyStepSendGPUWait, 0);
  test_proxy_state(a_step, ncclProfilerProxyStepSendWait, 1 << 30);
  test_stop(a_step);
  CHECK_EQ(test_counter("stale_handle") - stale, 3);
  test_stop(b_send);
  test_channel_done(b_ch, 8000);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(d.last_net.bytes_sent, 64);
  CHECK_EQ(d.last_wait.proxy_lag_ns, 1000);
  CHECK_EQ(d.last_wait.send_peer_wait_ns, 10000);
  CHECK_EQ(d.last_steps, 1);
  CHECK_EQ(d.last_step[0].done_ns, 10000);
  nccl_inspector_set_virtual_clock(0, 0, 0);
  test_shutdown();
}

/* A step that lasts beyond its 32-bit offsets (4.29 s): the first-chunk times stay exact (read
 * from the clock, not from the offsets); the phases after the saturation count as 0, never as
 * garbage. */
static void a_step_beyond_four_seconds_keeps_exact_first_times(void) {
  test_enable(test_defaults());
  at(0);
  void* ctx = test_comm(0x5d, 0, 2);
  test_drain();
  void* op = test_coll(ctx, "AllReduce", 1, 1 << 20, "ncclFloat32", 1);
  test_stop(op);
  void* send = test_proxy_op(op, 0, 1, 1, 1);
  void* ch = test_channel(op, 0, 5000);
  timed_send_step(send, 0, 10, 11, 5000011, 1, 5000020, 5000030, 64);
  test_stop(send);
  test_channel_done(ch, 6000);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(d.last_net.send_gpu_wait_ns, 5000001000ull);
  CHECK_EQ(d.last_wait.proxy_lag_ns, 1000);
  CHECK_EQ(d.last_wait.send_peer_wait_ns, 0);
  CHECK_EQ(d.last_wait.peer_wait_steps, 1);
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
  RUN(the_waits_inside_the_steps_are_summed_and_each_step_shown);
  RUN(without_send_peer_wait_the_peer_wait_is_unknown);
  RUN(the_ring_keeps_the_last_steps_and_the_sums_all);
  RUN(a_late_step_never_touches_the_next_operation_in_its_slot);
  RUN(a_step_beyond_four_seconds_keeps_exact_first_times);
  RUN(turned_off_the_core_asks_for_no_proxy_events);
  RUN(handles_that_are_not_proxy_handles_are_refused);
  return test_failures == 0 ? 0 : 1;
}
