/* Step and phase tags: captured on the enqueuing thread, carried to the operation through the
 * API event's handle even when the operation's own events come from another thread. */
#include <pthread.h>
#include <string.h>

#include "harness.h"

extern ncclProfiler_v4_t ncclProfiler_v4;

static void* api_handle;
static void* context;

static void* enqueuing_thread(void* arg) {
  (void)arg;
  nccl_inspector_set_thread_tag(1234, 7);
  ncclProfilerEventDescr_v5_t d;
  memset(&d, 0, sizeof(d));
  d.type = ncclProfileCollApi;
  d.collApi.func = "AllReduce";
  ncclProfiler_v5.startEvent(context, &api_handle, &d);
  ncclProfiler_v5.stopEvent(api_handle); /* NCCL stops the API event right away */
  nccl_inspector_set_thread_tag(-1, 0);
  return NULL;
}

static void the_tag_travels_with_the_api_event(void) {
  test_enable(test_defaults());
  context = test_comm(0x7a6, 0, 2);
  pthread_t t;
  pthread_create(&t, NULL, enqueuing_thread, NULL);
  pthread_join(t, NULL);
  CHECK(api_handle != NULL);
  /* The Coll event, on this (untagged) thread, like a non-blocking communicator's launch thread. */
  ncclProfilerEventDescr_v5_t d;
  memset(&d, 0, sizeof(d));
  d.type = ncclProfileColl;
  d.parentObj = api_handle;
  d.coll.func = "AllReduce";
  d.coll.datatype = "ncclFloat32";
  d.coll.count = 4096;
  void* op = NULL;
  ncclProfiler_v5.startEvent(context, &op, &d);
  test_stop(op);
  decoded r = test_drain();
  CHECK_EQ(r.ops, 1);
  CHECK_EQ(r.last.step, 1234);
  CHECK_EQ(r.last.phase, 7);
  CHECK_EQ(test_counter("invalid_handle"), 0);
  /* Untagged: no tag. */
  void* plain = test_coll(context, "AllReduce", 1, 4096, "ncclFloat32", 0);
  test_stop(plain);
  r = test_drain();
  CHECK_EQ(r.last.step, -1);
  CHECK_EQ(r.last.phase, 0);
  ncclProfiler_v5.finalize(context);
  test_shutdown();
}

/* A collective captured into a CUDA graph: NCCL re-emits its Coll events at every replay, from a
 * CUDA driver thread, with the capture-time CollApi handle as parent. */
static void graph_replays_are_marked_even_without_tags(void) {
  test_enable(test_defaults());
  context = test_comm(0x7a7, 0, 2);
  ncclProfilerEventDescr_v5_t api;
  memset(&api, 0, sizeof(api));
  api.type = ncclProfileCollApi;
  api.collApi.func = "AllReduce";
  api.collApi.graphCaptured = 1;
  void* captured = NULL;
  ncclProfiler_v5.startEvent(context, &captured, &api);
  ncclProfiler_v5.stopEvent(captured);
  CHECK(captured != NULL); /* a handle although no thread is tagged */
  api.collApi.graphCaptured = 0;
  void* eager = NULL;
  ncclProfiler_v5.startEvent(context, &eager, &api);
  CHECK(eager != NULL); /* an entry of the API ledger (api_ledger.h), not a thread tag */
  /* The deferred mode's log handle maps to the ledger's entry on replay. */
  CHECK(((uintptr_t)defer_core_handle(eager) & 3) == 0);
  test_stop(eager);
  for (int replay = 0; replay < 3; replay++) {
    ncclProfilerEventDescr_v5_t d;
    memset(&d, 0, sizeof(d));
    d.type = ncclProfileColl;
    d.parentObj = captured;
    d.coll.func = "AllReduce";
    d.coll.seqNumber = (uint64_t)replay;
    d.coll.datatype = "ncclFloat32";
    d.coll.count = 4096;
    void* op = NULL;
    ncclProfiler_v5.startEvent(context, &op, &d);
    test_stop(op);
    decoded r = test_drain();
    CHECK_EQ(r.ops, 1);
    CHECK(r.last.flags & RECORD_FLAG_GRAPH_LAUNCHED);
    CHECK_EQ(r.last.step, -1);
  }
  void* plain = test_coll(context, "AllReduce", 9, 4096, "ncclFloat32", 0);
  test_stop(plain);
  decoded r = test_drain();
  CHECK(!(r.last.flags & RECORD_FLAG_GRAPH_LAUNCHED));
  ncclProfiler_v5.finalize(context);
  test_shutdown();
}

static void interface_v4_reads_the_tag_at_the_operation(void) {
  test_enable(test_defaults());
  void* ctx = NULL;
  int mask = 0;
  ncclProfiler_v4.init(&ctx, &mask, "v4", 0x44, 2, 2, 0, NULL);
  nccl_inspector_set_thread_tag(99, 0);
  ncclProfilerEventDescr_v4_t d;
  memset(&d, 0, sizeof(d));
  d.type = ncclProfileColl;
  d.coll.func = "AllGather";
  d.coll.datatype = "ncclInt8";
  d.coll.count = 1 << 16;
  void* op = NULL;
  ncclProfiler_v4.startEvent(ctx, &op, &d);
  ncclProfiler_v4.stopEvent(op);
  nccl_inspector_set_thread_tag(-1, 0);
  decoded r = test_drain();
  CHECK_EQ(r.last.step, 99);
  CHECK_EQ(r.last.phase, 0);
  ncclProfiler_v4.finalize(ctx);
  test_shutdown();
}

int main(void) {
  RUN(the_tag_travels_with_the_api_event);
  RUN(interface_v4_reads_the_tag_at_the_operation);
  RUN(graph_replays_are_marked_even_without_tags);
  if (test_failures) fprintf(stderr, "%d check(s) failed\n", test_failures);
  return test_failures ? 1 : 0;
}
