/* Timestamps of the core: CLOCK_MONOTONIC nanoseconds on the hot path (a vDSO read, no system
 * call), converted to wall-clock nanoseconds only when a record is built. A replay can install a
 * virtual clock so that CPU-timed values reproduce those of the recorded run. */
#ifndef NCCL_INSPECTOR_CLOCK_H
#define NCCL_INSPECTOR_CLOCK_H

#include <stdint.h>

uint64_t clock_mono_ns(void);
uint64_t clock_mono_to_wall_ns(uint64_t mono_ns);
/* Re-reads the offset between the wall clock and the monotonic clock (no-op under a virtual clock). */
void clock_refresh_wall_offset(void);
/* Installs (or, with enabled == 0, removes) the virtual clock and sets its current reading. */
void clock_set_virtual(int enabled, uint64_t mono_ns, uint64_t wall_ns);

#endif
