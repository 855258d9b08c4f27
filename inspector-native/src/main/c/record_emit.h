/* Turning owned operation slots and communicator events into ring records. */
#ifndef NCCL_INSPECTOR_RECORD_EMIT_H
#define NCCL_INSPECTOR_RECORD_EMIT_H

#include <stdint.h>

#include "comm_table.h"
#include "op_table.h"

/* Builds the record of an owned (CLOSING) slot and pushes it, or counts why not. `close_flags`
 * are RECORD_FLAG_* describing an early close (0 for a normal completion). Does not release. */
void emit_op_record(op_slot* s, uint32_t close_flags);

/* Pushes a communicator created / destroyed record into the ring's held-back cells. */
void emit_comm_record(const comm_slot* c, uint16_t kind);

/* emit_op_record followed by op_release: the usual end of an operation. */
void finish_op(op_slot* s, uint32_t close_flags);

#endif
