#include "tsc_clock.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#define TSC_CLOCK_POSSIBLE 1
#else
#define TSC_CLOCK_POSSIBLE 0
#endif

/* Nanoseconds per tick are kept as a 32.32 fixed-point multiplier. */
#define TSC_SHIFT 32
/* A gap found at a refresh changes the rate by the gap per second (a time constant of 1 s)... */
#define TSC_SLEW_HORIZON_NS 1000000000ll
/* ...by a rate change of at most 500 parts per million (the most NTP ever slews by), */
#define TSC_MAX_SLEW_PPM 500
/* ...unless it is over 1 ms: then the clock steps to CLOCK_MONOTONIC. */
#define TSC_STEP_NS 1000000ll
/* A slower rate takes over from a point this far ahead (tsc_clock_refresh). */
#define TSC_ANCHOR_AHEAD_NS 10000000ull
/* The start measures the counter's rate over about 2 ms. */
#define TSC_CALIBRATION_NS 2000000ull

/* ThreadSanitizer does not model fences: its builds load and store the fields with acquire and
 * release instead (tests only; on x86 both forms compile to the same plain loads and stores). */
#if defined(__SANITIZE_THREAD__)
#define FIELD_STORE memory_order_release
#define FIELD_LOAD memory_order_acquire
#define FENCE(order) ((void)0)
#else
#define FIELD_STORE memory_order_relaxed
#define FIELD_LOAD memory_order_relaxed
#define FENCE(order) atomic_thread_fence(order)
#endif

/* The parameters, twice. 'g_generation' counts the sets published; readers use the slot of its
 * low bit, and a refresh writes the other slot and then advances it. A refresh preempted halfway
 * through its stores therefore never holds a reader up (a seqlock over one set makes every reader
 * spin until the writer runs again). A reader checks after its reading that the generation has
 * not moved: then no refresh wrote its slot meanwhile (the writer only writes the slot of the
 * generation before the current one), and its counter reading was taken while its set was in
 * force. mult == 0: the counter is not in use. */
typedef struct {
  _Atomic uint64_t tsc0;
  _Atomic uint64_t ns0;
  _Atomic uint64_t mult;
} __attribute__((aligned(64))) tsc_params;

static tsc_params g_slots[2];
static _Atomic uint64_t g_generation;
/* One writer at a time: starts, stops and refreshes take this flag (acquire on taking it,
 * release on giving it back, so each writer sees the previous one's parameters and baseline). */
static _Atomic int g_writer;
/* The writer's own state, only touched while holding g_writer. */
static uint64_t origin_tsc, origin_ns;
/* Relaxed: a statistic for tests. */
static _Atomic uint64_t g_steps;

static uint64_t mono_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#if TSC_CLOCK_POSSIBLE
static inline uint64_t tsc_read(void) { return __rdtsc(); }
/* Ordered after the instructions before it: for the calibration pairs only. */
static inline uint64_t tsc_read_ordered(void) {
  _mm_lfence();
  uint64_t t = __rdtsc();
  _mm_lfence();
  return t;
}
#else
static inline uint64_t tsc_read(void) { return 0; }
static inline uint64_t tsc_read_ordered(void) { return 0; }
#endif

static inline uint64_t scale(uint64_t tsc, uint64_t tsc0, uint64_t ns0, uint64_t mult) {
  /* Signed: a reading taken just before the anchor of a refresh that it then read gives a time
   * just before ns0. mult < 2^63 (ns per tick < 2^31), so the product fits 128 bits. */
  __int128 d = (__int128)(int64_t)(tsc - tsc0);
  return ns0 + (uint64_t)(int64_t)((d * (__int128)mult) >> TSC_SHIFT);
}

/* Reads the parameters of generation `want` (its low 15 bits; negative: the generation in force),
 * and the counter while they are in force; false when that slot has been rewritten since (by the
 * refresh that made generation want + 2). With a constant `want` the test folds away where it is
 * inlined. Acquire on the generation orders the field loads after it; the acquire fence orders
 * them before the second load of the generation. A field value stored by a later refresh comes
 * after that refresh's release fence, which the reader's fence pairs with, so the second load
 * then sees the generation moved. */
static inline bool params_read_of(int32_t want, uint64_t* tsc0, uint64_t* ns0, uint64_t* mult, uint64_t* tsc) {
  for (;;) {
    uint64_t g = atomic_load_explicit(&g_generation, memory_order_acquire);
    uint32_t gen = want < 0 ? (uint32_t)g : (uint32_t)want;
    if (want >= 0 && (((uint32_t)g - gen) & 0x7ffe)) return false;
    const tsc_params* p = &g_slots[gen & 1];
    *tsc0 = atomic_load_explicit(&p->tsc0, FIELD_LOAD);
    *ns0 = atomic_load_explicit(&p->ns0, FIELD_LOAD);
    *mult = atomic_load_explicit(&p->mult, FIELD_LOAD);
    if (tsc) *tsc = tsc_read();
    FENCE(memory_order_acquire);
    if (atomic_load_explicit(&g_generation, memory_order_relaxed) == g) return true;
  }
}

/* The parameters in force (and the counter while they are). */
static inline void params_read(uint64_t* tsc0, uint64_t* ns0, uint64_t* mult, uint64_t* tsc) {
  params_read_of(-1, tsc0, ns0, mult, tsc);
}

/* The write side, called with g_writer held: fills the slot readers do not use (the release
 * fence first: see params_read), then publishes it with a release store of the generation. */
static void params_write(uint64_t tsc0, uint64_t ns0, uint64_t mult) {
  uint64_t g = atomic_load_explicit(&g_generation, memory_order_relaxed);
  tsc_params* p = &g_slots[(g + 1) & 1];
  FENCE(memory_order_release);
  atomic_store_explicit(&p->tsc0, tsc0, FIELD_STORE);
  atomic_store_explicit(&p->ns0, ns0, FIELD_STORE);
  atomic_store_explicit(&p->mult, mult, FIELD_STORE);
  atomic_store_explicit(&g_generation, g + 1, memory_order_release);
}

/* The parameters in force, as their writer sees them (with g_writer held: relaxed, the flag
 * orders them). */
static void params_current(uint64_t* tsc0, uint64_t* ns0, uint64_t* mult) {
  const tsc_params* p = &g_slots[atomic_load_explicit(&g_generation, memory_order_relaxed) & 1];
  *tsc0 = atomic_load_explicit(&p->tsc0, memory_order_relaxed);
  *ns0 = atomic_load_explicit(&p->ns0, memory_order_relaxed);
  *mult = atomic_load_explicit(&p->mult, memory_order_relaxed);
}

/* Takes the writer flag, waiting at most 10 ms (a refresh holds it for microseconds). Bounded so
 * that a flag left taken (a fork() while a refresh ran: the child inherits it taken) cannot hang
 * an enable(); false: not taken, nothing may be written. */
static bool writer_lock(void) {
  uint64_t deadline = 0;
  while (atomic_exchange_explicit(&g_writer, 1, memory_order_acquire)) {
    uint64_t now = mono_now();
    if (deadline == 0) {
      deadline = now + 10000000ull;
    } else if (now > deadline) {
      return false;
    }
  }
  return true;
}

static void writer_unlock(void) { atomic_store_explicit(&g_writer, 0, memory_order_release); }

/* A (counter, CLOCK_MONOTONIC) pair: of five tries, the one read in the fewest ticks, the
 * counter taken at the middle of its bracket. */
static void pair_now(uint64_t* tsc, uint64_t* ns) {
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 5; i++) {
    uint64_t a = tsc_read_ordered();
    uint64_t m = mono_now();
    uint64_t b = tsc_read_ordered();
    if (b >= a && b - a < best) {
      best = b - a;
      *tsc = a + (b - a) / 2;
      *ns = m;
    }
  }
  if (best == UINT64_MAX) { /* the counter went backwards in every try: no pair */
    *tsc = 0;
    *ns = 0;
  }
}

/* Whether the kernel keeps CLOCK_MONOTONIC on the TSC and the CPU calls its TSC invariant. */
static bool tsc_usable(void) {
#if TSC_CLOCK_POSSIBLE
  unsigned a, b, c, d;
  if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u) return false;
  /* CPUID 0x80000007, EDX bit 8: invariant TSC. */
  if (!__get_cpuid(0x80000007u, &a, &b, &c, &d) || !(d & (1u << 8))) return false;
  FILE* f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
  if (f == NULL) return false;
  char name[32] = {0};
  bool tsc = fgets(name, sizeof name, f) != NULL && strncmp(name, "tsc\n", 4) == 0;
  fclose(f);
  return tsc;
#else
  return false;
#endif
}

/* Ticks-to-ns multiplier from two pairs; 0 if they cannot give one. */
static uint64_t rate_between(uint64_t t1, uint64_t n1, uint64_t t2, uint64_t n2) {
  if (t2 <= t1 || n2 <= n1) return 0;
  unsigned __int128 m = ((unsigned __int128)(n2 - n1) << TSC_SHIFT) / (t2 - t1);
  return m == 0 || m >= ((unsigned __int128)1 << 63) ? 0 : (uint64_t)m;
}

bool tsc_clock_start(bool allowed) {
  if (!writer_lock()) return tsc_clock_active();
  params_write(0, 0, 0);
  atomic_store_explicit(&g_steps, 0, memory_order_relaxed);
  bool started = false;
  if (allowed && tsc_usable()) {
    uint64_t t1, n1, t2, n2;
    pair_now(&t1, &n1);
    uint64_t until = n1 + TSC_CALIBRATION_NS;
    while (mono_now() < until) {
    }
    pair_now(&t2, &n2);
    uint64_t mult = t1 != 0 && t2 != 0 ? rate_between(t1, n1, t2, n2) : 0;
    if (mult != 0) {
      origin_tsc = t1;
      origin_ns = n1;
      params_write(t2, n2, mult);
      started = true;
    }
  }
  writer_unlock();
  return started;
}

void tsc_clock_stop(void) {
  if (!writer_lock()) return;
  params_write(0, 0, 0);
  writer_unlock();
}

bool tsc_clock_active(void) {
  uint64_t tsc0, ns0, mult;
  params_read(&tsc0, &ns0, &mult, NULL);
  return mult != 0;
}

uint64_t tsc_clock_read_ns(void) {
  uint64_t tsc0, ns0, mult, tsc;
  params_read(&tsc0, &ns0, &mult, &tsc);
  if (mult == 0) return mono_now(); /* stopped since the caller looked */
  return scale(tsc, tsc0, ns0, mult);
}

uint64_t tsc_clock_convert(uint64_t tsc) {
  uint64_t tsc0, ns0, mult;
  params_read(&tsc0, &ns0, &mult, NULL);
  return mult == 0 ? 0 : scale(tsc, tsc0, ns0, mult);
}

uint64_t tsc_clock_stamp(uint32_t* gen) {
  /* Acquire: as in params_read; only the multiplier is looked at (0: the counter is not in use). */
  uint64_t g = atomic_load_explicit(&g_generation, memory_order_acquire);
  if (atomic_load_explicit(&g_slots[g & 1].mult, FIELD_LOAD) == 0) return 0;
  *gen = (uint32_t)(g & 0x7fff);
  return tsc_read();
}

uint64_t tsc_clock_convert_stamp(uint64_t tsc, uint32_t gen) {
  uint64_t tsc0, ns0, mult;
  if (!params_read_of((int32_t)(gen & 0x7fff), &tsc0, &ns0, &mult, NULL) || mult == 0) {
    return tsc_clock_convert(tsc); /* its parameters are gone: those in force now */
  }
  return scale(tsc, tsc0, ns0, mult);
}

uint64_t tsc_clock_steps(void) { return atomic_load_explicit(&g_steps, memory_order_relaxed); }

int64_t tsc_clock_refresh(void) {
  /* Acquire on taking the flag: see g_writer. A refresh already running is enough. */
  if (atomic_exchange_explicit(&g_writer, 1, memory_order_acquire)) return 0;
  uint64_t tsc0, ns0, mult;
  params_current(&tsc0, &ns0, &mult);
  int64_t gap = 0;
  uint64_t t, n;
  if (mult != 0 && (pair_now(&t, &n), t != 0)) {
    uint64_t ours = scale(t, tsc0, ns0, mult);
    gap = (int64_t)(ours - n);
    uint64_t rate = rate_between(origin_tsc, origin_ns, t, n);
    if (rate == 0) rate = mult;
    if (gap > TSC_STEP_NS || gap < -TSC_STEP_NS) {
      /* Too far to slew (the VM was suspended, the kernel changed its clock): step, and measure
       * the rate afresh from here. */
      origin_tsc = t;
      origin_ns = n;
      params_write(t, n, rate);
      atomic_fetch_add_explicit(&g_steps, 1, memory_order_relaxed);
    } else {
      /* The rate is lowered by gap per second (raised for a negative gap). */
      __int128 adjust = (__int128)rate * gap / TSC_SLEW_HORIZON_NS;
      __int128 limit = (__int128)rate * TSC_MAX_SLEW_PPM / 1000000;
      if (adjust > limit) adjust = limit;
      if (adjust < -limit) adjust = -limit;
      uint64_t next = (uint64_t)((__int128)rate - adjust);
      /* Where the two sets meet, so that no thread's readings go back across the switch: a
       * reader of the old set read the counter before the switch (params_read checks), a reader
       * of the new set after it. The new set reads 1 ns above the old one at its anchor (for the
       * floors of the two scalings). A faster rate is anchored now: after it, the new set reads
       * above the old. A slower rate is anchored 10 ms ahead, past any reading of the old set
       * even with this thread preempted before the switch: before the anchor the new set reads
       * above the old (readings jump ahead by at most 10 ms times the rate change: 10 us for two
       * corrections at the 500 ppm limit in opposite directions, nanoseconds for usual ones). */
      uint64_t anchor = tsc_read_ordered();
      if (next < mult) {
        anchor += (uint64_t)(((unsigned __int128)TSC_ANCHOR_AHEAD_NS << TSC_SHIFT) / mult);
      }
      params_write(anchor, scale(anchor, tsc0, ns0, mult) + 1, next);
    }
  }
  writer_unlock();
  return gap;
}

void tsc_clock_shift_for_test(int64_t delta_ns) {
  if (!writer_lock()) return;
  uint64_t tsc0, ns0, mult;
  params_current(&tsc0, &ns0, &mult);
  if (mult != 0) params_write(tsc0, ns0 + (uint64_t)delta_ns, mult);
  writer_unlock();
}

void tsc_clock_hold_writer_for_test(int held) {
  /* Release when given back, as writer_unlock. */
  atomic_store_explicit(&g_writer, held ? 1 : 0, memory_order_release);
}
