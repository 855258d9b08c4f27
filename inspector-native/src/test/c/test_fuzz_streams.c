/* A randomized stream generator: arbitrary sequences of init, start (every type bit, known and
 * unknown, of every interface version), stop, state, finalize, drain, sweep, close and re-enable,
 * with handles that are live, stale, NULL or made up, odd counts, channel ids and timestamps.
 * Run under ASan + UBSan (make test-asan), any memory error aborts. After every sequence the
 * core must be back to a clean state: no live communicator, tables released.
 *
 *   NCCL_INSPECTOR_FUZZ_SEQUENCES (default 300)  NCCL_INSPECTOR_FUZZ_SEED (default 1)
 *
 * Strings stay valid C strings or NULL: NCCL passes static literals, and a made-up pointer would
 * not be a stream NCCL can produce. */
#include <string.h>

#include "harness.h"

extern ncclProfiler_v6_t ncclProfiler_v6;
extern ncclProfiler_v4_t ncclProfiler_v4;
extern ncclProfiler_v3_t ncclProfiler_v3;
extern ncclProfiler_v2_t ncclProfiler_v2;
extern ncclProfiler_v1_t ncclProfiler_v1;

static uint64_t rng_state;
static uint64_t next(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}
static uint64_t pick(uint64_t n) { return next() % n; }

static const char* const strings[] = {
    NULL, "AllReduce", "AllGather", "ReduceScatter", "Reduce", "Broadcast", "Send", "Recv",
    "AlltoAll", "ncclInt8", "ncclUint8", "Unknown", "ncclFloat32", "ncclBfloat16", "ncclFloat64",
    "RING", "TREE", "NVLS", "PAT", "LL", "LL128", "SIMPLE", "", "AllReduceButLonger",
    "ncclFloat8e5m2", "CE"};
#define N_STRINGS (sizeof(strings) / sizeof(strings[0]))
static const char* any_string(void) { return strings[pick(N_STRINGS)]; }

#define POOL 64
static void* handles[POOL];
static void* contexts[8];
static void* issued[4096]; /* every context handed out, to finalize at the end of a sequence */
static int n_issued;

static void* any_handle(void) {
  switch (pick(6)) {
    case 0: return NULL;
    case 1: return (void*)(uintptr_t)next(); /* made up */
    default: return handles[pick(POOL)];
  }
}

static void* any_context(void) {
  switch (pick(5)) {
    case 0: return NULL;
    case 1: return (void*)(uintptr_t)(next() | 3); /* made up, with the communicator tag */
    default: return contexts[pick(8)];
  }
}

static uint64_t any_timestamp(void) {
  switch (pick(5)) {
    case 0: return 0;
    case 1: return next();
    default: return 1795942870000000000ull + pick(1000000000ull);
  }
}

static void putp(uint8_t* b, int off, const void* p) { memcpy(b + off, &p, sizeof(p)); }

/* String members of each version's descriptors, by type (facts doc 2.5). */
static void place_strings(int version, uint64_t type, uint8_t* b) {
  if (version >= 4) {
    if (type == ncclProfileColl || type == ncclProfileCeColl) {
      putp(b, 32, any_string());
      putp(b, 72, any_string());
      if (type == ncclProfileColl) {
        putp(b, 88, any_string());
        putp(b, 96, any_string());
      } else {
        putp(b, 80, any_string());
      }
    } else if (type == ncclProfileP2p || type == ncclProfileCollApi || type == ncclProfileP2pApi) {
      putp(b, 24, any_string());
      putp(b, 40, any_string());
    }
  } else if (type == ncclProfileColl) {
    putp(b, 24, any_string());
    if (version >= 2) {
      putp(b, 48, any_string());
      putp(b, 88, any_string());
      putp(b, version == 3 ? 104 : 112, any_string());
      putp(b, version == 3 ? 112 : 120, any_string());
    }
  } else if (type == ncclProfileP2p) {
    putp(b, 24, any_string());
    if (version >= 2) {
      putp(b, 40, any_string());
      putp(b, 56, any_string());
    }
  }
}

static void random_start(void) {
  static const uint64_t types[] = {ncclProfileGroup,   ncclProfileColl,      ncclProfileP2p,
                                   ncclProfileProxyOp, ncclProfileProxyStep, ncclProfileProxyCtrl,
                                   ncclProfileKernelCh, ncclProfileNetPlugin, ncclProfileGroupApi,
                                   ncclProfileCollApi, ncclProfileP2pApi,    ncclProfileKernelLaunch,
                                   ncclProfileCeColl,  ncclProfileCeSync,    ncclProfileCeBatch,
                                   1ull << 20,         0};
  int version = 1 + (int)pick(6);
  uint64_t type = types[pick(sizeof(types) / sizeof(types[0]))];
  _Alignas(8) uint8_t b[128];
  for (int i = 0; i < 128; i += 8) {
    uint64_t v = next();
    if (pick(2)) v &= 0xffff; /* small counts and ids are more interesting */
    memcpy(b + i, &v, 8);
  }
  if (version >= 5) memcpy(b, &type, 8); else b[0] = (uint8_t)type;
  putp(b, 8, any_handle());
  if (version >= 4 && type == ncclProfileKernelCh) {
    uint64_t t = any_timestamp();
    memcpy(b + 32, &t, 8);
  }
  if (version >= 5 && type == ncclProfileColl) putp(b, 104, any_handle());
  place_strings(version, type, b);
  void* h = NULL;
  void* ctx = any_context();
  switch (version) {
    case 6: ncclProfiler_v6.startEvent(ctx, &h, (void*)b); break;
    case 5: ncclProfiler_v5.startEvent(ctx, &h, (void*)b); break;
    case 4: ncclProfiler_v4.startEvent(ctx, &h, (void*)b); break;
    case 3: ncclProfiler_v3.startEvent(ctx, &h, (void*)b); break;
    case 2: ncclProfiler_v2.startEvent(ctx, &h, (void*)b); break;
    default: ncclProfiler_v1.startEvent(ctx, &h, (void*)b); break;
  }
  handles[pick(POOL)] = h;
}

static void random_init(void) {
  void* ctx = NULL;
  int mask = 0;
  int slot = (int)pick(8);
  switch (pick(6)) {
    case 0: ncclProfiler_v1.init(&ctx, &mask); break;
    case 1: ncclProfiler_v3.init(&ctx, &mask); break;
    case 2: ncclProfiler_v4.init(&ctx, &mask, any_string(), next(), (int)pick(4), (int)pick(9), (int)pick(9) - 1, NULL); break;
    case 3: ncclProfiler_v6.init(&ctx, next(), &mask, any_string(), (int)pick(4), (int)pick(9), (int)pick(9) - 1, NULL); break;
    default: ncclProfiler_v5.init(&ctx, next(), &mask, any_string(), (int)pick(4), (int)pick(9), (int)pick(9) - 1, NULL); break;
  }
  if (contexts[slot] != NULL && pick(2)) ncclProfiler_v5.finalize(contexts[slot]);
  contexts[slot] = ctx;
  if (ctx != NULL && n_issued < 4096) issued[n_issued++] = ctx;
}

static void random_enable(void) {
  test_config c = test_defaults();
  c.op_slots = 16 + (int)pick(48);
  c.comm_slots = 1 + (int)pick(6);
  c.ring_cells = 1024 << pick(3);
  c.min_size = (long long)pick(3) * 4096;
  c.p2p = (int)pick(2);
  c.verbose = (int)pick(2);
  c.require_gpu = (int)pick(2);
  c.expiry_ns = (long long)pick(3) * 1000000;
  test_enable(c);
}

static void one_sequence(int events) {
  memset(handles, 0, sizeof(handles));
  memset(contexts, 0, sizeof(contexts));
  n_issued = 0;
  random_enable();
  int enabled = 1;
  uint64_t clock = 1000000000ull;
  int virtual_clock = (int)pick(2);
  for (int i = 0; i < events; i++) {
    if (virtual_clock) {
      clock += pick(4) == 0 ? pick(50000000ull) : pick(1000);
      nccl_inspector_set_virtual_clock(1, clock, clock + 1795942860000000000ull);
    }
    uint64_t r = pick(100);
    if (r < 6) {
      random_init();
    } else if (r < 45) {
      random_start();
    } else if (r < 65) {
      ncclProfiler_v5.stopEvent(any_handle());
    } else if (r < 80) {
      ncclProfilerEventStateArgs_v5_t a;
      a.kernelCh.pTimer = any_timestamp();
      ncclProfiler_v5.recordEventState(any_handle(), (ncclProfilerEventState_t)pick(32),
                                       pick(4) ? &a : NULL);
    } else if (r < 84) {
      int slot = (int)pick(8);
      ncclProfiler_v5.finalize(pick(5) ? contexts[slot] : any_context());
      if (pick(2)) contexts[slot] = NULL;
    } else if (r < 92) {
      (void)test_drain();
    } else if (r < 96) {
      nccl_inspector_sweep();
    } else if (r < 98) {
      nccl_inspector_set_min_size((long long)pick(10000));
    } else if (enabled) {
      nccl_inspector_close();
      (void)test_drain();
      nccl_inspector_release();
      enabled = 0;
      random_enable(); /* may keep the old tables while communicators live */
      enabled = 1;
    }
  }
  for (int i = 0; i < n_issued; i++) ncclProfiler_v5.finalize(issued[i]); /* again for some: counted */
  nccl_inspector_close();
  (void)test_drain();
  nccl_inspector_release();
  nccl_inspector_set_virtual_clock(0, 0, 0);
}

static void random_streams(void) {
  const char* s = getenv("NCCL_INSPECTOR_FUZZ_SEQUENCES");
  const char* seed = getenv("NCCL_INSPECTOR_FUZZ_SEED");
  int sequences = s ? atoi(s) : 300;
  rng_state = seed ? strtoull(seed, NULL, 10) : 1;
  if (rng_state == 0) rng_state = 1;
  for (int i = 0; i < sequences; i++) {
    one_sequence(400);
    /* Every communicator was finalized (some twice, which is counted), so the core must have
     * released its tables. */
    CHECK_EQ(nccl_inspector_live_comms(), 0);
    CHECK_EQ(nccl_inspector_state(), 0);
    if (test_failures) {
      fprintf(stderr, "failing sequence %d (seed %s)\n", i, seed ? seed : "1");
      return;
    }
  }
  printf("     %d random sequences of 400 events, no finding\n", sequences);
}

int main(void) {
  RUN(random_streams);
  if (test_failures) fprintf(stderr, "%d check(s) failed\n", test_failures);
  return test_failures ? 1 : 0;
}
