#include "record_ring.h"

#include <stdlib.h>
#include <string.h>

int ring_init(record_ring* r, uint64_t capacity_cells, uint64_t control_reserve) {
  memset(r, 0, sizeof(*r));
  if (capacity_cells < 16 || (capacity_cells & (capacity_cells - 1)) != 0) return -1;
  r->cells = aligned_alloc(INSPECTOR_CELL_BYTES, capacity_cells * INSPECTOR_CELL_BYTES);
  r->seq = calloc(capacity_cells, sizeof(*r->seq));
  if (r->cells == NULL || r->seq == NULL) {
    ring_destroy(r);
    return -1;
  }
  /* Every page touched now, on the enabling thread: the first write into a fresh page faults, and
   * it would otherwise come on the NCCL thread whose stop completes an operation (the record's
   * cells), a p99 of 2.9-4.8 us for that stop instead of 0.8-1 us (BENCHMARKS.md, "...and the
   * ring's pages"). Written through a volatile pointer, one byte a page, so that the compiler keeps
   * the stores (a memset of fresh memory may become a calloc, which touches nothing). */
  volatile uint8_t* bytes = (volatile uint8_t*)r->cells;
  for (uint64_t off = 0; off < capacity_cells * INSPECTOR_CELL_BYTES; off += 4096) bytes[off] = 0;
  r->capacity = capacity_cells;
  r->mask = capacity_cells - 1;
  r->control_reserve = control_reserve < capacity_cells / 4 ? control_reserve : capacity_cells / 4;
  for (uint64_t i = 0; i < capacity_cells; i++) {
    atomic_init(&r->seq[i], i);
  }
  atomic_init(&r->enqueue_pos, 0);
  r->dequeue_pos = 0;
  return 0;
}

void ring_destroy(record_ring* r) {
  free(r->cells);
  free((void*)r->seq);
  r->cells = NULL;
  r->seq = NULL;
}

int ring_reserve(record_ring* r, uint32_t n, int control, uint64_t* pos_out) {
  uint64_t headroom = control ? 0 : r->control_reserve;
  if (n == 0 || n + headroom > r->capacity) return 0;
  /* Relaxed: the position is only a hint; the CAS below decides, and the cell sequence numbers
   * carry all the ordering with the consumer. */
  uint64_t pos = atomic_load_explicit(&r->enqueue_pos, memory_order_relaxed);
  for (;;) {
    uint64_t last = pos + n + headroom - 1;
    /* Acquire: pairs with the consumer's release when it frees the cell, so our writes into the
     * run cannot overtake its reads of the previous lap. The consumer frees cells in position
     * order, so the last cell of the run being free means every earlier one is free too. */
    uint64_t seq = atomic_load_explicit(&r->seq[last & r->mask], memory_order_acquire);
    int64_t diff = (int64_t)(seq - last);
    if (diff == 0) {
      /* Relaxed CAS: it only arbitrates between producers; see above for the ordering. */
      if (atomic_compare_exchange_weak_explicit(&r->enqueue_pos, &pos, pos + n,
                                                memory_order_relaxed, memory_order_relaxed)) {
        *pos_out = pos;
        return 1;
      }
    } else if (diff < 0) {
      return 0; /* the consumer has not freed the run yet: full */
    } else {
      pos = atomic_load_explicit(&r->enqueue_pos, memory_order_relaxed);
    }
  }
}

void ring_write(record_ring* r, uint64_t pos, uint32_t first_cell, const void* src, uint32_t n) {
  const uint8_t* from = src;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t idx = (pos + first_cell + i) & r->mask;
    memcpy(r->cells + idx * INSPECTOR_CELL_BYTES, from + (size_t)i * INSPECTOR_CELL_BYTES,
           INSPECTOR_CELL_BYTES);
  }
}

void ring_publish(record_ring* r, uint64_t pos) {
  /* Release: the consumer's acquire of this sequence number makes every cell of the record,
   * written before by this thread, visible to it. */
  atomic_store_explicit(&r->seq[pos & r->mask], pos + 1, memory_order_release);
}

size_t ring_drain(record_ring* r, uint8_t* out, size_t cap) {
  /* Relaxed: the consumer's own variable. */
  uint64_t pos = atomic_load_explicit(&r->dequeue_pos, memory_order_relaxed);
  size_t written = 0;
  for (;;) {
    uint64_t idx = pos & r->mask;
    /* Acquire: pairs with ring_publish. */
    if (atomic_load_explicit(&r->seq[idx], memory_order_acquire) != pos + 1) break;
    const uint8_t* head = r->cells + idx * INSPECTOR_CELL_BYTES;
    uint16_t n;
    memcpy(&n, head + 2, sizeof(n));
    if (n == 0 || n > r->capacity) n = 1; /* cannot happen with our producers; never loop forever */
    size_t bytes = (size_t)n * INSPECTOR_CELL_BYTES;
    if (written + bytes > cap) break;
    for (uint32_t i = 0; i < n; i++) {
      uint64_t cell = (pos + i) & r->mask;
      memcpy(out + written + (size_t)i * INSPECTOR_CELL_BYTES, r->cells + cell * INSPECTOR_CELL_BYTES,
             INSPECTOR_CELL_BYTES);
    }
    for (uint32_t i = 0; i < n; i++) {
      uint64_t p = pos + i;
      /* Release: our reads of the cell happen before a producer of the next lap may write it. */
      atomic_store_explicit(&r->seq[p & r->mask], p + r->capacity, memory_order_release);
    }
    pos += n;
    written += bytes;
  }
  /* Relaxed: only ring_used_cells reads it from other threads, for an estimate; the cells' sequence
   * numbers carry the ordering with producers. */
  atomic_store_explicit(&r->dequeue_pos, pos, memory_order_relaxed);
  return written;
}

uint64_t ring_used_cells(const record_ring* r) {
  /* Relaxed, both: an estimate (see the header). */
  uint64_t enq = atomic_load_explicit(&((record_ring*)r)->enqueue_pos, memory_order_relaxed);
  uint64_t deq = atomic_load_explicit(&((record_ring*)r)->dequeue_pos, memory_order_relaxed);
  return enq >= deq ? enq - deq : 0;
}
