/* Recovering kernel-channel times after NCCL's channel counters went out of step (issue 20, phase 1:
 * the launch-bound guard; docs/research/channel-recovery.md gives the rule and its proof).
 *
 * NCCL's device counts every work item it runs on a channel; the host counts, per channel, one per
 * profiler proxy operation it plans, and hands an operation the timestamps of the device item whose
 * number is the operation's host count ("base"). Items without a host count (a send/recv to self,
 * a P2P part without data) put the two counts out of step: an operation X whose item on channel c
 * is d = base + S receives the timestamps of item base, which belongs to an earlier operation Y.
 * This file numbers both counts per channel, in plan order, from the Coll/P2p start events (which
 * NCCL makes right after the launch, in plan order), and hands each reading to the operation that
 * owns its item. A reading is kept only when item base + 64 cannot have been launched yet when NCCL
 * read the slot (the launch-bound guard): NCCL's ring has 64 slots per channel, and a later reading
 * of the same slot may be a later item's.
 *
 * Roles of an operation (collective or P2P) on each channel of its unit:
 *   reader  it has a host count on c: its reading belongs to the owner of item `base`;
 *   owner   a collective whose item on c is not its base ("waiting" channel): it waits, within the
 *           in-flight expiry, for the reader of its item to hand the timestamps on (or report them
 *           lost). Each waiting channel adds one to the operation's expected completions, so the
 *           existing control word (op_table.h) keeps it open: no new synchronisation.
 * P2P operations are numbered and read for others, but keep today's timing (send-side lower bounds).
 *
 * Numbering is done by one thread at a time (the "drainer"): usually the enqueuing thread, in the
 * operation's start callback, before the operation is published. An operation whose channel set is
 * not known yet (a P2P to a peer whose (peer, direction, nChannels) shape was never seen: its channels
 * are learned from its own kernel-channel events) is queued, with everything after it; queued
 * operations are published "held" (extra expected completions) so they stay open until numbered,
 * and their readings wait in their channel slots. The proxy thread that learns a shape numbers the
 * queue. Handing the drainer role over is lock-free (a request counter: whoever raises it from 0
 * drains until no request is left).
 *
 * Where the rule's preconditions fail, recovery is turned off for the communicator with a counted
 * reason and its operations keep today's guards (channel_desync.h, channel_late_read.h): CUDA-graph
 * replays, several collectives in one launch, a Broadcast without an operation event (NCCL >= 2.29.2
 * AllGatherV path), interface < v5 (no KernelLaunch), several ranks per node on several nodes, a
 * channel outside the numbered set, a full queue, or a shape that cannot be learned.
 *
 * Memory: one recov_state per communicator slot (sizeof(recov_state) = 617,824 bytes, 604 KiB: the
 * owner ring 256 KiB, the rings of placed items 257 KiB, the parked readings 81 KiB, the launch
 * windows 6 KiB; docs/configuration.md), calloc'ed at the
 * first communicator init in the slot that wants recovery, reset by the slot's later communicators
 * (only the rows of the channels the last one numbered: a few KiB, not 604) and freed with the
 * comm table (comm_table.h: recov_mem); NULL (recovery off) when the allocation fails.
 * Per operation slot (allocated with the table at enable): its host count per channel, the handed-on
 * timestamps per channel and each channel's guard values: 2.2 KiB of op_slot's 11.3 KiB (the
 * network breakdown's step rings take most of the rest). */
#ifndef NCCL_INSPECTOR_CHANNEL_RECOVERY_H
#define NCCL_INSPECTOR_CHANNEL_RECOVERY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "channel_late_read.h"
#include "channel_parked.h"
#include "channel_placed.h"
#include "inspector_limits.h"

struct comm_slot;
struct op_slot;
struct profiler_op_event;

#define RECOV_SLOTS NCCL_CHANNEL_TIMESTAMP_SLOTS
/* Owner entries kept per channel, by item number modulo this (a power of two): an item's entry
 * outlives the item 64 later, which a reading that failed the launch-bound guard may hold instead
 * (the causal resolution, channel_recovery.c). */
#define RECOV_OWNERS (2 * RECOV_SLOTS)
/* A collective waits for its own item's reading while it is fewer items than this ahead of its
 * count. From 64 on, the reading comes only when the item 64 later has been launched, and is kept
 * only by the causal resolution; beyond this the owner's entry could be renumbered (item + 128)
 * before the reading comes, and it would wait for nothing until the in-flight expiry. */
#define RECOV_WAIT_LAG (RECOV_OWNERS - RECOV_SLOTS / 2)
#define RECOV_QUEUE 64  /* units waiting for a shape to be learned (power of two) */
#define RECOV_SHAPES 32 /* learned P2P channel sets */

/* Why recovery is off for a communicator (op_record.recovery_off_reason, JSON names in Java). */
enum {
  RECOV_OFF_NONE = 0,
  RECOV_OFF_SETTING = 1,          /* NCCL_INSPECTOR_CHANNEL_RECOVERY=0 */
  RECOV_OFF_NO_MEMORY = 2,        /* its state could not be allocated at init */
  RECOV_OFF_INTERFACE = 3,        /* profiler interface < v5: launches are not reported */
  RECOV_OFF_MULTI_NODE = 4,       /* several ranks per node on several nodes (P2P schedule not modelled) */
  RECOV_OFF_GRAPH = 5,            /* a CUDA-graph replay (its host counts are taken at each replay) */
  RECOV_OFF_SEVERAL_COLLS = 6,    /* several collectives in one launch (phase 1) */
  RECOV_OFF_HIDDEN_WORK = 7,      /* a Broadcast without operation event (NCCL >= 2.29.2 AllGatherV path) */
  RECOV_OFF_SHAPE_UNLEARNABLE = 8,/* a P2P of unknown channel set that is not tracked */
  RECOV_OFF_QUEUE_FULL = 9,       /* more than RECOV_QUEUE operations waiting for a shape */
  RECOV_OFF_UNEXPECTED = 10,      /* a kernel channel outside the numbered set, a copy-engine collective */
  RECOV_OFF_COUNT
};

/* Why some of an operation's channels carry no time (op_record.withheld_reason). */
enum {
  WITHHELD_NONE = 0,
  WITHHELD_LAG_PREDICTED = 1,   /* lagging channel, recovery off: today's guard (channel_desync.h) */
  WITHHELD_SLOT_REUSED = 2,     /* read when item base + 64 may have run (launch-bound guard, or the late-read guard) */
  WITHHELD_NEVER_DELIVERED = 3, /* no reading of its item reached it before it closed */
  WITHHELD_CAUSAL_CHECK = 4,    /* its timestamps failed a consistency check (start before launch, stop before start) */
  WITHHELD_LAG_DETECTED = 5,    /* a channel that started before its kernel's launch (op_timing.h) */
  WITHHELD_P2P_LAG = 6          /* a P2P's lagging channel (exact numbering; P2P times are not recovered) */
};

/* How an operation's time was obtained (op_record.time_recovery). */
enum { TIME_NOT_KERNEL = 0, TIME_DIRECT = 1, TIME_RECOVERED = 2, TIME_WITHHELD = 3 };

/* op_slot.recov_state */
enum { RECOV_OP_NONE = 0, RECOV_OP_QUEUED = 1, RECOV_OP_NUMBERED = 2 };

typedef struct recov_owner {
  _Atomic uint32_t item;  /* device item number (release-stored last; 0: none) */
  _Atomic uint32_t flags; /* RECOV_OWNER_* */
  _Atomic uint64_t handle[2]; /* the unit's operations (a P2P round: send and receive), 0: untracked */
  _Atomic uint64_t launch_ns; /* host monotonic time of its kernel's launch (launch_clock.h), 0: unknown */
} recov_owner;

/* flags: the RECOV_OWNER_* bits, and the unit's launch serial (RECOV_WINDOW_SERIAL_BITS wide) above them. */
enum { RECOV_OWNER_COUNTED = 1, RECOV_OWNER_SELF = 2, RECOV_OWNER_COLL = 4 };
#define RECOV_OWNER_LAUNCH_SHIFT 8

enum { RECOV_UNIT_COLL = 1, RECOV_UNIT_SELF = 2, RECOV_UNIT_P2P = 3, RECOV_UNIT_MERGE = 4 };

typedef struct recov_unit {
  uint8_t kind;   /* RECOV_UNIT_* (MERGE: the second operation of the previous P2P round) */
  uint8_t dir;    /* P2P: 0 receive, 1 send */
  uint8_t n;      /* nChannels */
  int32_t peer;
  uint64_t bytes;
  uint64_t handle; /* 0: untracked */
  uint64_t launch_ns; /* its kernel's launch (launch_clock.h), 0: unknown */
  uint32_t launch;    /* its launch's serial in the communicator */
} recov_unit;

typedef struct recov_shape {
  _Atomic uint32_t ready; /* release-stored after the fields */
  int32_t peer;
  uint8_t dir, n;
  uint64_t channels;
} recov_shape;

typedef struct recov_state {
  /* Laid out for the operation start, which touches every field of the first two cache lines
   * (and the entries of its channels below): grouping them spares misses on the enqueuing thread. */
  _Atomic uint8_t off_reason; /* RECOV_OFF_*; once set, never cleared */
  /* Whether readings are placed (see placed below). */
  _Atomic uint8_t placing;
  /* Enqueuing thread only (a communicator's operations are enqueued one thread at a time). */
  uint8_t prev_kind, prev_dir, prev_single; /* the last unit enqueued, for pairing a P2P round */
  _Atomic uint8_t enqueuing;         /* a thread is in the enqueuing side (see enter_enqueue_side) */
  uint32_t launch_serial;
  int32_t prev_round;
  uint32_t prev_launch;
  uint32_t colls_in_launch;
  _Atomic int32_t bcast_api_pending; /* Broadcast calls (NCCL >= 2.29.2) without their Coll yet */
  /* Read by the proxy thread for the guard (relaxed; see recov_launched). */
  _Atomic uint64_t launch_word;       /* launch serial << 1 | open (KernelLaunch seen, no kernel channel yet) */
  _Atomic uint32_t units_in_launch;
  _Atomic uint32_t max_units;         /* most units one launch has had (at least 1) */
  _Atomic uint32_t unpaired;          /* the last unit numbered is a P2P whose pair may still come */
  _Atomic uint32_t queued;            /* units enqueued and not numbered */
  /* The queue's ends and the drainer role (the queue itself is below). */
  _Atomic uint32_t q_head, q_tail;
  _Atomic uint32_t drain_requests;
  _Atomic uint32_t n_shapes;
  /* Drainer only. */
  uint64_t last_channels, last_counted; /* the last unit numbered */
  uint8_t last_kind;
  /* Channels ever numbered: the only ones whose rows of owner, placed and parked below were
   * written (a reading is placed or parked only on a channel its operation was numbered on), so
   * the next communicator of the slot has only those rows zeroed (recov_comm_init). Written by the
   * drainer (relaxed: one at a time), read at the next init. */
  _Atomic uint64_t used_channels;
  _Atomic uint32_t dev_items[INSPECTOR_MAX_CHANNELS];
  /* Drainer only. */
  uint32_t host_items[INSPECTOR_MAX_CHANNELS];
  /* The queue: single producer (enqueuing thread), consumer = the drainer. */
  recov_unit queue[RECOV_QUEUE];
  recov_shape shapes[RECOV_SHAPES];
  recov_owner owner[INSPECTOR_MAX_CHANNELS][RECOV_OWNERS];
  /* Readings placed on their item, per channel (channel_placed.h), written from the first lagging
   * unit or late read on (`placing`, above), read by the order test and by operations whose own
   * reading was another item's. */
  recov_placed_ring placed[INSPECTOR_MAX_CHANNELS];
  recov_window windows[RECOV_WINDOWS]; /* launch windows of the placed readings (channel_placed.h) */
  recov_parked_ring parked[INSPECTOR_MAX_CHANNELS]; /* readings to try again (channel_parked.h) */
} recov_state;

/* Communicator init: allocates its state (or records why recovery is off). */
void recov_comm_init(struct comm_slot* c, bool enabled);
void recov_comm_finalize(struct comm_slot* c);

/* KernelLaunch start on the enqueuing thread. */
void recov_note_launch(struct comm_slot* c);
/* A collective call (CollApi) on the enqueuing thread. */
void recov_note_api(struct comm_slot* c, uint8_t func);

/* The numbering of one operation event, tracked or not: called at every Coll/P2p start. `s` is the
 * operation's slot in INIT (not yet published; NULL: untracked) and `handle` the handle it will have.
 * Fills the slot's recovery fields and its expected completions. */
typedef struct recov_op_info {
  uint8_t kind; /* RECORD_KIND_* */
  uint8_t func; /* names.h FUNC_* */
  uint8_t n_channels;
  int32_t peer;
  int32_t rank;
  uint64_t bytes;
  bool graph;
  bool copy_engine;
} recov_op_info;
void recov_number_op(struct comm_slot* c, const recov_op_info* info, struct op_slot* s, void* handle);

/* A kernel channel of operation s (entered) started / got its GPU stop: channel slot index i. */
void recov_channel_started(struct op_slot* s, uint32_t i);
void recov_channel_recorded(struct op_slot* s, uint32_t i);
/* The operation is closing (its owner builds the record): hands on what it owes and clears its
 * channels' reading flags for the slot's next operation. `started`: its channel slots in use (the
 * control word's count, at most INSPECTOR_MAX_CHANNELS). */
void recov_op_closing(struct op_slot* s, uint32_t started);

/* Counter of channels whose own-item state is decided at numbering (used by op_timing). */
static inline uint64_t recov_bit(uint32_t c) { return c < 64 ? (1ull << c) : 0; }

#endif
