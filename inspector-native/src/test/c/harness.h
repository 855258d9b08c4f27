/* A small harness for the native tests: checks, and helpers that act as NCCL would through the
 * exported ncclProfiler_v5 table, plus a drain that decodes the ring's records. */
#ifndef NCCL_INSPECTOR_TEST_HARNESS_H
#define NCCL_INSPECTOR_TEST_HARNESS_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "defer_log.h"
#include "inspector_native.h"
#include "nccl_profiler_abi.h"
#include "proxy_breakdown.h"
#include "record_format.h"

extern ncclProfiler_v5_t ncclProfiler_v5;
extern int test_failures;

#define CHECK(cond)                                                                  \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);       \
      test_failures++;                                                               \
    }                                                                                \
  } while (0)

#define CHECK_EQ(a, b)                                                               \
  do {                                                                               \
    long long _a = (long long)(a), _b = (long long)(b);                              \
    if (_a != _b) {                                                                  \
      fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, %s == %lld\n", __FILE__,  \
              __LINE__, #a, _a, #b, _b);                                             \
      test_failures++;                                                               \
    }                                                                                \
  } while (0)

#define RUN(test)                                   \
  do {                                              \
    int _before = test_failures;                    \
    test();                                         \
    printf("%s %s\n", test_failures == _before ? "ok  " : "FAIL", #test); \
  } while (0)

typedef struct test_config {
  int op_slots, comm_slots, ring_cells;
  long long min_size;
  int p2p, verbose, require_gpu;
  long long expiry_ns;
} test_config;

test_config test_defaults(void);
void test_enable(test_config c);
/* Closes, drains what is left into `sink` (may be NULL) and releases. */
void test_shutdown(void);

void* test_comm(uint64_t id, int rank, int nranks);
void* test_coll(void* ctx, const char* func, uint64_t seq, uint64_t count, const char* datatype,
                int n_channels);
/* A Coll event as a child of `parent` (the CollApi handle NCCL passes as parentObj; NULL: none). */
void* test_coll_in(void* ctx, void* parent, const char* func, uint64_t seq, uint64_t count,
                   const char* datatype, int n_channels);
/* A collective call (CollApi start and stop, interface v5): returns the handle the core gave. */
void* test_call(void* ctx, const char* func, uint64_t count, const char* datatype, int root, int captured);
void* test_p2p(void* ctx, const char* func, int peer, uint64_t count, int n_channels);
void* test_channel(void* parent, int channel_id, uint64_t gpu_start);
/* A KernelLaunch event on the calling thread (interface v5): returns the handle the core gave. */
void* test_launch(void* ctx);
void test_channel_done(void* ch, uint64_t gpu_stop);
void test_stop(void* h);
/* A ProxyOp under an operation, a ProxyStep under a ProxyOp, and a ProxyStep's state. */
void* test_proxy_op(void* op, int channel_id, int peer, int n_steps, int is_send);
void* test_proxy_step(void* proxy_op, int step);
void test_proxy_state(void* step, int state, uint64_t trans_size);
/* The activation mask a new communicator gets. */
int test_comm_mask(uint64_t id);

/* A thread that drains the ring as the JVM's dump thread does, for the benchmarks: it sleeps
 * `idle_ns` whenever it finds the ring empty. One at a time; stop joins it. */
void test_drainer_start(long idle_ns);
void test_drainer_stop(void);

/* A bounded queue of handles from one test thread to another (test scaffolding: the core itself
 * never locks). A full queue blocks the pusher, which bounds how far the consumer falls behind. */
#define TEST_HANDOFF_MAX 256
typedef struct test_handoff {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  void* items[TEST_HANDOFF_MAX];
  int capacity, head, tail, done;
} test_handoff;

/* Up to capacity - 1 (at most TEST_HANDOFF_MAX - 1) handles queued at once. */
void test_handoff_init(test_handoff* q, int capacity);
void test_handoff_push(test_handoff* q, void* h);
/* Waits for a handle; 0 once the queue is closed and empty. */
int test_handoff_pop(test_handoff* q, void** h);
void test_handoff_close(test_handoff* q);

typedef struct decoded {
  int ops, colls, p2ps, comms_created, comms_destroyed;
  int timed_ops; /* operation records with an execution time */
  op_record last;
  /* The last operation record's network cells (op_record.net_cells of them): its summary, then
   * its proxy details. */
  net_record last_net;
  net_wait_record last_wait;
  proxy_detail_record last_proxy[16];
  int last_steps; /* proxy_step_record entries in last_step (the empty half left out) */
  proxy_step_record last_step[2 * PROXY_STEP_CELLS_MAX];
} decoded;

/* Drains the ring completely and tallies the records; `last` is the last operation record. */
decoded test_drain(void);
long long test_counter(const char* name);

#endif
