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
 * the proxy thread that progresses it. What the cell keeps is chosen so that a step costs at most
 * one clock read: a send step reads the clock only when it is the first to be ready, a receive
 * step when its data arrives (the arrival times are the receive's real completion), and the
 * ProxyOp's stop reads it once. From the cells the record gets (record_format.h, net_record):
 * bytes sent and received, the network time (first post to last stop), the longest wait for the
 * own GPU to produce a first chunk, the longest wait for a peer's first chunk and which peer and
 * channel that was, and the last arrival.
 *
 * Handles: a ProxyOp or ProxyStep handle is a kernel-channel-tag handle (handles.h) whose slot
 * index has bit 23 set, which no op slot index has (at most 2^22 slots), with the cell in the
 * channel field and bit 22 telling a step from an op.
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
} proxy_cell;

/* The handle bits (within the 24-bit slot index field of handles.h). */
#define PROXY_HANDLE_BIT (1u << 23)
#define PROXY_STEP_BIT (1u << 22)

static inline bool proxy_handle_is(const void* h) { return (handle_index(h) & PROXY_HANDLE_BIT) != 0; }
static inline bool proxy_handle_is_step(const void* h) { return (handle_index(h) & PROXY_STEP_BIT) != 0; }
static inline uint32_t proxy_handle_slot(const void* h) {
  return handle_index(h) & ~(PROXY_HANDLE_BIT | PROXY_STEP_BIT);
}

/* The core's side of NCCL's events (profiler_core.c dispatches to these). */
void* proxy_op_start(void* parent, uint8_t channel_id, int32_t peer, int32_t n_steps, int is_send);
void* proxy_step_start(void* parent);
/* The ProxyStep states the breakdown uses: a send's chunk ready (SendPeerWait, v4+) or handed to
 * the network (SendWait, with its size), a receive's chunk arrived (RecvFlushWait, with its size).
 * The posted states say nothing the step's start did not. */
static inline bool proxy_step_state_used(int state) {
  return state == 20 /* SendPeerWait_v4 */ || state == 9 /* SendWait */ || state == 11 /* RecvFlushWait */;
}

/* recordEventState of a ProxyStep in one of the states proxy_step_state_used accepts, with its
 * transSize. */
void proxy_step_state(void* handle, int state, uint64_t trans_size);
/* stopEvent of a ProxyOp or ProxyStep handle. */
void proxy_stop(void* handle);

/* The network summary of an operation whose `seen` proxy operations started (the first
 * OP_PROXY_CELLS in `cells`), and with `details` (room for OP_PROXY_CELLS) one detail per tracked
 * cell. Returns the record cells written (summary + details). */
uint32_t proxy_summarize(const proxy_cell* cells, uint32_t seen, net_record* out,
                         proxy_detail_record* details);

#endif
