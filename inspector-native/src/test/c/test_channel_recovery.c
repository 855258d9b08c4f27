/* Channel recovery (channel_recovery.h): NCCL's numbering of device items and host counts per
 * channel, and the hand-over of each reading to the operation that owns its item, on synthetic
 * streams under a virtual clock. Rank 0 of 2; a kernel's channels report 20 us after it ran. */
#include <string.h>

#include "channel_recovery.h"
#include "core_state.h"
#include "handles.h"
#include "op_table.h"
#include "harness.h"
#include "names.h"

static const uint64_t WALL0 = 1795942870000000000ull;
static const uint64_t US = 1000ull;
static const uint64_t MS = 1000000ull;

static uint64_t now_mono;

static void at(uint64_t mono) {
  now_mono = mono;
  nccl_inspector_set_virtual_clock(1, mono, WALL0 + mono);
}

/* The GPU timer runs on host wall time here (offset 0). */
static uint64_t gpu(uint64_t mono) { return WALL0 + mono; }

static void begin(long long expiry_ns, long long min_size) {
  test_config c = test_defaults();
  c.expiry_ns = expiry_ns;
  c.min_size = min_size;
  test_enable(c);
  at(1000 * MS);
}

static void end(void* ctx) {
  ncclProfiler_v5.finalize(ctx);
  test_shutdown();
  nccl_inspector_set_virtual_clock(0, 0, 0);
}

/* A launch of one collective of n channels: its kernel starts 8 us after the launch and runs
 * `run` on every channel. Returns its handle; *kernel gets the kernel's start (host mono). */
static void* coll(void* ctx, uint64_t seq, int n, uint64_t count, uint64_t* kernel) {
  uint64_t launch = now_mono;
  test_launch(ctx);
  at(launch + 12 * US);
  void* op = test_coll(ctx, "AllReduce", seq, count, "ncclFloat32", n);
  test_stop(op);
  *kernel = launch + 8 * US;
  return op;
}

/* NCCL hands operation `op` readings on channels [lo, hi): the timestamps of a kernel that started
 * at `kernel` and ran `run` (whoever's item that was). */
static void read_channels(void* op, int lo, int hi, uint64_t kernel, uint64_t run) {
  for (int c = lo; c < hi; c++) {
    void* ch = test_channel(op, c, gpu(kernel + (uint64_t)(c - lo) * 100));
    test_channel_done(ch, gpu(kernel + run));
    test_stop(ch);
  }
}

/* A send/recv to self (round 0) on channels 0..n-1: device items without a host count. */
static void self_round(void* ctx, int n) {
  test_launch(ctx);
  void* s = test_p2p(ctx, "Send", 0, 65536, n);
  void* r = test_p2p(ctx, "Recv", 0, 65536, n);
  test_stop(s);
  test_stop(r);
}

static void a_lagging_collective_gets_its_own_item_from_the_next_reader(void) {
  begin(0, 0);
  void* ctx = test_comm(0x5e1f, 0, 2);
  (void)test_drain();
  uint64_t ka, kb, kc;
  void* a = coll(ctx, 0, 2, 262144, &ka);            /* items 1, bases 1: in step */
  at(now_mono + 40 * US);
  read_channels(a, 0, 2, ka, 30 * US);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(d.last.time_recovery, TIME_DIRECT);
  CHECK_EQ(d.last.exec_ns, 30 * US);

  at(now_mono + 100 * US);
  self_round(ctx, 2);                                 /* items 2, no count: lag 1 on 0..1 */
  (void)test_drain();
  at(now_mono + 100 * US);
  void* b = coll(ctx, 1, 2, 262144, &kb);             /* items 3, bases 2 */
  uint64_t self_kernel = kb - 50 * US;
  at(kb + 200 * US);
  read_channels(b, 0, 2, self_kernel, 20 * US);       /* base 2: the self round's item */
  CHECK_EQ(test_counter("recovery_self_item"), 2);
  CHECK_EQ(test_drain().ops, 0);                      /* it waits for its own item */

  at(now_mono + 100 * US);
  void* c = coll(ctx, 2, 2, 262144, &kc);             /* items 4, bases 3: reads b's item */
  at(kc + 300 * US);
  read_channels(c, 0, 2, kb, 45 * US);                /* b's kernel: handed on to b */
  d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(d.last.seq, 1);
  CHECK_EQ(d.last.timing_source, TIMING_KERNEL_GPU);
  CHECK_EQ(d.last.time_recovery, TIME_RECOVERED);
  CHECK_EQ(d.last.channels_recovered, 2);
  CHECK_EQ(d.last.max_channel_lag, 1);
  CHECK_EQ(d.last.channels_desynced, 0);
  CHECK_EQ(d.last.exec_ns, 45 * US);
  CHECK(!(d.last.flags & RECORD_FLAG_DESYNC_CHANNELS_EXCLUDED));
  CHECK_EQ(test_counter("recovered_channels"), 2);

  /* c's own item has no reader: at finalize it is closed untimed, "never delivered". */
  ncclProfiler_v5.finalize(ctx);
  d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(d.last.seq, 2);
  CHECK_EQ(d.last.timing_source, TIMING_NONE);
  CHECK_EQ(d.last.time_recovery, TIME_WITHHELD);
  CHECK_EQ(d.last.withheld_reason, WITHHELD_NEVER_DELIVERED);
  CHECK_EQ(d.last.quarantine_reason, QUARANTINE_KERNEL_CHANNEL_DESYNC);
  CHECK_EQ(test_counter("recovery_never_delivered"), 2);
  test_shutdown();
  nccl_inspector_set_virtual_clock(0, 0, 0);
}

/* A send and a receive of one round share one host count (the pair is one device item); a part
 * without data has a device item and no count: the channel lags by one for later operations. */
static void pairs_share_a_count_and_an_empty_part_has_none(void) {
  begin(0, 0);
  void* ctx = test_comm(0x9a17, 0, 2);
  (void)test_drain();
  /* Round 1 (peer 1) on channels 4..7: first seen, so numbering waits for its channels. */
  test_launch(ctx);
  void* s = test_p2p(ctx, "Send", 1, 65536, 4);
  void* r = test_p2p(ctx, "Recv", 1, 65536, 4);
  test_stop(s);
  test_stop(r);
  at(now_mono + 100 * US);
  read_channels(s, 4, 8, now_mono - 90 * US, 20 * US);
  read_channels(r, 4, 8, now_mono - 90 * US, 20 * US);
  CHECK_EQ(test_drain().p2ps, 2);
  /* 8 KiB + 1 over 4 parts of 4 KiB: the fourth part (channel 7) is empty. */
  at(now_mono + 100 * US);
  test_launch(ctx);
  void* e = test_p2p(ctx, "Send", 1, 8193, 4);
  test_stop(e);
  at(now_mono + 100 * US);
  read_channels(e, 4, 7, now_mono - 90 * US, 20 * US); /* no proxy op, no channel for part 3 */
  /* A collective on 0..7: in step but for channel 7 (its reading there is the empty part's item). */
  at(now_mono + 100 * US);
  uint64_t k1, k2;
  void* c1 = coll(ctx, 0, 8, 262144, &k1);
  at(k1 + 200 * US);
  read_channels(c1, 0, 7, k1, 50 * US);
  read_channels(c1, 7, 8, k1 - 150 * US, 20 * US); /* the empty part's item */
  CHECK_EQ(test_drain().ops, 0);
  at(now_mono + 100 * US);
  void* c2 = coll(ctx, 1, 8, 262144, &k2);
  at(k2 + 200 * US);
  read_channels(c2, 0, 7, k2, 60 * US);
  read_channels(c2, 7, 8, k1, 55 * US);            /* c1's item on channel 7 */
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(d.last.seq, 0);
  CHECK_EQ(d.last.time_recovery, TIME_RECOVERED);
  CHECK_EQ(d.last.channels_recovered, 1);
  CHECK_EQ(d.last.channels_desynced, 0);
  CHECK_EQ(d.last.exec_ns, 55 * US);
  /* c2's channel 7 is never delivered: at finalize a lower bound from its seven other channels
   * (closed with the 8 KiB + 1 send, whose fourth channel never comes). */
  ncclProfiler_v5.finalize(ctx);
  d = test_drain();
  CHECK_EQ(d.ops, 2);
  CHECK_EQ(test_counter("recovery_never_delivered"), 1);
  CHECK_EQ(test_counter("desync_channels_excluded"), 1);
  test_shutdown();
  nccl_inspector_set_virtual_clock(0, 0, 0);
}

/* An owner closed before its item's reading came (the in-flight expiry): the reading is counted
 * stale and never written into the reused slot. */
static void a_reading_for_a_closed_owner_is_counted_and_dropped(void) {
  begin((long long)(5 * MS), 0);
  void* ctx = test_comm(0x90e, 0, 2);
  (void)test_drain();
  self_round(ctx, 2);
  at(now_mono + 100 * US);
  uint64_t kb, kc;
  void* b = coll(ctx, 0, 2, 262144, &kb);           /* waits on both channels */
  at(kb + 200 * US);
  read_channels(b, 0, 2, kb - 50 * US, 20 * US);    /* the self round's item */
  at(now_mono + 10 * MS);
  nccl_inspector_sweep();                           /* expiry: closed, never delivered */
  decoded d = test_drain();
  CHECK_EQ(d.ops, 3);                               /* with the self round's two */
  CHECK_EQ(d.last.timing_source, TIMING_NONE);
  CHECK_EQ(d.last.withheld_reason, WITHHELD_NEVER_DELIVERED);
  void* c = coll(ctx, 1, 2, 262144, &kc);
  at(kc + 200 * US);
  read_channels(c, 0, 2, kb, 40 * US);              /* b's item: b is gone */
  CHECK_EQ(test_counter("recovery_owner_gone"), 2);
  CHECK_EQ(test_counter("recovered_channels"), 0);
  end(ctx);
}

/* b (items 2, its reader c) waits for its item; 64 more items run on its channels, so when c reads
 * the slot item 2 + 64 may have run (the launch-bound guard fails). `reading` is when the kernel
 * whose timestamps c gets started. */
static decoded read_after_sixty_four_later_items(void** ctx_out, int late_reading) {
  begin(0, 4096);
  void* ctx = test_comm(0x64, 0, 2);
  (void)test_drain();
  self_round(ctx, 2);
  at(now_mono + 100 * US);
  uint64_t kb, kc, kx;
  void* b = coll(ctx, 0, 2, 262144, &kb);           /* items 2, bases 1: waits */
  at(kb + 100 * US);
  read_channels(b, 0, 2, kb - 50 * US, 20 * US);
  void* c = coll(ctx, 1, 2, 262144, &kc);           /* items 3, bases 2: reads b's item */
  for (int i = 0; i < 64; i++) {                    /* 64 more items launched on 0..1 (untracked) */
    at(now_mono + 10 * US);
    CHECK(coll(ctx, 2 + (uint64_t)i, 2, 16, &kx) == NULL);
  }
  at(now_mono + 100 * US);
  /* b's own kernel's timestamps, or those of a kernel after the last launch (then item 2 + 64 may
   * have written them). */
  read_channels(c, 0, 2, late_reading ? kx + 20 * US : kb, 40 * US);
  *ctx_out = ctx;
  return test_drain();
}

/* Every later item of the slot (item 2 + 64) was launched after the reading's timestamps: the
 * reading is b's own item (causal resolution), and b is timed by it. */
static void a_reading_after_later_launches_is_kept_when_they_came_after_it(void) {
  void* ctx;
  decoded d = read_after_sixty_four_later_items(&ctx, 0);
  /* The self round's two, c (its own item's reader was untracked: never delivered) and b. */
  CHECK_EQ(d.ops, 4);
  CHECK_EQ(d.colls, 2);
  CHECK_EQ(test_counter("recovery_causal_placed"), 2);
  CHECK_EQ(test_counter("recovered_channels"), 2);
  CHECK_EQ(test_counter("recovery_lost_slot_reused"), 0);
  ncclProfiler_v5.finalize(ctx);
  d = test_drain();
  CHECK_EQ(d.ops, 0);
  test_shutdown();
  nccl_inspector_set_virtual_clock(0, 0, 0);
}

/* The reading's timestamps come after item 2 + 64 was launched: it may be that item's, so it is not
 * handed on (launch-bound guard, nothing ruled out); it is parked for a retry after later
 * placements on its channel, and b keeps waiting. None comes: at finalize b closes untimed. */
static void a_reading_after_sixty_four_later_items_is_lost(void) {
  void* ctx;
  decoded d = read_after_sixty_four_later_items(&ctx, 1);
  /* The self round's two, then c (its own item's reader was untracked: never delivered). */
  CHECK_EQ(d.ops, 3);
  CHECK_EQ(d.colls, 1);
  CHECK_EQ(d.last.seq, 1);
  CHECK_EQ(test_counter("recovery_causal_placed"), 0);
  CHECK_EQ(test_counter("recovery_parked"), 2);
  CHECK_EQ(test_counter("recovery_lost_slot_reused"), 0);
  CHECK_EQ(test_counter("recovered_channels"), 0);
  ncclProfiler_v5.finalize(ctx);
  d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(d.last.seq, 0);
  CHECK_EQ(d.last.timing_source, TIMING_NONE);
  CHECK_EQ(d.last.withheld_reason, WITHHELD_NEVER_DELIVERED);
  CHECK_EQ(test_counter("recovered_channels"), 0);
  test_shutdown();
  nccl_inspector_set_virtual_clock(0, 0, 0);
}

/* A collective 64 items ahead of its count (b: item 65, base 1) waits: its reader (the operation
 * counted 65) reads after item 65 + 64, its own, was launched, and keeps the reading by the
 * causal resolution when the timestamps came before that launch. */
static void a_collective_lagging_sixty_four_items_waits_for_the_causal_reading(void) {
  begin(10000 * MS, 4096);
  void* ctx = test_comm(0x66, 0, 2);
  for (int i = 0; i < 64; i++) {                    /* 64 device items without a count on 0..1 */
    at(now_mono + 20 * US);
    self_round(ctx, 2);
  }
  (void)test_drain();
  at(now_mono + 100 * US);
  uint64_t kb, kx, kr;
  void* b = coll(ctx, 0, 2, 262144, &kb);           /* items 65, bases 1: lag 64, waits */
  at(kb + 100 * US);
  read_channels(b, 0, 2, kb - 50 * US, 20 * US);    /* base 1: the first self round's item */
  for (int i = 0; i < 63; i++) {                    /* items 66..128, bases 2..64 (untracked) */
    at(now_mono + 20 * US);
    CHECK(coll(ctx, 1 + (uint64_t)i, 2, 16, &kx) == NULL);
  }
  decoded d = test_drain();
  CHECK_EQ(d.ops, 0);                               /* b waits */
  at(now_mono + 100 * US);
  void* r = coll(ctx, 64, 2, 262144, &kr);          /* items 129, bases 65: reads b's item */
  at(kr + 100 * US);
  read_channels(r, 0, 2, kb, 30 * US);              /* b's kernel's timestamps, before r's launch */
  d = test_drain();
  CHECK_EQ(test_counter("recovery_causal_placed"), 2);
  CHECK_EQ(test_counter("recovered_channels"), 2);
  CHECK_EQ(test_counter("recovery_lost_slot_reused"), 0);
  CHECK_EQ(d.ops, 1);                               /* b; r waits for its own item's reader */
  CHECK_EQ(d.last.seq, 0);
  CHECK_EQ(d.last.timing_source, TIMING_KERNEL_GPU);
  CHECK_EQ(d.last.time_recovery, TIME_RECOVERED);
  CHECK_EQ(d.last.exec_ns, 30 * US);
  CHECK_EQ(d.last.max_channel_lag, 64);
  end(ctx);
}

/* From 96 items ahead on, a collective does not wait (its entry could be renumbered first). */
static void a_collective_lagging_ninety_six_items_does_not_wait(void) {
  begin(10000 * MS, 0);
  void* ctx = test_comm(0x65, 0, 2);
  for (int i = 0; i < RECOV_WAIT_LAG; i++) {        /* 96 device items without a count on 0..1 */
    at(now_mono + 20 * US);
    self_round(ctx, 2);
  }
  (void)test_drain();
  at(now_mono + 100 * US);
  uint64_t kb;
  void* b = coll(ctx, 0, 2, 262144, &kb);           /* items 97, bases 1: lag 96 */
  at(kb + 100 * US);
  read_channels(b, 0, 2, kb - 50 * US, 20 * US);    /* base 1: the first self round's item */
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);                               /* closed now, not at the 10 s expiry */
  CHECK_EQ(d.last.seq, 0);
  CHECK_EQ(d.last.timing_source, TIMING_NONE);
  CHECK_EQ(d.last.time_recovery, TIME_WITHHELD);
  CHECK_EQ(d.last.withheld_reason, WITHHELD_SLOT_REUSED);
  CHECK_EQ(d.last.max_channel_lag, 0);              /* given with recovered channels only */
  CHECK_EQ(test_counter("recovery_never_delivered"), 0);
  end(ctx);
}

/* Recovery off (the setting): today's guards, the lagging channels withheld. */
/* n one-channel collectives below the minimum size, 10 us apart, from seq first: numbered (each
 * adds an item on channel 0) but untracked, so never read. */
static void untracked_items(void* ctx, uint64_t first, int n) {
  uint64_t kernel;
  for (int i = 0; i < n; i++) {
    at(now_mono + 10 * US);
    CHECK(coll(ctx, first + (uint64_t)i, 1, 16, &kernel) == NULL);
  }
}

/* Items 1..66 on channel 0 (seqs 0..65). P (item 1), read 20 us after its kernel, gives the GPU
 * clock's offset bound; W (item 2), read after items 3..66 were launched with timestamps from
 * before the last of those launches, is kept by the causal test, and from then on readings are
 * placed (channel_placed.h). Both are timed directly. */
static void bound_and_placements_on(void* ctx) {
  uint64_t kp, kw;
  void* p = coll(ctx, 0, 1, 262144, &kp);
  at(kp + 20 * US);
  read_channels(p, 0, 1, kp, 5 * US);
  void* w = coll(ctx, 1, 1, 262144, &kw);
  untracked_items(ctx, 2, 64);
  at(now_mono + 10 * US);
  read_channels(w, 0, 1, kw, 5 * US);
  CHECK_EQ(test_counter("recovery_causal_placed"), 1);
  decoded d = test_drain();
  CHECK_EQ(d.colls, 2);
  CHECK_EQ(d.last.time_recovery, TIME_DIRECT);
}

/* The order test (channel_placed.h) and a parked reading (channel_parked.h). One channel. P (item 1)
 * is read 20 us after its kernel: the
 * GPU clock's offset bound. W (item 2) is read after 64 later items were launched, with timestamps
 * from before the last of those launches: kept by the causal test, and from then on readings are
 * placed. X (item 67) is read after item 131 was launched, with timestamps after that launch, so the
 * causal test cannot tell item 67 from item 131. With Y (item 68) placed first, starting after X's
 * timestamps, item 131 (which runs after 68) is ruled out and the reading is X's own; without Y
 * placed, X's channel is left out as read late. */
static void order_scenario(int y_first) {
  begin(0, 4096);
  void* ctx = test_comm(0x0de5, 0, 2);
  (void)test_drain();
  uint64_t kx, ky;
  bound_and_placements_on(ctx);                       /* items 1..66 on channel 0 */

  at(now_mono + 10 * US);
  void* x = coll(ctx, 66, 1, 262144, &kx);            /* item 67 */
  at(now_mono + 10 * US);
  void* y = coll(ctx, 67, 1, 262144, &ky);            /* item 68 */
  untracked_items(ctx, 68, 63);                       /* items 69..131 */
  /* The GPU ran behind: X's kernel after every launch, Y's after X's. */
  uint64_t x_run = now_mono + 100 * US, y_run = x_run + 100 * US;
  at(y_run + 200 * US);
  if (y_first) read_channels(y, 0, 1, y_run, 40 * US);
  read_channels(x, 0, 1, x_run, 40 * US);
  if (!y_first) read_channels(y, 0, 1, y_run, 40 * US);
  (void)kx;
  (void)ky;
  decoded d = test_drain();
  CHECK_EQ(d.colls, 2);
  if (y_first) {
    CHECK_EQ(test_counter("recovery_order_placed"), 1);
    CHECK_EQ(test_counter("late_read_channels"), 0);
    CHECK_EQ(d.last.seq, 66);
    CHECK_EQ(d.last.timing_source, TIMING_KERNEL_GPU);
    CHECK_EQ(d.last.exec_ns, 40 * US);
  } else {
    /* X's reading was ambiguous when it came: X's channel is left out, and the reading is parked;
     * Y's placement then places it on item 67 on a retry (for operations still to come). */
    CHECK_EQ(test_counter("recovery_order_placed"), 0);
    CHECK(test_counter("late_read_channels") >= 1);
    CHECK_EQ(test_counter("recovery_parked"), 1);
    CHECK_EQ(test_counter("recovery_parked_placed"), 1);
  }
  end(ctx);
}

/* P (item 1) gives the GPU clock's bound, W (item 2) turns placements on (as in order_scenario).
 * R (item 67) and Y (item 68) run at once; Y is read in time and placed. R is read after X (item
 * 131) ran, and gets X's timestamps: item 67 is ruled out (it cannot start after item 68 did), so
 * the reading is placed on item 131, and R's channel is left out. X is read after item 195 was
 * launched, with timestamps after that launch: its own reading is ambiguous, and it takes its
 * item's timestamps from R's reading. */
static void an_operation_takes_its_item_from_an_earlier_late_reading(void) {
  begin(0, 4096);
  void* ctx = test_comm(0x0de6, 0, 2);
  (void)test_drain();
  uint64_t kr, ky, kx;
  bound_and_placements_on(ctx);                       /* items 1..66 on channel 0 */

  at(now_mono + 10 * US);
  void* r = coll(ctx, 66, 1, 262144, &kr);            /* item 67 */
  at(now_mono + 10 * US);
  void* y = coll(ctx, 67, 1, 262144, &ky);            /* item 68 */
  at(ky + 30 * US);
  read_channels(y, 0, 1, ky, 10 * US);                /* in time: placed on 68 */
  untracked_items(ctx, 68, 62);                       /* items 69..130 */
  at(now_mono + 10 * US);
  void* x = coll(ctx, 130, 1, 262144, &kx);           /* item 131 */
  at(kx + 60 * US);
  read_channels(r, 0, 1, kx, 33 * US);                /* X's timestamps in R's slot */
  CHECK_EQ(test_counter("recovery_order_placed"), 1);
  decoded d = test_drain();
  CHECK_EQ(d.colls, 2);                               /* Y, then R with its channel left out */
  CHECK_EQ(d.last.seq, 66);
  CHECK_EQ(d.last.timing_source, TIMING_NONE);
  CHECK_EQ(d.last.withheld_reason, WITHHELD_SLOT_REUSED);
  untracked_items(ctx, 131, 64);                      /* items 132..195 */
  at(now_mono + 100 * US);
  read_channels(x, 0, 1, now_mono - 50 * US, 20 * US); /* after item 195's launch: ambiguous */
  d = test_drain();
  CHECK_EQ(d.colls, 1);
  CHECK_EQ(d.last.seq, 130);
  CHECK_EQ(d.last.timing_source, TIMING_KERNEL_GPU);
  CHECK_EQ(d.last.time_recovery, TIME_RECOVERED);
  CHECK_EQ(d.last.channels_recovered, 1);
  CHECK_EQ(d.last.exec_ns, 33 * US);
  CHECK_EQ(test_counter("recovery_found_placed"), 1);
  CHECK_EQ(test_counter("recovery_order_placed"), 1);
  end(ctx);
}

/* Launch windows (channel_placed.h). P (item 1 on channel 0) gives the GPU clock's bound, W (item
 * 2) turns placements on. X runs on channels 0 (item 67) and 1 (item 1); 64 one-channel
 * collectives follow on channel 0, and the GPU runs X after all of them were launched. X's reading
 * on channel 1 passes the guard and is placed: its launch's window. Its reading on channel 0 comes
 * after item 131 was launched and neither the causal nor the order test tells 67 from 131; it lies
 * inside X's window, so it is item 67's. Read before channel 1's, it is left out as read late. */
static void window_scenario(int window_first) {
  begin(0, 4096);
  void* ctx = test_comm(0x0de7, 0, 2);
  (void)test_drain();
  uint64_t kx;
  bound_and_placements_on(ctx);                       /* items 1..66 on channel 0 */

  at(now_mono + 10 * US);
  void* x = coll(ctx, 66, 2, 262144, &kx);            /* item 67 on 0, item 1 on 1 */
  untracked_items(ctx, 67, 64);                       /* items 68..131 on 0 */
  uint64_t run = now_mono + 100 * US;                 /* X's kernel, after every launch */
  at(run + 200 * US);
  if (window_first) read_channels(x, 1, 2, run, 40 * US);
  read_channels(x, 0, 1, run + 1 * US, 38 * US);
  if (!window_first) read_channels(x, 1, 2, run, 40 * US);
  (void)kx;
  decoded d = test_drain();
  CHECK_EQ(d.colls, 1);
  CHECK_EQ(d.last.seq, 66);
  CHECK_EQ(d.last.timing_source, TIMING_KERNEL_GPU);
  CHECK_EQ(d.last.exec_ns, 40 * US);
  CHECK_EQ(test_counter("recovery_order_placed"), 0);
  if (window_first) {
    CHECK_EQ(test_counter("recovery_window_placed"), 1);
    CHECK_EQ(test_counter("late_read_channels"), 0);
    CHECK(!(d.last.flags & RECORD_FLAG_DESYNC_CHANNELS_EXCLUDED));
  } else {
    CHECK_EQ(test_counter("recovery_window_placed"), 0);
    CHECK_EQ(test_counter("late_read_channels"), 1);
    CHECK(d.last.flags & RECORD_FLAG_DESYNC_CHANNELS_EXCLUDED);
  }
  end(ctx);
}

static void a_late_reading_inside_its_launch_window_is_kept(void) { window_scenario(1); }

static void a_late_reading_before_its_launch_window_exists_is_left_out(void) { window_scenario(0); }

static void a_late_reading_is_kept_when_placed_items_rule_out_the_later_one(void) {
  order_scenario(1);
}

static void a_late_reading_without_placed_neighbours_is_left_out(void) {
  order_scenario(0);
}

static void off_by_setting_withholds_as_before(void) {
  nccl_inspector_set_channel_recovery(0);
  begin(0, 0);
  void* ctx = test_comm(0x0ff, 0, 2);
  (void)test_drain();
  self_round(ctx, 2);
  at(now_mono + 100 * US);
  uint64_t kb;
  void* b = coll(ctx, 0, 2, 262144, &kb);
  at(kb + 200 * US);
  read_channels(b, 0, 2, kb - 50 * US, 20 * US);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 3);
  CHECK_EQ(d.last.timing_source, TIMING_NONE);
  CHECK_EQ(d.last.time_recovery, TIME_WITHHELD);
  CHECK_EQ(d.last.withheld_reason, WITHHELD_LAG_PREDICTED);
  CHECK_EQ(d.last.recovery_off_reason, RECOV_OFF_SETTING);
  end(ctx);
  nccl_inspector_set_channel_recovery(1);
}

/* Two collectives in one launch: the rule's phase 1 does not number them; recovery off, counted. */
static void several_collectives_in_one_launch_turn_it_off(void) {
  begin(0, 0);
  void* ctx = test_comm(0x2c, 0, 2);
  (void)test_drain();
  test_launch(ctx);
  void* x = test_coll(ctx, "AllReduce", 0, 262144, "ncclFloat32", 2);
  void* y = test_coll(ctx, "AllGather", 0, 262144, "ncclFloat32", 2);
  test_stop(x);
  test_stop(y);
  at(now_mono + 100 * US);
  read_channels(x, 0, 2, now_mono - 90 * US, 20 * US);
  read_channels(y, 0, 2, now_mono - 60 * US, 20 * US);
  decoded d = test_drain();
  CHECK_EQ(d.ops, 2);
  CHECK_EQ(d.last.recovery_off_reason, RECOV_OFF_SEVERAL_COLLS);
  CHECK_EQ(d.last.timing_source, TIMING_KERNEL_GPU);
  CHECK_EQ(test_counter("recovery_off"), 1);
  end(ctx);
}

/* A P2P to a peer whose channel set was never seen waits in the queue to be numbered. One of its two
 * channels reads meanwhile (its reading flag is set, nobody claims it), and the communicator's
 * finalize closes it before it is numbered (so would an eviction). Its slot must go back with no reading flag set: the next
 * operation in the slot, queued too, would otherwise have a drainer take a reading of it before
 * its own channel start had cleared the flag (number_held scans the started channels' flags). */
static void a_slot_closed_before_numbering_keeps_no_reading_flag(void) {
  begin((long long)(5 * MS), 0);
  void* ctx = test_comm(0x51a7, 0, 2);
  (void)test_drain();
  test_launch(ctx);
  at(now_mono + 12 * US);
  void* p = test_p2p(ctx, "Send", 1, 65536, 2);
  test_stop(p);
  at(now_mono + 40 * US);
  void* ch = test_channel(p, 0, gpu(now_mono - 30 * US));
  test_channel_done(ch, gpu(now_mono - 10 * US));
  test_stop(ch);
  op_slot* s = &g_core.ops.slots[handle_index(defer_core_handle(p))];
  CHECK_EQ(atomic_load(&s->recov_state), RECOV_OP_QUEUED);
  CHECK_EQ(atomic_load(&s->ch[0].recov_ready), 1);
  CHECK_EQ(atomic_load(&s->ch[0].recov_claimed), 0);
  at(now_mono + 10 * MS);
  ncclProfiler_v5.finalize(ctx); /* flushed: closed, never numbered */
  decoded d = test_drain();
  CHECK_EQ(d.ops, 1);
  CHECK_EQ(atomic_load(&s->ch[0].recov_ready), 0);
  CHECK_EQ(atomic_load(&s->ch[0].recov_claimed), 0);
  test_shutdown();
  nccl_inspector_set_virtual_clock(0, 0, 0);
}

/* A communicator slot's recovery state, reused by the slot's next communicator, is reset to what a
 * fresh one is: only the rows of the channels the last one numbered are zeroed (recov_comm_init),
 * which must leave nothing behind, whether its readings were placed (0) or parked (1). */
static void a_reused_slot_starts_from_a_clean_state(void) {
  static recov_state fresh;
  memset(&fresh, 0, sizeof(fresh));
  atomic_store(&fresh.max_units, 1);
  for (int late = 0; late < 2; late++) {
    void* ctx;
    (void)read_after_sixty_four_later_items(&ctx, late);
    CHECK_EQ(test_counter(late ? "recovery_parked" : "recovery_causal_placed"), 2);
    ncclProfiler_v5.finalize(ctx);
    (void)test_drain();
    uint32_t index = handle_index(ctx);
    recov_state* r = g_core.comms.slots[index].recov_mem;
    CHECK(r != NULL);
    uint64_t used; /* copied out: an atomic load here trips GCC's overflow check in ASan builds */
    memcpy(&used, (const void*)&r->used_channels, sizeof(used));
    CHECK_EQ(used, 3); /* channels 0 and 1 */
    CHECK(memcmp(r, &fresh, sizeof(fresh)) != 0);
    void* next = test_comm(0x65, 0, 2);
    CHECK_EQ(handle_index(next), index);
    CHECK(g_core.comms.slots[index].recov == r);
    CHECK(memcmp(r, &fresh, sizeof(fresh)) == 0);
    ncclProfiler_v5.finalize(next);
    test_shutdown();
    nccl_inspector_set_virtual_clock(0, 0, 0);
  }
}

int main(void) {
  RUN(a_lagging_collective_gets_its_own_item_from_the_next_reader);
  RUN(pairs_share_a_count_and_an_empty_part_has_none);
  RUN(a_reading_for_a_closed_owner_is_counted_and_dropped);
  RUN(a_reading_after_later_launches_is_kept_when_they_came_after_it);
  RUN(a_reading_after_sixty_four_later_items_is_lost);
  RUN(a_collective_lagging_sixty_four_items_waits_for_the_causal_reading);
  RUN(a_collective_lagging_ninety_six_items_does_not_wait);
  RUN(a_late_reading_is_kept_when_placed_items_rule_out_the_later_one);
  RUN(a_late_reading_without_placed_neighbours_is_left_out);
  RUN(an_operation_takes_its_item_from_an_earlier_late_reading);
  RUN(a_late_reading_inside_its_launch_window_is_kept);
  RUN(a_late_reading_before_its_launch_window_exists_is_left_out);
  RUN(off_by_setting_withholds_as_before);
  RUN(several_collectives_in_one_launch_turn_it_off);
  RUN(a_slot_closed_before_numbering_keeps_no_reading_flag);
  RUN(a_reused_slot_starts_from_a_clean_state);
  return test_failures ? 1 : 0;
}
