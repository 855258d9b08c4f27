/* The ring of placed items and the order test (channel_placed.h): what is kept, what is refused,
 * which candidates the order of placed items rules out, and whole entries under concurrent writers. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "channel_placed.h"
#include "harness.h"

static recov_placed_ring ring_storage;
static recov_placed_ring* const ring = &ring_storage;

static void a_placement_is_kept_until_a_newer_item_takes_its_entry(void) {
  memset(ring, 0, sizeof *ring);
  uint64_t a = 0, b = 0;
  CHECK(!placed_get(ring, 7, &a, &b));
  CHECK(placed_put(ring, 7, 1000, 1500));
  CHECK(placed_get(ring, 7, &a, &b));
  CHECK_EQ(a, 1000);
  CHECK_EQ(b, 1500);
  /* The first placement of an item stays. */
  CHECK(!placed_put(ring, 7, 2000, 2500));
  CHECK(placed_get(ring, 7, &a, &b));
  CHECK_EQ(a, 1000);
  /* A newer item of the same entry takes it; an older one never does. */
  CHECK(placed_put(ring, 7 + RECOV_PLACED, 3000, 3100));
  CHECK(!placed_get(ring, 7, &a, &b));
  CHECK(!placed_put(ring, 7, 1000, 1500));
  CHECK(placed_get(ring, 7 + RECOV_PLACED, &a, &b));
  CHECK_EQ(b, 3100);
}

static void item_zero_reversed_and_overlong_readings_are_refused(void) {
  memset(ring, 0, sizeof *ring);
  uint64_t a, b;
  CHECK(!placed_put(ring, 0, 1000, 1500));
  CHECK(!placed_put(ring, 3, 1500, 1500));
  CHECK(!placed_put(ring, 3, 1500, 1000));
  CHECK(!placed_put(ring, 3, 1000, 1000 + (1ull << 32)));
  CHECK(!placed_get(ring, 3, &a, &b));
  CHECK(placed_put(ring, 3, 1000, 1000 + (1ull << 32) - 1));
  CHECK(placed_get(ring, 3, &a, &b));
  CHECK_EQ(b - a, (1ull << 32) - 1);
}

/* Items 10 (start 100, stop 200) and 20 (300, 400) placed: a candidate must start and stop after
 * item 10 and before item 20 when it lies between them, after item 20 when later, before item 10
 * when earlier. Ties are allowed. */
static void the_order_of_placed_items_rules_candidates_out(void) {
  memset(ring, 0, sizeof *ring);
  CHECK(placed_put(ring, 10, 100, 200));
  CHECK(placed_put(ring, 20, 300, 400));
  uint32_t cands[3] = {15, 25, 5};
  uint32_t s_out, p_out;
  placed_order_test(ring, cands, 3, 250, 350, &s_out, &p_out);
  CHECK_EQ(s_out, 0x2u | 0x4u); /* 25 would start before 20 does; 5 after 10 does */
  CHECK_EQ(p_out, 0x2u | 0x4u);
  placed_order_test(ring, cands, 3, 310, 420, &s_out, &p_out);
  CHECK_EQ(s_out, 0x1u | 0x4u); /* 15 would start after 20 does */
  CHECK_EQ(p_out, 0x1u | 0x4u);
  placed_order_test(ring, cands, 3, 50, 150, &s_out, &p_out);
  CHECK_EQ(s_out, 0x1u | 0x2u); /* only 5 fits before 10 */
  CHECK_EQ(p_out, 0x1u | 0x2u);
  /* Ties with a neighbour rule nothing out; the candidate's own entry is not compared. */
  uint32_t own[1] = {20};
  placed_order_test(ring, own, 1, 100, 200, &s_out, &p_out);
  CHECK_EQ(s_out, 0u);
  CHECK_EQ(p_out, 0u);
  /* Start and stop are judged each: a start in place with a stop past the next item's. */
  uint32_t mid[1] = {15};
  placed_order_test(ring, mid, 1, 250, 450, &s_out, &p_out);
  CHECK_EQ(s_out, 0u);
  CHECK_EQ(p_out, 1u);
}

/* Writers place items whose timestamps are a function of the item; a reader never takes an entry
 * whose start and stop belong to two different placements. */
static _Atomic int writers_done;
static _Atomic long torn;

static void* writer(void* arg) {
  uint32_t first = (uint32_t)(uintptr_t)arg;
  for (uint32_t item = first; item < first + 200000; item += 2) {
    (void)placed_put(ring, item, (uint64_t)item * 1000, (uint64_t)item * 1000 + item % 997 + 1);
  }
  atomic_fetch_add(&writers_done, 1);
  return NULL;
}

static void* reader(void* arg) {
  (void)arg;
  while (atomic_load(&writers_done) < 2) {
    for (uint32_t e = 0; e < RECOV_PLACED; e++) {
      uint32_t item = atomic_load_explicit(&ring->entry[e].item, memory_order_relaxed);
      uint64_t a, b;
      if (item == 0 || item == RECOV_PLACED_BUSY || !placed_get(ring, item, &a, &b)) continue;
      if (a != (uint64_t)item * 1000 || b != a + item % 997 + 1) atomic_fetch_add(&torn, 1);
    }
  }
  return NULL;
}

static void concurrent_writers_never_leave_a_torn_entry(void) {
  memset(ring, 0, sizeof *ring);
  atomic_store(&writers_done, 0);
  atomic_store(&torn, 0);
  pthread_t w1, w2, r;
  pthread_create(&r, NULL, reader, NULL);
  pthread_create(&w1, NULL, writer, (void*)(uintptr_t)1);
  pthread_create(&w2, NULL, writer, (void*)(uintptr_t)2);
  pthread_join(w1, NULL);
  pthread_join(w2, NULL);
  pthread_join(r, NULL);
  CHECK_EQ(atomic_load(&torn), 0);
  /* The last items written are there. */
  uint64_t a, b;
  CHECK(placed_get(ring, 199999, &a, &b) || placed_get(ring, 200000, &a, &b));
}

static recov_window windows[RECOV_WINDOWS];

/* A launch's window grows with each placement; a newer launch takes its entry over, an older one
 * never does; a serial wraps in its width. */
static void a_launch_window_spans_its_placements(void) {
  memset(windows, 0, sizeof windows);
  CHECK(!window_holds(windows, 5, 150));
  window_widen(windows, 5, 100, 200);
  window_widen(windows, 5, 150, 260);
  window_widen(windows, 5, 90, 120);
  CHECK(window_holds(windows, 5, 90));
  CHECK(window_holds(windows, 5, 260));
  CHECK(!window_holds(windows, 5, 89));
  CHECK(!window_holds(windows, 5, 261));
  CHECK(!window_holds(windows, 5 + RECOV_WINDOWS, 150));
  /* A reversed span is not a window. */
  window_widen(windows, 6, 300, 300);
  CHECK(!window_holds(windows, 6, 300));
  /* The newer launch of the same entry replaces it; the older cannot come back. */
  window_widen(windows, 5 + RECOV_WINDOWS, 1000, 1100);
  CHECK(!window_holds(windows, 5, 150));
  CHECK(window_holds(windows, 5 + RECOV_WINDOWS, 1050));
  window_widen(windows, 5, 100, 200);
  CHECK(!window_holds(windows, 5, 150));
  /* Serials compare in their width: the launch after the widest serial is newer. */
  uint32_t last = RECOV_WINDOW_SERIAL_MASK - 100; /* the next launch of its entry is past the width */
  window_widen(windows, last, 10, 20);
  window_widen(windows, last + RECOV_WINDOWS, 30, 40);
  CHECK(!window_holds(windows, last, 15));
  CHECK(window_holds(windows, last + RECOV_WINDOWS, 35));
  window_widen(windows, last, 10, 20);
  CHECK(window_holds(windows, last + RECOV_WINDOWS, 35));
}

int main(void) {
  RUN(a_placement_is_kept_until_a_newer_item_takes_its_entry);
  RUN(item_zero_reversed_and_overlong_readings_are_refused);
  RUN(the_order_of_placed_items_rules_candidates_out);
  RUN(concurrent_writers_never_leave_a_torn_entry);
  RUN(a_launch_window_spans_its_placements);
  return test_failures ? 1 : 0;
}
