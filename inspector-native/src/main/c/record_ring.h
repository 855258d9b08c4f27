/* A bounded multi-producer, single-consumer ring of fixed-size cells in native memory.
 *
 * Producers (NCCL's threads) reserve a run of consecutive cells with one CAS, write a record into
 * them and publish it; the consumer (Java's drain thread) copies whole records out in batches.
 * Each cell carries a sequence number in a side array, after Dmitry Vyukov's bounded queue: cell c
 * is free for position p when seq == p, holds a published record header when seq == p + 1, and is
 * free for the next lap when the consumer sets seq = p + capacity. Only a record's first cell is
 * published; its other cells are covered by the same release store.
 *
 * No allocation, lock or system call after ring_init. A full ring makes ring_reserve fail; the
 * caller counts the drop. A few cells are held back for communicator records, so that a flood of
 * operation records cannot hide the creation of a communicator from Java. */
#ifndef NCCL_INSPECTOR_RECORD_RING_H
#define NCCL_INSPECTOR_RECORD_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "inspector_limits.h"

typedef struct record_ring {
  uint8_t* cells;
  _Atomic uint64_t* seq;
  uint64_t capacity; /* cells, a power of two */
  uint64_t mask;
  uint64_t control_reserve;
  _Alignas(64) _Atomic uint64_t enqueue_pos;
  _Alignas(64) _Atomic uint64_t dequeue_pos; /* written by the consumer only; read by ring_used_cells */
} record_ring;

/* capacity_cells must be a power of two; returns 0 on success, -1 if memory is unavailable. */
int ring_init(record_ring* r, uint64_t capacity_cells, uint64_t control_reserve);
void ring_destroy(record_ring* r);

/* Reserves n cells (control != 0 may use the held-back cells). Returns 1 and the first position
 * in *pos, or 0 when the ring is full. */
int ring_reserve(record_ring* r, uint32_t n, int control, uint64_t* pos);
/* Copies n cells from src into the reserved run starting at pos + first_cell. */
void ring_write(record_ring* r, uint64_t pos, uint32_t first_cell, const void* src, uint32_t n);
/* Makes the record at pos visible to the consumer. */
void ring_publish(record_ring* r, uint64_t pos);

/* Consumer side: copies whole published records into out (at most cap bytes) and frees their
 * cells. Returns the number of bytes copied. */
size_t ring_drain(record_ring* r, uint8_t* out, size_t cap);
/* Cells reserved but not yet drained (approximate while producers run). */
uint64_t ring_used_cells(const record_ring* r);

#endif
