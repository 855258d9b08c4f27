/* A look at the operations in flight, for Java's hang watchdog: those enqueued longer ago than a
 * given age and not completed. Runs on Java's thread, entering each slot like any event (so it
 * never reads a slot that is being recycled). */
#ifndef NCCL_INSPECTOR_INFLIGHT_QUERY_H
#define NCCL_INSPECTOR_INFLIGHT_QUERY_H

#include <stdint.h>

#include "inspector_limits.h"

typedef struct inflight_entry {
  uint64_t comm_serial;   /* 0 */
  uint64_t comm_id;       /* 8 */
  uint64_t seq;           /* 16 */
  uint64_t start_wall_ns; /* 24 */
  uint64_t age_ns;        /* 32 */
  int64_t step;           /* 40 */
  uint16_t phase;         /* 48 */
  uint8_t kind;           /* 50: RECORD_KIND_COLL or RECORD_KIND_P2P */
  uint8_t func;           /* 51 */
  uint8_t channels_started; /* 52 */
  uint8_t channels_done;  /* 53 */
  uint8_t stopped;        /* 54: NCCL's stop (enqueue done) arrived */
  uint8_t n_channels;     /* 55 */
  int32_t peer_or_root;   /* 56 */
  uint32_t reserved;      /* 60 */
} inflight_entry;

_Static_assert(sizeof(inflight_entry) == INSPECTOR_CELL_BYTES, "an in-flight entry is one cell");

/* Fills up to max entries with operations in flight for at least min_age_ns; returns how many. */
int inflight_query(uint64_t now_ns, uint64_t min_age_ns, inflight_entry* out, int max);

#endif
