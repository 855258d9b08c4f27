/* Where an operation's time goes on a network transport, from NCCL's proxy events.
 *
 * Between nodes (and between ranks over sockets) NCCL's proxy thread moves the data and reports
 * it: one ProxyOp per channel, peer and direction of an operation (parent: the operation), and
 * one ProxyStep per chunk of it (parent: the ProxyOp). A send step is posted waiting for the GPU to
 * produce the chunk (SendGPUWait), becomes ready (SendPeerWait: the data is there, the peer's
 * credit may not be), is handed to the network (SendWait, with its size) and stops when the
 * network is done with it. A receive step is posted waiting for data (RecvWait), receives it
 * (RecvFlushWait, with its size), waits for the GPU to consume it (RecvGPUWait) and stops
 * (src/transport/net.cc). NVLink and shared-memory transports have no proxy steps: operations
 * there get no breakdown, and none is invented.
 *
 * Each tracked ProxyOp gets a fixed cell in its operation's slot (op_table.h), written only by
 * the proxy thread that progresses it. A cell keeps a ring of its steps in flight (PROXY_STEP_RING,
 * indexed by step % NCCL_STEPS as NCCL does): every transition of a step reads the clock once and
 * writes its offset from the step's start; the transition that closes a phase adds the phase to
 * the cell's sums at once, so nothing grows with the number of steps. From the cells the record
 * gets (record_format.h, net_record and net_wait_record): bytes sent and received, the network
 * time (first post to last stop), the longest wait for the own GPU to produce a first chunk, the
 * longest wait for a peer's first chunk and which peer and channel that was, the last arrival,
 * the sends' waits for the peer's credit (SendPeerWait to SendWait, interface v4+: unknown
 * before), the receives' flush time, and the proxy thread's own time to post the steps (start to
 * SendGPUWait / RecvWait: NCCL waits for nothing in between, so a long one is a slow proxy
 * thread). In verbose mode each step left in a ring (the last PROXY_STEP_RING of each proxy
 * operation) is written with its phases.
 *
 * Handles: a ProxyOp or ProxyStep handle is a kernel-channel-tag handle (handles.h) whose slot
 * index has bit 23 set, which no op slot index has (at most 2^21 slots), with the cell in the
 * channel field, bit 22 telling a step from an op, and a step's ring entry in the bits left.
 * A step handle whose operation is gone fails the generation check like any other: it never
 * reaches the cell, nor its ring.
 */
#ifndef NCCL_INSPECTOR_PROXY_BREAKDOWN_H
#define NCCL_INSPECTOR_PROXY_BREAKDOWN_H

#include <stdbool.h>
#include <stdint.h>

#include "handles.h"
#include "inspector_limits.h"
#include "record_format.h"

/* Proxy operations tracked per operation (a ring collective on 7 channels over the network has
 * 14: a send and a receive per channel). Those beyond are counted and flagged, not tracked. */
#define OP_PROXY_CELLS 15

/* Steps of one proxy operation NCCL keeps in flight at once: NCCL_STEPS (src/include/device.h),
 * which NCCL itself uses to index its step handles (step % NCCL_STEPS). A step's entry is reused
 * by the step NCCL_STEPS later, which NCCL posts only after this one stopped. */
#define PROXY_STEP_RING 8

/* How far a step got (proxy_step.state). The transitions NCCL makes (src/transport/net.cc):
 *   send:    start -> SendGPUWait (posted) -> SendPeerWait (ready, v4+; repeated while the peer
 *            gives no credit) -> SendWait (handed to the network) -> stop (network done)
 *   receive: start -> RecvWait (posted) -> RecvFlushWait (arrived) -> RecvGPUWait (flushed)
 *            -> stop (the GPU consumed it) */
enum {
  PROXY_STEP_EMPTY = 0,
  PROXY_STEP_STARTED = 1,
  PROXY_STEP_POSTED = 2,  /* SendGPUWait / RecvWait */
  PROXY_STEP_READY = 3,   /* SendPeerWait / RecvFlushWait */
  PROXY_STEP_MOVED = 4,   /* SendWait / RecvGPUWait */
  PROXY_STEP_DONE = 5     /* stopped */
};

/* The transitions of a step as offsets from its start (ns, saturated at UINT32_MAX: 4.29 s): one
 * clock read per transition, and the intervals between them are the step's phases:
 *   at[0] posted: the proxy thread's own time to post it (NCCL waits for nothing in between)
 *   at[1] send: ready (the own GPU produced it); receive: arrived (the peer sent it)
 *   at[2] send: handed to the network (the peer's credit came); receive: flushed
 *   at[3] stopped: send: the network is done; receive: the GPU consumed it
 * 0 where the transition has not happened (or the interface has no such state). */
typedef struct proxy_step {
  uint64_t start_ns;  /* monotonic */
  uint32_t at[4];
  uint32_t step;      /* NCCL's step number (negative: 0) */
  uint8_t state;      /* PROXY_STEP_* */
  uint8_t have;       /* bit k: at[k] was written */
  uint8_t reserved[2];
} proxy_step;

typedef struct proxy_cell {
  int32_t peer;
  uint8_t channel_id;
  uint8_t is_send;
  uint8_t stopped;      /* its ProxyOp's stop came */
  uint8_t reserved;
  uint16_t n_steps;     /* announced by NCCL (saturated) */
  uint16_t steps_done;  /* ProxyStep stops */
  uint32_t steps;       /* ProxyStep starts */
  uint64_t bytes;       /* sizes of the steps handed to the network (send) or received */
  uint64_t first_post_ns;  /* monotonic: its first step's start */
  uint64_t first_ready_ns; /* send: first step ready (SendPeerWait, or SendWait); receive: first arrival */
  uint64_t last_ready_ns;  /* receive: last arrival (send: 0) */
  uint64_t done_ns;        /* its ProxyOp's stop */
  /* Summed over its steps as they go (ns): the proxy thread's own posting time; send: the wait
   * for the peer's credit (SendPeerWait to SendWait); receive: the flush (RecvFlushWait to
   * RecvGPUWait). With the longest single step of each, and how many steps had each interval. */
  uint64_t lag_ns, peer_wait_ns, flush_ns;
  uint32_t lag_max_ns, peer_wait_max_ns, flush_max_ns;
  uint32_t lag_steps, peer_wait_steps, flush_steps;
  proxy_step ring[PROXY_STEP_RING];
} proxy_cell;

/* The handle bits (within the 24-bit slot index field of handles.h). A step handle also carries
 * its ring entry: bit 2 of it in PROXY_RING_BIT, bits 0-1 in bits 4-5 of the channel field (the
 * cell takes bits 0-3). Op slot indices stay below 2^21 (INSPECTOR_MAX_OP_SLOTS). */
#define PROXY_HANDLE_BIT (1u << 23)
#define PROXY_STEP_BIT (1u << 22)
#define PROXY_RING_BIT (1u << 21)
#define PROXY_SLOT_MASK (PROXY_RING_BIT - 1u)

static inline bool proxy_handle_is(const void* h) { return (handle_index(h) & PROXY_HANDLE_BIT) != 0; }
static inline bool proxy_handle_is_step(const void* h) { return (handle_index(h) & PROXY_STEP_BIT) != 0; }
static inline uint32_t proxy_handle_slot(const void* h) { return handle_index(h) & PROXY_SLOT_MASK; }
static inline uint32_t proxy_handle_cell(const void* h) { return handle_channel(h) & 15u; }
static inline uint32_t proxy_handle_ring(const void* h) {
  return (handle_channel(h) >> 4) | ((handle_index(h) & PROXY_RING_BIT) ? 4u : 0u);
}

/* The core's side of NCCL's events (profiler_core.c dispatches to these). */
void* proxy_op_start(void* parent, uint8_t channel_id, int32_t peer, int32_t n_steps, int is_send);
/* `step`: the descriptor's step number (DIVUP(stepId, sliceSteps)). */
void* proxy_step_start(void* parent, int32_t step);
/* The ProxyStep states (every one marks a transition the breakdown times). */
static inline bool proxy_step_state_used(int state) {
  return (state >= 8 /* SendGPUWait */ && state <= 12 /* RecvGPUWait */) || state == 20 /* SendPeerWait_v4 */;
}

/* recordEventState of a ProxyStep in one of the states proxy_step_state_used accepts, with its
 * transSize (read for SendWait and RecvFlushWait only). */
void proxy_step_state(void* handle, int state, uint64_t trans_size);
/* stopEvent of a ProxyOp or ProxyStep handle. */
void proxy_stop(void* handle);

/* Per-step cells a verbose record can carry (record_format.h: two steps per cell). */
#define PROXY_STEP_CELLS_MAX ((OP_PROXY_CELLS * PROXY_STEP_RING + 1) / 2)
/* Network cells of a record at most: the two summary cells, one detail per proxy operation, the
 * step cells. */
#define PROXY_NET_CELLS_MAX (2 + OP_PROXY_CELLS + PROXY_STEP_CELLS_MAX)

/* The network summary of an operation whose `seen` proxy operations started (the first
 * OP_PROXY_CELLS in `cells`) into `out` (room for PROXY_NET_CELLS_MAX cells): the summary's two
 * cells and, with `verbose`, one detail per tracked cell and then the steps still in each cell's
 * ring (the last PROXY_STEP_RING of each), two per cell. Returns the cells written. */
uint32_t proxy_summarize(const proxy_cell* cells, uint32_t seen, bool verbose, net_record* out);

#endif
