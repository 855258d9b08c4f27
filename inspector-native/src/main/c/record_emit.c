#include "record_emit.h"

#include <string.h>

#include "channel_desync.h"
#include "channel_recovery.h"
#include "clock.h"
#include "core_state.h"
#include "handles.h"
#include "nccl_release.h"
#include "event_counters.h"
#include "names.h"
#include "op_timing.h"
#include "profiler_core.h"
#include "proxy_breakdown.h"
#include "record_format.h"
#include "zero_fill.h"

bool record_put_in_ring(const void* record, uint32_t cells, int control, counter_id lost) {
  uint64_t pos;
  if (!ring_reserve(&g_core.ring, cells, control, &pos)) {
    counter_add(lost, 1);
    return false;
  }
  ring_write(&g_core.ring, pos, 0, record, cells);
  ring_publish(&g_core.ring, pos);
  return true;
}

static void fill_channels(const op_slot* s, uint32_t seen, const op_timing* timing, channel_record* out) {
  for (uint32_t i = 0; i < seen; i++) {
    const channel_slot* ch = &s->ch[i];
    channel_record* c = &out[i];
    ZERO_FILL(c);
    c->channel_id = ch->channel_id;
    c->state = atomic_load_explicit(&((channel_slot*)ch)->state, memory_order_relaxed);
    c->start_sn = ch->start_sn;
    c->record_sn = ch->record_sn;
    c->stop_sn = ch->stop_sn;
    c->start_wall_ns = clock_mono_to_wall_ns(ch->cpu_start_ns);
    c->record_wall_ns = clock_mono_to_wall_ns(ch->cpu_record_ns);
    c->stop_wall_ns = clock_mono_to_wall_ns(ch->cpu_stop_ns);
    c->gpu_start_ns = ch->gpu_start_ns;
    c->gpu_stop_ns = ch->gpu_stop_ns;
    c->desync = timing->desync[i];
  }
}

/* Notes on the operation's communicator that its operations get kernel events (once). */
static void note_kernel_events(const op_slot* s) {
  comm_slot* c = comm_table_lookup(&g_core.comms, handle_make(HANDLE_TAG_COMM, s->comm_index, 0, s->comm_gen));
  /* Relaxed: a flag with nothing to publish. The serial guards a slot reused since. */
  if (c != NULL && c->serial == s->comm_serial) atomic_store_explicit(&c->got_kernel_events, 1, memory_order_relaxed);
}

void emit_op_record(op_slot* s, uint32_t close_flags) {
  /* Relaxed: the caller owns the slot (acquired through the control word). */
  uint32_t started = ctl_started(atomic_load_explicit(&s->ctl, memory_order_relaxed));
  uint32_t seen = started < INSPECTOR_MAX_CHANNELS ? started : INSPECTOR_MAX_CHANNELS;
  /* Readings it owes to earlier operations that never came: they learn so now. */
  recov_op_closing(s, seen);
  op_timing timing;
  op_timing_compute(s, seen, close_flags, &timing);
  if (seen > 0 && !s->comm_got_kernel_events) note_kernel_events(s);
  if (timing.latch_channels) {
    desync_latch(s->comm_index, s->comm_gen, s->comm_serial, timing.latch_channels);
  }

  uint32_t flags = s->static_flags | close_flags;
  if (timing.channels_read_late > 0) counter_add(CTR_LATE_READ_CHANNELS, timing.channels_read_late);
  if (timing.channels_recovered > 0) counter_add(CTR_RECOVERED_CHANNELS, timing.channels_recovered);
  if (timing.channels_never_delivered > 0) counter_add(CTR_RECOVERY_NEVER_DELIVERED, timing.channels_never_delivered);
  if (timing.channels_causal_reject > 0) counter_add(CTR_RECOVERY_CAUSAL_REJECT, timing.channels_causal_reject);
  if (timing.channels_desynced > 0 && timing.source != TIMING_NONE) {
    flags |= RECORD_FLAG_DESYNC_CHANNELS_EXCLUDED;
    counter_add(CTR_DESYNC_CHANNELS_EXCLUDED, 1);
  }
  if (s->kind == RECORD_KIND_P2P && timing.source == TIMING_KERNEL_GPU) {
    /* NCCL's thread 0 writes each channel's stop when its own part ends, and in the send/recv
     * kernel thread 0 does the send: the receive may finish later (facts doc §3.4.1). */
    flags |= RECORD_FLAG_SEND_SIDE_STOP;
  }
  if (timing.quarantine != QUARANTINE_NONE) {
    /* Quarantined records always travel (marked), whatever the GPU-timing requirement: they are
     * the evidence of bad timestamps and are written apart from the normal output. */
    flags |= RECORD_FLAG_QUARANTINED;
    counter_add((counter_id)(CTR_GPU_TIMESTAMP_ZERO + timing.quarantine - QUARANTINE_GPU_TIMESTAMP_ZERO), 1);
  } else if (timing.source != TIMING_KERNEL_GPU && s->launch_id == 0 &&
             atomic_load_explicit(&g_core.require_kernel_timing, memory_order_relaxed)) {
    /* An operation that names its launch (kernel records on) travels: its kernel's CUPTI record
     * may still time it; the JVM drops it under this counter's name if none does (KernelTimeJoiner). */
    counter_add(CTR_NO_GPU_TIMING, 1);
    return;
  }

  if (seen == 0) flags |= RECORD_FLAG_NO_KERNEL_EVENTS;
  if (started > s->n_channels) {
    flags |= RECORD_FLAG_EXTRA_CHANNELS;
    counter_add(CTR_EXTRA_CHANNELS, 1);
  }

  /* The header, then the verbose channel cells, then the network cells (record_format.h). */
  struct {
    op_record head;
    channel_record channels[INSPECTOR_MAX_CHANNELS + PROXY_NET_CELLS_MAX];
  } rec;
  op_record* r = &rec.head;
  ZERO_FILL(r);
  uint32_t channel_cells = 0;
  bool verbose = atomic_load_explicit(&g_core.verbose, memory_order_relaxed);
  if (verbose && seen > 0) {
    channel_cells = seen;
    fill_channels(s, seen, &timing, rec.channels);
    if (started > seen) flags |= RECORD_FLAG_CHANNELS_TRUNCATED;
  }
  uint32_t net_cells = 0;
  /* Relaxed: the caller owns the slot; the cells' contents came with the control word. */
  uint32_t proxy_ops = atomic_load_explicit(&s->proxy_cells, memory_order_relaxed);
  if (proxy_ops > 0) {
    _Static_assert(sizeof(net_record) == sizeof(channel_record) && sizeof(net_wait_record) == sizeof(channel_record) &&
                       sizeof(proxy_detail_record) == sizeof(channel_record), "cells of one size");
    net_record* net = (net_record*)&rec.channels[channel_cells];
    net_cells = proxy_summarize(s->px, proxy_ops, verbose, net);
    if (proxy_ops > OP_PROXY_CELLS) flags |= RECORD_FLAG_PROXY_TRUNCATED;
    /* Relaxed: the owner reads its own control word. */
    if (ctl_proxy_open(atomic_load_explicit(&s->ctl, memory_order_relaxed)) > 0) {
      flags |= RECORD_FLAG_PROXY_INCOMPLETE;
      counter_add(CTR_PROXY_INCOMPLETE, 1);
    }
  }
  r->kind = s->kind;
  r->cells = (uint16_t)(OP_RECORD_CELLS + channel_cells + net_cells);
  r->net_cells = (uint8_t)net_cells;
  r->func = s->func;
  r->datatype = s->datatype;
  r->algo = s->algo;
  r->proto = s->proto;
  r->timing_source = timing.source;
  r->n_channels = s->n_channels;
  r->channels_seen = (uint8_t)seen;
  r->n_warps = s->n_warps;
  r->flags = flags;
  r->comm_serial = s->comm_serial;
  r->comm_id = s->comm_id;
  r->rank = s->rank;
  r->nranks = s->nranks;
  r->nnodes = s->nnodes;
  r->peer_or_root = s->peer_or_root;
  r->seq = s->seq;
  r->count = s->count;
  r->bytes = s->bytes;
  r->exec_ns = timing.exec_ns;
  r->start_wall_ns = clock_mono_to_wall_ns(s->start_ns);
  r->stop_wall_ns = clock_mono_to_wall_ns(s->stop_ns);
  /* Read only in verbose mode: it would be the one clock read left on the completing path. */
  r->complete_wall_ns = channel_cells ? clock_mono_to_wall_ns(clock_mono_ns()) : 0;
  r->gpu_start_ns = timing.gpu_start_ns;
  r->gpu_span_ns = timing.gpu_span_ns;
  r->start_sn = s->start_sn;
  r->stop_sn = s->stop_sn;
  r->abi_version = (uint8_t)s->abi_version;
  r->quarantine_reason = timing.quarantine;
  r->gpu_skew_ns = timing.gpu_skew_ns;
  r->step = s->step;
  r->phase = s->phase;
  r->channels_desynced = timing.channels_desynced;
  r->launch_wall_ns = clock_mono_to_wall_ns(s->launch_ns);
  r->launch_id = s->launch_id;
  r->api_sn = s->api_sn;
  r->time_recovery = timing.time_recovery;
  r->channels_recovered = timing.channels_recovered;
  r->max_channel_lag = timing.channels_recovered ? s->recov_max_lag : 0;
  r->withheld_reason = timing.channels_desynced ? timing.withheld_reason : WITHHELD_NONE;
  r->recovery_off_reason = s->recov_off_reason;

  (void)record_put_in_ring(&rec, r->cells, 0, CTR_RING_FULL);
}

void emit_api_record(const comm_slot* comm, uint32_t comm_index, uint32_t comm_gen, uint64_t comm_serial,
                     uint8_t func, uint8_t datatype, uint64_t count, int32_t root, int64_t step, uint16_t phase,
                     uint32_t api_sn, uint64_t func_sn, uint64_t start_ns) {
  const comm_slot* c = comm != NULL ? comm
                                     : comm_table_lookup(&g_core.comms, handle_make(HANDLE_TAG_COMM, comm_index, 0, comm_gen));
  if (c == NULL || c->serial != comm_serial) {
    counter_add(CTR_UNKNOWN_CONTEXT, 1); /* its communicator is gone: a finalize flushes first */
    return;
  }
  uint32_t size = names_datatype_size(datatype);
  uint64_t bytes = (size != 0 && count <= UINT64_MAX / size) ? count * size : 0;
  if (count == 0 || bytes < atomic_load_explicit(&g_core.min_size_bytes, memory_order_relaxed)) {
    counter_add(CTR_BELOW_MIN_SIZE, 1); /* as its operation event would have been */
    return;
  }
  counter_add(CTR_NOT_PROFILED_BY_NCCL, 1);
  op_record r;
  ZERO_FILL(&r);
  r.kind = RECORD_KIND_COLL;
  r.cells = OP_RECORD_CELLS;
  r.func = func;
  r.datatype = datatype;
  r.algo = ALGO_NONE;
  r.proto = PROTO_NONE;
  r.timing_source = TIMING_NONE;
  r.flags = RECORD_FLAG_NOT_PROFILED_BY_NCCL | RECORD_FLAG_NO_KERNEL_EVENTS;
  if (datatype == DATATYPE_UNKNOWN_AS_UINT8) r.flags |= RECORD_FLAG_UINT8_AS_UNKNOWN;
  r.comm_serial = c->serial;
  r.comm_id = c->comm_id;
  r.rank = c->rank;
  r.nranks = c->nranks;
  r.nnodes = c->nnodes;
  r.peer_or_root = root;
  r.seq = func_sn; /* counted like NCCL's seqNumber: per operation, per communicator */
  r.count = count;
  r.bytes = bytes;
  r.start_wall_ns = clock_mono_to_wall_ns(start_ns);
  r.abi_version = (uint8_t)c->abi_version;
  r.step = step;
  r.phase = phase;
  r.untimed_reason = (func == FUNC_BROADCAST && c->nccl_version >= NCCL_RELEASE_BROADCAST_WITHOUT_EVENTS)
                         ? UNTIMED_NCCL_BROADCAST_ALLGATHERV
                         : UNTIMED_NCCL_NO_OPERATION_EVENT;
  r.api_sn = api_sn;
  (void)record_put_in_ring(&r, r.cells, 0, CTR_RING_FULL);
}

void finish_op(op_slot* s, uint32_t close_flags) {
  emit_op_record(s, close_flags);
  op_release(&g_core.ops, s);
}

void emit_comm_record(const comm_slot* c, uint16_t kind) {
  comm_record r;
  memset(&r, 0, sizeof(r));
  r.kind = kind;
  r.cells = COMM_RECORD_CELLS;
  r.abi_version = c->abi_version;
  r.nccl_version = c->nccl_version;
  r.comm_serial = c->serial;
  r.comm_id = c->comm_id;
  r.rank = c->rank;
  r.nranks = c->nranks;
  r.nnodes = c->nnodes;
  r.event_wall_ns = clock_mono_to_wall_ns(clock_mono_ns());
  r.cuda_device = c->gpu.ordinal;
  memcpy(r.gpu_uuid, c->gpu.uuid, sizeof(c->gpu.uuid));
  size_t len = strnlen(c->name, INSPECTOR_COMM_NAME_MAX - 1);
  memcpy(r.name, c->name, len);
  r.name_length = (uint32_t)len;
  (void)record_put_in_ring(&r, COMM_RECORD_CELLS, 1, CTR_CONTROL_RECORD_LOST);
}
