/* The deferred mode's replay context on the consumer's thread (defer_log.h): while `active`,
 * clock_mono_ns, clock_mono_to_wall_ns, core_state_at_call and core_min_size_at_call answer as
 * they would have when the call being replayed was made. Written and read by that thread only. */
#ifndef NCCL_INSPECTOR_DEFER_CLOCK_H
#define NCCL_INSPECTOR_DEFER_CLOCK_H

#include <stdint.h>

typedef struct defer_clock {
  uint64_t now;
  int active;
  int state;               /* the core's state (CORE_*) when the call was made (core_state_at_call) */
  uint64_t min_size_bytes; /* the minimum message size at an operation start (core_min_size_at_call) */
  int64_t wall_offset;     /* wall minus monotonic time when the call was made (clock_mono_to_wall_ns) */
} defer_clock;
extern _Thread_local defer_clock tls_defer_clock;

#endif
