/* Parked readings (channel_parked.h): parking, retrying, eviction of the oldest, a busy entry, and
 * exactly-once hand-over between threads that park and threads that retry. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "channel_parked.h"
#include "harness.h"

static recov_parked_ring ring;

static recov_reading reading(uint32_t base) {
  recov_reading rd;
  memset(&rd, 0, sizeof rd);
  rd.base = base;
  rd.start = 1000ull * base;
  rd.stop = rd.start + 10;
  rd.lagging = (uint8_t)(base & 1);
  return rd;
}

static void a_parked_reading_is_claimed_kept_and_removed(void) {
  memset(&ring, 0, sizeof ring);
  CHECK(!parked_any(&ring));
  recov_reading rd = reading(7), got, evicted;
  CHECK_EQ(parked_put(&ring, &rd, 0, UINT32_MAX, &evicted), PARK_DONE);
  CHECK(parked_any(&ring));
  CHECK(!parked_claim(&ring, 1, &got)); /* nothing there */
  CHECK(parked_claim(&ring, 0, &got));
  CHECK_EQ(got.base, 7);
  CHECK_EQ(got.stop, 7010);
  CHECK(!parked_claim(&ring, 0, &got)); /* held by the first claim */
  parked_release(&ring, 0, true);       /* still ambiguous: kept */
  CHECK(parked_claim(&ring, 0, &got));
  parked_release(&ring, 0, false);      /* placed: removed */
  CHECK(!parked_claim(&ring, 0, &got));
  CHECK(!parked_any(&ring));
}

static void the_oldest_is_evicted_and_a_held_entry_refuses(void) {
  memset(&ring, 0, sizeof ring);
  recov_reading evicted;
  for (uint32_t i = 1; i <= RECOV_PARKED; i++) {
    recov_reading rd = reading(i);
    CHECK_EQ(parked_put(&ring, &rd, 0, UINT32_MAX, &evicted), PARK_DONE);
  }
  recov_reading next = reading(100);
  CHECK_EQ(parked_put(&ring, &next, 0, UINT32_MAX, &evicted), PARK_DONE_EVICTED);
  CHECK_EQ(evicted.base, 1);
  /* The entry the next parking takes is held by a retry: parking fails, nothing is lost there. */
  recov_reading got;
  CHECK(parked_claim(&ring, 1, &got));
  CHECK_EQ(got.base, 2);
  recov_reading more = reading(101);
  CHECK_EQ(parked_put(&ring, &more, 0, UINT32_MAX, &evicted), PARK_FAILED);
  parked_release(&ring, 1, true);
  CHECK(parked_claim(&ring, 1, &got));
  CHECK_EQ(got.base, 2);
  parked_release(&ring, 1, false);
}

/* Two threads park readings 1..N (odd, even), one retries: each reading leaves the ring exactly
 * once, placed by the retrier or evicted by a parker, or is still there at the end. */
enum { PER_THREAD = 100000 };
static _Atomic long placed_sum, evicted_sum, placed_count, evicted_count, failed_count, failed_sum;
static _Atomic int parkers_done;

static void* parker(void* arg) {
  uint32_t first = (uint32_t)(uintptr_t)arg;
  for (uint32_t b = first; b < first + 2 * PER_THREAD; b += 2) {
    recov_reading rd = reading(b), evicted;
    int r = parked_put(&ring, &rd, 0, UINT32_MAX, &evicted);
    if (r == PARK_DONE_EVICTED) {
      atomic_fetch_add(&evicted_sum, evicted.base);
      atomic_fetch_add(&evicted_count, 1);
    } else if (r == PARK_FAILED) {
      atomic_fetch_add(&failed_sum, b);
      atomic_fetch_add(&failed_count, 1);
    }
  }
  atomic_fetch_add(&parkers_done, 1);
  return NULL;
}

static void* retrier(void* arg) {
  (void)arg;
  uint32_t i = 0;
  while (atomic_load(&parkers_done) < 2) {
    recov_reading got;
    if (parked_claim(&ring, i, &got)) {
      bool place = (got.base % 3) == 0;
      if (got.stop != got.start + 10 || got.start != 1000ull * got.base) atomic_fetch_add(&failed_count, 1000000);
      if (place) {
        atomic_fetch_add(&placed_sum, got.base);
        atomic_fetch_add(&placed_count, 1);
      }
      parked_release(&ring, i, !place);
    }
    i = (i + 1) % RECOV_PARKED;
  }
  return NULL;
}

static void every_reading_leaves_exactly_once(void) {
  memset(&ring, 0, sizeof ring);
  pthread_t p1, p2, r;
  pthread_create(&r, NULL, retrier, NULL);
  pthread_create(&p1, NULL, parker, (void*)(uintptr_t)1);
  pthread_create(&p2, NULL, parker, (void*)(uintptr_t)2);
  pthread_join(p1, NULL);
  pthread_join(p2, NULL);
  pthread_join(r, NULL);
  long remaining_sum = 0, remaining = 0;
  for (uint32_t i = 0; i < RECOV_PARKED; i++) {
    recov_reading got;
    if (parked_claim(&ring, i, &got)) {
      remaining_sum += got.base;
      remaining++;
      parked_release(&ring, i, false);
    }
  }
  long n = 2L * PER_THREAD;
  long all = n * (n + 1) / 2;
  CHECK_EQ(atomic_load(&placed_count) + atomic_load(&evicted_count) + atomic_load(&failed_count) + remaining, n);
  CHECK_EQ(atomic_load(&placed_sum) + atomic_load(&evicted_sum) + atomic_load(&failed_sum) + remaining_sum, all);
  CHECK(!parked_any(&ring));
}

int main(void) {
  RUN(a_parked_reading_is_claimed_kept_and_removed);
  RUN(the_oldest_is_evicted_and_a_held_entry_refuses);
  RUN(every_reading_leaves_exactly_once);
  return test_failures ? 1 : 0;
}
