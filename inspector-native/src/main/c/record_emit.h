/* Turning owned operation slots and communicator events into ring records. */
#ifndef NCCL_INSPECTOR_RECORD_EMIT_H
#define NCCL_INSPECTOR_RECORD_EMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "comm_table.h"
#include "event_counters.h"
#include "op_table.h"

/* Builds the record of an owned (CLOSING) slot and pushes it, or counts why not. `close_flags`
 * are RECORD_FLAG_* describing an early close (0 for a normal completion). Does not release. */
/* Writes a record of `cells` cells into the ring (`control`: may use the reserve kept for control
 * records); returns false, having counted it under `lost`, when the ring is full. */
bool record_put_in_ring(const void* record, uint32_t cells, int control, counter_id lost);

void emit_op_record(op_slot* s, uint32_t close_flags);

/* Pushes a communicator created / destroyed record into the ring's held-back cells. */
void emit_comm_record(const comm_slot* c, uint16_t kind);

/* Pushes the record of a collective call that NCCL gave no operation event (api_ledger.h):
 * untimed, flagged not profiled by NCCL with the reason; counted or dropped like any record. The
 * communicator is `comm` if not NULL (a finalize in progress), else looked up by its table slot
 * and checked by serial. */
void emit_api_record(const comm_slot* comm, uint32_t comm_index, uint32_t comm_gen, uint64_t comm_serial,
                     uint8_t func, uint8_t datatype, uint64_t count, int32_t root, int64_t step, uint16_t phase,
                     uint32_t api_sn, uint64_t func_sn, uint64_t start_ns);

/* emit_op_record followed by op_release: the usual end of an operation. */
void finish_op(op_slot* s, uint32_t close_flags);

#endif
