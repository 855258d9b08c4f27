/* The layout tables Java reads instead of writing offsets down (record_format.c, driver_layout.c):
 * every name is unique, every field lies inside the structure its prefix names, and the constants
 * Java relies on are there. A field added to a structure but not to its table is caught on the
 * Java side (it looks each field up by name); this catches a table entry that is itself wrong. */
#include <string.h>

#include "driver/profiler_table_driver.h"
#include "harness.h"
#include "inflight_query.h"
#include "trace_recorder.h"

typedef struct prefix_size {
  const char* prefix;
  int size;
} prefix_size;

static int struct_size(const char* name, const prefix_size* sizes, int n) {
  for (int i = 0; i < n; i++) {
    size_t len = strlen(sizes[i].prefix);
    if (strncmp(name, sizes[i].prefix, len) == 0 && name[len] == '.') return sizes[i].size;
  }
  return -1;
}

static int constant(int count, const char* (*name)(int), int (*offset)(int), int (*size)(int),
                    const char* wanted) {
  for (int i = 0; i < count; i++) {
    if (strcmp(name(i), wanted) == 0) return size(i) == 0 ? offset(i) : -1;
  }
  return -1;
}

static void check_table(int count, const char* (*name)(int), int (*offset)(int), int (*size)(int),
                        const prefix_size* sizes, int n_sizes) {
  CHECK(count > 0);
  for (int i = 0; i < count; i++) {
    const char* a = name(i);
    CHECK(a != NULL && a[0] != 0);
    for (int j = i + 1; j < count; j++) CHECK(strcmp(a, name(j)) != 0);
    if (size(i) == 0) continue; /* a constant */
    int limit = struct_size(a, sizes, n_sizes);
    if (limit < 0) {
      fprintf(stderr, "layout entry %s has no known structure\n", a);
      test_failures++;
      continue;
    }
    CHECK(offset(i) >= 0 && size(i) > 0 && offset(i) + size(i) <= limit);
  }
  CHECK_EQ(name(-1) == NULL, 1);
  CHECK_EQ(name(count) == NULL, 1);
  CHECK_EQ(offset(count), -1);
}

static void record_layout_is_consistent(void) {
  prefix_size sizes[] = {{"op", sizeof(op_record)},
                         {"channel", sizeof(channel_record)},
                         {"net", sizeof(net_record)},
                         {"proxy", sizeof(proxy_detail_record)},
                         {"netwait", sizeof(net_wait_record)},
                         {"step", sizeof(proxy_step_record)},
                         {"comm", sizeof(comm_record)}, {"kernel", sizeof(kernel_record)},
                         {"inflight", sizeof(inflight_entry)},
                         {"trace", sizeof(trace_event)}};
  check_table(nccl_inspector_layout_count(), nccl_inspector_layout_name, nccl_inspector_layout_offset,
              nccl_inspector_layout_size, sizes, (int)(sizeof(sizes) / sizeof(sizes[0])));
  CHECK_EQ(constant(nccl_inspector_layout_count(), nccl_inspector_layout_name,
                    nccl_inspector_layout_offset, nccl_inspector_layout_size, "trace_event_bytes"),
           sizeof(trace_event));
  CHECK_EQ(constant(nccl_inspector_layout_count(), nccl_inspector_layout_name,
                    nccl_inspector_layout_offset, nccl_inspector_layout_size, "trace_ev_state"),
           TRACE_EV_STATE);
}

static void driver_layout_is_consistent(void) {
  prefix_size sizes[] = {{"driver", sizeof(driver_event)}};
  check_table(profiler_driver_layout_count(), profiler_driver_layout_name, profiler_driver_layout_offset,
              profiler_driver_layout_size, sizes, 1);
  CHECK_EQ(constant(profiler_driver_layout_count(), profiler_driver_layout_name,
                    profiler_driver_layout_offset, profiler_driver_layout_size, "driver_event_bytes"),
           sizeof(driver_event));
  CHECK_EQ(constant(profiler_driver_layout_count(), profiler_driver_layout_name,
                    profiler_driver_layout_offset, profiler_driver_layout_size, "driver_max_id"),
           DRIVER_MAX_ID);
}

int main(void) {
  RUN(record_layout_is_consistent);
  RUN(driver_layout_is_consistent);
  return test_failures == 0 ? 0 : 1;
}
