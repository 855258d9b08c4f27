/* The layout of the records that travel through the ring to Java.
 *
 * A record is a whole number of 64-byte cells, little-endian, fixed offsets. Java decodes it from a
 * direct ByteBuffer; it does not hard-code the offsets but checks them against
 * record_layout_offset() at load time, so the two sides cannot drift apart silently.
 *
 *   operation record: 3 header cells, then (verbose mode only) one cell per kernel channel, then
 *                     (network transports only, op_record.net_cells of them) the network
 *                     summary's two cells (net_record, net_wait_record) and, in verbose mode
 *                     only, one cell per proxy operation (proxy_detail_record) and the steps'
 *                     cells (two proxy_step_record per cell)
 *   communicator record: 2 header cells, then the name (INSPECTOR_COMM_NAME_MAX bytes, 2 cells)
 */
#ifndef NCCL_INSPECTOR_RECORD_FORMAT_H
#define NCCL_INSPECTOR_RECORD_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "inspector_limits.h"

enum {
  RECORD_KIND_COLL = 1,
  RECORD_KIND_P2P = 2,
  RECORD_KIND_COMM_CREATED = 3,
  RECORD_KIND_COMM_DESTROYED = 4,
  RECORD_KIND_TRACE = 5, /* raw event of the recording mode (trace ring only) */
  RECORD_KIND_KERNEL = 6 /* a CUPTI kernel record of an NCCL launch (kernel_records.h) */
};

/* Bits of op_record.flags. */
enum {
  RECORD_FLAG_INCOMPLETE = 1u << 0,       /* closed before every announced channel stopped */
  RECORD_FLAG_NO_KERNEL_EVENTS = 1u << 1, /* no kernel channel ever started */
  RECORD_FLAG_EXPIRED = 1u << 2,          /* closed by the in-flight expiry */
  RECORD_FLAG_EVICTED = 1u << 3,          /* closed to make room in the in-flight table */
  RECORD_FLAG_FLUSHED = 1u << 4,          /* closed by communicator finalize or inspector close */
  RECORD_FLAG_SELF_P2P = 1u << 5,         /* send/recv to the own rank (NCCL emits no channels) */
  RECORD_FLAG_EXTRA_CHANNELS = 1u << 6,   /* more channels started than announced */
  RECORD_FLAG_UINT8_AS_UNKNOWN = 1u << 7, /* datatype "Unknown" counted as one byte */
  RECORD_FLAG_CHANNELS_TRUNCATED = 1u << 8, /* verbose channel list shorter than the channels seen */
  RECORD_FLAG_COPY_ENGINE = 1u << 9,      /* a v6 copy-engine collective */
  RECORD_FLAG_QUARANTINED = 1u << 10,     /* GPU timestamps unusable: see quarantine_reason */
  RECORD_FLAG_GRAPH_LAUNCHED = 1u << 11,  /* launched by a CUDA graph replay (v5+: its API call was captured) */
  RECORD_FLAG_DESYNC_CHANNELS_EXCLUDED = 1u << 12, /* timed by its in-step channels only (channel_desync.h) */
  RECORD_FLAG_SEND_SIDE_STOP = 1u << 13,  /* P2P GPU time: its channels' stops are the send side's */
  RECORD_FLAG_NOT_PROFILED_BY_NCCL = 1u << 14, /* NCCL gave the call no operation event: recorded from the call */
  RECORD_FLAG_PROXY_TRUNCATED = 1u << 15, /* more proxy operations than OP_PROXY_CELLS: the rest not in its breakdown */
  RECORD_FLAG_PROXY_INCOMPLETE = 1u << 16 /* closed before every proxy operation stopped */
};

/* Why a record carries no time although the operation ran (op_record.untimed_reason). */
enum {
  UNTIMED_NONE = 0,
  /* NCCL >= 2.29.2 ran an ncclBroadcast through its AllGatherV path, which emits no events. */
  UNTIMED_NCCL_BROADCAST_ALLGATHERV = 1,
  /* NCCL emitted the call (CollApi) but no operation event for it (symmetric kernels, others). */
  UNTIMED_NCCL_NO_OPERATION_EVENT = 2
};

/* op_record.api_sn of an operation whose call is not known (interface v4 and older, a CUDA-graph
 * replay, a full API ledger). */
#define API_SN_UNKNOWN 0xffffffffu

/* Why a record is quarantined (op_record.quarantine_reason); the counter of the same name. */
enum {
  QUARANTINE_NONE = 0,
  QUARANTINE_GPU_TIMESTAMP_ZERO = 1,
  QUARANTINE_GPU_TIMESTAMP_REVERSED = 2,
  QUARANTINE_GPU_TIMESTAMP_ABSURD = 3,
  QUARANTINE_KERNEL_CHANNEL_DESYNC = 4,  /* every channel carried another work item's timestamps */
  QUARANTINE_KERNEL_EVENTS_MISSING = 5   /* announced channels never came, on a communicator whose
                                            operations got them before: NCCL stopped delivering */
};

typedef struct op_record {
  uint16_t kind;          /* 0 */
  uint16_t cells;         /* 2: cells of this record, header included */
  uint8_t func;           /* 4 */
  uint8_t datatype;       /* 5 */
  uint8_t algo;           /* 6 */
  uint8_t proto;          /* 7 */
  uint8_t timing_source;  /* 8 */
  uint8_t n_channels;     /* 9: announced by NCCL */
  uint8_t channels_seen;  /* 10: kernel channels that started */
  uint8_t n_warps;        /* 11 */
  uint32_t flags;         /* 12 */
  uint64_t comm_serial;   /* 16: unique per communicator init in this process */
  uint64_t comm_id;       /* 24: NCCL's 64-bit communicator hash */
  int32_t rank;           /* 32 */
  int32_t nranks;         /* 36 */
  int32_t nnodes;         /* 40 */
  int32_t peer_or_root;   /* 44: P2P peer, collective root */
  uint64_t seq;           /* 48: NCCL seqNumber (collectives), per-communicator counter (P2P) */
  uint64_t count;         /* 56: elements as NCCL gave them */
  uint64_t bytes;         /* 64: count x element size */
  uint64_t exec_ns;       /* 72: longest single channel (the reference's execution time) */
  uint64_t start_wall_ns; /* 80: CPU time of the operation's start event */
  uint64_t stop_wall_ns;  /* 88: CPU time of its stop event (enqueue done) */
  uint64_t complete_wall_ns; /* 96: CPU time the record was completed (verbose mode only, else 0) */
  uint64_t gpu_start_ns;  /* 104: earliest channel GPU start, 0 if none */
  uint64_t gpu_span_ns;   /* 112: latest channel GPU stop - earliest GPU start, 0 if none */
  uint16_t start_sn;      /* 120: callback sequence numbers of this operation (verbose trace) */
  uint16_t stop_sn;       /* 122 */
  uint8_t abi_version;    /* 124: profiler interface version NCCL used for this communicator */
  uint8_t quarantine_reason; /* 125: QUARANTINE_* */
  uint16_t reserved0;     /* 126 */
  uint64_t gpu_skew_ns;   /* 128: latest channel GPU start - earliest (NCCL issue 1900) */
  int64_t step;           /* 136: step tag of the enqueuing thread, -1 if none */
  uint16_t phase;         /* 144: phase tag (id given by Java), 0 if none */
  uint8_t channels_desynced; /* 146: channels left out because their timestamps lag */
  uint8_t untimed_reason; /* 147: UNTIMED_*, why an operation that ran has no time */
  uint32_t api_sn;        /* 148: its collective call's number in the communicator, API_SN_UNKNOWN */
  uint64_t launch_wall_ns;/* 152: host time of its kernel's launch (v5+ on the launching thread), 0 if unknown */
  uint8_t net_cells;      /* 160: cells of network breakdown at the end (summary + details), 0: none */
  uint8_t reserved3[7];   /* 161 */
  uint64_t launch_id;     /* 168: its kernel launch's id for CUPTI kernel records (kernel_records.h), 0: none */
  uint8_t reserved5[8];   /* 176 */
  /* Channel recovery (channel_recovery.h): how the time was obtained. */
  uint8_t time_recovery;      /* 184: TIME_* (not kernel, direct, recovered, withheld) */
  uint8_t channels_recovered; /* 185: lagging channels timed by their own item's timestamps */
  uint8_t max_channel_lag;    /* 186: most items without a host count before its own on one channel */
  uint8_t withheld_reason;    /* 187: WITHHELD_* of the first channel left out, 0: none */
  uint8_t recovery_off_reason;/* 188: RECOV_OFF_* of its communicator when it started, 0: on */
  uint8_t reserved4[3];       /* 189 */
} op_record;

/* A CUPTI kernel record joined to its NCCL launch (kernel_records.h): one cell. Times are on
 * CUPTI's clock (the host's wall clock unless a tool changed it), ns. */
typedef struct kernel_record {
  uint16_t kind;            /* 0: RECORD_KIND_KERNEL */
  uint16_t cells;           /* 2: 1 */
  uint32_t ops;             /* 4: operations that started after the launch on its thread, 0: unknown */
  uint64_t launch_id;       /* 8 */
  uint64_t start_ns;        /* 16 */
  uint64_t end_ns;          /* 24 */
  uint32_t device;          /* 32: CUDA device id */
  uint32_t stream;          /* 36: CUPTI's stream id */
  uint32_t correlation_id;  /* 40: CUPTI's correlation id of the launch */
  uint32_t reserved0;       /* 44 */
  uint64_t reserved1[2];    /* 48 */
} kernel_record;

/* The network breakdown of an operation (proxy_breakdown.h): one cell. Times are wall-clock ns;
 * durations ns. */
typedef struct net_record {
  uint64_t bytes_sent;        /* 0 */
  uint64_t bytes_received;    /* 8 */
  uint64_t first_post_wall_ns;/* 16: first proxy step posted */
  uint64_t last_done_wall_ns; /* 24: last proxy operation done, 0 if one never stopped */
  uint64_t send_gpu_wait_ns;  /* 32: longest wait of a send for the own GPU's first chunk */
  uint64_t recv_wait_ns;      /* 40: longest wait of a receive for the peer's first chunk */
  uint64_t last_arrival_wall_ns; /* 48: the last chunk received, 0 if none */
  int32_t slowest_peer;       /* 56: the peer of that longest receive wait, -1 if no receive */
  uint8_t slowest_channel;    /* 60 */
  uint8_t proxy_ops;          /* 61: proxy operations seen (saturated at 255) */
  uint8_t proxy_ops_tracked;  /* 62: those in the breakdown (at most OP_PROXY_CELLS) */
  uint8_t detail_cells;       /* 63: proxy_detail_record cells that follow (verbose mode) */
} net_record;

/* One proxy operation of the breakdown (verbose mode). */
typedef struct proxy_detail_record {
  int32_t peer;               /* 0 */
  uint8_t channel_id;         /* 4 */
  uint8_t is_send;            /* 5 */
  uint16_t steps_done;        /* 6 */
  uint16_t n_steps;           /* 8: announced by NCCL */
  uint8_t ring_steps;         /* 10: its steps written after the details (the last ones) */
  uint8_t reserved0;          /* 11 */
  uint32_t steps;             /* 12: steps started */
  uint64_t bytes;             /* 16 */
  uint64_t first_post_wall_ns;  /* 24 */
  uint64_t first_ready_wall_ns; /* 32: send: first chunk ready; receive: first arrival */
  uint64_t last_ready_wall_ns;  /* 40: receive: last arrival */
  uint64_t done_wall_ns;      /* 48: 0 if it never stopped */
  uint64_t reserved1;         /* 56 */
} proxy_detail_record;

/* Bits of net_wait_record.known: which sums NCCL's states let the core measure. */
enum {
  NET_KNOWN_PEER_WAIT = 1u << 0, /* a send step went through SendPeerWait (interface v4+) */
  NET_KNOWN_FLUSH = 1u << 1,     /* a receive step went from RecvFlushWait to RecvGPUWait */
  NET_KNOWN_LAG = 1u << 2        /* a step went from its start to its posted state */
};

/* The network summary's second cell: the waits inside the steps (sums over the tracked steps,
 * longest single step), ns. */
typedef struct net_wait_record {
  uint64_t send_peer_wait_ns;     /* 0: sends: SendPeerWait to SendWait, summed over the steps */
  uint64_t recv_flush_ns;         /* 8: receives: RecvFlushWait to RecvGPUWait, summed */
  uint64_t proxy_lag_ns;          /* 16: start to posted state, summed over every step */
  uint32_t send_peer_wait_max_ns; /* 24: the longest of one step (saturated, 4.29 s) */
  uint32_t recv_flush_max_ns;     /* 28 */
  uint32_t proxy_lag_max_ns;      /* 32 */
  int32_t peer_wait_peer;         /* 36: the peer of the send with the longest wait for credit, -1 */
  uint8_t peer_wait_channel;      /* 40 */
  uint8_t known;                  /* 41: NET_KNOWN_* */
  uint16_t step_cells;            /* 42: proxy step cells that follow the details (verbose mode) */
  uint32_t steps;                 /* 44: steps started over the tracked proxy operations */
  uint32_t peer_wait_steps;       /* 48: send steps that went through SendPeerWait */
  uint32_t flush_steps;           /* 52 */
  uint32_t lag_steps;             /* 56 */
  uint32_t reserved;              /* 60 */
} net_wait_record;

/* One step of a proxy operation (verbose mode): half a cell. Phases in ns (0: not reached;
 * saturated at 4.29 s). */
typedef struct proxy_step_record {
  uint8_t detail;             /* 0: index of its proxy operation among the details; 0xff: empty half */
  uint8_t state;              /* 1: how far it got (proxy_breakdown.h PROXY_STEP_*) */
  uint16_t reserved;          /* 2 */
  uint32_t step;              /* 4: NCCL's step number */
  uint64_t start_wall_ns;     /* 8 */
  uint32_t post_ns;           /* 16: start to posted (the proxy thread's own time) */
  uint32_t wait_ns;           /* 20: send: for the own GPU's data; receive: for the peer's data */
  uint32_t move_ns;           /* 24: send: for the peer's credit; receive: the flush */
  uint32_t done_ns;           /* 28: send: the network; receive: the GPU consuming it */
} proxy_step_record;

typedef struct channel_record {
  uint8_t channel_id;     /* 0 */
  uint8_t state;          /* 1: 1 started, 2 GPU stop recorded, 3 stopped */
  uint16_t start_sn;      /* 2 */
  uint16_t record_sn;     /* 4 */
  uint16_t stop_sn;       /* 6 */
  uint64_t start_wall_ns; /* 8 */
  uint64_t record_wall_ns;/* 16 */
  uint64_t stop_wall_ns;  /* 24 */
  uint64_t gpu_start_ns;  /* 32 */
  uint64_t gpu_stop_ns;   /* 40 */
  uint8_t desync;         /* 48: 0 in step, 1 lag predicted, 2 lag detected (channel_desync.h) */
  uint8_t reserved[15];   /* 49 */
} channel_record;

typedef struct comm_record {
  uint16_t kind;          /* 0 */
  uint16_t cells;         /* 2 */
  uint32_t name_length;   /* 4 */
  uint32_t abi_version;   /* 8 */
  int32_t nccl_version;   /* 12: NCCL's version code (22809 = 2.28.9), 0 if unknown */
  uint64_t comm_serial;   /* 16 */
  uint64_t comm_id;       /* 24 */
  int32_t rank;           /* 32 */
  int32_t nranks;         /* 36 */
  int32_t nnodes;         /* 40 */
  int32_t reserved1;      /* 44 */
  uint64_t event_wall_ns; /* 48 */
  int32_t cuda_device;    /* 56: CUDA device ordinal, -1 when unknown */
  char gpu_uuid[44];      /* 60: "GPU-...", empty when unknown */
  uint8_t reserved2[24];  /* 104 */
  char name[INSPECTOR_COMM_NAME_MAX]; /* 128 */
} comm_record;

_Static_assert(sizeof(op_record) == 3 * INSPECTOR_CELL_BYTES, "op record is three cells");
_Static_assert(sizeof(channel_record) == INSPECTOR_CELL_BYTES, "channel record is one cell");
_Static_assert(sizeof(net_record) == INSPECTOR_CELL_BYTES, "network summary is one cell");
_Static_assert(sizeof(proxy_detail_record) == INSPECTOR_CELL_BYTES, "proxy detail is one cell");
_Static_assert(sizeof(net_wait_record) == INSPECTOR_CELL_BYTES, "network waits are one cell");
_Static_assert(2 * sizeof(proxy_step_record) == INSPECTOR_CELL_BYTES, "two proxy steps per cell");
_Static_assert(sizeof(comm_record) == 4 * INSPECTOR_CELL_BYTES, "comm record is four cells");

#define OP_RECORD_CELLS 3
#define COMM_RECORD_CELLS 4
#define MAX_RECORD_CELLS (OP_RECORD_CELLS + INSPECTOR_MAX_CHANNELS)

/* The layout of every structure Java reads (the ring's records, in-flight entries and the raw
 * event recording's trace_event), exported by
 * field name: entry i has a name such as "op.exec_ns", a byte offset and a size (0 for constants
 * such as "cell_bytes", whose value is the offset). Java looks every field it reads up by name and
 * checks its size once, at load; nothing is written down twice. */
int record_layout_count(void);
const char* record_layout_name(int i);
int record_layout_offset(int i);
int record_layout_size(int i);

#endif
