#include "harness.h"

#include <stdatomic.h>
#include <string.h>
#include <time.h>

int test_failures;

test_config test_defaults(void) {
  test_config c = {1024, 64, 1 << 16, 0, 1, 0, 0, 0};
  return c;
}

void test_enable(test_config c) {
  /* INSPECTOR_TEST_DEFERRED=1 runs every test in the deferred mode (defer_log.h): the calls are
   * logged and replayed by the consumer, and test_drain and test_counter replay what is left first. */
  const char* deferred = getenv("INSPECTOR_TEST_DEFERRED");
  nccl_inspector_set_deferred(deferred != NULL && deferred[0] == '1');
  int rc = nccl_inspector_enable(c.op_slots, c.comm_slots, c.ring_cells, c.min_size, c.p2p,
                                 c.verbose, c.require_gpu, c.expiry_ns);
  if (rc < 0) {
    fprintf(stderr, "enable failed: %d\n", rc);
    exit(2);
  }
}

void test_shutdown(void) {
  nccl_inspector_close();
  (void)test_drain();
  nccl_inspector_release();
}

void* test_comm(uint64_t id, int rank, int nranks) {
  void* ctx = NULL;
  int mask = 0;
  ncclProfiler_v5.init(&ctx, id, &mask, "test", nranks, nranks, rank, NULL);
  return ctx;
}

void* test_coll_in(void* ctx, void* parent, const char* func, uint64_t seq, uint64_t count,
                   const char* datatype, int n_channels) {
  ncclProfilerEventDescr_v5_t d;
  memset(&d, 0, sizeof(d));
  d.type = ncclProfileColl;
  d.parentObj = parent;
  d.coll.seqNumber = seq;
  d.coll.func = func;
  d.coll.count = count;
  d.coll.datatype = datatype;
  d.coll.nChannels = (uint8_t)n_channels;
  d.coll.algo = "RING";
  d.coll.proto = "SIMPLE";
  void* h = NULL;
  ncclProfiler_v5.startEvent(ctx, &h, &d);
  return h;
}

void* test_coll(void* ctx, const char* func, uint64_t seq, uint64_t count, const char* datatype,
                int n_channels) {
  return test_coll_in(ctx, NULL, func, seq, count, datatype, n_channels);
}

void* test_call(void* ctx, const char* func, uint64_t count, const char* datatype, int root, int captured) {
  ncclProfilerEventDescr_v5_t d;
  memset(&d, 0, sizeof(d));
  d.type = ncclProfileCollApi;
  d.collApi.func = func;
  d.collApi.count = count;
  d.collApi.datatype = datatype;
  d.collApi.root = root;
  d.collApi.graphCaptured = (uint8_t)captured;
  void* h = NULL;
  ncclProfiler_v5.startEvent(ctx, &h, &d);
  ncclProfiler_v5.stopEvent(h);
  return h;
}

void test_handoff_init(test_handoff* q, int capacity) {
  memset(q, 0, sizeof(*q));
  pthread_mutex_init(&q->lock, NULL);
  pthread_cond_init(&q->cond, NULL);
  q->capacity = capacity < 2 ? 2 : capacity > TEST_HANDOFF_MAX ? TEST_HANDOFF_MAX : capacity;
}

void test_handoff_push(test_handoff* q, void* h) {
  pthread_mutex_lock(&q->lock);
  while ((q->tail + 1) % q->capacity == q->head) pthread_cond_wait(&q->cond, &q->lock);
  q->items[q->tail] = h;
  q->tail = (q->tail + 1) % q->capacity;
  pthread_cond_broadcast(&q->cond);
  pthread_mutex_unlock(&q->lock);
}

int test_handoff_pop(test_handoff* q, void** h) {
  pthread_mutex_lock(&q->lock);
  while (q->head == q->tail && !q->done) pthread_cond_wait(&q->cond, &q->lock);
  int got = q->head != q->tail;
  if (got) {
    *h = q->items[q->head];
    q->head = (q->head + 1) % q->capacity;
    pthread_cond_broadcast(&q->cond);
  }
  pthread_mutex_unlock(&q->lock);
  return got;
}

void test_handoff_close(test_handoff* q) {
  pthread_mutex_lock(&q->lock);
  q->done = 1;
  pthread_cond_broadcast(&q->cond);
  pthread_mutex_unlock(&q->lock);
}

void* test_p2p(void* ctx, const char* func, int peer, uint64_t count, int n_channels) {
  ncclProfilerEventDescr_v5_t d;
  memset(&d, 0, sizeof(d));
  d.type = ncclProfileP2p;
  d.p2p.func = func;
  d.p2p.count = count;
  d.p2p.datatype = "ncclInt8";
  d.p2p.peer = peer;
  d.p2p.nChannels = (uint8_t)n_channels;
  void* h = NULL;
  ncclProfiler_v5.startEvent(ctx, &h, &d);
  return h;
}

void* test_channel(void* parent, int channel_id, uint64_t gpu_start) {
  ncclProfilerEventDescr_v5_t d;
  memset(&d, 0, sizeof(d));
  d.type = ncclProfileKernelCh;
  d.parentObj = parent;
  d.kernelCh.channelId = (uint8_t)channel_id;
  d.kernelCh.pTimer = gpu_start;
  void* h = NULL;
  ncclProfiler_v5.startEvent(NULL, &h, &d);
  return h;
}

void* test_launch(void* ctx) {
  ncclProfilerEventDescr_v5_t d;
  memset(&d, 0, sizeof(d));
  d.type = ncclProfileKernelLaunch;
  void* h = NULL;
  ncclProfiler_v5.startEvent(ctx, &h, &d);
  if (h != NULL) ncclProfiler_v5.stopEvent(h);
  return h;
}

void test_channel_done(void* ch, uint64_t gpu_stop) {
  ncclProfilerEventStateArgs_v5_t a;
  a.kernelCh.pTimer = gpu_stop;
  ncclProfiler_v5.recordEventState(ch, ncclProfilerKernelChStop, &a);
  ncclProfiler_v5.stopEvent(ch);
}

void test_stop(void* h) { ncclProfiler_v5.stopEvent(h); }

void* test_proxy_op(void* op, int channel_id, int peer, int n_steps, int is_send) {
  ncclProfilerEventDescr_v5_t d;
  memset(&d, 0, sizeof(d));
  d.type = ncclProfileProxyOp;
  d.parentObj = op;
  d.proxyOp.channelId = (uint8_t)channel_id;
  d.proxyOp.peer = peer;
  d.proxyOp.nSteps = n_steps;
  d.proxyOp.chunkSize = 1 << 19;
  d.proxyOp.isSend = is_send;
  void* h = NULL;
  ncclProfiler_v5.startEvent(NULL, &h, &d);
  return h;
}

void* test_proxy_step(void* proxy_op, int step) {
  ncclProfilerEventDescr_v5_t d;
  memset(&d, 0, sizeof(d));
  d.type = ncclProfileProxyStep;
  d.parentObj = proxy_op;
  d.proxyStep.step = step;
  void* h = NULL;
  ncclProfiler_v5.startEvent(NULL, &h, &d);
  return h;
}

void test_proxy_state(void* step, int state, uint64_t trans_size) {
  ncclProfilerEventStateArgs_v5_t a;
  memset(&a, 0, sizeof(a));
  a.proxyStep.transSize = trans_size;
  ncclProfiler_v5.recordEventState(step, (ncclProfilerEventState_t)state, &a);
}

int test_comm_mask(uint64_t id) {
  void* ctx = NULL;
  int mask = 0;
  ncclProfiler_v5.init(&ctx, id, &mask, "mask", 2, 2, 0, NULL);
  if (ctx != NULL) ncclProfiler_v5.finalize(ctx);
  return mask;
}

decoded test_drain(void) {
  static uint8_t buf[1 << 20];
  decoded d;
  memset(&d, 0, sizeof(d));
  nccl_inspector_defer_flush();
  for (;;) {
    long long n = nccl_inspector_drain(buf, sizeof(buf));
    if (n <= 0) break;
    for (long long off = 0; off < n;) {
      const op_record* r = (const op_record*)(buf + off);
      if (r->kind == RECORD_KIND_COLL || r->kind == RECORD_KIND_P2P) {
        d.ops++;
        if (r->kind == RECORD_KIND_COLL) d.colls++; else d.p2ps++;
        if (r->exec_ns > 0) d.timed_ops++;
        memcpy(&d.last, r, sizeof(*r));
        memset(&d.last_net, 0, sizeof(d.last_net));
        memset(&d.last_wait, 0, sizeof(d.last_wait));
        d.last_steps = 0;
        if (r->net_cells > 0) {
          const uint8_t* net = buf + off + (long long)(r->cells - r->net_cells) * INSPECTOR_CELL_BYTES;
          memcpy(&d.last_net, net, sizeof(d.last_net));
          memcpy(&d.last_wait, net + INSPECTOR_CELL_BYTES, sizeof(d.last_wait));
          int details = d.last_net.detail_cells < 16 ? d.last_net.detail_cells : 16;
          memcpy(d.last_proxy, net + 2 * INSPECTOR_CELL_BYTES, (size_t)details * INSPECTOR_CELL_BYTES);
          const proxy_step_record* st =
              (const proxy_step_record*)(net + (2 + (long long)d.last_net.detail_cells) * INSPECTOR_CELL_BYTES);
          for (int i = 0; i < 2 * d.last_wait.step_cells && i < 2 * PROXY_STEP_CELLS_MAX; i++) {
            if (st[i].detail != 0xff) d.last_step[d.last_steps++] = st[i];
          }
        }
      } else if (r->kind == RECORD_KIND_COMM_CREATED) {
        d.comms_created++;
      } else if (r->kind == RECORD_KIND_COMM_DESTROYED) {
        d.comms_destroyed++;
      }
      off += (long long)r->cells * INSPECTOR_CELL_BYTES;
    }
  }
  return d;
}

long long test_counter(const char* name) {
  nccl_inspector_defer_flush();
  for (int i = 0; i < nccl_inspector_counter_count(); i++) {
    if (strcmp(nccl_inspector_counter_name(i), name) == 0) return nccl_inspector_counter(i);
  }
  fprintf(stderr, "no counter %s\n", name);
  exit(2);
}

static atomic_int drainer_stop;
static pthread_t drainer;
static long drainer_idle_ns;

static void* drainer_loop(void* arg) {
  static uint8_t buf[1 << 20];
  while (!atomic_load(&drainer_stop)) {
    if (nccl_inspector_drain(buf, sizeof buf) == 0) {
      struct timespec ts = {0, drainer_idle_ns};
      nanosleep(&ts, NULL);
    }
  }
  return arg;
}

void test_drainer_start(long idle_ns) {
  drainer_idle_ns = idle_ns;
  atomic_store(&drainer_stop, 0);
  pthread_create(&drainer, NULL, drainer_loop, NULL);
}

void test_drainer_stop(void) {
  atomic_store(&drainer_stop, 1);
  pthread_join(drainer, NULL);
}
