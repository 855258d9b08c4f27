/* The GPU clock's offset bound (gpu_clock_bound.h): the largest observation within the window,
 * whatever the number of observations in between, and nothing that would raise it. */
#include "gpu_clock_bound.h"
#include "harness.h"

static const uint64_t MS = 1000000ull;
static const uint64_t WALL = 1795942870000000000ull;
static const uint8_t DEV = 3;

/* An observation made at host monotonic time `mono`, the GPU `offset` ns ahead of host wall time. */
static void observe(uint64_t mono, int64_t offset) {
  gpu_clock_observe(DEV, (uint64_t)((int64_t)WALL + offset), WALL, mono);
}

static int64_t bound_at(uint64_t mono, bool* found) {
  int64_t b = 0;
  *found = gpu_clock_offset_bound(DEV, mono, &b);
  return b;
}

/* One high observation stays the bound for the window's length, however many lower ones follow
 * (at a high rate of operations a ring of the last few observations forgot it in milliseconds). */
static void the_largest_observation_of_the_window_counts(void) {
  gpu_clock_reset();
  uint64_t t0 = 5000 * MS;
  observe(t0, 2000);
  for (int i = 1; i <= 1000; i++) observe(t0 + (uint64_t)i * 200000, 500); /* 1,000 in 200 ms */
  bool found;
  CHECK_EQ(bound_at(t0 + 300 * MS, &found), 2000);
  CHECK(found);
  /* Later than the window: only the later, lower observations count. */
  CHECK_EQ(bound_at(t0 + 1150 * MS, &found), 500);
  CHECK(found);
  /* Nothing within the window at all. */
  (void)bound_at(t0 + 5000 * MS, &found);
  CHECK(!found);
}

/* Offsets of either sign; one too far below zero to be stored is dropped, not raised. */
static void negative_offsets_and_ones_out_of_range(void) {
  gpu_clock_reset();
  uint64_t t0 = 9000 * MS;
  observe(t0, -300000);
  observe(t0 + 1 * MS, -400000);
  bool found;
  CHECK_EQ(bound_at(t0, &found), -300000);
  gpu_clock_reset();
  observe(t0, -(int64_t)(1ull << 40)); /* about -18 minutes: dropped */
  (void)bound_at(t0, &found);
  CHECK(!found);
  observe(t0, (int64_t)(1ull << 50)); /* stored as +2^35 - 1: still below the truth */
  CHECK_EQ(bound_at(t0, &found), (int64_t)((1ull << 35) - 1));
  CHECK(found);
  gpu_clock_reset();
}

int main(void) {
  RUN(the_largest_observation_of_the_window_counts);
  RUN(negative_offsets_and_ones_out_of_range);
  return test_failures ? 1 : 0;
}
