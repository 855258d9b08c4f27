#include "launch_clock.h"

#include "clock.h"

_Thread_local uint64_t tls_last_launch_mono_ns;

void launch_clock_note(void) { tls_last_launch_mono_ns = clock_mono_ns(); }
