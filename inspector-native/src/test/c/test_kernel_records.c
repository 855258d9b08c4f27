/* CUPTI kernel records (kernel_records.h): launches named for CUPTI, operations numbered by their
 * launch, kernel records joined to their launch in either order, the buffer pool, stop, and a
 * CUPTI that cannot be had. CUPTI itself is played by a table of functions that keeps what a real
 * CUPTI keeps (a per-thread stack of external ids, correlation ids per launch) and writes records
 * at the offsets of CUPTI 13's CUpti_ActivityKernel10 and CUpti_ActivityExternalCorrelation; the
 * real library, where one is installed, is tried for the unavailable case. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "kernel_records.h"
#include "names.h"

/* ---- the stand-in CUPTI ---- */
enum { KERNEL_BYTES = 216, EXTERNAL_BYTES = 24, API_BYTES = 40 };
static cupti_buffer_requested_fn requested;
static cupti_buffer_completed_fn completed;
static cupti_result enable_result;
static int enabled_kinds, pops, flushes;
/* API records: of every driver function (the DRIVER kind), or of the launch functions turned on one
 * by one (cuLaunchKernelEx is NCCL's); enable_api_result answers the one-by-one switch. */
static int driver_kind_on, launch_ex_on, launch_cbids_on;
static cupti_result enable_api_result;
static _Thread_local uint64_t id_stack[8];
static _Thread_local int id_depth;
static uint32_t next_correlation = 100;
/* Records written and not yet handed back, in the order CUPTI would write them. */
static uint8_t* buffer;
static size_t buffer_size, buffer_used;

static cupti_result fake_register(cupti_buffer_requested_fn r, cupti_buffer_completed_fn c) {
  requested = r;
  completed = c;
  return CUPTI_OK;
}
static cupti_result fake_enable(uint32_t kind) {
  if (enable_result == CUPTI_OK) {
    enabled_kinds++;
    if (kind == CUPTI_KIND_DRIVER) driver_kind_on = 1;
  }
  return enable_result;
}
static cupti_result fake_disable(uint32_t kind) {
  if (kind == CUPTI_KIND_DRIVER) driver_kind_on = 0;
  enabled_kinds--;
  return CUPTI_OK;
}
static cupti_result fake_enable_driver_api(uint32_t cbid, uint8_t on) {
  if (on && enable_api_result != CUPTI_OK) return enable_api_result;
  launch_cbids_on += on ? 1 : -1;
  if (cbid == 652) launch_ex_on = on;
  return CUPTI_OK;
}
static void hand_back(void) {
  if (buffer == NULL) return;
  uint8_t* b = buffer;
  size_t used = buffer_used;
  buffer = NULL;
  buffer_used = 0;
  completed(NULL, 0, b, buffer_size, used);
}
static cupti_result fake_flush(uint32_t flag) {
  (void)flag;
  flushes++;
  hand_back();
  return CUPTI_OK;
}
static cupti_result fake_next(uint8_t* b, size_t valid, void** record) {
  uint8_t* at = *record == NULL ? b : (uint8_t*)*record;
  if (*record != NULL) {
    uint32_t kind;
    memcpy(&kind, at, 4);
    at += kind == CUPTI_KIND_EXTERNAL_CORRELATION ? EXTERNAL_BYTES : kind == CUPTI_KIND_DRIVER ? API_BYTES : KERNEL_BYTES;
  }
  if (at >= b + valid) return CUPTI_MAX_LIMIT_REACHED;
  *record = at;
  return CUPTI_OK;
}
static cupti_result fake_push(uint32_t kind, uint64_t id) {
  CHECK_EQ(kind, CUPTI_EXTERNAL_KIND_CUSTOM2);
  id_stack[id_depth++] = id;
  return CUPTI_OK;
}
static cupti_result fake_pop(uint32_t kind, uint64_t* last) {
  CHECK_EQ(kind, CUPTI_EXTERNAL_KIND_CUSTOM2);
  CHECK(id_depth > 0);
  if (id_depth > 0) *last = id_stack[--id_depth];
  pops++;
  return CUPTI_OK;
}
static cupti_result fake_string(cupti_result r, const char** text) {
  *text = r == 999 ? "CUPTI_ERROR_UNKNOWN" : "other";
  return CUPTI_OK;
}
static const cupti_api fake = {fake_register, fake_enable, fake_disable, fake_flush,      fake_next,
                               fake_push,     fake_pop,    fake_string,  NULL, NULL, fake_enable_driver_api};

/* CUPTI's one subscriber slot: `subscribers` other tools hold it (0 or 1). */
static int subscribers, unsubscribes;
static cupti_result fake_subscribe(void** subscriber, void* callback, void* user_data) {
  (void)callback;
  (void)user_data;
  if (subscribers > 0) return CUPTI_MULTIPLE_SUBSCRIBERS;
  subscribers++;
  *subscriber = &subscribers;
  return CUPTI_OK;
}
static cupti_result fake_unsubscribe(void* subscriber) {
  CHECK(subscriber == &subscribers);
  subscribers--;
  unsubscribes++;
  return CUPTI_OK;
}

static uint8_t* room(size_t n) {
  if (buffer == NULL) {
    size_t max = 0;
    requested(&buffer, &buffer_size, &max);
    CHECK(buffer != NULL);
    buffer_used = 0;
  }
  CHECK(buffer_used + n <= buffer_size);
  uint8_t* at = buffer + buffer_used;
  memset(at, 0, n);
  buffer_used += n;
  return at;
}
static void put_external(uint32_t correlation, uint64_t id) {
  cupti_external_correlation x = {CUPTI_KIND_EXTERNAL_CORRELATION, CUPTI_EXTERNAL_KIND_CUSTOM2, id, correlation, 0};
  memcpy(room(EXTERNAL_BYTES), &x, sizeof(x));
}
static void put_kernel(uint32_t correlation, uint64_t start, uint64_t end) {
  uint8_t* k = room(KERNEL_BYTES);
  uint32_t kind = CUPTI_KIND_CONCURRENT_KERNEL, device = 3, stream = 7;
  memcpy(k + 0, &kind, 4);
  memcpy(k + 16, &start, 8);
  memcpy(k + 24, &end, 8);
  memcpy(k + 40, &device, 4);
  memcpy(k + 48, &stream, 4);
  memcpy(k + 92, &correlation, 4);
}

/* cuLaunchKernelEx under CUPTI: a new correlation id; where API records of the function are on,
 * its API record, preceded by the external id on top of this thread's stack (written at once, as
 * CUPTI does at the API call). Without API records CUPTI writes no external correlation record. */
static uint32_t launch_kernel(void) {
  uint32_t correlation = next_correlation++;
  if (launch_ex_on || driver_kind_on) {
    if (id_depth > 0) put_external(correlation, id_stack[id_depth - 1]);
    uint8_t* a = room(API_BYTES);
    uint32_t kind = CUPTI_KIND_DRIVER, cbid = 652;
    memcpy(a + 0, &kind, 4);
    memcpy(a + 4, &cbid, 4);
    memcpy(a + 36, &correlation, 4); /* where CUpti_ActivityAPI keeps it; the core reads none */
  }
  return correlation;
}

/* A KernelLaunch as NCCL makes it: start, the CUDA launch, stop. Returns the correlation id. */
static uint32_t nccl_launch(void* ctx) {
  ncclProfilerEventDescr_v5_t d;
  memset(&d, 0, sizeof(d));
  d.type = ncclProfileKernelLaunch;
  void* h = NULL;
  ncclProfiler_v5.startEvent(ctx, &h, &d);
  uint32_t correlation = launch_kernel();
  if (h != NULL) ncclProfiler_v5.stopEvent(h);
  return correlation;
}

/* A KernelLaunch started and not stopped yet (as between NCCL's start and cuLaunchKernelEx). */
static void* launch_started(void* ctx) {
  ncclProfilerEventDescr_v5_t d;
  memset(&d, 0, sizeof(d));
  d.type = ncclProfileKernelLaunch;
  void* h = (void*)1;
  ncclProfiler_v5.startEvent(ctx, &h, &d);
  return h;
}

/* ---- reading the ring ---- */
typedef struct seen {
  int kernels, ops;
  kernel_record kernel[8];
  op_record op[8];
} seen;

static seen drain_all(void) {
  static uint8_t buf[1 << 16];
  seen s;
  memset(&s, 0, sizeof(s));
  nccl_inspector_defer_flush();
  long long n = nccl_inspector_drain(buf, sizeof buf);
  for (long long off = 0; off < n;) {
    const op_record* x = (const op_record*)(buf + off);
    if (x->kind == RECORD_KIND_KERNEL && s.kernels < 8) memcpy(&s.kernel[s.kernels++], x, sizeof(kernel_record));
    if ((x->kind == RECORD_KIND_COLL || x->kind == RECORD_KIND_P2P) && s.ops < 8) memcpy(&s.op[s.ops++], x, sizeof(op_record));
    off += (long long)x->cells * INSPECTOR_CELL_BYTES;
  }
  return s;
}

static void start_active(void) {
  test_enable(test_defaults());
  enable_result = CUPTI_OK;
  enable_api_result = CUPTI_OK;
  enabled_kinds = 0;
  CHECK_EQ(kernel_records_start_with(&fake), KERNEL_RECORDS_ACTIVE);
  CHECK_EQ(enabled_kinds, 2);
  CHECK_EQ(launch_cbids_on, 4); /* cuLaunchKernel(Ex), each with its per-thread-stream twin */
  CHECK_EQ(driver_kind_on, 0);
  CHECK(strcmp(kernel_records_reason(), "active") == 0);
}

/* A collective alone in its launch: its record names the launch, and the kernel record of that
 * launch says one operation, with CUPTI's start and end. */
static void a_lone_collective_gets_its_kernel(void) {
  start_active();
  void* ctx = test_comm(0x1001, 0, 2);
  uint32_t correlation = nccl_launch(ctx);
  CHECK_EQ(id_depth, 0); /* popped at the launch's stop */
  void* op = test_coll(ctx, "AllReduce", 1, 1 << 20, "ncclFloat32", 1);
  test_stop(op);
  void* ch = test_channel(op, 0, 0); /* no GPU timestamp: untimed by its channel */
  test_channel_done(ch, 0);
  test_stop(ch);
  put_kernel(correlation, 5000000, 5012345);
  kernel_records_flush();
  seen s = drain_all();
  CHECK_EQ(s.ops, 1);
  CHECK_EQ(s.kernels, 1);
  CHECK(s.op[0].launch_id != 0);
  CHECK_EQ(s.kernel[0].launch_id, s.op[0].launch_id);
  CHECK_EQ(s.kernel[0].ops, 1);
  CHECK_EQ(s.kernel[0].start_ns, 5000000);
  CHECK_EQ(s.kernel[0].end_ns, 5012345);
  CHECK_EQ(s.kernel[0].device, 3);
  CHECK_EQ(s.kernel[0].stream, 7);
  CHECK_EQ(s.kernel[0].correlation_id, correlation);
  CHECK_EQ(test_counter("kernel_records_joined"), 1);
  test_shutdown();
  CHECK_EQ(kernel_records_state(), KERNEL_RECORDS_OFF);
  CHECK_EQ(enabled_kinds, 0);
}

/* Two operations after one launch share it and its kernel says two; an operation on a thread that
 * launched nothing has no launch; the kernel record may come before its external correlation. */
static void launches_count_their_operations(void) {
  start_active();
  void* ctx = test_comm(0x1002, 0, 2);
  uint32_t correlation = nccl_launch(ctx);
  void* a = test_p2p(ctx, "Send", 1, 1 << 20, 1);
  void* b = test_p2p(ctx, "Recv", 1, 1 << 20, 1);
  test_stop(a);
  test_stop(b);
  /* CUPTI wrote the external correlation into the buffer now in use; hand it back after the
   * kernel's record, which goes into a buffer of its own first. */
  uint8_t* external_buffer = buffer;
  size_t external_used = buffer_used;
  buffer = NULL;
  put_kernel(correlation, 100, 900);
  kernel_records_flush();
  completed(NULL, 0, external_buffer, buffer_size, external_used);
  seen s = drain_all();
  CHECK_EQ(s.kernels, 1);
  CHECK_EQ(s.kernel[0].ops, 2);
  CHECK_EQ(s.kernel[0].end_ns - s.kernel[0].start_ns, 800);
  /* A kernel nobody named (the application's own) is not reported. */
  put_kernel(next_correlation++, 1, 2);
  kernel_records_flush();
  CHECK_EQ(drain_all().kernels, 0);
  test_shutdown();
}

/* A kernel whose record comes while its launch's operations are still starting waits until one of
 * them stops (NCCL starts them all first): it then says two, never one. */
static void a_kernel_waits_until_its_launch_is_final(void) {
  start_active();
  void* ctx = test_comm(0x1007, 0, 2);
  uint32_t correlation = nccl_launch(ctx);
  void* a = test_coll(ctx, "AllReduce", 1, 1 << 20, "ncclFloat32", 0);
  put_kernel(correlation, 100, 200);
  kernel_records_flush();
  CHECK_EQ(drain_all().kernels, 0);
  void* b = test_coll(ctx, "AllReduce", 2, 1 << 20, "ncclFloat32", 0);
  test_stop(a);
  test_stop(b);
  kernel_records_flush();
  seen s = drain_all();
  CHECK_EQ(s.kernels, 1);
  CHECK_EQ(s.kernel[0].ops, 2);
  /* An operation started after one of its launch stopped is not of that launch. */
  void* late = test_coll(ctx, "AllReduce", 3, 1 << 20, "ncclFloat32", 0);
  test_stop(late);
  seen t = drain_all();
  CHECK_EQ(t.ops, 1);
  CHECK_EQ(t.op[0].launch_id, 0);
  test_shutdown();
}

/* Kernels of launches whose operations never stop wait in a bounded list: the oldest are given up
 * (counted), the newest still come out once their launch is final. */
static void kernels_waiting_are_bounded(void) {
  enum { N = KR_WAITING + 6 };
  static void* ops[N];
  start_active();
  void* ctx = test_comm(0x1008, 0, 2);
  long long other = test_counter("kernel_records_other");
  for (int i = 0; i < N; i++) {
    uint32_t correlation = nccl_launch(ctx);
    ops[i] = test_coll(ctx, "AllReduce", (uint64_t)i, 1 << 20, "ncclFloat32", 0);
    put_kernel(correlation, 1000 * (uint64_t)i, 1000 * (uint64_t)i + 500);
  }
  kernel_records_flush();
  CHECK_EQ(drain_all().kernels, 0);
  CHECK_EQ(test_counter("kernel_records_other") - other, N - KR_WAITING);
  test_stop(ops[0]);     /* given up: its kernel no longer waits */
  test_stop(ops[N - 1]); /* the newest: still waiting */
  kernel_records_flush();
  seen s = drain_all();
  CHECK_EQ(s.kernels, 1);
  CHECK_EQ(s.kernel[0].start_ns, 1000 * (uint64_t)(N - 1));
  CHECK_EQ(s.kernel[0].ops, 1);
  for (int i = 1; i < N - 1; i++) test_stop(ops[i]);
  test_shutdown();
}

static void* op_on_other_thread(void* ctx) {
  void* op = test_coll(ctx, "AllGather", 9, 1 << 20, "ncclFloat32", 0);
  return op;
}

static void an_operation_without_a_launch_has_no_launch_id(void) {
  start_active();
  void* ctx = test_comm(0x1003, 0, 2);
  (void)nccl_launch(ctx);
  pthread_t t;
  void* op = NULL;
  pthread_create(&t, NULL, op_on_other_thread, ctx);
  pthread_join(t, &op);
  test_stop(op); /* no channels announced: complete at stop */
  seen s = drain_all();
  CHECK_EQ(s.ops, 1);
  CHECK_EQ(s.op[0].launch_id, 0);
  test_shutdown();
}

/* With GPU times required (the default), an operation without one is dropped, counted, unless it
 * names its launch: then its kernel's record may still time it, and it travels to the JVM, which
 * drops it if none does. */
static void an_untimed_operation_that_names_its_launch_waits_for_its_kernel(void) {
  test_config c = test_defaults();
  c.require_gpu = 1;
  test_enable(c);
  enable_result = CUPTI_OK;
  enable_api_result = CUPTI_OK;
  CHECK_EQ(kernel_records_start_with(&fake), KERNEL_RECORDS_ACTIVE);
  void* ctx = test_comm(0x1004, 0, 2);
  (void)nccl_launch(ctx);
  void* named = test_coll(ctx, "AllReduce", 1, 1 << 20, "ncclFloat32", 0);
  test_stop(named); /* no channels: CPU-timed */
  pthread_t t;
  void* unnamed = NULL;
  pthread_create(&t, NULL, op_on_other_thread, ctx);
  pthread_join(t, &unnamed);
  test_stop(unnamed);
  seen s = drain_all();
  CHECK_EQ(s.ops, 1);
  CHECK(s.op[0].launch_id != 0);
  CHECK(s.op[0].timing_source != TIMING_KERNEL_GPU);
  CHECK_EQ(test_counter("no_gpu_timing"), 1); /* the one on the thread that launched nothing */
  test_shutdown();
}

/* Every buffer with CUPTI: the next request gets none, counted; one handed back is lent again. */
static void the_buffer_pool_is_bounded(void) {
  start_active();
  uint8_t* lent[KR_BUFFERS];
  size_t size = 0, max = 0;
  for (int i = 0; i < KR_BUFFERS; i++) {
    requested(&lent[i], &size, &max);
    CHECK(lent[i] != NULL);
    CHECK_EQ(size, KR_BUFFER_BYTES);
  }
  uint8_t* none = (uint8_t*)1;
  requested(&none, &size, &max);
  CHECK(none == NULL);
  CHECK_EQ(test_counter("kernel_records_no_buffer"), 1);
  completed(NULL, 0, lent[5], KR_BUFFER_BYTES, 0);
  uint8_t* again = NULL;
  requested(&again, &size, &max);
  CHECK(again == lent[5]);
  for (int i = 0; i < KR_BUFFERS; i++) completed(NULL, 0, lent[i], KR_BUFFER_BYTES, 0);
  test_shutdown();
}

/* After stop no launch is named; a launch named before stop is still unnamed at its stop. */
static void stop_names_no_more_launches(void) {
  start_active();
  void* ctx = test_comm(0x1004, 0, 2);
  void* h = launch_started(ctx);
  CHECK(h != NULL);
  CHECK_EQ(id_depth, 1);
  int pops_before = pops;
  kernel_records_stop();
  CHECK_EQ(kernel_records_state(), KERNEL_RECORDS_OFF);
  ncclProfiler_v5.stopEvent(h);
  CHECK_EQ(pops, pops_before + 1);
  CHECK_EQ(id_depth, 0);
  CHECK(launch_started(ctx) == NULL);
  /* A buffer CUPTI hands back after the stop is given back unread: the core may have freed its ring. */
  long long joined = test_counter("kernel_records_joined");
  put_external(next_correlation, 77);
  put_kernel(next_correlation++, 1, 2);
  hand_back();
  CHECK_EQ(test_counter("kernel_records_joined"), joined);
  void* op = test_coll(ctx, "AllReduce", 2, 1 << 20, "ncclFloat32", 0);
  test_stop(op);
  CHECK_EQ(drain_all().op[0].launch_id, 0);
  CHECK_EQ(test_counter("invalid_handle"), 0);
  test_shutdown();
}

/* A launch named before the inspector closed and released its tables is still unnamed at its stop. */
static void a_launch_outliving_the_core_is_unnamed(void) {
  start_active();
  void* ctx = test_comm(0x1006, 0, 2);
  void* h = launch_started(ctx);
  CHECK(h != NULL);
  ncclProfiler_v5.finalize(ctx);
  test_shutdown();
  CHECK_EQ(nccl_inspector_state(), 0); /* off: the tables are freed (its only communicator finalized) */
  ncclProfiler_v5.stopEvent(h);
  CHECK_EQ(id_depth, 0);
}

/* CUPTI writes an external correlation record only with an API record (cupti_abi.h): the records
 * turn API records on for NCCL's launch functions, or for every driver function where CUPTI cannot
 * select them, and off again at stop; where that fails they start nothing. Checked on an H100: with
 * kernel activity alone no NCCL kernel was joined. */
static void launches_get_api_records(void) {
  start_active();
  void* ctx = test_comm(0x1007, 0, 2);
  nccl_launch(ctx);
  void* op = test_coll(ctx, "AllReduce", 1, 1 << 20, "ncclFloat32", 1);
  test_stop(op);
  test_stop(test_channel(op, 0, 0));
  kernel_records_flush();
  put_kernel(next_correlation - 1, 1000, 5000);
  kernel_records_flush();
  seen s = drain_all();
  CHECK_EQ(s.kernels, 1);
  test_shutdown();
  CHECK_EQ(launch_cbids_on, 0);
  CHECK_EQ(enabled_kinds, 0);

  cupti_api old_cupti = fake; /* no cuptiActivityEnableDriverApi */
  old_cupti.enable_driver_api = NULL;
  test_enable(test_defaults());
  enabled_kinds = 0;
  CHECK_EQ(kernel_records_start_with(&old_cupti), KERNEL_RECORDS_ACTIVE);
  CHECK_EQ(driver_kind_on, 1);
  CHECK_EQ(enabled_kinds, 3);
  CHECK(strstr(kernel_records_reason(), "every driver function") != NULL);
  ctx = test_comm(0x1008, 0, 2);
  nccl_launch(ctx);
  op = test_coll(ctx, "AllReduce", 1, 1 << 20, "ncclFloat32", 1);
  test_stop(op);
  test_stop(test_channel(op, 0, 0));
  put_kernel(next_correlation - 1, 1000, 5000);
  kernel_records_flush();
  s = drain_all();
  CHECK_EQ(s.kernels, 1);
  test_shutdown();
  CHECK_EQ(driver_kind_on, 0);
  CHECK_EQ(enabled_kinds, 0);

  test_enable(test_defaults());
  enabled_kinds = 0;
  enable_api_result = 999;
  CHECK_EQ(kernel_records_start_with(&fake), KERNEL_RECORDS_UNAVAILABLE);
  CHECK(strstr(kernel_records_reason(), "API records of the kernel launches") != NULL);
  CHECK_EQ(enabled_kinds, 0);
  CHECK_EQ(launch_cbids_on, 0);
  ctx = test_comm(0x1009, 0, 2);
  CHECK(launch_started(ctx) == NULL);
  enable_api_result = CUPTI_OK;
  test_shutdown();
}

/* CUPTI refuses: unavailable with the reason, launches not named. */
static void an_unavailable_cupti_is_said_and_left_alone(void) {
  test_enable(test_defaults());
  enable_result = 999;
  CHECK_EQ(kernel_records_start_with(&fake), KERNEL_RECORDS_UNAVAILABLE);
  CHECK(strstr(kernel_records_reason(), "CUPTI error 999 (CUPTI_ERROR_UNKNOWN)") != NULL);
  void* ctx = test_comm(0x1005, 0, 2);
  CHECK(launch_started(ctx) == NULL);
  CHECK_EQ(id_depth, 0);
  cupti_api missing = fake;
  missing.pop_external_id = NULL;
  CHECK_EQ(kernel_records_start_with(&missing), KERNEL_RECORDS_UNAVAILABLE);
  CHECK_EQ(kernel_records_start("/nonexistent/libcupti.so"), KERNEL_RECORDS_UNAVAILABLE);
  CHECK(strstr(kernel_records_reason(), "CUPTI not found") != NULL);
  test_shutdown();
}

/* Another CUPTI tool subscribed first (Nsight Systems, PyTorch's profiler): its activity records
 * stay its own (nothing registered or enabled, launches not named). Alone, the probe gives the slot
 * back at once and the records start. */
static void another_cupti_tool_keeps_its_records(void) {
  cupti_api probing = fake;
  probing.subscribe = fake_subscribe;
  probing.unsubscribe = fake_unsubscribe;
  test_enable(test_defaults());
  enable_result = CUPTI_OK;
  enabled_kinds = 0;
  requested = NULL;
  subscribers = 1;
  unsubscribes = 0;
  CHECK_EQ(kernel_records_start_with(&probing), KERNEL_RECORDS_UNAVAILABLE);
  CHECK(strstr(kernel_records_reason(), "another CUPTI tool is subscribed") != NULL);
  CHECK(strstr(kernel_records_reason(), "CUPTI error 39") != NULL);
  CHECK(requested == NULL);
  CHECK_EQ(enabled_kinds, 0);
  CHECK_EQ(subscribers, 1);
  void* ctx = test_comm(0x1006, 0, 2);
  CHECK(launch_started(ctx) == NULL);
  CHECK_EQ(id_depth, 0);
  test_shutdown();

  test_enable(test_defaults());
  subscribers = 0;
  CHECK_EQ(kernel_records_start_with(&probing), KERNEL_RECORDS_ACTIVE);
  CHECK_EQ(subscribers, 0);
  CHECK_EQ(unsubscribes, 1);
  CHECK(requested != NULL);
  CHECK_EQ(enabled_kinds, 2);
  test_shutdown();
  CHECK(kernel_records_state() != KERNEL_RECORDS_ACTIVE);
}

/* A libcupti mapped into the process that the inspector did not load (the program's, PyTorch's, a
 * profiler's): the records are left off with the reason and that CUPTI is not touched (measured on
 * an H100: registering the inspector's buffers took all records from the program's own client). */
static void a_cupti_the_program_loaded_is_left_to_it(void) {
  char maps[] = "/tmp/kr-maps-XXXXXX";
  int fd = mkstemp(maps);
  CHECK(fd >= 0);
  const char* lines = "7f0000000000-7f0000001000 r-xp 00000000 08:01 11 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
                      "7f0000002000-7f0000003000 r-xp 00000000 08:01 12 /opt/app/lib/libcupti.so.13\n";
  CHECK_EQ(write(fd, lines, strlen(lines)), (long)strlen(lines));
  close(fd);
  test_enable(test_defaults());
  CHECK_EQ(kernel_records_start_in("/nonexistent/libcupti.so", maps), KERNEL_RECORDS_UNAVAILABLE);
  CHECK(strstr(kernel_records_reason(), "CUPTI is already loaded in the process (/opt/app/lib/libcupti.so.13)") != NULL);
  CHECK(strstr(kernel_records_reason(), "NCCL_INSPECTOR_CUPTI_SHARED=1") != NULL);
  void* ctx = test_comm(0x100a, 0, 2);
  CHECK(launch_started(ctx) == NULL);
  test_shutdown();

  /* Shared knowingly (no mappings read): the start goes on (here CUPTI is not found). */
  test_enable(test_defaults());
  CHECK_EQ(kernel_records_start_in("/nonexistent/libcupti.so", NULL), KERNEL_RECORDS_UNAVAILABLE);
  CHECK(strstr(kernel_records_reason(), "CUPTI not found") != NULL);
  test_shutdown();

  /* Already running: a second start asks nothing and changes nothing. */
  start_active();
  CHECK_EQ(kernel_records_start_in("/nonexistent/libcupti.so", maps), KERNEL_RECORDS_ACTIVE);
  CHECK_EQ(kernel_records_state(), KERNEL_RECORDS_ACTIVE);
  CHECK(strcmp(kernel_records_reason(), "active") == 0);
  test_shutdown();

  /* Only libc mapped, or mappings that cannot be read: nothing stops the start (here CUPTI is not
   * found). */
  fd = open(maps, O_WRONLY | O_TRUNC);
  CHECK(fd >= 0);
  long libc_line = (long)(strchr(lines, '\n') - lines + 1);
  CHECK_EQ(write(fd, lines, (size_t)libc_line), libc_line);
  close(fd);
  test_enable(test_defaults());
  CHECK_EQ(kernel_records_start_in("/nonexistent/libcupti.so", maps), KERNEL_RECORDS_UNAVAILABLE);
  CHECK(strstr(kernel_records_reason(), "CUPTI not found") != NULL);
  CHECK_EQ(kernel_records_start_in("/nonexistent/libcupti.so", "/nonexistent/maps"), KERNEL_RECORDS_UNAVAILABLE);
  CHECK(strstr(kernel_records_reason(), "CUPTI not found") != NULL);
  test_shutdown();
  unlink(maps);
}

/* The real CUPTI where the CUDA toolkit is installed: on a machine without a GPU it must refuse
 * and say why; with one it must start and stop. */
static void the_real_cupti_starts_or_says_why(void) {
  static const char* const paths[] = {"/usr/local/cuda/lib64/libcupti.so", "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
                                      "/usr/local/cuda-13.0/lib/libcupti.so", "/usr/local/cuda-13.0/lib64/libcupti.so"};
  const char* path = NULL;
  for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]) && path == NULL; i++) {
    if (access(paths[i], R_OK) == 0) path = paths[i];
  }
  if (path == NULL) {
    printf("     (no CUPTI installed: the real library not tried)\n");
    return;
  }
  test_enable(test_defaults());
  int state = kernel_records_start(path);
  printf("     (%s: %s)\n", path, kernel_records_reason());
  if (access("/dev/nvidia0", F_OK) != 0) {
    CHECK_EQ(state, KERNEL_RECORDS_UNAVAILABLE);
    CHECK(strstr(kernel_records_reason(), "CUPTI error") != NULL);
  } else {
    CHECK(state == KERNEL_RECORDS_ACTIVE || state == KERNEL_RECORDS_UNAVAILABLE);
  }
  test_shutdown();
  /* Mapped now, but by the inspector itself: a second start is not refused for it. */
  test_enable(test_defaults());
  state = kernel_records_start(path);
  CHECK(strstr(kernel_records_reason(), "already loaded") == NULL);
  test_shutdown();
  CHECK(kernel_records_state() != KERNEL_RECORDS_ACTIVE);
}

int main(void) {
  /* First: no communicator of another test keeps the tables alive. */
  RUN(a_launch_outliving_the_core_is_unnamed);
  RUN(a_lone_collective_gets_its_kernel);
  RUN(launches_count_their_operations);
  RUN(a_kernel_waits_until_its_launch_is_final);
  RUN(kernels_waiting_are_bounded);
  RUN(an_operation_without_a_launch_has_no_launch_id);
  RUN(an_untimed_operation_that_names_its_launch_waits_for_its_kernel);
  RUN(the_buffer_pool_is_bounded);
  RUN(stop_names_no_more_launches);
  RUN(launches_get_api_records);
  RUN(an_unavailable_cupti_is_said_and_left_alone);
  RUN(another_cupti_tool_keeps_its_records);
  RUN(a_cupti_the_program_loaded_is_left_to_it);
  RUN(the_real_cupti_starts_or_says_why);
  return test_failures == 0 ? 0 : 1;
}
