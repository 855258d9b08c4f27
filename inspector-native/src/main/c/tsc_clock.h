/* CLOCK_MONOTONIC read from the CPU's time-stamp counter, for the hot path.
 *
 * A vDSO clock_gettime(CLOCK_MONOTONIC) is itself a TSC read plus a sequence check and a
 * scaling, about 23 ns on the 2-vCPU development VM; one RDTSC there costs about 10 ns. The core
 * reads the clock at every operation start, at the first channel of each operation and at every
 * proxy step's transitions, so this clock reads the counter itself and scales it with parameters
 * of its own, kept on CLOCK_MONOTONIC by a refresh every sweep (100 ms):
 *
 *  - It is used only where the kernel itself keeps CLOCK_MONOTONIC on the TSC (clocksource
 *    "tsc", which the kernel selects only when the counter is invariant and in step across
 *    CPUs) and the CPU says its TSC is invariant. Anywhere else clock_mono_ns() stays on
 *    clock_gettime: the choice is made once per enable and can be forced off with
 *    NCCL_INSPECTOR_TSC_CLOCK=0.
 *  - Each refresh measures the gap between this clock and CLOCK_MONOTONIC and changes the rate
 *    from there on by the gap per second (at most 500 ppm), without a step back: no reading on a
 *    thread is below the one before (a switch moves readings ahead by 1 ns, or by up to 10 ms
 *    times the rate change when the rate falls: nanoseconds for a usual correction). Refreshed
 *    every 100 ms, a gap decays with a time constant of about a second (a tenth of it per
 *    refresh); after the calibration the gap stays within a few hundred ns (test_tsc_clock.c
 *    measures it). A gap over 1 ms (a suspended VM, a clocksource change) is stepped over
 *    instead, a jump either way. Between refreshes the clock runs at the rate of the counter
 *    against CLOCK_MONOTONIC measured over the whole session, so a missing refresh costs parts
 *    per million, never a wrong order.
 *
 * The parameters are kept twice: a refresh writes the set readers do not use and then switches
 * them over, so a reader never waits for a writer, even one preempted halfway; a reader checks
 * that its set stayed in force while it read the counter (tsc_clock.c). */
#ifndef NCCL_INSPECTOR_TSC_CLOCK_H
#define NCCL_INSPECTOR_TSC_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* Decides whether the counter can be used (see above), and if so calibrates it against
 * CLOCK_MONOTONIC (about 2 ms) and starts it. Returns whether it is in use. Called by enable,
 * under the lifecycle lock; a second call re-decides and starts afresh. Should a refresh hold the
 * parameters for over 10 ms (never, but for a fork() in the middle of one), it leaves them as they
 * are and says whether the counter is in use. */
bool tsc_clock_start(bool allowed);
/* Stops using the counter: clock_mono_ns() goes back to clock_gettime (bounded as above). */
void tsc_clock_stop(void);
/* Whether the counter is in use (relaxed: a setting). */
bool tsc_clock_active(void);
/* CLOCK_MONOTONIC nanoseconds from the counter. Only meaningful while tsc_clock_active(). */
uint64_t tsc_clock_read_ns(void);
/* Re-anchors the clock to CLOCK_MONOTONIC (see above). Any thread; concurrent refreshes are
 * skipped, not queued. Returns the gap found, this clock minus CLOCK_MONOTONIC, in ns (0 when the
 * counter is not in use). */
int64_t tsc_clock_refresh(void);

/* The parts below are exposed for the native tests. */

/* Scales a counter reading with the parameters in force (no clock is read). */
uint64_t tsc_clock_convert(uint64_t tsc);
/* The counter and the generation of the parameters in force (its low 15 bits in *gen), or 0 when
 * the counter is not in use: what the deferred mode logs for a call's time (defer_log.h). */
uint64_t tsc_clock_stamp(uint32_t* gen);
/* A stamp scaled with the parameters of its generation, as tsc_clock_read_ns would have scaled it
 * then; with those in force now once two refreshes have replaced them. */
uint64_t tsc_clock_convert_stamp(uint64_t tsc, uint32_t gen);
/* How many refreshes stepped instead of slewing, since the last start. */
uint64_t tsc_clock_steps(void);
/* Moves the clock by delta_ns at once, as a drift or a suspended VM would (no-op when the
 * counter is not in use). */
void tsc_clock_shift_for_test(int64_t delta_ns);
/* Takes (held != 0) or gives back the writer flag, as a refresh caught by a fork() leaves it. */
void tsc_clock_hold_writer_for_test(int held);

#endif
