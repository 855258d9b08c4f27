/* NCCL's kernel-channel counter desync (channel_desync.h) and the offset-safe clock check
 * (gpu_clock_bound.h), on synthetic streams under a virtual clock: the host's monotonic and wall
 * times are set by the test, and the GPU clock runs at an offset from host wall time chosen per
 * test (milliseconds either way, with drift), as %globaltimer does on real GPUs. */
#include <string.h>

#include "harness.h"
#include "launch_clock.h"
#include "names.h"

static const uint64_t WALL0 = 1795942870000000000ull;
static const uint64_t US = 1000ull;
static const uint64_t MS = 1000000ull;

/* Host monotonic time now (ns), and the GPU clock's offset from host wall time. */
static uint64_t now_mono;
static int64_t offset_ns;
static double drift_ppm;

static void at(uint64_t mono) {
  now_mono = mono;
  nccl_inspector_set_virtual_clock(1, mono, WALL0 + mono);
}

/* The GPU timer's reading when host monotonic time is `mono`. */
static uint64_t gpu_at(uint64_t mono) {
  int64_t drift = (int64_t)(drift_ppm * 1e-6 * (double)mono);
  return (uint64_t)((int64_t)(WALL0 + mono) + offset_ns + drift);
}

typedef struct channel_plan {
  int id;
  uint64_t gpu_start, gpu_stop; /* what NCCL hands the plugin (0: the genuine times below) */
} channel_plan;

/* One collective as NCCL 2.28 makes it: KernelLaunch on this thread, Coll start/stop (after the
 * launch), then the proxy thread reports each channel 20 µs after the GPU wrote it. A channel with
 * planned timestamps gets those (another work item's); others get their genuine kernel times: the
 * kernel starts 8 µs after the launch and runs `run_ns`. Returns the record. */
static op_record coll(void* ctx, uint64_t seq, const channel_plan* chs, int n, uint64_t run_ns) {
  uint64_t launch = now_mono;
  at(launch);
  test_launch(ctx);
  at(launch + 12 * US); /* the Coll start comes after cuLaunchKernelEx returns */
  void* op = test_coll(ctx, "AllReduce", seq, 262144, "ncclFloat32", n);
  CHECK(op != NULL);
  test_stop(op);
  uint64_t kstart = launch + 8 * US;
  for (int i = 0; i < n; i++) {
    uint64_t gs = chs[i].gpu_start ? chs[i].gpu_start : gpu_at(kstart);
    uint64_t ge = chs[i].gpu_stop ? chs[i].gpu_stop : gpu_at(kstart + run_ns);
    at(kstart + 20 * US + (uint64_t)i * 200);
    void* ch = test_channel(op, chs[i].id, gs);
    at(kstart + run_ns + 20 * US + (uint64_t)i * 200);
    test_channel_done(ch, ge);
  }
  at(kstart + run_ns + 100 * US);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  return d.last;
}

static channel_plan in_step(int id) {
  channel_plan c = {id, 0, 0};
  return c;
}

/* A send/recv pair to the own rank (every AlltoAll has one): P2p events, no channels. */
static void self_exchange(void* ctx, int rank, int n_channels) {
  void* s = test_p2p(ctx, "Send", rank, 65536, n_channels);
  void* r = test_p2p(ctx, "Recv", rank, 65536, n_channels);
  test_stop(s);
  test_stop(r);
  at(now_mono + 50 * US);
  (void)test_drain();
}

/* These streams test today's guards, the fallback where recovery is off (channel_recovery.h has its
 * own tests): their planned "other work item's" timestamps follow no numbering. */
static void begin(int p2p) {
  test_config c = test_defaults();
  c.p2p = p2p;
  nccl_inspector_set_channel_recovery(0);
  test_enable(c);
  offset_ns = 0;
  drift_ppm = 0;
  at(1000 * MS);
}

static void end(void* ctx) {
  ncclProfiler_v5.finalize(ctx);
  test_shutdown();
  nccl_inspector_set_virtual_clock(0, 0, 0);
  nccl_inspector_set_channel_recovery(1);
}

static void a_self_exchange_makes_its_channels_lag_for_later_operations(void) {
  begin(1);
  void* ctx = test_comm(0x5e1f, 0, 2);
  (void)test_drain();
  offset_ns = (int64_t)(2 * MS);
  channel_plan four[4] = {in_step(0), in_step(1), in_step(2), in_step(3)};
  op_record before = coll(ctx, 0, four, 4, 15 * US);
  CHECK_EQ(before.timing_source, TIMING_KERNEL_GPU);
  CHECK_EQ(before.exec_ns, 15 * US);
  CHECK_EQ(before.channels_desynced, 0);
  CHECK(before.launch_wall_ns != 0);

  /* An operation that started before the exchange is not affected by it, even if its channels
   * are reported afterwards. */
  at(now_mono + 1 * MS);
  void* early = test_coll(ctx, "AllReduce", 1, 262144, "ncclFloat32", 1);
  test_stop(early);
  uint64_t early_start = gpu_at(now_mono + 5 * US);
  self_exchange(ctx, 0, 2); /* channels 0 and 1 lag from now on */
  CHECK_EQ(test_counter("self_p2p_channel_lag"), 4); /* send 2 + recv 2 channel items */
  void* ech = test_channel(early, 0, early_start);
  test_channel_done(ech, early_start + 10 * US);
  decoded ed = test_drain();
  CHECK_EQ(ed.ops, 1);
  CHECK_EQ(ed.last.timing_source, TIMING_KERNEL_GPU);
  CHECK_EQ(ed.last.channels_desynced, 0);

  /* Later: channels 0 and 1 deliver another work item's times (here: 3 µs copies from 300 µs
   * before the launch), channels 2 and 3 their own. Timed by 2 and 3, flagged. */
  at(now_mono + 1 * MS);
  uint64_t old = gpu_at(now_mono - 300 * US);
  channel_plan mixed[4] = {{0, old, old + 3 * US}, {1, old, old + 3 * US}, in_step(2), in_step(3)};
  op_record partial = coll(ctx, 2, mixed, 4, 40 * US);
  CHECK_EQ(partial.timing_source, TIMING_KERNEL_GPU);
  CHECK_EQ(partial.exec_ns, 40 * US);
  CHECK_EQ(partial.channels_desynced, 2);
  CHECK(partial.flags & RECORD_FLAG_DESYNC_CHANNELS_EXCLUDED);
  CHECK(!(partial.flags & RECORD_FLAG_QUARANTINED));
  CHECK_EQ(partial.gpu_start_ns, gpu_at(now_mono - 100 * US - 40 * US)); /* channel 2's kernel start */

  /* Lagging channels are excluded even when their values look plausible (the host may run ahead
   * of the GPU, so another work item's start can come after this launch). */
  at(now_mono + 1 * MS);
  channel_plan plausible[2] = {{0, gpu_at(now_mono + 30 * US), gpu_at(now_mono + 500 * US)}, in_step(4)};
  op_record looks_fine = coll(ctx, 3, plausible, 2, 20 * US);
  CHECK_EQ(looks_fine.channels_desynced, 1);
  CHECK_EQ(looks_fine.exec_ns, 20 * US);

  /* Every channel lagging: no time at all, quarantined, counted. */
  at(now_mono + 1 * MS);
  channel_plan lone[1] = {{0, gpu_at(now_mono + 30 * US), gpu_at(now_mono + 231 * US)}};
  op_record untimed = coll(ctx, 4, lone, 1, 15 * US);
  CHECK_EQ(untimed.timing_source, TIMING_NONE);
  CHECK_EQ(untimed.exec_ns, 0);
  CHECK_EQ(untimed.gpu_start_ns, 0);
  CHECK_EQ(untimed.quarantine_reason, QUARANTINE_KERNEL_CHANNEL_DESYNC);
  CHECK(untimed.flags & RECORD_FLAG_QUARANTINED);
  CHECK(!(untimed.flags & RECORD_FLAG_DESYNC_CHANNELS_EXCLUDED));
  CHECK_EQ(test_counter("kernel_channel_desync"), 1);
  CHECK_EQ(test_counter("desync_channels_excluded"), 2);

  /* Other channels are unaffected. */
  at(now_mono + 1 * MS);
  channel_plan other[2] = {in_step(5), in_step(6)};
  op_record fine = coll(ctx, 5, other, 2, 25 * US);
  CHECK_EQ(fine.timing_source, TIMING_KERNEL_GPU);
  CHECK_EQ(fine.channels_desynced, 0);
  CHECK_EQ(test_counter("desync_detected"), 0); /* all of it was predicted */

  /* Another communicator is unaffected by this one's lag. */
  void* ctx2 = test_comm(0x07e2, 1, 2);
  (void)test_drain();
  at(now_mono + 1 * MS);
  channel_plan zero[1] = {in_step(0)};
  op_record elsewhere = coll(ctx2, 0, zero, 1, 10 * US);
  CHECK_EQ(elsewhere.timing_source, TIMING_KERNEL_GPU);
  ncclProfiler_v5.finalize(ctx2);
  end(ctx);
}

static void p2p_records_are_flagged_send_side_and_self_p2p_is_noted_when_untracked(void) {
  begin(1);
  void* ctx = test_comm(0x2220, 0, 2);
  (void)test_drain();
  at(now_mono + 1 * MS);
  test_launch(ctx);
  void* send = test_p2p(ctx, "Send", 1, 1 << 20, 1);
  test_stop(send);
  uint64_t gs = gpu_at(now_mono + 5 * US);
  at(now_mono + 30 * US);
  void* ch = test_channel(send, 16, gs);
  test_channel_done(ch, gs + 9 * US);
  decoded d = test_drain();
  CHECK_EQ(d.p2ps, 1);
  CHECK_EQ(d.last.timing_source, TIMING_KERNEL_GPU);
  CHECK(d.last.flags & RECORD_FLAG_SEND_SIDE_STOP);
  end(ctx);

  /* P2P records not wanted: the send/recv to self is still noted, its records are not made. */
  begin(0);
  ctx = test_comm(0x2221, 0, 2);
  (void)test_drain();
  void* s = test_p2p(ctx, "Send", 0, 65536, 3);
  void* r = test_p2p(ctx, "Recv", 0, 65536, 3);
  CHECK(s == NULL && r == NULL);
  CHECK_EQ(test_counter("self_p2p_channel_lag"), 6);
  at(now_mono + 1 * MS);
  channel_plan two[1] = {in_step(2)};
  op_record lagged = coll(ctx, 0, two, 1, 10 * US);
  CHECK_EQ(lagged.timing_source, TIMING_NONE);
  end(ctx);

  /* While paused, too. */
  begin(1);
  ctx = test_comm(0x2222, 0, 2);
  (void)test_drain();
  nccl_inspector_set_paused(1);
  self_exchange(ctx, 0, 1);
  nccl_inspector_set_paused(0);
  at(now_mono + 1 * MS);
  channel_plan zero[1] = {in_step(0)};
  op_record after_pause = coll(ctx, 0, zero, 1, 10 * US);
  CHECK_EQ(after_pause.quarantine_reason, QUARANTINE_KERNEL_CHANNEL_DESYNC);
  end(ctx);
}

static void lag_past_sixty_four_stays_lagging(void) {
  begin(1);
  void* ctx = test_comm(0x64, 0, 2);
  (void)test_drain();
  for (int i = 0; i < 70; i++) self_exchange(ctx, 0, 1); /* NCCL's slot ring (64) wraps */
  CHECK_EQ(test_counter("self_p2p_channel_lag"), 140);
  at(now_mono + 1 * MS);
  channel_plan chs[2] = {in_step(0), in_step(1)};
  op_record r = coll(ctx, 0, chs, 2, 10 * US);
  CHECK_EQ(r.channels_desynced, 1);
  CHECK_EQ(r.timing_source, TIMING_KERNEL_GPU);
  end(ctx);
}

/* Genuine operations are never judged early, whatever the GPU clock's offset (here ±3 ms, with
 * 4 ppm drift over a long run), including kernels that start before their Coll start event. */
static void no_fixed_tolerance_genuine_starts_pass_at_any_offset(void) {
  const int64_t offsets[] = {(int64_t)(3 * MS), -(int64_t)(3 * MS), 0, (int64_t)(250 * US)};
  const double drifts[] = {4.0, -4.0, 0.0, 0.0};
  for (int k = 0; k < 4; k++) {
    begin(1);
    void* ctx = test_comm(0x0ff5 + (uint64_t)k, 0, 2);
    (void)test_drain();
    offset_ns = offsets[k];
    drift_ppm = drifts[k];
    int timed = 0;
    for (int i = 0; i < 2000; i++) {
      at(now_mono + 5 * MS); /* 10 s of simulated time */
      channel_plan chs[3] = {in_step(0), in_step(1), in_step(2)};
      op_record r = coll(ctx, (uint64_t)i, chs, 3, (uint64_t)(5 + i % 7) * US);
      if (r.timing_source == TIMING_KERNEL_GPU && r.channels_desynced == 0) timed++;
    }
    CHECK_EQ(timed, 2000);
    CHECK_EQ(test_counter("desync_detected"), 0);
    end(ctx);
  }
}

static void an_unpredicted_lag_is_detected_and_latched(void) {
  begin(1);
  void* ctx = test_comm(0xde7, 0, 2);
  (void)test_drain();
  offset_ns = -(int64_t)(3 * MS);
  for (int i = 0; i < 5; i++) { /* the clock bound learns */
    at(now_mono + 1 * MS);
    channel_plan chs[4] = {in_step(0), in_step(1), in_step(2), in_step(3)};
    (void)coll(ctx, (uint64_t)i, chs, 4, 20 * US);
  }
  /* Channel 3 delivers a work item that ran and ended before this kernel was launched, while the
   * other channels started normally: a lag no send/recv to self explains. */
  at(now_mono + 1 * MS);
  uint64_t old = gpu_at(now_mono - 200 * US);
  channel_plan chs[4] = {in_step(0), in_step(1), in_step(2), {3, old, old + 5 * US}};
  op_record r = coll(ctx, 10, chs, 4, 20 * US);
  CHECK_EQ(r.channels_desynced, 1);
  CHECK(r.flags & RECORD_FLAG_DESYNC_CHANNELS_EXCLUDED);
  CHECK_EQ(test_counter("desync_detected"), 1);
  /* Latched: later operations leave channel 3 out even when its values would pass. */
  at(now_mono + 1 * MS);
  channel_plan next[2] = {in_step(2), {3, gpu_at(now_mono + 40 * US), gpu_at(now_mono + 60 * US)}};
  op_record later = coll(ctx, 11, next, 2, 20 * US);
  CHECK_EQ(later.channels_desynced, 1);
  CHECK_EQ(later.exec_ns, 20 * US);
  end(ctx);
}

/* A step of the GPU clock against host time (a driver resynchronisation, a host clock step) moves
 * every channel of a kernel alike: operations may be judged early while the window still holds
 * the old offset, but no channel is latched, and once the window has passed all is timed again. */
static void a_clock_step_latches_nothing_and_heals_within_the_window(void) {
  begin(1);
  void* ctx = test_comm(0x57e9, 0, 2);
  (void)test_drain();
  offset_ns = (int64_t)(2 * MS);
  for (int i = 0; i < 50; i++) {
    at(now_mono + 10 * MS);
    channel_plan chs[2] = {in_step(0), in_step(1)};
    (void)coll(ctx, (uint64_t)i, chs, 2, 10 * US);
  }
  offset_ns -= (int64_t)(1 * MS); /* the GPU clock steps back by 1 ms */
  int untimed = 0;
  for (int i = 0; i < 300; i++) { /* 3 s */
    at(now_mono + 10 * MS);
    channel_plan chs[2] = {in_step(0), in_step(1)};
    op_record r = coll(ctx, (uint64_t)(100 + i), chs, 2, 10 * US);
    if (r.timing_source != TIMING_KERNEL_GPU) untimed++;
    if (i >= 150) CHECK_EQ(r.timing_source, TIMING_KERNEL_GPU); /* > 1 s after the step */
  }
  CHECK(untimed > 0 && untimed <= 110);
  CHECK_EQ(test_counter("desync_detected"), 0);
  end(ctx);
}

/* Without a launch time (a CUDA-graph replay starts its operations on a CUDA thread) nothing is
 * judged early; interface v4 reports no launches and is judged against its start with 1 ms. */
static void without_a_launch_time_only_prediction_applies(void) {
  begin(1);
  void* ctx = test_comm(0x9a9, 0, 2);
  (void)test_drain();
  for (int i = 0; i < 5; i++) {
    at(now_mono + 1 * MS);
    channel_plan chs[1] = {in_step(0)};
    (void)coll(ctx, (uint64_t)i, chs, 1, 10 * US);
  }
  /* A new thread has no launch: an early-looking value is not judged. */
  at(now_mono + 1 * MS);
  tls_last_launch_mono_ns = 0;
  void* op = test_coll(ctx, "AllReduce", 9, 262144, "ncclFloat32", 1);
  test_stop(op);
  uint64_t old = gpu_at(now_mono - 300 * US);
  void* ch = test_channel(op, 0, old);
  test_channel_done(ch, old + 4 * US);
  decoded d = test_drain();
  CHECK_EQ(d.last.timing_source, TIMING_KERNEL_GPU);
  /* The deferred mode keeps each thread's launch clock apart from the thread (defer_log.h), so the
   * thread-local cleared above does not reach it: there the value must merely be judged the same. */
  if (!nccl_inspector_deferred_active()) CHECK_EQ(d.last.launch_wall_ns, 0);
  end(ctx);
}

/* Operation events that put work on the communicator's channels while NCCL's proxy thread is
 * behind: `n` sends to rank 1 (not tracked: P2P records off), none of whose channels come yet. */
static void later_operations(void* ctx, int n) {
  for (int i = 0; i < n; i++) {
    void* p = test_p2p(ctx, "Send", 1, 65536, 2);
    CHECK(p == NULL); /* counted, not tracked */
  }
}

/* A kernel launch now and, 12 us later, a collective of `n` channels enqueued and stopped; returns
 * its handle and the launch time in *launch. */
static void* launched_coll(void* ctx, uint64_t seq, int n, uint64_t* launch) {
  *launch = now_mono;
  test_launch(ctx);
  at(*launch + 12 * US);
  void* op = test_coll(ctx, "AllReduce", seq, 262144, "ncclFloat32", n);
  test_stop(op);
  return op;
}

/* A channel NCCL read after 64 later operation events had started may carry the timestamps of the
 * work item 64 positions later (channel_late_read.h): left out, whatever its timestamps look like. */
static void a_channel_read_after_sixty_four_later_operations_is_left_out(void) {
  begin(0);
  void* ctx = test_comm(0x1a7e, 0, 2);
  (void)test_drain();
  offset_ns = (int64_t)(1 * MS);
  /* 63 later operations: the slot cannot have been reused, both channels count. */
  uint64_t launch;
  void* a = launched_coll(ctx, 0, 2, &launch);
  later_operations(ctx, 63);
  at(launch + 200 * US);
  void* a0 = test_channel(a, 0, gpu_at(launch + 8 * US));
  void* a1 = test_channel(a, 1, gpu_at(launch + 9 * US));
  test_channel_done(a0, gpu_at(launch + 40 * US));
  test_channel_done(a1, gpu_at(launch + 50 * US));
  at(launch + 300 * US);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(d.last.timing_source, TIMING_KERNEL_GPU);
  CHECK_EQ(d.last.channels_desynced, 0);
  CHECK_EQ(d.last.exec_ns, 41 * US);
  CHECK_EQ(test_counter("late_read_channels"), 0);

  /* Channel 0 read in time, channel 1 read (its stop) after the 64th later operation. */
  void* b = launched_coll(ctx, 1, 2, &launch);
  at(launch + 60 * US);
  void* b0 = test_channel(b, 0, gpu_at(launch + 8 * US));
  void* b1 = test_channel(b, 1, gpu_at(launch + 8 * US));
  test_channel_done(b0, gpu_at(launch + 30 * US));
  later_operations(ctx, 64);
  at(launch + 20 * MS);
  test_channel_done(b1, gpu_at(launch + 10 * MS)); /* a later work item's stop */
  at(launch + 21 * MS);
  d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(d.last.timing_source, TIMING_KERNEL_GPU);
  CHECK_EQ(d.last.channels_desynced, 1);
  CHECK_EQ(d.last.exec_ns, 22 * US);
  CHECK(d.last.flags & RECORD_FLAG_DESYNC_CHANNELS_EXCLUDED);
  CHECK_EQ(test_counter("late_read_channels"), 1);

  /* Every channel read late: no time at all. */
  void* c = launched_coll(ctx, 2, 1, &launch);
  later_operations(ctx, 64);
  at(launch + 20 * MS);
  void* c0 = test_channel(c, 0, gpu_at(launch + 10 * MS));
  test_channel_done(c0, gpu_at(launch + 10 * MS + 30 * US));
  at(launch + 21 * MS);
  d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(d.last.timing_source, TIMING_NONE);
  CHECK_EQ(d.last.quarantine_reason, QUARANTINE_KERNEL_CHANNEL_DESYNC);
  CHECK_EQ(test_counter("late_read_channels"), 2);
  CHECK_EQ(test_counter("desync_detected"), 0); /* nothing latched: the next operation is judged afresh */
  end(ctx);
}

int main(void) {
  RUN(a_self_exchange_makes_its_channels_lag_for_later_operations);
  RUN(p2p_records_are_flagged_send_side_and_self_p2p_is_noted_when_untracked);
  RUN(lag_past_sixty_four_stays_lagging);
  RUN(no_fixed_tolerance_genuine_starts_pass_at_any_offset);
  RUN(an_unpredicted_lag_is_detected_and_latched);
  RUN(a_clock_step_latches_nothing_and_heals_within_the_window);
  RUN(without_a_launch_time_only_prediction_applies);
  RUN(a_channel_read_after_sixty_four_later_operations_is_left_out);
  return test_failures == 0 ? 0 : 1;
}
