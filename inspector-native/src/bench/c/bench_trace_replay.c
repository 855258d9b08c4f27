/* A recorded trace through the core in a process of its own, for profiling: the events written by
 * ReplayInputDump (examples) are driven through this executable's own ncclProfiler_v5 table (the
 * core is linked in, the driver opens the program itself), pass after pass, while a thread drains
 * the ring as the JVM's dump thread would. No JVM beside it, so `perf record` sees the core's
 * functions by name. It also runs the same passes through the driver's do-nothing table; the
 * difference per call is a rough excess (the two tables get different calls: the do-nothing one
 * asks for every event type). bench/native-replay runs it; BENCHMARKS.md says what it found.
 *
 *   bench_trace_replay FILE [PASSES]     environment: NB=0 network breakdown off, RECOV=0 channel
 *                                        recovery off, MIN_SIZE=bytes (8192) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver/profiler_table_driver.h"
#include "harness.h"

static int read_i32(FILE* f, int32_t* v) { return fread(v, sizeof *v, 1, f) == 1 ? 0 : -1; }

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Runs the passes through the core (null == 0) or the do-nothing table; returns seconds. */
static double run(const void* events, int count, int max_handle, int max_ctx, int passes, int null,
                  long long* calls) {
  *calls = 0;
  double start = now_s();
  for (int p = 0; p < passes; p++) {
    if ((null ? profiler_driver_open_null() : profiler_driver_open(NULL)) != 0 ||
        profiler_driver_prepare(max_handle, max_ctx) != 0) {
      fprintf(stderr, "bench_trace_replay: %s\n", profiler_driver_error());
      exit(4);
    }
    long long n = profiler_driver_run(events, count, 0, NULL);
    if (n < 0) {
      fprintf(stderr, "bench_trace_replay: %s\n", profiler_driver_error());
      exit(4);
    }
    *calls += n;
    profiler_driver_close();
  }
  return now_s() - start;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_trace_replay FILE [PASSES]\n");
    return 2;
  }
  int passes = argc > 2 ? atoi(argv[2]) : 1000;
  FILE* f = fopen(argv[1], "rb");
  char magic[4];
  int32_t h[6];
  if (f == NULL || fread(magic, 1, 4, f) != 4 || memcmp(magic, "NIRP", 4) != 0) {
    fprintf(stderr, "bench_trace_replay: %s is not a ReplayInputDump file\n", argv[1]);
    return 2;
  }
  for (int i = 0; i < 6; i++) {
    if (read_i32(f, &h[i]) != 0) return 2;
  }
  int32_t version = h[0], count = h[1], max_handle = h[2], max_ctx = h[3], event_bytes = h[4], strings = h[5];
  if (version != 1 || event_bytes != (int32_t)sizeof(driver_event) || count <= 0 || strings < 0) {
    fprintf(stderr, "bench_trace_replay: version %d, %d-byte events (this build: 1, %zu)\n", version,
            event_bytes, sizeof(driver_event));
    return 2;
  }
  for (int32_t id = 1; id <= strings; id++) {
    int32_t len;
    if (read_i32(f, &len) != 0 || len < 0 || len > (1 << 20)) return 2;
    char* s = calloc(1, (size_t)len + 1);
    if (s == NULL || fread(s, 1, (size_t)len, f) != (size_t)len) return 2;
    int got = profiler_driver_intern(s); /* the driver keeps its own copy */
    free(s);
    if (got != id) {
      fprintf(stderr, "bench_trace_replay: string %d interned under another id\n", id);
      return 2;
    }
  }
  void* events = malloc((size_t)count * sizeof(driver_event));
  if (events == NULL || fread(events, sizeof(driver_event), (size_t)count, f) != (size_t)count) return 2;
  fclose(f);

  const char* min = getenv("MIN_SIZE");
  if (getenv("DEFERRED")) nccl_inspector_set_deferred(atoi(getenv("DEFERRED")));
  if (nccl_inspector_enable(2048, 1024, 65536, min ? atoll(min) : 8192, 1, 0, 0, 0) < 0) {
    fprintf(stderr, "bench_trace_replay: enable failed\n");
    return 3;
  }
  if (getenv("NB")) nccl_inspector_set_network_breakdown(atoi(getenv("NB")));
  if (getenv("RECOV")) nccl_inspector_set_channel_recovery(atoi(getenv("RECOV")));
  test_drainer_start(1000000); /* every millisecond when idle, as the JVM's dump thread */
  long long calls, null_calls;
  double s = run(events, count, max_handle, max_ctx, passes, 0, &calls);
  double null_s = run(events, count, max_handle, max_ctx, passes, 1, &null_calls);
  test_drainer_stop();
  nccl_inspector_close();
  nccl_inspector_release();
  printf("%d passes: core %lld calls in %.3f s (%.1f ns a call, init and finalize included);"
         " do-nothing table %lld calls in %.3f s (%.1f ns)\n",
         passes, calls, s, s * 1e9 / (double)calls, null_calls, null_s, null_s * 1e9 / (double)null_calls);
  free(events);
  return 0;
}
