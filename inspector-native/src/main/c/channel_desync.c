#include "channel_desync.h"

#include <stdatomic.h>

#include "core_state.h"
#include "event_counters.h"
#include "handles.h"

/* The mask is a self-contained value read and written with relaxed atomics: it publishes no other
 * memory. A self send/recv and the operations after it start on the enqueuing thread in that order,
 * and a thread always sees its own earlier store; an operation started concurrently on another
 * thread has no defined order against the send/recv on the device either. */

void desync_note_self_p2p(comm_slot* c, uint8_t n_channels) {
  if (n_channels == 0) return;
  uint64_t channels = n_channels >= 64 ? ~0ull : ((1ull << n_channels) - 1);
  atomic_fetch_or_explicit(&c->lag_mask, channels, memory_order_relaxed);
  counter_add(CTR_SELF_P2P_CHANNEL_LAG, n_channels);
}

uint64_t desync_lagging_channels(const comm_slot* c) {
  return atomic_load_explicit(&((comm_slot*)c)->lag_mask, memory_order_relaxed);
}

uint64_t desync_latch(uint32_t index, uint32_t gen, uint64_t serial, uint64_t channels) {
  if (channels == 0) return 0;
  comm_slot* c = comm_table_lookup(&g_core.comms, handle_make(HANDLE_TAG_COMM, index, 0, gen));
  /* The serial guards against a slot finalized and reused since the operation started; a reuse
   * between this check and the store below would need a finalize and an init to complete inside
   * these two instructions while this thread still completes the old communicator's operation. */
  if (c == NULL || c->serial != serial) return 0;
  uint64_t before = atomic_fetch_or_explicit(&c->lag_mask, channels, memory_order_relaxed);
  uint64_t added = channels & ~before;
  if (added) counter_add(CTR_DESYNC_DETECTED, (uint64_t)__builtin_popcountll(added));
  return added;
}
