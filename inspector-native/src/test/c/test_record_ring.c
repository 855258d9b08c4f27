/* The ring on its own: wrap-around, full, the held-back control cells, and several producers
 * racing one consumer with records of different lengths (every record arrives exactly once, in
 * each producer's order, intact). */
#include <pthread.h>
#include <string.h>

#include "harness.h"
#include "record_ring.h"

typedef struct cell_record {
  uint16_t kind;
  uint16_t cells;
  uint32_t producer;
  uint64_t seq;
  uint64_t check[6];
} cell_record;

static void fill(cell_record* r, uint32_t producer, uint64_t seq, uint16_t cells) {
  memset(r, 0, sizeof(*r));
  r->kind = 1;
  r->cells = cells;
  r->producer = producer;
  r->seq = seq;
  for (int i = 0; i < 6; i++) r->check[i] = seq * 31 + producer + (uint64_t)i;
}

static int push(record_ring* ring, uint32_t producer, uint64_t seq, uint16_t cells, int control) {
  uint8_t buf[8 * INSPECTOR_CELL_BYTES];
  memset(buf, 0xab, sizeof(buf));
  fill((cell_record*)buf, producer, seq, cells);
  uint64_t pos;
  if (!ring_reserve(ring, cells, control, &pos)) return 0;
  ring_write(ring, pos, 0, buf, cells);
  ring_publish(ring, pos);
  return 1;
}

static void wraps_fills_and_keeps_control_cells(void) {
  record_ring ring;
  CHECK_EQ(ring_init(&ring, 64, 8), 0);
  uint8_t out[64 * INSPECTOR_CELL_BYTES];
  int pushed = 0;
  while (push(&ring, 0, (uint64_t)pushed, 3, 0)) pushed++;
  CHECK_EQ(pushed, (64 - 8) / 3); /* data records stop short of the held-back cells */
  CHECK(push(&ring, 0, 999, 4, 1)); /* a control record still fits */
  size_t n = ring_drain(&ring, out, sizeof(out));
  CHECK_EQ(n, (size_t)(pushed * 3 + 4) * INSPECTOR_CELL_BYTES);
  /* Many laps with a record size that does not divide the capacity: records wrap the end. */
  uint64_t next = 0, expect = 0;
  for (int lap = 0; lap < 1000; lap++) {
    while (push(&ring, 1, next, 5, 0)) next++;
    size_t got = ring_drain(&ring, out, 3 * 5 * INSPECTOR_CELL_BYTES); /* partial drains too */
    for (size_t off = 0; off < got; off += 5 * INSPECTOR_CELL_BYTES) {
      const cell_record* r = (const cell_record*)(out + off);
      CHECK_EQ(r->seq, expect);
      CHECK_EQ(r->check[5], expect * 31 + 1 + 5);
      expect++;
    }
  }
  CHECK(expect > 1000);
  ring_destroy(&ring);
}

#define PRODUCERS 4
#define PER_PRODUCER 200000

static record_ring shared_ring;
static _Atomic int producers_done;

static void* producer(void* arg) {
  uint32_t id = (uint32_t)(uintptr_t)arg;
  for (uint64_t seq = 0; seq < PER_PRODUCER; seq++) {
    uint16_t cells = (uint16_t)(1 + (seq + id) % 5);
    while (!push(&shared_ring, id, seq, cells, 0)) {
      /* full: the consumer will catch up */
    }
  }
  atomic_fetch_add(&producers_done, 1);
  return NULL;
}

static void producers_race_one_consumer(void) {
  CHECK_EQ(ring_init(&shared_ring, 1024, 16), 0);
  pthread_t threads[PRODUCERS];
  for (uintptr_t i = 0; i < PRODUCERS; i++) pthread_create(&threads[i], NULL, producer, (void*)i);
  static uint8_t out[256 * INSPECTOR_CELL_BYTES];
  uint64_t next[PRODUCERS] = {0};
  uint64_t received = 0;
  int bad = 0;
  for (;;) {
    int done = atomic_load(&producers_done) == PRODUCERS;
    size_t n = ring_drain(&shared_ring, out, sizeof(out));
    for (size_t off = 0; off < n;) {
      const cell_record* r = (const cell_record*)(out + off);
      if (r->producer >= PRODUCERS || r->seq != next[r->producer] ||
          r->cells != 1 + (r->seq + r->producer) % 5 || r->check[0] != r->seq * 31 + r->producer) {
        bad++;
      } else {
        next[r->producer]++;
      }
      received++;
      off += (size_t)r->cells * INSPECTOR_CELL_BYTES;
    }
    if (done && n == 0) break;
  }
  for (int i = 0; i < PRODUCERS; i++) pthread_join(threads[i], NULL);
  CHECK_EQ(bad, 0);
  CHECK_EQ(received, (uint64_t)PRODUCERS * PER_PRODUCER);
  ring_destroy(&shared_ring);
}

int main(void) {
  RUN(wraps_fills_and_keeps_control_cells);
  RUN(producers_race_one_consumer);
  if (test_failures) fprintf(stderr, "%d check(s) failed\n", test_failures);
  return test_failures ? 1 : 0;
}
