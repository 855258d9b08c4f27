/* The table driver's internals that its two runners share: profiler_driver_run (the calls one
 * after another on the calling thread) and profiler_driver_run_paced (paced_driver.c: on the
 * recorded threads, at the recorded pace). Not part of the JavaCPP mapping. */
#ifndef NCCL_INSPECTOR_DRIVER_PLAY_H
#define NCCL_INSPECTOR_DRIVER_PLAY_H

#include <stddef.h>

#include "profiler_table_driver.h"

/* Makes the call of one event, as NCCL would (events NCCL would not send are skipped); returns the
 * calls made (0, 1 or 2: a KernelLaunch is stopped at once). With call_ns, the call's duration.
 * Threads may play events at once if each event's parent, handle and context were played first,
 * by a thread that published that (release) and was seen (acquire): the id maps are plain arrays. */
long long driver_play(const driver_event* e, long long* call_ns);
/* Whether a plugin is open and the id maps prepared. */
int driver_ready(void);
int driver_handle_cap(void);
int driver_ctx_cap(void);
/* Whether the plugin exports a virtual clock. */
int driver_has_clock(void);
/* The plugin's virtual clock (no-op without one). */
void driver_set_clock(int enabled, unsigned long long mono_ns, unsigned long long wall_ns);
/* The buffer profiler_driver_error returns. */
char* driver_error_buffer(size_t* size);

#endif
