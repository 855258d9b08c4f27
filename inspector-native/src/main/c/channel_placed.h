/* Timestamps placed on their device item, per channel of a communicator: what the order test of
 * channel recovery reads (channel_recovery.c, docs/research/channel-recovery.md step 3).
 *
 * A kernel channel runs its work items one after another, in item order, and the device writes each
 * item's start and stop as it runs: so an earlier item of a channel cannot have a later start (or
 * stop) than a later item's, and a later item cannot have an earlier one (ties allowed). Once a
 * reading is known to be item w's, it rules out, for any other reading of the same channel, every
 * candidate item that would break that order.
 *
 * A ring of RECOV_PLACED entries per channel, indexed by item number modulo RECOV_PLACED; an entry
 * is a seqlock whose sequence word is the item number itself. Writers are the threads that process
 * readings (NCCL's proxy thread, and the enqueuing thread while it numbers queued operations): a
 * writer claims an entry by compare-and-swap, so two writers never write one entry at once, and the
 * loser skips its placement (the ring is knowledge, not a record: a missing entry only leaves more
 * candidates). The first placement of an item stays: an item's entry is never rewritten with the same
 * number, so a reader's check of the number before and after its reads is exact. */
#ifndef NCCL_INSPECTOR_CHANNEL_PLACED_H
#define NCCL_INSPECTOR_CHANNEL_PLACED_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Entries per channel (a power of two). Candidates of a reading are its base item and the items
 * 64, 128... later that were launched when NCCL read it; the order test needs placed items around
 * them. 128 entries placed 163 of n2_moe's 200 collectives, 256 entries 175, as many as the
 * research model with every placement kept (docs/research/channel-recovery.md). 16 bytes each:
 * 256 KiB per communicator slot. */
#define RECOV_PLACED 256
/* Candidates one order test judges at most (base item and up to three later ones). */
#define RECOV_PLACED_CANDIDATES 4

typedef struct recov_placed {
  _Atomic uint32_t item;     /* device item number; 0: empty; RECOV_PLACED_BUSY: being written */
  _Atomic uint32_t duration; /* stop - start, ns */
  _Atomic uint64_t start;    /* GPU start timestamp of the item on this channel */
} recov_placed;

#define RECOV_PLACED_BUSY UINT32_MAX

/* One channel's ring, with the newest item placed (a bound searches stop at; see placed_put). */
typedef struct recov_placed_ring {
  _Atomic uint32_t newest;
  recov_placed entry[RECOV_PLACED];
} recov_placed_ring;

/* Places item's timestamps (item != 0, start < stop, a channel shorter than 2^32 ns). Returns false
 * when it cannot (then nothing is placed: the ring is knowledge, a missing entry leaves more
 * candidates), when the entry is being written by another thread, already holds the item (the first
 * placement stays) or a newer one. */
bool placed_put(recov_placed_ring* ring, uint32_t item, uint64_t start, uint64_t stop);

/* The timestamps placed for item, if its entry still holds it. */
bool placed_get(const recov_placed_ring* ring, uint32_t item, uint64_t* start, uint64_t* stop);

/* The order test: for each of n (<= RECOV_PLACED_CANDIDATES) candidate items, whether a placed item
 * of the channel contradicts the timestamp start (bit i of *start_out) or stop (bit i of *stop_out)
 * being candidate i's. Compares with the nearest placed item on each side of a candidate, searched
 * from the candidate (or the newest placed item) outwards: a few probes where placements are dense,
 * at most RECOV_PLACED per side and candidate. */
void placed_order_test(const recov_placed_ring* ring, const uint32_t* cands, uint32_t n, uint64_t start,
                       uint64_t stop, uint32_t* start_out, uint32_t* stop_out);

/* Launch windows: per communicator, the span from the earliest start to the latest stop of the
 * readings placed on items of one launch, on any channel. Channel starts come after their kernel's
 * start and channel stops before its end, and kernels of one communicator run one after another on
 * its stream, so a timestamp inside a launch's window was written while that launch's kernel ran,
 * by one of its items. A window built from fewer readings is narrower, never wrong, so a writer that
 * finds its entry busy skips its update. Indexed by launch serial modulo RECOV_WINDOWS; the serial
 * kept is RECOV_WINDOW_SERIAL_BITS wide (launch serials are compared in that width). */
#define RECOV_WINDOWS 256
#define RECOV_WINDOW_SERIAL_BITS 24
#define RECOV_WINDOW_SERIAL_MASK ((1u << RECOV_WINDOW_SERIAL_BITS) - 1)

typedef struct recov_window {
  _Atomic uint32_t tag; /* (launch serial & mask) + 1; 0: empty; RECOV_PLACED_BUSY: being written */
  _Atomic uint64_t lo, hi;
} recov_window;

/* Widens launch `serial`'s window to cover [start, stop] (a newer launch takes the entry over). */
void window_widen(recov_window windows[RECOV_WINDOWS], uint32_t serial, uint64_t start, uint64_t stop);

/* Whether ts lies inside launch `serial`'s window. */
bool window_holds(const recov_window windows[RECOV_WINDOWS], uint32_t serial, uint64_t ts);

#endif
