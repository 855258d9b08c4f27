/* Several application threads and proxy threads on several communicators at once, a sweeper and
 * a draining consumer, as in a real run (facts doc 3.2: operations start on the application
 * thread, their kernel channels on the communicator's proxy thread, often after the operation's
 * stop). The record count must add up exactly. Built also with ThreadSanitizer (make test-tsan).
 * Run again with more calling threads than the deferred mode has logs (defer_log.h): those
 * beyond share one log, and nothing may be lost; and a thread on the shared log takes a log of
 * its own once one is free again. */
#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "harness.h"

#define MAX_COMMS 12
/* The proxy threads stay fewer than 64 operations behind their application thread (at most
 * QUEUE - 1 queued plus one being pushed): further behind, NCCL's timestamp slots could have been
 * reused and the core rightly leaves the channels out (channel_late_read.h). */
#define QUEUE 48

static const uint64_t T0 = 1795942870000000000ull;

static int comms;
static int ops_per_comm;
static test_handoff queues[MAX_COMMS];
/* Proxy operations whose stop a network thread makes, racing the operation's close. */
static test_handoff net_queues[MAX_COMMS];
static void* contexts[MAX_COMMS];
static _Atomic int producers_done;
static _Atomic long long drained_ops;
static _Atomic long long drained_breakdowns;

static void* application(void* arg) {
  int c = (int)(uintptr_t)arg;
  for (int i = 0; i < ops_per_comm; i++) {
    void* op = (i % 3 == 2) ? test_p2p(contexts[c], "Send", 9 + c, 8192, 2)
                            : test_coll(contexts[c], "AllReduce", (uint64_t)i, 4096, "ncclFloat32", 2);
    if (op == NULL) abort();
    if (i % 2) test_stop(op); /* stop before or after handing over: both happen in NCCL */
    test_handoff_push(&queues[c], op);
    if (!(i % 2)) test_stop(op);
    /* NCCL cannot start operations faster than the GPU runs them; keep the test's producers at a
     * rate the consumer sustains, so that what is checked is exactness, not ring overflow. */
    while ((i & 255) == 255 && nccl_inspector_ring_used_cells() > (1 << 15)) sched_yield();
    /* The same for the deferred mode's logs, which the proxy threads fill fastest. */
    while ((i & 63) == 63 && defer_backlog() > DEFER_LOG_UNITS / 4) sched_yield();
  }
  test_handoff_close(&queues[c]);
  return NULL;
}

/* One proxy operation of two steps of 4 KiB, through every state NCCL records (the steps' ring
 * and sums, proxy_breakdown.h); returns its handle, not stopped. */
static void* proxy_op(void* op, int channel, int is_send) {
  void* px = test_proxy_op(op, channel, 3, 2, is_send);
  if (px == NULL) abort();
  void* st[2];
  for (int step = 0; step < 2; step++) {
    st[step] = test_proxy_step(px, step);
    test_proxy_state(st[step], is_send ? ncclProfilerProxyStepSendGPUWait : ncclProfilerProxyStepRecvWait, 4096);
  }
  for (int step = 0; step < 2; step++) {
    if (is_send) {
      test_proxy_state(st[step], ncclProfilerProxyStepSendPeerWait_v4, 4096);
      test_proxy_state(st[step], ncclProfilerProxyStepSendPeerWait_v4, 4096); /* a retry */
      test_proxy_state(st[step], ncclProfilerProxyStepSendWait, 4096);
    } else {
      test_proxy_state(st[step], ncclProfilerProxyStepRecvFlushWait, 4096);
      test_proxy_state(st[step], ncclProfilerProxyStepRecvGPUWait, 4096);
    }
    test_stop(st[step]);
  }
  return px;
}

static void* proxy(void* arg) {
  int c = (int)(uintptr_t)arg;
  void* op;
  uint64_t t = T0;
  int n = 0;
  while (test_handoff_pop(&queues[c], &op)) {
    /* Network proxy operations on every other operation: their stops come before the kernel's
     * channels, or after them from the network thread (the operation then waits for them). */
    void* send = NULL;
    void* recv = NULL;
    if (n % 2 == 0) {
      send = proxy_op(op, 2 * c, 1);
      recv = proxy_op(op, 2 * c + 1, 0);
      if (n % 4 == 0) {
        test_stop(send);
        test_stop(recv);
        send = recv = NULL;
      }
    }
    void* a = test_channel(op, 2 * c, t);
    void* b = test_channel(op, 2 * c + 1, t + 7);
    test_channel_done(b, t + 900);
    if (send != NULL) {
      test_handoff_push(&net_queues[c], send);
      test_handoff_push(&net_queues[c], recv);
    }
    test_channel_done(a, t + 1000);
    t += 2000;
    n++;
    while ((n & 63) == 0 && defer_backlog() > DEFER_LOG_UNITS / 4) sched_yield();
  }
  test_handoff_close(&net_queues[c]);
  return NULL;
}

static void* network(void* arg) {
  int c = (int)(uintptr_t)arg;
  void* px;
  while (test_handoff_pop(&net_queues[c], &px)) test_stop(px);
  return NULL;
}

static void* consumer(void* arg) {
  static uint8_t buf[1 << 20];
  for (;;) {
    int finished = atomic_load(&producers_done) == comms;
    if (finished) nccl_inspector_defer_flush();
    long long n = nccl_inspector_drain(buf, sizeof buf);
    for (long long off = 0; off < n;) {
      const op_record* r = (const op_record*)(buf + off);
      if (r->kind == RECORD_KIND_COLL || r->kind == RECORD_KIND_P2P) {
        if (r->timing_source != 1 || r->exec_ns != 1000) { fprintf(stderr, "bad record src %d exec %llu flags %x seen %d\n", r->timing_source, (unsigned long long)r->exec_ns, r->flags, r->channels_seen); abort(); } /* records arrive intact */
        if (r->net_cells > 0) {
          /* Closed only once its proxy operations stopped: the whole breakdown is there. */
          const net_record* net = (const net_record*)(buf + off + (long long)(r->cells - r->net_cells) * INSPECTOR_CELL_BYTES);
          const net_wait_record* w = (const net_wait_record*)(net + 1);
          if (net->bytes_sent != 8192 || net->bytes_received != 8192 || net->proxy_ops != 2 || net->last_done_wall_ns == 0 ||
              (r->flags & RECORD_FLAG_PROXY_INCOMPLETE) || w->steps != 4 || w->lag_steps != 4 ||
              w->peer_wait_steps != 2 || w->flush_steps != 2 ||
              w->known != (NET_KNOWN_PEER_WAIT | NET_KNOWN_FLUSH | NET_KNOWN_LAG)) {
            fprintf(stderr, "bad breakdown sent %llu received %llu ops %d flags %x\n", (unsigned long long)net->bytes_sent,
                    (unsigned long long)net->bytes_received, net->proxy_ops, r->flags);
            abort();
          }
          atomic_fetch_add(&drained_breakdowns, 1);
        }
        atomic_fetch_add(&drained_ops, 1);
      }
      off += (long long)r->cells * INSPECTOR_CELL_BYTES;
    }
    if (finished && n == 0) break;
    nccl_inspector_sweep(); /* races enter_any against the events */
  }
  return arg;
}

/* n communicators, each with an application, a proxy and a network thread, and ops operations,
 * into a ring of ring_cells cells. */
static void run(int n, int ops, int ring_cells) {
  comms = n;
  ops_per_comm = ops;
  atomic_store(&producers_done, 0);
  atomic_store(&drained_ops, 0);
  atomic_store(&drained_breakdowns, 0);
  test_config cfg = test_defaults();
  cfg.op_slots = 4096;
  cfg.ring_cells = ring_cells;
  cfg.expiry_ns = 60ll * 1000000000ll;
  test_enable(cfg);
  for (int c = 0; c < comms; c++) {
    test_handoff_init(&queues[c], QUEUE);
    test_handoff_init(&net_queues[c], 16);
    contexts[c] = test_comm(0x100u + (uint64_t)c, 8, 16);
  }
  pthread_t apps[MAX_COMMS], proxies[MAX_COMMS], nets[MAX_COMMS], drain;
  pthread_create(&drain, NULL, consumer, NULL);
  for (int c = 0; c < comms; c++) {
    pthread_create(&proxies[c], NULL, proxy, (void*)(uintptr_t)c);
    pthread_create(&nets[c], NULL, network, (void*)(uintptr_t)c);
    pthread_create(&apps[c], NULL, application, (void*)(uintptr_t)c);
  }
  for (int c = 0; c < comms; c++) {
    pthread_join(apps[c], NULL);
    pthread_join(proxies[c], NULL);
    pthread_join(nets[c], NULL);
    atomic_fetch_add(&producers_done, 1);
  }
  pthread_join(drain, NULL);
  for (int c = 0; c < comms; c++) ncclProfiler_v5.finalize(contexts[c]);
  (void)test_drain();
  long long total = (long long)comms * ops_per_comm;
  CHECK_EQ(atomic_load(&drained_ops), total);
  /* Every proxy thread's application thread alternates collectives and sends; every other one
   * got proxy operations. */
  CHECK_EQ(atomic_load(&drained_breakdowns), total / 2);
  CHECK_EQ(test_counter("ring_full"), 0);
  CHECK_EQ(test_counter("stale_handle"), 0);
  CHECK_EQ(test_counter("evicted_table_full"), 0);
  CHECK_EQ(test_counter("flushed_at_finalize"), 0);
  CHECK_EQ(test_counter("deferred_log_full"), 0);
  if (nccl_inspector_deferred_active()) {
    /* Threads beyond the logs wrote to the shared one (threads that exited gave theirs back). */
    CHECK(test_counter("deferred_shared_log") > 0 || 3 * comms + 1 <= DEFER_LOGS);
  } else {
    CHECK_EQ(test_counter("deferred_shared_log"), 0);
  }
  test_shutdown();
}

static void applications_proxies_sweeper_and_consumer(void) { run(4, 20000, 1 << 16); }

/* 36 calling threads at once, and the main thread's finalizes, into the same ring as above: with
 * this many threads on a few cores the deferred mode's replays come in bursts, which its consumer
 * paces to the ring's fill (without that, half the runs lost 69-1,344 records to a full ring). */
static void more_calling_threads_than_logs(void) { run(MAX_COMMS, 3000, 1 << 16); }

/* ---- a thread leaves the shared log once a log is free again ---- */

static void* g_ctx;
static pthread_barrier_t g_held, g_release, g_exited;
static _Atomic uint64_t g_seq;

/* One collective on ctx through its kernel channel, as NCCL makes it, its kernel 1 us long from
 * t; its handle. */
static void* op_at(void* ctx, uint64_t seq, uint64_t t) {
  void* op = test_coll(ctx, "AllReduce", seq, 4096, "ncclFloat32", 1);
  void* ch = test_channel(op, 0, t);
  test_channel_done(ch, t + 1000);
  test_stop(ch);
  test_stop(op);
  return op;
}

static void* one_op(void) {
  uint64_t seq = atomic_fetch_add(&g_seq, 1);
  return op_at(g_ctx, seq, T0 + seq * 10000);
}

static void enable_with_one_comm(test_config cfg, uint64_t comm_id) {
  test_enable(cfg);
  g_ctx = test_comm(comm_id, 0, 2);
  atomic_store(&g_seq, 0);
}

/* The log a deferred-mode handle was logged in (defer_log.h: its top byte is the log's index + 1). */
static int log_of_handle(void* h) { return (int)((uint64_t)(uintptr_t)h >> 56) - 1; }

static void* holder(void* arg) {
  (void)one_op(); /* claims a log */
  pthread_barrier_wait(&g_held);
  pthread_barrier_wait(&g_release);
  return arg; /* exits: its log goes back */
}

static int g_first_log, g_calls_to_leave;
static long long g_colls; /* drained by the latecomer */
#define LATECOMER_CALLS 9000

static void* latecomer(void* arg) {
  g_first_log = log_of_handle(one_op()); /* every log is held: the shared one */
  pthread_barrier_wait(&g_release);
  pthread_barrier_wait(&g_exited);
  nccl_inspector_defer_flush(); /* the holders' logs are read to their ends and free */
  g_calls_to_leave = -1;
  for (int i = 0; i < LATECOMER_CALLS; i++) {
    int log = log_of_handle(one_op());
    if (g_calls_to_leave < 0 && log != DEFER_LOGS) g_calls_to_leave = i + 1;
    if (i % 1024 == 1023) g_colls += test_drain().colls;
  }
  return arg;
}

static void a_thread_on_the_shared_log_takes_a_freed_log(void) {
  test_config cfg = test_defaults();
  cfg.op_slots = 4096;
  enable_with_one_comm(cfg, 0x900u);
  g_colls = 0;
  pthread_barrier_init(&g_held, NULL, DEFER_LOGS + 1);
  pthread_barrier_init(&g_release, NULL, DEFER_LOGS + 2);
  pthread_barrier_init(&g_exited, NULL, 2);
  pthread_t holders[DEFER_LOGS], late;
  for (int i = 0; i < DEFER_LOGS; i++) pthread_create(&holders[i], NULL, holder, NULL);
  pthread_barrier_wait(&g_held); /* every log is owned (the main thread may hold one too) */
  pthread_create(&late, NULL, latecomer, NULL);
  pthread_barrier_wait(&g_release);
  for (int i = 0; i < DEFER_LOGS; i++) pthread_join(holders[i], NULL);
  pthread_barrier_wait(&g_exited);
  pthread_join(late, NULL);
  ncclProfiler_v5.finalize(g_ctx);
  decoded d = test_drain();
  pthread_barrier_destroy(&g_held);
  pthread_barrier_destroy(&g_release);
  pthread_barrier_destroy(&g_exited);
  if (nccl_inspector_deferred_active()) {
    printf("     on the shared log, then its own after %d operations\n", g_calls_to_leave);
    CHECK_EQ(g_first_log, DEFER_LOGS);
    /* It looks for a log again every 4,096 calls through the shared log (defer_log.c), three of
     * them an operation here (its start, its channel's start and GPU stop): by the first look. */
    CHECK(g_calls_to_leave > 0 && g_calls_to_leave <= 4096 / 3 + 1);
    CHECK(test_counter("deferred_shared_log") > 0);
  }
  /* Every collective's record, whichever log it went through, the last one timed by its channel. */
  CHECK_EQ(g_colls + d.colls, DEFER_LOGS + 1 + LATECOMER_CALLS);
  CHECK_EQ(d.last.exec_ns, 1000);
  CHECK_EQ(test_counter("ring_full"), 0);
  CHECK_EQ(test_counter("deferred_log_full"), 0);
  test_shutdown();
}

/* ---- threads that come and go ---- */

#define ASYNC_JOBS 4096
#define JOBS_AT_ONCE 8
static void* g_job_ctx[JOBS_AT_ONCE];
static uint64_t g_job_seq[JOBS_AT_ONCE];

/* A thread that makes one collective on its communicator and exits, as NCCL's ncclAsyncJobMain
 * does for each communicator of a group launch on non-blocking communicators. */
static void* async_job(void* arg) {
  int c = (int)(uintptr_t)arg;
  uint64_t seq = g_job_seq[c]++; /* one job per communicator at a time: joined before the next */
  (void)op_at(g_job_ctx[c], seq, T0 + (seq * JOBS_AT_ONCE + (uint64_t)c) * 10000);
  return NULL;
}

/* Enables the core and creates n communicators for the jobs, ids first_id on. */
static void enable_with_job_comms(int n, uint64_t first_id) {
  test_config cfg = test_defaults();
  cfg.op_slots = 4096;
  test_enable(cfg);
  for (int c = 0; c < n; c++) {
    g_job_ctx[c] = test_comm(first_id + (uint64_t)c, 0, 2);
    g_job_seq[c] = 0;
  }
}

/* jobs threads, at_once at a time (thread c of a batch on communicator c), each joined before the
 * next batch; every 256 jobs the ring is drained into *colls and *timed unless they are NULL. */
static void run_jobs(int jobs, int at_once, long long* colls, long long* timed) {
  for (int i = 0; i < jobs; i += at_once) {
    pthread_t t[JOBS_AT_ONCE];
    for (int c = 0; c < at_once; c++) {
      if (pthread_create(&t[c], NULL, async_job, (void*)(uintptr_t)c) != 0) abort();
    }
    for (int c = 0; c < at_once; c++) pthread_join(t[c], NULL);
    if (colls != NULL && (i + at_once) % 256 == 0) {
      decoded d = test_drain();
      *colls += d.colls;
      *timed += d.timed_ops;
    }
  }
}

/* Thousands of threads, JOBS_AT_ONCE at a time (a group launch over as many communicators), each
 * making one collective: every record arrives, timed, and each thread has a log of its own, never
 * the shared log's lock, however far behind the consumer is: a thread takes a free log, or else
 * the log of one that exited, whose last entries the consumer may not have read yet. */
static void threads_that_come_and_go(void) {
  enable_with_job_comms(JOBS_AT_ONCE, 0xb00u);
  long long colls = 0, timed = 0;
  run_jobs(ASYNC_JOBS, JOBS_AT_ONCE, &colls, &timed);
  for (int c = 0; c < JOBS_AT_ONCE; c++) ncclProfiler_v5.finalize(g_job_ctx[c]);
  decoded d = test_drain();
  if (nccl_inspector_deferred_active()) {
    printf("     %lld logs taken over from exited threads, %lld threads through the shared log\n",
           test_counter("deferred_log_taken_over"), test_counter("deferred_shared_log"));
    CHECK_EQ(test_counter("deferred_shared_log"), 0);
  }
  CHECK_EQ(colls + d.colls, ASYNC_JOBS);
  CHECK_EQ(timed + d.timed_ops, ASYNC_JOBS);
  CHECK_EQ(test_counter("ring_full"), 0);
  CHECK_EQ(test_counter("deferred_log_full"), 0);
  test_shutdown();
}

/* With the consumer held back, twice as many threads as there are logs, one after another, each
 * making one collective and exiting: once no log is free, each takes over the log of one that
 * exited, whose entries wait to be replayed; none goes to the shared log, and every record
 * arrives, timed, once the consumer goes on. */
static void a_thread_takes_over_the_log_of_one_that_exited(void) {
  enable_with_job_comms(1, 0xc00u);
  nccl_inspector_defer_hold(1);
  run_jobs(2 * DEFER_LOGS, 1, NULL, NULL);
  nccl_inspector_defer_hold(0);
  ncclProfiler_v5.finalize(g_job_ctx[0]);
  decoded d = test_drain();
  if (nccl_inspector_deferred_active()) {
    printf("     %lld logs taken over\n", test_counter("deferred_log_taken_over"));
    CHECK(test_counter("deferred_log_taken_over") >= DEFER_LOGS);
    CHECK_EQ(test_counter("deferred_shared_log"), 0);
  }
  CHECK_EQ(d.colls, 2 * DEFER_LOGS);
  CHECK_EQ(d.timed_ops, 2 * DEFER_LOGS);
  CHECK_EQ(test_counter("ring_full"), 0);
  CHECK_EQ(test_counter("deferred_log_full"), 0);
  test_shutdown();
}

/* ---- a communicator's init replays the logs only after a finalize ---- */

/* With the consumer held back, collectives on one communicator stay in the logs while another is
 * created (nothing replayed on the creating thread, NCCL's); once a finalize is logged, the next
 * init replays everything first, so that its records follow the finalized communicator's. */
static void an_init_replays_the_logs_only_after_a_finalize(void) {
  enable_with_job_comms(1, 0xd00u);
  long long comm_cells = nccl_inspector_ring_used_cells(); /* the communicator's own record */
  CHECK(comm_cells > 0);
  bool deferred = nccl_inspector_deferred_active();
  nccl_inspector_defer_hold(1);
  for (int i = 0; i < 10; i++) (void)async_job((void*)(uintptr_t)0);
  void* other = test_comm(0xd01u, 0, 2); /* created while the first lives on */
  /* Its own record only: the collectives were not replayed by the init. */
  if (deferred) CHECK_EQ(nccl_inspector_ring_used_cells(), 2 * comm_cells);
  ncclProfiler_v5.finalize(other);
  void* third = test_comm(0xd02u, 0, 2); /* after a logged finalize: replays first */
  if (deferred) CHECK(nccl_inspector_ring_used_cells() > 3 * comm_cells);
  nccl_inspector_defer_hold(0);
  ncclProfiler_v5.finalize(third);
  ncclProfiler_v5.finalize(g_job_ctx[0]);
  decoded d = test_drain();
  CHECK_EQ(d.colls, 10);
  CHECK_EQ(d.timed_ops, 10);
  CHECK_EQ(d.comms_created, 3);
  CHECK_EQ(d.comms_destroyed, 3);
  test_shutdown();
}

/* ---- a call made while paused is counted as paused, however late it is replayed ---- */

/* With the consumer held back, five operations start while the inspector is paused, and it resumes
 * before any is replayed: each is counted `paused` (a note), as the synchronous mode counts it,
 * not `event_while_inactive` (a drop), and the operation after the resume is recorded. */
static void a_call_made_while_paused_counts_as_paused_when_replayed(void) {
  enable_with_job_comms(1, 0xe00u);
  nccl_inspector_defer_hold(1);
  nccl_inspector_set_paused(1);
  for (int i = 0; i < 5; i++) {
    CHECK(test_coll(g_job_ctx[0], "AllReduce", (uint64_t)i, 4096, "ncclFloat32", 1) == NULL);
  }
  nccl_inspector_set_paused(0);
  (void)op_at(g_job_ctx[0], 5, T0 + 5 * 10000);
  nccl_inspector_defer_hold(0);
  ncclProfiler_v5.finalize(g_job_ctx[0]);
  decoded d = test_drain();
  CHECK_EQ(d.colls, 1);
  CHECK_EQ(test_counter("paused"), 5);
  CHECK_EQ(test_counter("event_while_inactive"), 0);
  test_shutdown();
}

/* With the consumer held back, operations of 16 KiB start while the minimum size is 0, and it is
 * raised to 1 MiB before any is replayed: the calls handed NCCL a handle, and each is recorded, as
 * the synchronous mode records them, not counted `below_min_size` with its channels orphaned. */
static void a_start_is_held_to_the_minimum_size_of_its_call(void) {
  enable_with_job_comms(1, 0xe10u);
  nccl_inspector_defer_hold(1);
  for (int i = 0; i < 5; i++) (void)op_at(g_job_ctx[0], (uint64_t)i, T0 + (uint64_t)i * 10000);
  nccl_inspector_set_min_size(1 << 20);
  nccl_inspector_defer_hold(0);
  ncclProfiler_v5.finalize(g_job_ctx[0]);
  decoded d = test_drain();
  CHECK_EQ(d.colls, 5);
  CHECK_EQ(d.timed_ops, 5);
  CHECK_EQ(test_counter("below_min_size"), 0);
  test_shutdown();
}

/* A flush the application asks for (the dump thread then calls defer_replay_published): with the
 * consumer held back, three operations complete in the logs and none is in the record ring (its
 * communicator's record is); one call puts all three there, without the consumer. Synchronously
 * they are there at once and the call does nothing. */
static void a_flush_replays_what_was_logged_before_it(void) {
  enable_with_job_comms(1, 0xe20u);
  nccl_inspector_defer_hold(1);
  long long comm_cells = nccl_inspector_ring_used_cells(); /* the communicator's record */
  for (int i = 0; i < 3; i++) (void)op_at(g_job_ctx[0], (uint64_t)i, T0 + (uint64_t)i * 10000);
  if (nccl_inspector_deferred_active()) CHECK_EQ(nccl_inspector_ring_used_cells(), comm_cells);
  nccl_inspector_defer_replay_published();
  CHECK(nccl_inspector_ring_used_cells() > comm_cells);
  nccl_inspector_defer_hold(0);
  decoded d = test_drain();
  CHECK_EQ(d.colls, 3);
  ncclProfiler_v5.finalize(g_job_ctx[0]);
  test_shutdown();
}

/* ---- a drain that stops never makes NCCL's threads replay ---- */

/* Nothing drains the ring: the consumer holds replays back while the ring is nearly full, but only
 * until a log is half full; then it replays into the full ring, whose drops are counted. The calling
 * thread keeps its log under three quarters (waiting at most a few seconds each time, so that a
 * consumer that held back for ever fails the test instead of hanging it): it is never made to
 * replay the logs itself, and no call is lost. */
static void a_stalled_drain_holds_up_no_calling_thread(void) {
  test_config cfg = test_defaults();
  cfg.ring_cells = 1024;
  enable_with_one_comm(cfg, 0xa00u);
  /* Six units an operation (defer_log.c): three logs' worth. */
  const int ops = 3 * DEFER_LOG_UNITS / 6;
  for (int i = 0; i < ops; i++) {
    (void)one_op();
    if (nccl_inspector_deferred_active() && (i & 63) == 63) {
      for (int w = 0; w < 2000 && defer_backlog() > DEFER_LOG_UNITS * 3 / 4; w++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
      }
    }
  }
  ncclProfiler_v5.finalize(g_ctx);
  decoded d = test_drain();
  CHECK_EQ(test_counter("deferred_helped"), 0);
  CHECK_EQ(test_counter("deferred_log_full"), 0);
  /* Every operation is a record in the ring or a counted drop. */
  CHECK(test_counter("ring_full") > 0);
  CHECK_EQ(d.colls + test_counter("ring_full"), ops);
  test_shutdown();
}

int main(void) {
  RUN(applications_proxies_sweeper_and_consumer);
  RUN(more_calling_threads_than_logs);
  RUN(a_thread_on_the_shared_log_takes_a_freed_log);
  RUN(a_stalled_drain_holds_up_no_calling_thread);
  RUN(threads_that_come_and_go);
  RUN(a_thread_takes_over_the_log_of_one_that_exited);
  RUN(an_init_replays_the_logs_only_after_a_finalize);
  RUN(a_call_made_while_paused_counts_as_paused_when_replayed);
  RUN(a_start_is_held_to_the_minimum_size_of_its_call);
  RUN(a_flush_replays_what_was_logged_before_it);
  if (test_failures) fprintf(stderr, "%d check(s) failed\n", test_failures);
  return test_failures ? 1 : 0;
}
