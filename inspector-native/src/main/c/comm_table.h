/* The fixed-size table of communicator contexts (one per NCCL init).
 *
 * The context NCCL keeps for a communicator is a tagged handle (slot index and generation, see
 * handles.h), so an event that arrives with the context of a finalized communicator fails the
 * generation check instead of reading a reused slot. A slot's fields are written before it turns
 * LIVE and stay unchanged until finalize, so events read them after one acquire load. */
#ifndef NCCL_INSPECTOR_COMM_TABLE_H
#define NCCL_INSPECTOR_COMM_TABLE_H

#include <stdatomic.h>
#include <stdint.h>

#include "gpu_identity.h"
#include "inspector_limits.h"

/* Operation kinds numbered per communicator (at least names.h FUNC_COUNT). */
#define COMM_API_FUNCS 16

enum { COMM_FREE = 0, COMM_INIT = 1, COMM_LIVE = 2, COMM_CLOSING = 3 };

typedef struct comm_slot {
  _Atomic uint64_t ctl; /* generation (32) | state (8) */
  _Atomic uint64_t p2p_seq;
  _Atomic uint64_t api_seq;  /* collective calls seen (CollApi events), numbering them */
  _Atomic uint64_t api_func_seq[COMM_API_FUNCS]; /* the same per operation (names.h FUNC_*) */
  _Atomic uint64_t lag_mask; /* channels whose kernel timestamps lag (channel_desync.h) */
  _Atomic uint64_t work_seq; /* operation events (Coll, P2p) started, tracked or not (channel_late_read.h) */
  _Atomic uint8_t got_kernel_events; /* an operation of it completed with kernel channels */
  uint64_t serial;
  uint64_t comm_id;
  int32_t nnodes, nranks, rank;
  uint32_t abi_version;
  int32_t nccl_version;      /* NCCL's version code of the library that made the init, 0 unknown */
  uint64_t created_ns;
  gpu_identity gpu;
  char name[INSPECTOR_COMM_NAME_MAX];
  struct recov_state* recov; /* channel recovery (channel_recovery.h), NULL: off */
  /* The slot's recovery state, allocated at the first communicator that needs it and reused
   * (reset) by later ones in this slot; freed only with the table, so that an event of a
   * finalized communicator still inside one of its operations never reads freed memory. */
  struct recov_state* recov_mem;
  uint8_t recov_off_at_init; /* RECOV_OFF_* when recov is NULL */
} __attribute__((aligned(64))) comm_slot;

typedef struct comm_table {
  comm_slot* slots;
  uint32_t capacity;
  _Atomic uint32_t live;
  _Atomic uint64_t next_serial;
} comm_table;

int comm_table_init(comm_table* t, uint32_t capacity);
void comm_table_destroy(comm_table* t);

/* Takes a free slot into INIT; returns its index or -1 when the table is full. */
int64_t comm_table_claim(comm_table* t);
/* Makes an INIT slot LIVE and returns the context handle for NCCL. */
void* comm_table_publish(comm_table* t, uint32_t index);
/* The LIVE slot a context names, or NULL. */
comm_slot* comm_table_lookup(comm_table* t, const void* context);
/* LIVE -> CLOSING for finalize; returns the slot or NULL if the context is not live. */
comm_slot* comm_table_begin_close(comm_table* t, const void* context);
/* CLOSING -> FREE with a new generation. */
void comm_table_release(comm_table* t, comm_slot* s);

#endif
