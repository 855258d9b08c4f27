/* Closing operations that will not complete by themselves, so memory stays bounded:
 *  - expiry: stopped operations that no kernel channel ever joined (intra-node traffic without
 *    kernel events, CUDA paths NCCL does not instrument) are closed once the in-flight expiry has
 *    passed since their start;
 *  - eviction: when every slot is in flight, one chosen round robin (oldest first over a table
 *    of stuck operations) is closed early;
 *  - flush: at communicator finalize and inspector close, whatever is left is closed.
 * Each early close writes a record marked with why (or counts the drop) and never waits for
 * NCCL: a slot that an event is inside of is retried, not forced. */
#ifndef NCCL_INSPECTOR_OP_RECLAIM_H
#define NCCL_INSPECTOR_OP_RECLAIM_H

#include <stdint.h>

#include "op_table.h"

enum { RECLAIM_AT_FINALIZE = 0, RECLAIM_AT_CLOSE = 1 };

/* Quiet time after which an interface-v3 operation whose started channels have all stopped is
 * complete (v3 does not say how many channels will come). */
#define RECLAIM_QUIESCENCE_NS (20ull * 1000000ull)

/* How long an operation whose kernel is done waits for its proxy operations' stops before it is
 * closed without them (proxy_breakdown.h). */
#define RECLAIM_PROXY_GRACE_NS (1000ull * 1000000ull)

/* Flushes the operations of one communicator (comm_serial != 0) or of all (comm_serial == 0). */
void reclaim_flush_all(int when, uint64_t comm_serial);

/* Closes operations that are done but cannot say so (v3 quiescence), and expires operations older
 * than the in-flight expiry; returns how many were expired. */
uint32_t reclaim_sweep(uint64_t now_ns);

/* Frees room for a new operation by closing one of the slots from `candidate` on. Returns the
 * index of a slot now in INIT (owned by the caller), or -1. */
int64_t reclaim_evict_for(uint32_t candidate);

/* Emits a communicator-created record for every live communicator (used at re-enable). */
void reclaim_announce_live_comms(void);

#endif
