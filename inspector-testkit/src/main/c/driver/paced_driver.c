/* profiler_driver_run_paced: a recorded trace's calls on the threads that made them, at the pace
 * they were made. A replay one call after another shows the plugin one order of the calls; a live run interleaves its threads, and a plugin
 * that merges per-thread logs (the core's deferred mode) sees its calls come as they did there.
 *
 * The plugin's clock is virtual and per thread (its nccl_inspector_set_virtual_clock with 2): each
 * call reads its recorded time, so the host times beside the recorded GPU timestamps are those of
 * the recorded run, and only the order in which the plugin takes the calls is the replay's own.
 *
 * Each recorded thread gets a thread of its own that makes its events in order, none before its
 * recorded offset from the first event, and none before the events it refers to were made on other
 * threads (see profiler_table_driver.h). Dependencies always point to earlier events of the array
 * (a recorder writes a start before anything can name its handle), so the threads cannot wait for
 * one another in a circle; a wait of 10 s means a trace out of order and ends the run. */
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "driver_play.h"
#include "nccl_profiler_abi.h"

#define WAIT_LIMIT_NS 10000000000ll

typedef struct paced_run {
  const driver_event* ev;
  long long start_mono;
  unsigned long long t0;
  double speed;
  unsigned long long window; /* calls of two threads this close (recorded ns) may swap */
  int nthreads;
  struct paced_thread* threads;
  _Atomic uint8_t* started; /* per handle id: its start was played (or skipped) */
  _Atomic uint8_t* ready;   /* per context id: its init was played */
  _Atomic uint8_t* done;    /* per event: played */
  atomic_int failed;
  _Atomic unsigned long long latest_t; /* the latest recorded time of a call made so far */
} paced_run;

typedef struct paced_thread {
  paced_run* run;
  pthread_t thread;
  uint32_t tid;
  long long* mine; /* indices of this thread's events, in order */
  long long n;
  long long calls;
  long long lag_sum, lag_max;
  long long inverted, inversion_max; /* calls made after a call of another thread recorded later */
  /* The recorded time of its next call (UINT64_MAX once done): the others' calls more than the
   * window later wait for it. */
  _Atomic unsigned long long next_t;
} paced_thread;

static long long mono_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* Raises *v to at least x; returns the value before. */
static unsigned long long atomic_fetch_max_explicit_ull(_Atomic unsigned long long* v, unsigned long long x) {
  unsigned long long seen = atomic_load_explicit(v, memory_order_relaxed);
  while (seen < x && !atomic_compare_exchange_weak_explicit(v, &seen, x, memory_order_relaxed, memory_order_relaxed)) {
  }
  return seen;
}

/* One turn of a wait that began at `since`: false (and the run failed) once the run has failed
 * or WAIT_LIMIT_NS have passed, else yields and true. */
static int wait_more(paced_run* r, long long since) {
  /* Relaxed: a flag of its own; the run's end needs no order with anything. */
  if (atomic_load_explicit(&r->failed, memory_order_relaxed) || mono_now() - since > WAIT_LIMIT_NS) {
    atomic_store_explicit(&r->failed, 1, memory_order_relaxed);
    return 0;
  }
  sched_yield();
  return 1;
}

/* Waits until *flag is set by another thread; false if the run failed meanwhile. */
static int wait_set(paced_run* r, _Atomic uint8_t* flag) {
  long long since = mono_now();
  /* Acquire: pairs with the release that set it, so that the id maps' entries written before
   * (driver_play) are seen here. */
  while (!atomic_load_explicit(flag, memory_order_acquire)) {
    if (!wait_more(r, since)) return 0;
  }
  return 1;
}

static int in_range(uint32_t id, int cap) { return id > 0 && id < (uint32_t)cap; }

static void* paced_main(void* arg) {
  paced_thread* t = arg;
  paced_run* r = t->run;
  int hcap = driver_handle_cap();
  int ccap = driver_ctx_cap();
  for (long long k = 0; k < t->n; k++) {
    long long i = t->mine[k];
    driver_event e = r->ev[i];
    /* The pace: not before the recorded offset. Sleeps while far, yields when near. */
    long long target = r->start_mono + (long long)((double)(e.t_mono - r->t0) / r->speed);
    for (;;) {
      long long d = target - mono_now();
      if (d <= 0) break;
      if (d > 100000) {
        struct timespec ts = {0, d - 50000};
        if (ts.tv_nsec >= 1000000000l) {
          ts.tv_sec = ts.tv_nsec / 1000000000l;
          ts.tv_nsec %= 1000000000l;
        }
        nanosleep(&ts, NULL);
      } else {
        sched_yield();
      }
    }
    /* The recorded order, beyond the window: a call waits for the other threads' calls recorded
     * more than the window before it. Without this a thread running late would let the others'
     * calls overtake its own by any margin: a kernel channel's reading could come before the
     * launch whose work it timed, which no live run can do. The thread whose next call is the
     * earliest never waits, so no two wait for each other. */
    int ok = 1;
    unsigned long long floor_t = e.t_mono > r->window ? e.t_mono - r->window : 0;
    for (int o = 0; o < r->nthreads && ok; o++) {
      paced_thread* other = &r->threads[o];
      if (other == t) continue;
      long long since = mono_now();
      /* Acquire: pairs with the release after the other's call, so what it published is seen. */
      while (ok && atomic_load_explicit(&other->next_t, memory_order_acquire) < floor_t) {
        ok = wait_more(r, since);
      }
    }
    /* What it names must have been made first. */
    if (e.op != DRIVER_OP_INIT && in_range(e.ctx, ccap)) ok = ok && wait_set(r, &r->ready[e.ctx]);
    if (e.op == DRIVER_OP_START) {
      if (in_range(e.parent, hcap)) ok = ok && wait_set(r, &r->started[e.parent]);
      if (in_range(e.parent_group, hcap)) ok = ok && wait_set(r, &r->started[e.parent_group]);
    } else if ((e.op == DRIVER_OP_STOP || e.op == DRIVER_OP_STATE) && in_range(e.handle, hcap)) {
      ok = ok && wait_set(r, &r->started[e.handle]);
    } else if (e.op == DRIVER_OP_FINI) {
      for (long long j = 0; j < i && ok; j++) ok = wait_set(r, &r->done[j]);
    }
    if (!ok) break;
    /* The call at its recorded time, on this thread's own virtual clock: the host times the
     * plugin reads are the recorded run's, beside its GPU timestamps, however late the call. */
    driver_set_clock(2, e.t_mono, e.t_wall);
    long long late = mono_now() - target;
    t->lag_sum += late;
    if (late > t->lag_max) t->lag_max = late;
    /* Relaxed: a statistic of the replay's order; the calls' own order is kept by the flags. */
    unsigned long long latest = atomic_fetch_max_explicit_ull(&r->latest_t, e.t_mono);
    if (latest > e.t_mono) {
      t->inverted++;
      if ((long long)(latest - e.t_mono) > t->inversion_max) t->inversion_max = (long long)(latest - e.t_mono);
    }
    t->calls += driver_play(&e, NULL);
    /* Release: publishes the id maps' entries driver_play wrote to the threads that wait for them. */
    if (e.op == DRIVER_OP_START && in_range(e.handle, hcap)) {
      atomic_store_explicit(&r->started[e.handle], 1, memory_order_release);
    }
    if (e.op == DRIVER_OP_INIT && in_range(e.ctx, ccap)) {
      atomic_store_explicit(&r->ready[e.ctx], 1, memory_order_release);
    }
    atomic_store_explicit(&r->done[i], 1, memory_order_release);
    /* Release: the call above is made before another thread's later call goes. */
    atomic_store_explicit(&t->next_t, k + 1 < t->n ? r->ev[t->mine[k + 1]].t_mono : UINT64_MAX,
                          memory_order_release);
  }
  /* Relaxed would do for a thread that stops early (the run has failed), but keep one order. */
  atomic_store_explicit(&t->next_t, UINT64_MAX, memory_order_release);
  /* Events this thread leaves unplayed after a failure: a finalize waiting for them gives up too. */
  return NULL;
}

long long profiler_driver_run_paced(const void* events, long long count, double speed, long long window_ns,
                                    long long* lag_ns) {
  size_t esize;
  char* err = driver_error_buffer(&esize);
  if (!driver_ready()) {
    snprintf(err, esize, "driver not opened and prepared");
    return -1;
  }
  if (!driver_has_clock()) {
    snprintf(err, esize, "a paced replay needs the plugin's virtual clock (nccl_inspector_set_virtual_clock)");
    return -1;
  }
  if (count <= 0) return 0;
  if (!(speed > 0)) {
    snprintf(err, esize, "paced replay at speed %g: must be above 0", speed);
    return -1;
  }
  const driver_event* ev = events;
  int hcap = driver_handle_cap();
  int ccap = driver_ctx_cap();
  paced_run r;
  memset(&r, 0, sizeof(r));
  r.ev = ev;
  r.speed = speed;
  r.window = window_ns > 0 ? (unsigned long long)window_ns : 0;
  r.started = calloc((size_t)hcap, 1);
  r.ready = calloc((size_t)ccap, 1);
  r.done = calloc((size_t)count, 1);
  paced_thread* threads = calloc(DRIVER_PACED_THREADS, sizeof(paced_thread));
  long long result = -1;
  int nthreads = 0;
  if (!r.started || !r.ready || !r.done || !threads) {
    snprintf(err, esize, "out of memory for a paced replay of %lld events", count);
    goto out;
  }
  /* The threads. */
  unsigned long long t0 = ev[0].t_mono;
  for (long long i = 0; i < count; i++) {
    const driver_event* e = &ev[i];
    if (e->t_mono == 0) {
      /* Its pace would be counted from the machine's boot. */
      snprintf(err, esize, "a paced replay needs every call's recorded time: event %lld has none", i);
      goto out;
    }
    if (e->t_mono < t0) t0 = e->t_mono;
    int k = 0;
    while (k < nthreads && threads[k].tid != e->tid) k++;
    if (k == nthreads) {
      if (nthreads == DRIVER_PACED_THREADS) {
        snprintf(err, esize, "a paced replay of more than %d recorded threads", DRIVER_PACED_THREADS);
        goto out;
      }
      threads[nthreads++].tid = e->tid;
    }
    threads[k].n++;
  }
  for (int k = 0; k < nthreads; k++) {
    threads[k].mine = malloc(sizeof(long long) * (size_t)threads[k].n);
    if (threads[k].mine == NULL) {
      snprintf(err, esize, "out of memory for a paced replay of %lld events", count);
      goto out;
    }
    threads[k].n = 0;
    threads[k].run = &r;
  }
  for (long long i = 0; i < count; i++) {
    int k = 0;
    while (threads[k].tid != ev[i].tid) k++;
    threads[k].mine[threads[k].n++] = i;
  }
  for (int k = 0; k < nthreads; k++) {
    atomic_store_explicit(&threads[k].next_t, threads[k].n > 0 ? ev[threads[k].mine[0]].t_mono : UINT64_MAX,
                          memory_order_relaxed); /* before pthread_create, which orders it */
  }
  r.nthreads = nthreads;
  r.threads = threads;
  r.t0 = t0;
  r.start_mono = mono_now() + 1000000; /* 1 ms for the threads to start */
  int started = 0;
  for (; started < nthreads; started++) {
    if (pthread_create(&threads[started].thread, NULL, paced_main, &threads[started]) != 0) {
      atomic_store_explicit(&r.failed, 1, memory_order_relaxed);
      break;
    }
  }
  long long calls = 0, lag_sum = 0, lag_max = 0, played = 0, inverted = 0, inversion_max = 0;
  for (int k = 0; k < started; k++) {
    pthread_join(threads[k].thread, NULL);
    calls += threads[k].calls;
    lag_sum += threads[k].lag_sum;
    played += threads[k].n;
    if (threads[k].lag_max > lag_max) lag_max = threads[k].lag_max;
    inverted += threads[k].inverted;
    if (threads[k].inversion_max > inversion_max) inversion_max = threads[k].inversion_max;
  }
  if (lag_ns != NULL) {
    lag_ns[0] = played > 0 ? lag_sum / played : 0;
    lag_ns[1] = lag_max;
    lag_ns[2] = inverted;
    lag_ns[3] = inversion_max;
  }
  if (started < nthreads) {
    snprintf(err, esize, "a paced replay could not start thread %d of %d", started + 1, nthreads);
  } else if (atomic_load_explicit(&r.failed, memory_order_relaxed)) {
    snprintf(err, esize, "a paced replay waited %lld s for an event another thread had not made: the trace"
             " names a handle or communicator before its start", WAIT_LIMIT_NS / 1000000000ll);
  } else {
    result = calls;
  }
out:
  for (int k = 0; k < nthreads; k++) free(threads[k].mine);
  free(threads);
  free(r.started);
  free(r.ready);
  free(r.done);
  return result;
}
