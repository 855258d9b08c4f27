/* Every exported interface version, driven with descriptors built byte by byte at the offsets of
 * the facts doc (section 2.5), not through this project's struct declarations: a wrong offset in
 * nccl_profiler_abi.h makes a field land elsewhere and a check here fail. */
#include <string.h>

#include "harness.h"
#include "names.h"

extern ncclProfiler_v6_t ncclProfiler_v6;
extern ncclProfiler_v4_t ncclProfiler_v4;
extern ncclProfiler_v3_t ncclProfiler_v3;
extern ncclProfiler_v2_t ncclProfiler_v2;
extern ncclProfiler_v1_t ncclProfiler_v1;

typedef struct { uint8_t b[128]; } raw;
static const uint64_t T0 = 1795942870000000000ull;

static void put8(raw* r, int off, uint8_t v) { r->b[off] = v; }
static void put32(raw* r, int off, uint32_t v) { memcpy(r->b + off, &v, 4); }
static void put64(raw* r, int off, uint64_t v) { memcpy(r->b + off, &v, 8); }
static void putp(raw* r, int off, const void* p) { memcpy(r->b + off, &p, sizeof(p)); }

/* Header: v5/v6 have a 64-bit type, v1-v4 an 8-bit one; parentObj @8, rank @16. */
static raw header(int version, uint64_t type, void* parent, int rank) {
  raw r;
  memset(&r, 0, sizeof(r));
  if (version >= 5) put64(&r, 0, type); else put8(&r, 0, (uint8_t)type);
  putp(&r, 8, parent);
  put32(&r, 16, (uint32_t)rank);
  return r;
}

typedef ncclResult_t (*start_fn)(void*, void**, void*);
typedef ncclResult_t (*record_fn)(void*, ncclProfilerEventState_t, void*);

static void* start(start_fn f, void* ctx, raw* r) {
  void* h = NULL;
  f(ctx, &h, r);
  return h;
}

static op_record only_op_record(void) {
  static uint8_t buf[1 << 16];
  op_record found;
  memset(&found, 0, sizeof(found));
  int n_ops = 0;
  nccl_inspector_defer_flush();
  long long n = nccl_inspector_drain(buf, sizeof buf);
  for (long long off = 0; off < n;) {
    const op_record* x = (const op_record*)(buf + off);
    if (x->kind == RECORD_KIND_COLL || x->kind == RECORD_KIND_P2P) {
      memcpy(&found, x, sizeof(found));
      n_ops++;
    }
    off += (long long)x->cells * INSPECTOR_CELL_BYTES;
  }
  CHECK_EQ(n_ops, 1);
  return found;
}

/* A v4/v5/v6 collective: Coll, then two kernel channels with GPU timestamps. */
static void coll_with_channels(int version, start_fn f, record_fn rec, ncclResult_t (*stop)(void*),
                               void* ctx) {
  raw c = header(version, ncclProfileColl, NULL, 0);
  put64(&c, 24, 41);                 /* seqNumber */
  putp(&c, 32, "ReduceScatter");     /* func */
  put64(&c, 56, 3000);               /* count */
  put32(&c, 64, 2);                  /* root */
  putp(&c, 72, "ncclBfloat16");      /* datatype */
  put8(&c, 80, 2);                   /* nChannels */
  put8(&c, 81, 16);                  /* nWarps */
  putp(&c, 88, "NVLS");              /* algo */
  putp(&c, 96, "LL128");             /* proto */
  void* op = start(f, ctx, &c);
  CHECK(op != NULL);
  stop(op);
  ncclProfilerEventStateArgs_v5_t args;
  for (int ch = 0; ch < 2; ch++) {
    raw k = header(version, ncclProfileKernelCh, op, 0);
    put8(&k, 24, (uint8_t)(7 + ch)); /* channelId */
    put64(&k, 32, T0 + 100 * (uint64_t)ch); /* pTimer */
    void* kh = start(f, ctx, &k);
    CHECK(kh != NULL);
    memset(&args, 0, sizeof(args));
    put64((raw*)&args, 0, T0 + 5000 + 100 * (uint64_t)ch); /* kernelCh.pTimer @0 */
    rec(kh, ncclProfilerKernelChStop, &args);
    stop(kh);
  }
  op_record r = only_op_record();
  CHECK_EQ(r.seq, 41);
  CHECK_EQ(r.func, FUNC_REDUCE_SCATTER);
  CHECK_EQ(r.count, 3000);
  CHECK_EQ(r.bytes, 6000);
  CHECK_EQ(r.peer_or_root, 2);
  CHECK_EQ(r.datatype, DATATYPE_BFLOAT16);
  CHECK_EQ(r.n_channels, 2);
  CHECK_EQ(r.n_warps, 16);
  CHECK_EQ(r.algo, ALGO_NVLS);
  CHECK_EQ(r.proto, PROTO_LL128);
  CHECK_EQ(r.timing_source, TIMING_KERNEL_GPU);
  CHECK_EQ(r.exec_ns, 5000);
  CHECK_EQ(r.gpu_skew_ns, 100);
  CHECK_EQ(r.gpu_span_ns, 5100);
  CHECK_EQ(r.abi_version, version);
}

static void p2p_v4_layout(int version, start_fn f, ncclResult_t (*stop)(void*), void* ctx) {
  raw p = header(version, ncclProfileP2p, NULL, 0);
  putp(&p, 24, "Send");      /* func */
  putp(&p, 40, "ncclInt64"); /* datatype */
  put64(&p, 48, 4096);       /* count */
  put32(&p, 56, 0);          /* peer: own rank, so it completes at stop */
  put8(&p, 60, 3);           /* nChannels */
  void* op = start(f, ctx, &p);
  CHECK(op != NULL);
  stop(op);
  op_record r = only_op_record();
  CHECK_EQ(r.kind, RECORD_KIND_P2P);
  CHECK_EQ(r.func, FUNC_SEND);
  CHECK_EQ(r.bytes, 4096 * 8);
  CHECK_EQ(r.n_channels, 3);
  CHECK(r.flags & RECORD_FLAG_SELF_P2P);
}

static test_config permissive(void) {
  test_config c = test_defaults();
  c.require_gpu = 0;
  return c;
}

static void version_6_and_copy_engine_collectives(void) {
  test_enable(permissive());
  void* ctx = NULL;
  int mask = 0;
  ncclProfiler_v6.init(&ctx, 0x6666, &mask, "v6", 2, 2, 0, NULL);
  CHECK(ctx != NULL);
  CHECK(mask & ncclProfileCeColl);
  (void)test_drain();
  coll_with_channels(6, (start_fn)ncclProfiler_v6.startEvent, (record_fn)ncclProfiler_v6.recordEventState,
                     ncclProfiler_v6.stopEvent, ctx);
  p2p_v4_layout(6, (start_fn)ncclProfiler_v6.startEvent, ncclProfiler_v6.stopEvent, ctx);
  nccl_inspector_set_virtual_clock(1, 1000, T0);
  raw ce = header(6, ncclProfileCeColl, NULL, 0);
  put64(&ce, 24, 9);               /* seqNumber */
  putp(&ce, 32, "AllGather");      /* func */
  put64(&ce, 56, 1 << 20);         /* count */
  putp(&ce, 72, "ncclInt8");       /* datatype */
  putp(&ce, 80, "batched");        /* syncStrategy */
  put32(&ce, 92, 4);               /* batchSize */
  void* op = start((start_fn)ncclProfiler_v6.startEvent, ctx, &ce);
  CHECK(op != NULL);
  raw sync = header(6, ncclProfileCeSync, op, 0);
  put8(&sync, 24, 1);
  put32(&sync, 28, 2);
  CHECK(start((start_fn)ncclProfiler_v6.startEvent, ctx, &sync) == NULL); /* children: nothing to track */
  nccl_inspector_set_virtual_clock(1, 1000 + 7000, T0 + 7000);
  ncclProfiler_v6.stopEvent(op);
  nccl_inspector_set_virtual_clock(0, 0, 0);
  op_record r = only_op_record();
  CHECK_EQ(r.func, FUNC_ALL_GATHER);
  CHECK_EQ(r.seq, 9);
  CHECK_EQ(r.bytes, 1 << 20);
  CHECK_EQ(r.timing_source, TIMING_CE_CPU);
  CHECK_EQ(r.exec_ns, 7000);
  CHECK_EQ(r.algo, ALGO_CE);
  CHECK(r.flags & RECORD_FLAG_COPY_ENGINE);
  ncclProfiler_v6.finalize(ctx);
  test_shutdown();
}

static void version_5(void) {
  test_enable(permissive());
  void* ctx = test_comm(0x5555, 0, 2);
  (void)test_drain();
  coll_with_channels(5, (start_fn)ncclProfiler_v5.startEvent, (record_fn)ncclProfiler_v5.recordEventState,
                     ncclProfiler_v5.stopEvent, ctx);
  p2p_v4_layout(5, (start_fn)ncclProfiler_v5.startEvent, ncclProfiler_v5.stopEvent, ctx);
  ncclProfiler_v5.finalize(ctx);
  test_shutdown();
}

static void version_4(void) {
  test_enable(permissive());
  void* ctx = NULL;
  int mask = 0;
  ncclProfiler_v4.init(&ctx, &mask, "v4", 0x4444, 2, 2, 0, NULL);
  CHECK(ctx != NULL);
  decoded d = test_drain();
  CHECK_EQ(d.comms_created, 1);
  coll_with_channels(4, (start_fn)ncclProfiler_v4.startEvent, (record_fn)ncclProfiler_v4.recordEventState,
                     ncclProfiler_v4.stopEvent, ctx);
  p2p_v4_layout(4, (start_fn)ncclProfiler_v4.startEvent, ncclProfiler_v4.stopEvent, ctx);
  ncclProfiler_v4.finalize(ctx);
  test_shutdown();
}

static void version_3_channels_without_timestamps(void) {
  test_enable(permissive());
  nccl_inspector_set_virtual_clock(1, 1000000000ull, T0);
  void* ctx = NULL;
  int mask = 0;
  ncclProfiler_v3.init(&ctx, &mask);
  CHECK(ctx != NULL);
  (void)test_drain();
  raw c = header(3, ncclProfileColl, NULL, 1);
  putp(&c, 24, "name");             /* name */
  put64(&c, 32, 0x3333abcdull);     /* commHash */
  put64(&c, 40, 12);                /* seqNumber */
  putp(&c, 48, "AllReduce");        /* func */
  put64(&c, 72, 1024);              /* count */
  put32(&c, 80, 0);                 /* root */
  putp(&c, 88, "ncclFloat64");      /* datatype */
  put8(&c, 96, 32);                 /* nMaxChannels: not the channels that will run */
  put8(&c, 97, 8);                  /* nWarps */
  putp(&c, 104, "TREE");            /* algo */
  putp(&c, 112, "LL");              /* proto */
  start_fn f = (start_fn)ncclProfiler_v3.startEvent;
  void* op = start(f, ctx, &c);
  CHECK(op != NULL);
  ncclProfiler_v3.stopEvent(op);
  raw k = header(3, ncclProfileKernelCh, op, 1);
  put8(&k, 24, 3);                  /* channelId */
  void* kh = start(f, ctx, &k);
  nccl_inspector_set_virtual_clock(1, 1000000000ull + 4000, T0 + 4000);
  ncclProfiler_v3.stopEvent(kh);
  CHECK_EQ(nccl_inspector_sweep(), 0);
  CHECK_EQ(test_drain().ops, 0); /* another channel could still come */
  nccl_inspector_set_virtual_clock(1, 1000000000ull + 100000000ull, T0 + 100000000ull);
  nccl_inspector_sweep();
  op_record r = only_op_record();
  CHECK_EQ(r.comm_id, 0x3333abcdull); /* v3: the communicator comes with the event */
  CHECK_EQ(r.rank, 1);
  CHECK_EQ(r.seq, 12);
  CHECK_EQ(r.bytes, 8192);
  CHECK_EQ(r.algo, ALGO_TREE);
  CHECK_EQ(r.proto, PROTO_LL);
  CHECK_EQ(r.timing_source, TIMING_KERNEL_CPU);
  CHECK_EQ(r.exec_ns, 4000);
  CHECK_EQ(r.quarantine_reason, 0); /* no GPU timestamps in v3 is normal, not bad */
  CHECK_EQ(test_counter("quiescent_close"), 1);
  raw p = header(3, ncclProfileP2p, NULL, 1);
  putp(&p, 40, "Recv");             /* func */
  putp(&p, 56, "ncclUint8");        /* datatype */
  put64(&p, 64, 100);               /* count */
  put32(&p, 72, 1);                 /* peer = own rank */
  void* pop = start(f, ctx, &p);
  ncclProfiler_v3.stopEvent(pop);
  r = only_op_record();
  CHECK_EQ(r.func, FUNC_RECV);
  CHECK_EQ(r.bytes, 100);
  CHECK(r.flags & RECORD_FLAG_SELF_P2P);
  nccl_inspector_set_virtual_clock(0, 0, 0);
  ncclProfiler_v3.finalize(ctx);
  test_shutdown();
}

static void version_2(void) {
  test_enable(permissive());
  void* ctx = NULL;
  int mask = 0;
  ncclProfiler_v2.init(&ctx, &mask);
  (void)test_drain();
  raw c = header(2, ncclProfileColl, NULL, 0);
  put64(&c, 32, 0x2222ull);         /* commHash */
  put64(&c, 40, 5);                 /* seqNumber */
  putp(&c, 48, "Broadcast");        /* func */
  put64(&c, 72, 777);               /* count */
  put32(&c, 80, 1);                 /* root */
  putp(&c, 88, "ncclInt32");        /* datatype */
  put64(&c, 96, 999999);            /* trafficBytes */
  put8(&c, 104, 4);                 /* nMaxChannels */
  put8(&c, 105, 4);                 /* nWarps */
  putp(&c, 112, "RING");            /* algo */
  putp(&c, 120, "SIMPLE");          /* proto */
  void* op = start((start_fn)ncclProfiler_v2.startEvent, ctx, &c);
  ncclProfiler_v2.stopEvent(op);
  op_record r = only_op_record();
  CHECK_EQ(r.comm_id, 0x2222);
  CHECK_EQ(r.func, FUNC_BROADCAST);
  CHECK_EQ(r.seq, 5);
  CHECK_EQ(r.bytes, 777 * 4);
  CHECK_EQ(r.peer_or_root, 1);
  CHECK_EQ(r.n_channels, 4);
  CHECK_EQ(r.algo, ALGO_RING);
  CHECK_EQ(r.proto, PROTO_SIMPLE);
  CHECK_EQ(r.timing_source, TIMING_COLLECTIVE_CPU);
  CHECK(r.flags & RECORD_FLAG_NO_KERNEL_EVENTS);
  ncclProfiler_v2.finalize(ctx);
  test_shutdown();
}

static void version_1_enums(void) {
  test_enable(permissive());
  void* ctx = NULL;
  int mask = 0;
  ncclProfiler_v1.init(&ctx, &mask);
  (void)test_drain();
  raw c = header(1, ncclProfileColl, NULL, 0);
  put64(&c, 32, 0x1111ull);         /* commHash */
  put64(&c, 40, 3);                 /* seqNumber */
  put8(&c, 48, 4);                  /* func: ncclFuncAllReduce */
  put64(&c, 72, 10);                /* count */
  put8(&c, 84, 8);                  /* datatype: ncclFloat64 */
  put32(&c, 88, 0);                 /* op */
  put8(&c, 104, 2);                 /* nMaxChannels */
  put8(&c, 106, 5);                 /* algo: NVLS_TREE */
  put8(&c, 107, 1);                 /* proto: LL128 */
  void* op = start((start_fn)ncclProfiler_v1.startEvent, ctx, &c);
  ncclProfiler_v1.stopEvent(op);
  op_record r = only_op_record();
  CHECK_EQ(r.func, FUNC_ALL_REDUCE);
  CHECK_EQ(r.datatype, DATATYPE_FLOAT64);
  CHECK_EQ(r.bytes, 80);
  CHECK_EQ(r.algo, ALGO_NVLS_TREE);
  CHECK_EQ(r.proto, PROTO_LL128);
  CHECK_EQ(r.seq, 3);
  raw p = header(1, ncclProfileP2p, NULL, 0);
  put64(&p, 32, 0x1111ull);         /* commHash */
  put8(&p, 40, 6);                  /* func: ncclFuncSend */
  put8(&p, 56, 9);                  /* datatype: ncclBfloat16 */
  put64(&p, 64, 50);                /* count */
  put32(&p, 72, 1);                 /* peer */
  void* pop = start((start_fn)ncclProfiler_v1.startEvent, ctx, &p);
  ncclProfiler_v1.stopEvent(pop);
  r = only_op_record();
  CHECK_EQ(r.func, FUNC_SEND);
  CHECK_EQ(r.bytes, 100);
  CHECK_EQ(r.peer_or_root, 1);
  raw bad = header(1, ncclProfileColl, NULL, 0);
  put8(&bad, 48, 200);              /* no such operation */
  put8(&bad, 84, 99);               /* no such datatype */
  put64(&bad, 72, 10);
  CHECK(start((start_fn)ncclProfiler_v1.startEvent, ctx, &bad) == NULL);
  CHECK_EQ(test_counter("unknown_datatype"), 1);
  ncclProfiler_v1.finalize(ctx);
  test_shutdown();
}

int main(void) {
  RUN(version_6_and_copy_engine_collectives);
  RUN(version_5);
  RUN(version_4);
  RUN(version_3_channels_without_timestamps);
  RUN(version_2);
  RUN(version_1_enums);
  if (test_failures) fprintf(stderr, "%d check(s) failed\n", test_failures);
  return test_failures ? 1 : 0;
}
