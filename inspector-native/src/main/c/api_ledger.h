/* The ledger of collective API calls: every call the application makes appears in the output,
 * also when NCCL gives it no operation event.
 *
 * NCCL reports each collective call as a CollApi event on the enqueuing thread, and later, when
 * the group is launched, a Coll event (or a v6 CeColl) whose parent is that CollApi handle. Some
 * calls never get the second event: since 2.29.2 every ncclBroadcast that takes NCCL's AllGatherV
 * path, symmetric-kernel collectives, and whatever a future release forgets to instrument. The
 * CollApi handle the core returns names an entry of this ledger; the operation event "links" it.
 * An entry nobody links within the in-flight expiry (or when its communicator is finalized, or the
 * inspector closes) becomes a record of its own: the call with its operation, size, datatype, root,
 * communicator and call number, untimed, flagged not profiled by NCCL with the reason.
 *
 * Fixed size, lock-free: entries form a ring written in call order. Each entry's state word holds
 * the call's ledger sequence number and a state; whoever moves an entry into BUSY by CAS owns its
 * fields until it stores the next state, so writer, linker and sweeper never touch the fields at
 * the same time. A call that finds its ring entry still pending (more calls unlinked than the ledger
 * holds) is not entered (counter api_ledger_full) and keeps a plain thread-tag handle.
 *
 *   ledger handle: sequence (low 32 bits) | entry index + 1 (24) | HANDLE_TAG_LEDGER (2)
 *
 * CUDA-graph captures are not entered: their Coll events come at every replay of the graph. */
#ifndef NCCL_INSPECTOR_API_LEDGER_H
#define NCCL_INSPECTOR_API_LEDGER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "comm_table.h"
#include "handles.h"
#include "thread_tags.h"

enum { API_FREE = 0, API_PENDING = 1, API_LINKED = 2, API_BUSY = 3 };

typedef struct api_entry {
  _Atomic uint64_t state; /* ledger sequence << 2 | API_* */
  _Atomic uint64_t comm_serial; /* read without owning the entry by a finalize's flush */
  /* Owned by whoever holds the entry BUSY; immutable while PENDING. */
  uint64_t count;
  uint64_t func_sn;   /* the call's number among its communicator's calls of the same operation */
  uint64_t start_ns;  /* monotonic time of the call */
  int64_t step;       /* thread tag of the caller */
  int32_t root;
  uint32_t comm_index, comm_gen;
  uint32_t api_sn;    /* the call's number in its communicator (0, 1, ...) */
  uint16_t phase;
  uint8_t func, datatype;
} __attribute__((aligned(64))) api_entry;

typedef struct api_ledger {
  api_entry* entries;
  uint32_t capacity; /* a power of two */
  _Alignas(64) _Atomic uint64_t head; /* next sequence number to hand out (starts at 1) */
  /* The sweeper's position and its memory of a position it found unwritten (under the core's
   * lifecycle lock). */
  _Alignas(64) uint64_t tail;
  uint64_t unwritten_tail;
} api_ledger;

int api_ledger_init(api_ledger* l, uint32_t min_capacity);
void api_ledger_destroy(api_ledger* l);

/* Enters a call of communicator c (context `context`); returns its ledger handle, or NULL when the
 * ledger has no room (counted). */
void* api_ledger_enter(api_ledger* l, comm_slot* c, const void* context, uint8_t func, uint8_t datatype,
                       uint64_t count, int32_t root, thread_tag tag);

/* Links the call a ledger handle names to its operation event. Returns true with the caller's tag
 * and call number if the entry was still pending for communicator `comm_serial`; false when it was
 * already closed, overwritten or is not this communicator's (the operation then has no tag). */
bool api_ledger_link(api_ledger* l, const void* handle, uint64_t comm_serial, thread_tag* tag,
                     uint32_t* api_sn);

/* Whether a handle could name an entry of this ledger (its index is in range). */
static inline bool api_ledger_handle_in_range(const api_ledger* l, const void* handle) {
  uint32_t index = handle_index(handle);
  return index != 0 && index <= l->capacity;
}

/* Closes pending calls older than max_age_ns into records; returns how many. Sweeper only (the
 * core's lifecycle lock), which also serializes it with flushes. */
uint32_t api_ledger_sweep(api_ledger* l, uint64_t now_ns, uint64_t max_age_ns);

/* Closes every pending call of one communicator (`comm`, being finalized) or of all (NULL) into
 * records. */
uint32_t api_ledger_flush(api_ledger* l, const comm_slot* comm);

#endif
