/* The fixed-size table of operations in flight (collectives and P2P operations between their
 * start event and the record they produce).
 *
 * Lifetime of a slot, driven by one atomic control word per slot:
 *
 *   FREE --alloc--> INIT --publish--> OPEN --(stop, channels done / forced)--> CLOSING --release--> FREE
 *
 * Every event on an operation "enters" the slot (checks the generation of its handle, counts
 * itself as busy) and "leaves" it. The completion condition is checked atomically at every leave;
 * the thread whose leave makes it true (with nobody else inside) wins CLOSING and becomes the only
 * owner: it builds the record and releases the slot with a new generation. Closing from outside
 * (expiry, eviction, flush) enters like any event and only closes when it is alone inside. So a
 * late child event either finds the old generation and is counted stale, or runs to its end
 * before anybody may recycle the slot: freed or reused memory is never read or written.
 *
 *   control word: generation (32) | proxy ops open (4) | flags (4) | channels done (8) |
 *                 channels started (8) | busy (8)
 *
 * Counting started channels in the control word lets a kernel channel's start take its index in
 * the same CAS that enters the slot. Network proxy operations (proxy_breakdown.h) count as open
 * from their start to their stop: an operation waits for them as for its channels, since NCCL's
 * proxy thread often finishes a transfer after the kernel's last channel stopped.
 */
#ifndef NCCL_INSPECTOR_OP_TABLE_H
#define NCCL_INSPECTOR_OP_TABLE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "handles.h"
#include "inspector_limits.h"
#include "proxy_breakdown.h"

enum {
  OP_FLAG_INIT = 1u << 0,    /* being filled by its allocator */
  OP_FLAG_OPEN = 1u << 1,    /* accepting events */
  OP_FLAG_STOPPED = 1u << 2, /* NCCL's stopEvent arrived (enqueue done) */
  OP_FLAG_CLOSING = 1u << 3  /* owned by the thread that builds its record */
};

/* expected_channels of an operation whose channel count is not known (interface v3). */
#define EXPECT_UNCOUNTED 0xffu

enum { CHANNEL_EMPTY = 0, CHANNEL_STARTED = 1, CHANNEL_RECORDED = 2, CHANNEL_STOPPED = 3 };

typedef struct channel_slot {
  _Atomic uint8_t state;
  uint8_t channel_id;
  uint8_t read_late; /* a timestamp of it was read after its slot may have been reused (channel_late_read.h) */
  uint16_t start_sn, record_sn, stop_sn;
  uint64_t gpu_start_ns, gpu_stop_ns;
  uint64_t cpu_start_ns, cpu_record_ns, cpu_stop_ns; /* monotonic */
  /* Channel recovery (channel_recovery.h): the most items the channel can have had launched when
   * NCCL read the start / the stop; the reading is complete (ready); it was handed on (claimed). */
  uint32_t recov_upper_start, recov_upper_stop;
  _Atomic uint8_t recov_ready, recov_claimed;
} channel_slot;

typedef struct op_slot {
  _Atomic uint64_t ctl;
  _Atomic uint32_t next_free;        /* free-list link: index + 1 of the next free slot, 0 = end */
  _Atomic uint32_t callback_sn;      /* per-operation callback sequence (verbose trace only) */
  _Atomic uint8_t clock_observed;    /* one of its channels gave a GPU clock observation */
  /* Written by the allocator before the slot is published, immutable while OPEN. */
  uint8_t kind;         /* RECORD_KIND_COLL or RECORD_KIND_P2P */
  uint8_t func, datatype, algo, proto;
  uint8_t n_channels;   /* as announced by NCCL */
  uint8_t n_warps;
  uint8_t expected_channels; /* channels whose stop completes the operation (0: complete at stop,
                                EXPECT_UNCOUNTED: see core_channel_mode) */
  uint8_t channel_mode;      /* core_channel_mode */
  uint32_t static_flags;     /* RECORD_FLAG_* known at start */
  int32_t peer_or_root;
  uint32_t abi_version;
  uint64_t comm_serial, comm_id;
  int32_t rank, nranks, nnodes;
  uint64_t seq, count, bytes;
  uint64_t start_ns;         /* monotonic */
  int64_t step;              /* thread tag at enqueue (-1: none) */
  uint16_t phase;            /* thread tag at enqueue (0: none) */
  uint8_t clock_device;      /* gpu_clock_bound.h entry of its communicator's GPU */
  uint32_t comm_index, comm_gen; /* its communicator's table slot (for desync_latch) */
  uint64_t lag_mask;         /* its communicator's lagging channels when it started (channel_desync.h) */
  uint64_t work_sn;          /* operation events of its communicator before it (channel_late_read.h) */
  uint64_t launch_ns;        /* monotonic time of its kernel's launch (launch_clock.h), 0 if unknown */
  uint64_t launch_id;        /* its launch's id for CUPTI kernel records (kernel_records.h), 0: none */
  uint32_t api_sn;           /* its call's number in the communicator (api_ledger.h), API_SN_UNKNOWN */
  uint8_t comm_got_kernel_events; /* its communicator's got_kernel_events when it started */
  /* Written by the stop event (inside enter/leave). */
  uint64_t stop_ns;
  uint64_t last_channel_stop_ns; /* monotonic, CHANNELS_UNCOUNTED only (for quiescence) */
  uint16_t start_sn, stop_sn;
  /* Network proxy operations (proxy_breakdown.h): cells taken so far (may exceed
   * OP_PROXY_CELLS: those beyond are not tracked), and when a sweep first found the operation
   * done but for its proxy operations (0: not yet). */
  _Atomic uint32_t proxy_cells;
  uint64_t proxy_wait_since_ns;
  /* Channel recovery (channel_recovery.h). Written at numbering: before publish, or by the drainer
   * inside enter/leave before the seq_cst store of recov_state; immutable once NUMBERED. */
  _Atomic uint8_t recov_state;   /* RECOV_OP_* */
  uint8_t recov_hold;            /* completions held while queued (released at numbering) */
  uint8_t recov_max_lag;         /* most uncounted items before its own on one of its channels */
  uint8_t recov_off_reason;      /* RECOV_OFF_* of its communicator when it started */
  _Atomic uint8_t recov_lost_reason; /* WITHHELD_* of the first waiting channel reported lost */
  uint32_t recov_launch;         /* its launch's serial in the communicator */
  uint64_t recov_wait;           /* channels whose item another operation reads (it waits for them) */
  uint64_t recov_reads;          /* channels where it has a host count (its reading has an owner) */
  uint64_t recov_lagging;        /* channels whose reading is not its own item's (exact lag mask) */
  _Atomic uint64_t recov_got, recov_lost; /* waiting channels handed their timestamps / reported lost */
  _Atomic uint64_t recov_found; /* in-step channels whose own reading was another item's, given their
                                   item's timestamps placed from another reading (in recov_got too) */
  _Atomic uint64_t recov_answered; /* waiting channels whose completion was counted (once each) */
  uint32_t recov_base[INSPECTOR_MAX_CHANNELS];  /* its host count per channel */
  uint64_t recov_start[INSPECTOR_MAX_CHANNELS]; /* timestamps handed on, per channel id */
  uint64_t recov_stop[INSPECTOR_MAX_CHANNELS];
  channel_slot ch[INSPECTOR_MAX_CHANNELS];
  /* Last: 5.4 KiB that only network operations touch, after the fields every operation start
   * writes (the header and the recovery fields above stay a few cache lines apart). */
  proxy_cell px[OP_PROXY_CELLS];
} __attribute__((aligned(64))) op_slot;

/* Free slots form a lock-free LIFO stack (Treiber), so a new operation gets the slot freed most
 * recently, still warm in cache. The top word pairs the first free slot (index + 1, 0 = empty)
 * with a counter bumped at every change, so a pop that read a stale link fails its CAS (ABA).
 * When the stack is empty (every slot in flight), an operation takes the place of one chosen by a
 * round-robin eviction cursor, which over a table full of stuck operations is oldest first. */
typedef struct op_table {
  op_slot* slots;
  uint32_t capacity;
  _Alignas(64) _Atomic uint64_t free_top;
  _Alignas(64) _Atomic uint64_t evict_cursor;
  /* One more than the highest index ever claimed: every slot at or above it has always been free.
   * The free stack hands out 0, 1, 2, ... first and takes back in LIFO order, so this stays near the
   * most operations ever in flight at once (tens), and the scans (sweep, flush, in-flight query)
   * visit that many slots instead of all of them: each slot's control word is its own cache line
   * 11 KiB from the next, a miss apiece. Only raised (op_table_claim_free). */
  _Alignas(64) _Atomic uint32_t used_bound;
} op_table;

#define CTL_BUSY_MAX 0xffu
#define CTL_STARTED_MAX 0xffu
#define CTL_STARTED_ONE (1ull << 8)

#define CTL_PROXY_OPEN_MAX 0xfu
_Static_assert(OP_PROXY_CELLS <= CTL_PROXY_OPEN_MAX, "every tracked proxy operation can be open at once");

static inline uint64_t ctl_make_p(uint32_t gen, uint32_t proxy_open, uint32_t flags, uint32_t done,
                                  uint32_t started, uint32_t busy) {
  return ((uint64_t)gen << 32) | ((uint64_t)(proxy_open & 0xf) << 28) | ((uint64_t)(flags & 0xf) << 24) |
         ((uint64_t)(done & 0xff) << 16) | ((uint64_t)(started & 0xff) << 8) | (busy & 0xff);
}
static inline uint64_t ctl_make(uint32_t gen, uint32_t flags, uint32_t done, uint32_t started,
                                uint32_t busy) {
  return ctl_make_p(gen, 0, flags, done, started, busy);
}
static inline uint32_t ctl_gen(uint64_t c) { return (uint32_t)(c >> 32); }
static inline uint32_t ctl_proxy_open(uint64_t c) { return (uint32_t)((c >> 28) & 0xf); }
static inline uint32_t ctl_flags(uint64_t c) { return (uint32_t)((c >> 24) & 0xf); }
static inline uint32_t ctl_done(uint64_t c) { return (uint32_t)((c >> 16) & 0xff); }
static inline uint32_t ctl_started(uint64_t c) { return (uint32_t)((c >> 8) & 0xff); }
static inline uint32_t ctl_busy(uint64_t c) { return (uint32_t)(c & 0xff); }

int op_table_init(op_table* t, uint32_t capacity);
void op_table_destroy(op_table* t);

/* Takes a free slot into INIT. Returns its index, or -1 when every slot is in flight. */
int64_t op_table_claim_free(op_table* t);
/* The slots a scan must visit: [0, op_table_used_bound). Relaxed: the bound is raised before the
 * slot is published (op_publish's release), so a scan ordered after a publish it must see (through
 * NCCL's own synchronisation, or the lifecycle lock) sees the raise by coherence; a slot claimed
 * while a scan runs may be missed, as one published behind a full scan's cursor is. */
static inline uint32_t op_table_used_bound(op_table* t) {
  return atomic_load_explicit(&t->used_bound, memory_order_relaxed);
}
/* The next eviction candidate (round robin over the table). */
uint32_t op_table_eviction_candidate(op_table* t);

/* Publishes a slot filled in INIT: from now on events may enter it. Returns its handle. */
void* op_publish(op_table* t, uint32_t index);

/* Enters the slot a handle names. NULL if the handle is stale (old generation, closing, free).
 * With start_channel, also takes the next channel index (returned in *channel_index; a value of
 * CTL_STARTED_MAX or more means the operation has no room for another channel). */
static inline op_slot* op_enter_ex(op_table* t, const void* handle, bool start_channel,
                                   uint32_t* channel_index) {
  uint32_t index = handle_index(handle);
  if (index >= t->capacity) return NULL;
  op_slot* s = &t->slots[index];
  uint32_t gen = handle_gen(handle);
  uint64_t c = atomic_load_explicit(&s->ctl, memory_order_relaxed);
  for (;;) {
    uint32_t f = ctl_flags(c);
    if (ctl_gen(c) != gen || !(f & OP_FLAG_OPEN) || (f & OP_FLAG_CLOSING) || ctl_busy(c) == CTL_BUSY_MAX) {
      return NULL;
    }
    uint64_t n = c + 1;
    if (start_channel && ctl_started(c) < CTL_STARTED_MAX) n += CTL_STARTED_ONE;
    /* Acquire: pairs with the release of op_publish and of every earlier leave, so the slot's
     * immutable fields and other events' writes are visible. */
    if (atomic_compare_exchange_weak_explicit(&s->ctl, &c, n, memory_order_acquire,
                                              memory_order_relaxed)) {
      if (channel_index) *channel_index = ctl_started(c);
      return s;
    }
  }
}

static inline op_slot* op_enter(op_table* t, const void* handle) {
  return op_enter_ex(t, handle, false, NULL);
}

/* Leaves a slot entered with op_enter, adding flags, finished channels and opened (+1) or
 * stopped (-1) proxy operations. Returns true when this leave completed the operation: the caller
 * then owns the slot (CLOSING) and must build its record and call op_release. */
static inline bool op_leave_p(op_slot* s, uint32_t add_flags, uint32_t add_done, int proxy_delta) {
  uint64_t c = atomic_load_explicit(&s->ctl, memory_order_relaxed);
  for (;;) {
    uint32_t flags = ctl_flags(c) | add_flags;
    uint32_t done = ctl_done(c) + add_done;
    if (done > 0xff) done = 0xff;
    int open = (int)ctl_proxy_open(c) + proxy_delta;
    if (open < 0) open = 0; /* a stop whose start was not counted: nothing to close */
    uint32_t busy = ctl_busy(c) - 1;
    bool complete = busy == 0 && (flags & OP_FLAG_STOPPED) && !(flags & OP_FLAG_CLOSING) &&
                    done >= s->expected_channels && open == 0;
    if (complete) flags |= OP_FLAG_CLOSING;
    uint64_t n = ctl_make_p(ctl_gen(c), (uint32_t)open, flags, done, ctl_started(c), busy);
    /* Release: publishes what this event wrote into the slot. Acquire (when we complete): makes
     * every other event's writes visible to us before we read the slot to build its record. */
    if (atomic_compare_exchange_weak_explicit(&s->ctl, &c, n, memory_order_acq_rel,
                                              memory_order_relaxed)) {
      return complete;
    }
  }
}

static inline bool op_leave(op_slot* s, uint32_t add_flags, uint32_t add_done) {
  return op_leave_p(s, add_flags, add_done, 0);
}

/* Enters any OPEN slot regardless of generation (for sweeps and flushes). */
bool op_enter_any(op_slot* s);
/* Leaves a slot entered with op_enter_any and closes it if nobody else is inside. Returns true
 * when the caller now owns it (CLOSING). If others are inside it simply leaves, which may still
 * complete the operation normally: *completed tells that case, and the caller owns it then too. */
bool op_leave_and_close(op_slot* s, bool* completed);
/* Ends an owned (CLOSING) slot: a new generation makes every handle to it stale, and the slot
 * goes back on the free stack. */
void op_release(op_table* t, op_slot* s);
/* Turns an owned (CLOSING) slot directly into INIT for a new operation. */
void op_recycle_owned(op_slot* s);

#endif
