/* The trace driver with ids no recorder writes: negative (-1 read as 0xffffffff), huge, and
 * past the prepared maps. Every id is range-checked; an event with an id out of range is not
 * sent, nothing is read or written outside the maps, and prepare refuses absurd sizes. */
#include <limits.h>
#include <string.h>

#include "driver/profiler_table_driver.h"
#include "harness.h"

static driver_event event(uint8_t op, uint32_t type, uint32_t ctx, uint32_t handle, uint32_t parent) {
  driver_event e;
  memset(&e, 0, sizeof(e));
  e.op = op;
  e.type = type;
  e.ctx = ctx;
  e.handle = handle;
  e.parent = parent;
  return e;
}

static void ids_out_of_range_are_not_sent(void) {
  CHECK_EQ(profiler_driver_open_null(), 0);
  CHECK_EQ(profiler_driver_prepare(3, 1), 0);
  driver_event e[] = {
      event(DRIVER_OP_INIT, 0, 1, 0, 0),
      event(DRIVER_OP_START, ncclProfileColl, 1, 1, 0),                 /* sent */
      event(DRIVER_OP_STOP, 0, 0, 0xffffffffu, 0),                      /* "h":-1 */
      event(DRIVER_OP_STOP, 0, 0, 0x80000000u, 0),                      /* wraps negative as int */
      event(DRIVER_OP_STOP, 0, 0, 4, 0),                                /* one past the map */
      event(DRIVER_OP_STATE, 0, 0, 0xfffffffeu, 0),
      event(DRIVER_OP_START, ncclProfileKernelCh, 1, 2, 0xffffffffu),   /* parent -1: not sent */
      event(DRIVER_OP_START, ncclProfileColl, 1, 0xffffffffu, 0),       /* handle -1: not sent */
      event(DRIVER_OP_START, ncclProfileColl, 0xffffffffu, 3, 0),       /* context -1: not sent */
      event(DRIVER_OP_FINI, 0, 0xffffffffu, 0, 0),
      event(DRIVER_OP_INIT, 0, 0x80000000u, 0, 0),
      event(DRIVER_OP_STOP, 0, 0, 1, 0),                                /* sent */
      event(DRIVER_OP_FINI, 0, 1, 0, 0),                                /* sent */
  };
  e[9].op = DRIVER_OP_FINI;
  e[6].parent_group = 0xffffffffu;
  e[7].parent_group = 0x7fffffffu;
  long long calls = profiler_driver_run(e, (long long)(sizeof(e) / sizeof(e[0])), 0, NULL);
  CHECK_EQ(calls, 4);
  profiler_driver_close();
}

static void prepare_refuses_sizes_out_of_range(void) {
  CHECK_EQ(profiler_driver_open_null(), 0);
  CHECK_EQ(profiler_driver_prepare(-1, 1), -1);
  CHECK(strstr(profiler_driver_error(), "out of range") != NULL);
  CHECK_EQ(profiler_driver_prepare(1, -2), -1);
  CHECK_EQ(profiler_driver_prepare(INT_MAX, 1), -1);
  CHECK_EQ(profiler_driver_prepare(DRIVER_MAX_ID + 1, 1), -1);
  CHECK_EQ(profiler_driver_prepare(1, DRIVER_MAX_ID + 1), -1);
  /* not prepared: run refuses rather than touching a map */
  driver_event stop = event(DRIVER_OP_STOP, 0, 0, 1, 0);
  CHECK_EQ(profiler_driver_run(&stop, 1, 0, NULL), -1);
  CHECK_EQ(profiler_driver_prepare(DRIVER_MAX_ID, 0), 0);
  CHECK_EQ(profiler_driver_run(&stop, 1, 0, NULL), 0);
  profiler_driver_close();
}

int main(void) {
  RUN(ids_out_of_range_are_not_sent);
  RUN(prepare_refuses_sizes_out_of_range);
  if (test_failures) fprintf(stderr, "%d check(s) failed\n", test_failures);
  return test_failures ? 1 : 0;
}
