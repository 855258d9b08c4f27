#include "profiler_core.h"

#include <inttypes.h>
#include <string.h>

#include "api_ledger.h"
#include "channel_desync.h"
#include "channel_late_read.h"
#include "channel_recovery.h"
#include "clock.h"
#include "core_state.h"
#include "defer_log.h"
#include "event_counters.h"
#include "gpu_clock_bound.h"
#include "handles.h"
#include "kernel_records.h"
#include "launch_clock.h"
#include "names.h"
#include "nccl_release.h"
#include "op_reclaim.h"
#include "op_timing.h"
#include "proxy_breakdown.h"
#include "record_emit.h"
#include "record_format.h"
#include "thread_tags.h"

int core_activation_mask(uint32_t abi_version) {
  /* P2p events are asked for even when P2P records are not wanted: a send/recv to the own rank
   * desynchronises kernel-channel timestamps (channel_desync.h), and only its P2p event tells.
   * KernelLaunch (v5+) gives the launch time no kernel channel can precede (launch_clock.h).
   * Proxy events (v4+, whose descriptors the core reads) make the network breakdown
   * (proxy_breakdown.h); relaxed: an independent setting read at each communicator's init. */
  int mask = ncclProfileColl | ncclProfileP2p | ncclProfileKernelCh | ncclProfileCeColl |
             ncclProfileKernelLaunch;
  if (abi_version >= 4 && !atomic_load_explicit(&g_core.network_breakdown_off, memory_order_relaxed)) {
    mask |= ncclProfileProxyOp | ncclProfileProxyStep;
  }
  return mask;
}

void* core_comm_init(uint64_t comm_id, int* activation_mask, const char* comm_name, int nnodes,
                     int nranks, int rank, ncclDebugLogger_t logfn, uint32_t abi_version,
                     const void* caller) {
  /* Before the lock: a dladdr/dlopen(RTLD_NOLOAD) of the library that called, no load. */
  int32_t nccl_version = nccl_release_of_caller(caller);
  /* A communicator's records follow those of the communicators finalized before it (a new one may
   * carry the same id): logged finalizes are replayed first, outside the lifecycle lock, which a
   * replayed finalize takes (defer_log.h). Where none is pending (a communicator created while the
   * others live on: a split, a lazily made one), NCCL's thread replays nothing. */
  if (defer_on() && defer_finalize_pending()) defer_flush();
  pthread_mutex_lock(&g_core.lifecycle_lock);
  if (atomic_load_explicit(&g_core.state, memory_order_relaxed) != CORE_ENABLED) {
    pthread_mutex_unlock(&g_core.lifecycle_lock);
    return NULL;
  }
  int64_t index = comm_table_claim(&g_core.comms);
  if (index < 0 && defer_on()) {
    /* Finalizes logged and not yet replayed hold their slots (defer_log.h): replayed now, outside
     * the lifecycle lock, which a replayed finalize takes. */
    pthread_mutex_unlock(&g_core.lifecycle_lock);
    defer_flush();
    pthread_mutex_lock(&g_core.lifecycle_lock);
    if (atomic_load_explicit(&g_core.state, memory_order_relaxed) != CORE_ENABLED) {
      pthread_mutex_unlock(&g_core.lifecycle_lock);
      return NULL;
    }
    index = comm_table_claim(&g_core.comms);
  }
  if (index < 0) {
    counter_add(CTR_COMM_TABLE_FULL, 1);
    pthread_mutex_unlock(&g_core.lifecycle_lock);
    if (logfn) {
      logfn(NCCL_LOG_WARN, NCCL_LOG_SUBSYS_PROFILE, __FILE__, __LINE__,
            "NCCL Inspector (JVM): communicator table full, communicator 0x%" PRIx64 " not profiled",
            comm_id);
    }
    return NULL;
  }
  comm_slot* c = &g_core.comms.slots[index];
  c->comm_id = comm_id;
  c->nnodes = nnodes;
  c->nranks = nranks;
  c->rank = rank;
  c->abi_version = abi_version;
  c->nccl_version = nccl_version;
  c->created_ns = clock_mono_ns();
  c->gpu = gpu_identity_of_current_context();
  memset(c->name, 0, sizeof(c->name));
  if (comm_name != NULL) strncpy(c->name, comm_name, sizeof(c->name) - 1);
  /* Relaxed: an independent setting read once per communicator. */
  recov_comm_init(c, atomic_load_explicit(&g_core.channel_recovery_off, memory_order_relaxed) == 0);
  void* context = comm_table_publish(&g_core.comms, (uint32_t)index);
  emit_comm_record(c, RECORD_KIND_COMM_CREATED);
  if (activation_mask != NULL) *activation_mask = core_activation_mask(abi_version);
  pthread_mutex_unlock(&g_core.lifecycle_lock);
  if (logfn) {
    int major = 0, minor = 0, patch = 0;
    if (nccl_release_parts(nccl_version, &major, &minor, &patch)) {
      logfn(NCCL_LOG_INFO, NCCL_LOG_SUBSYS_PROFILE, __FILE__, __LINE__,
            "NCCL Inspector (JVM): profiling communicator 0x%" PRIx64 " rank %d of %d (NCCL %d.%d.%d, interface v%u)",
            comm_id, rank, nranks, major, minor, patch, abi_version);
    } else {
      logfn(NCCL_LOG_INFO, NCCL_LOG_SUBSYS_PROFILE, __FILE__, __LINE__,
            "NCCL Inspector (JVM): profiling communicator 0x%" PRIx64 " rank %d of %d (NCCL release unknown, interface v%u)",
            comm_id, rank, nranks, abi_version);
    }
  }
  return context;
}

void core_comm_finalize(void* context) {
  if (context == NULL) return;
  pthread_mutex_lock(&g_core.lifecycle_lock);
  if (!g_core.allocated) {
    pthread_mutex_unlock(&g_core.lifecycle_lock);
    return;
  }
  comm_slot* c = comm_table_begin_close(&g_core.comms, context);
  if (c == NULL) {
    counter_add(CTR_UNKNOWN_CONTEXT, 1);
    pthread_mutex_unlock(&g_core.lifecycle_lock);
    return;
  }
  /* Calls still unlinked get no operation event any more: recorded before the communicator's end. */
  api_ledger_flush(&g_core.ledger, c);
  reclaim_flush_all(RECLAIM_AT_FINALIZE, c->serial);
  emit_comm_record(c, RECORD_KIND_COMM_DESTROYED);
  recov_comm_finalize(c);
  comm_table_release(&g_core.comms, c);
  core_free_if_pending_locked();
  pthread_mutex_unlock(&g_core.lifecycle_lock);
}

static int64_t take_slot(void) {
  int64_t index = op_table_claim_free(&g_core.ops);
  if (index < 0) index = reclaim_evict_for(op_table_eviction_candidate(&g_core.ops));
  return index;
}

/* An operation that starts while the core takes none (paused, closed, off). */
static void count_not_accepted(void) {
  counter_add(core_state_at_call() == CORE_PAUSED
                  ? CTR_PAUSED
                  : CTR_EVENT_WHILE_INACTIVE,
              1);
}

/* A slot comes back from the free stack cold when much memory was touched since it was last used
 * (NCCL's own work between operations). Its recovery fields, written at the numbering below, and
 * its first channels, written by their start events soon after, are asked for now, for writing,
 * so that those writes find them in cache (the header is written at once and fetched anyway). A
 * prefetch is a hint: no fault, no wait, no effect on what is read or written. */
static inline void prefetch_op_lines(op_slot* s, uint8_t n_channels) {
  __builtin_prefetch(&s->recov_state, 1, 3);
  uint32_t n = n_channels < 4 ? n_channels : 4;
  for (uint32_t i = 0; i < n; i++) {
    __builtin_prefetch(&s->ch[i], 1, 3);
    __builtin_prefetch((const char*)&s->ch[i] + sizeof(channel_slot) - 1, 1, 3);
  }
}

void* core_op_start(void* context, const core_op_event* ev) {
  comm_slot* c = core_has_tables() ? comm_table_lookup(&g_core.comms, context) : NULL;
  if (c == NULL) {
    if (!core_accepting()) count_not_accepted();
    else if (context != NULL) counter_add(CTR_UNKNOWN_CONTEXT, 1);
    return NULL;
  }
  /* Linked first, whatever becomes of the operation (paused, filtered): its call has its event. */
  thread_tag tag = {-1, 0};
  uint32_t api_sn = API_SN_UNKNOWN;
  bool tagged = false;
  if (ev->parent != NULL) {
    if (handle_tag(ev->parent) == HANDLE_TAG_LEDGER) {
      tagged = api_ledger_link(&g_core.ledger, ev->parent, c->serial, &tag, &api_sn);
    } else if (handle_tag(ev->parent) == HANDLE_TAG_API) {
      tag = tags_decode(ev->parent);
      tagged = true;
    }
  }
  if (!tagged) tag = tags_of_current_thread();
  int32_t rank = c->rank >= 0 ? c->rank : ev->rank;
  bool self_p2p = ev->kind == RECORD_KIND_P2P && rank >= 0 && ev->peer_or_root == rank;
  /* Whatever happens to this operation (paused, filtered, untracked P2P), a send/recv to self with
   * counted channels shifts NCCL's channel counters: note it first. */
  if (self_p2p && ev->channel_mode == CHANNELS_COUNTED) desync_note_self_p2p(c, ev->n_channels);
  /* Counted whatever becomes of it too: its work items reuse timestamp slots all the same. */
  uint64_t work_sn = late_read_number_op(c);
  /* Counted whatever becomes of it too: its launch's kernel runs it with the others (kernel_records.h). */
  uint64_t launch_id = ev->launch_id_given ? ev->launch_id : kernel_records_op_launch();
  uint8_t datatype = names_datatype_id(ev->datatype);
  uint32_t size = names_datatype_size(datatype);
  /* Numbered whatever becomes of it as well (channel_recovery.h): every operation adds work items. */
  uint8_t func = names_func_id(ev->func);
  recov_op_info rinfo = {ev->kind, func, ev->n_channels, ev->peer_or_root, rank,
                         (size == 0 || ev->count > UINT64_MAX / size) ? UINT64_MAX : ev->count * size,
                         ev->parent != NULL && handle_tag(ev->parent) == HANDLE_TAG_API &&
                             tags_graph_captured(ev->parent),
                         ev->copy_engine != 0};
  if (!core_accepting()) {
    recov_number_op(c, &rinfo, NULL, NULL);
    count_not_accepted();
    return NULL;
  }
  if (ev->kind == RECORD_KIND_P2P &&
      !atomic_load_explicit(&g_core.enable_p2p, memory_order_relaxed)) {
    recov_number_op(c, &rinfo, NULL, NULL);
    return NULL; /* not wanted: asked for only to see sends/receives to self */
  }
  if (size == 0 || ev->count > UINT64_MAX / size) {
    recov_number_op(c, &rinfo, NULL, NULL);
    counter_add(CTR_UNKNOWN_DATATYPE, 1);
    return NULL;
  }
  uint64_t bytes = ev->count * size;
  if (ev->count == 0 || bytes < core_min_size_at_call()) {
    recov_number_op(c, &rinfo, NULL, NULL);
    counter_add(CTR_BELOW_MIN_SIZE, 1);
    return NULL;
  }
  int64_t index = take_slot();
  if (index < 0) {
    recov_number_op(c, &rinfo, NULL, NULL);
    counter_add(CTR_OP_TABLE_FULL, 1);
    return NULL;
  }
  op_slot* s = &g_core.ops.slots[index];
  prefetch_op_lines(s, ev->n_channels);
  uint32_t static_flags = 0;
  if (datatype == DATATYPE_UNKNOWN_AS_UINT8) {
    static_flags |= RECORD_FLAG_UINT8_AS_UNKNOWN;
    counter_add(CTR_UINT8_AS_UNKNOWN, 1);
  }
  uint8_t expected = ev->channel_mode == CHANNELS_COUNTED     ? ev->n_channels
                     : ev->channel_mode == CHANNELS_UNCOUNTED ? EXPECT_UNCOUNTED
                                                              : 0;
  if (ev->copy_engine) static_flags |= RECORD_FLAG_COPY_ENGINE;
  if (ev->parent != NULL && handle_tag(ev->parent) == HANDLE_TAG_API && tags_graph_captured(ev->parent)) {
    static_flags |= RECORD_FLAG_GRAPH_LAUNCHED; /* its API call was captured: a graph replay runs it */
  }
  if (ev->func == NULL) counter_add(CTR_NULL_OPERATION_NAME, 1);
  if (self_p2p) {
    /* NCCL schedules no proxy or profiler op for a send/recv to itself: no channel will come. */
    static_flags |= RECORD_FLAG_SELF_P2P;
    expected = 0;
  }
  if (expected == 0) counter_add(CTR_COMPLETED_WITHOUT_KERNEL, 1);
  atomic_store_explicit(&s->callback_sn, 1, memory_order_relaxed);
  atomic_store_explicit(&s->clock_observed, 0, memory_order_relaxed);
  s->kind = ev->kind;
  s->func = func;
  s->datatype = datatype;
  s->algo = names_algo_id(ev->algo);
  s->proto = names_proto_id(ev->proto);
  s->n_channels = ev->n_channels;
  s->n_warps = ev->n_warps;
  s->expected_channels = expected;
  s->channel_mode = ev->channel_mode;
  s->last_channel_stop_ns = 0;
  s->static_flags = static_flags;
  s->peer_or_root = ev->peer_or_root;
  s->abi_version = c->abi_version;
  s->comm_serial = c->serial;
  s->comm_id = c->comm_id != 0 ? c->comm_id : ev->comm_hash;
  s->rank = rank;
  s->nranks = c->nranks;
  s->nnodes = c->nnodes;
  /* Relaxed: a per-communicator counter; only uniqueness and order per thread matter. */
  s->seq = ev->kind == RECORD_KIND_P2P
               ? atomic_fetch_add_explicit(&c->p2p_seq, 1, memory_order_relaxed)
               : ev->seq;
  s->count = ev->count;
  s->bytes = bytes;
  s->api_sn = api_sn;
  /* Relaxed: a flag with nothing to publish; an operation racing the first kernel events of its
   * communicator at most misses that they came. */
  s->comm_got_kernel_events = atomic_load_explicit(&c->got_kernel_events, memory_order_relaxed);
  s->step = tag.step;
  s->phase = tag.phase;
  s->clock_device = gpu_clock_device_slot(c->gpu.ordinal);
  s->comm_index = handle_index(context);
  s->comm_gen = handle_gen(context);
  s->lag_mask = desync_lagging_channels(c);
  s->work_sn = work_sn;
  s->launch_ns = launch_clock_last();
  s->launch_id = launch_id;
  s->start_ns = clock_mono_ns();
  s->stop_ns = 0;
  s->start_sn = 1;
  s->stop_sn = 0;
  /* Relaxed: the slot is not published yet (op_publish releases it). */
  atomic_store_explicit(&s->proxy_cells, 0, memory_order_relaxed);
  s->proxy_wait_since_ns = 0;
  /* Numbered last, with the handle it is about to get: a later operation may hand it timestamps
   * only once it is published (their events come after this one returns). */
  uint32_t gen = ctl_gen(atomic_load_explicit(&s->ctl, memory_order_relaxed));
  recov_number_op(c, &rinfo, s, handle_make(HANDLE_TAG_OP, (uint32_t)index, 0, gen));
  /* Waiting channels and a hold keep it open like channels (op_table.h's completion count). */
  if (s->channel_mode == CHANNELS_COUNTED) {
    uint32_t extra = (uint32_t)__builtin_popcountll(s->recov_wait) + s->recov_hold;
    s->expected_channels = (uint8_t)(s->expected_channels + extra);
  }
  return op_publish(&g_core.ops, (uint32_t)index);
}

/* Verbose mode numbers every callback of an operation and timestamps every one; otherwise CPU
 * times are only taken where GPU timestamps are missing or bad (they are the fallback), which
 * spares two thirds of the clock reads on the hot path. Relaxed: an independent setting. */
static inline int verbose(void) {
  return atomic_load_explicit(&g_core.verbose, memory_order_relaxed);
}

static inline uint16_t next_sn(op_slot* s) {
  if (!verbose()) return 0;
  /* Relaxed: numbers callbacks of one operation; the control word orders the data. */
  return (uint16_t)(atomic_fetch_add_explicit(&s->callback_sn, 1, memory_order_relaxed) + 1);
}

/* Whether a kernel-channel timestamp of operation s that NCCL has just read may be a later work
 * item's (channel_late_read.h). CUDA-graph replays are exempt: their operation events are made as
 * the replay runs, in bursts that say nothing of how far the GPU got (on 2 x H200, replays whose
 * channels were read 300 operation events later were right within 3.1-3.4 us of CUPTI). */
static inline bool read_late(const op_slot* s) {
  if (s->static_flags & RECORD_FLAG_GRAPH_LAUNCHED) return false;
  return late_read_possible(&g_core.comms.slots[s->comm_index], s->work_sn);
}

/* Whether every channel NCCL announced for the operation is in the lagging mask. */
static inline bool every_channel_lags(const op_slot* s, uint64_t lagging) {
  uint64_t announced = s->n_channels >= 64 ? ~0ull : (1ull << s->n_channels) - 1;
  return announced != 0 && (lagging & announced) == announced;
}

void* core_channel_start(void* parent, uint8_t channel_id, uint64_t gpu_start_ns) {
  if (parent == NULL) return NULL; /* the operation was not tracked (filtered or dropped) */
  if (handle_tag(parent) != HANDLE_TAG_OP || !core_has_tables()) {
    counter_add(CTR_INVALID_HANDLE, 1);
    return NULL;
  }
  uint32_t idx = 0;
  op_slot* s = op_enter_ex(&g_core.ops, parent, true, &idx);
  if (s == NULL) {
    counter_add(CTR_STALE_HANDLE, 1);
    return NULL;
  }
  void* handle = NULL;
  if (idx < INSPECTOR_MAX_CHANNELS) {
    channel_slot* ch = &s->ch[idx];
    ch->channel_id = channel_id;
    ch->gpu_start_ns = gpu_start_ns;
    ch->gpu_stop_ns = 0;
    /* Relaxed: numbering publishes the state with seq_cst (channel_recovery.c); a recovering
     * operation's readings are judged by the launch-bound guard instead (recov_channel_*). */
    uint8_t recov = atomic_load_explicit(&s->recov_state, memory_order_relaxed);
    ch->read_late = recov == RECOV_OP_NONE && gpu_start_ns != 0 && read_late(s);
    uint64_t lagging = recov == RECOV_OP_NUMBERED ? s->recov_wait : s->lag_mask;
    ch->cpu_start_ns = (gpu_start_ns == 0 || verbose()) ? clock_mono_ns() : 0;
    /* One observation of the GPU clock's offset per operation (gpu_clock_bound.h), from its first
     * channel not known to lag: a lagging channel's timestamp is an earlier item's, a valid but
     * weaker observation, taken only from an operation whose every announced channel lags (after
     * an AlltoAll over few channels, no operation has another). Relaxed exchange: a once-flag with
     * nothing to publish. */
    bool lags = channel_id < 64 && ((lagging >> channel_id) & 1);
    if (gpu_start_ns != 0 && (!lags || every_channel_lags(s, lagging)) &&
        !atomic_exchange_explicit(&s->clock_observed, 1, memory_order_relaxed)) {
      uint64_t now = ch->cpu_start_ns ? ch->cpu_start_ns : clock_mono_ns();
      gpu_clock_observe(s->clock_device, gpu_start_ns, clock_mono_to_wall_ns(now), now);
    }
    ch->cpu_record_ns = 0;
    ch->cpu_stop_ns = 0;
    ch->start_sn = next_sn(s);
    ch->record_sn = 0;
    ch->stop_sn = 0;
    atomic_store_explicit(&ch->state, CHANNEL_STARTED, memory_order_relaxed);
    recov_channel_started(s, idx);
    handle = handle_make(HANDLE_TAG_CHANNEL, handle_index(parent), idx, handle_gen(parent));
  } else {
    counter_add(CTR_TOO_MANY_CHANNELS, 1);
  }
  if (op_leave(s, 0, 0)) finish_op(s, 0);
  return handle;
}

void core_channel_gpu_stop(void* handle, uint64_t gpu_stop_ns) {
  if (handle == NULL) return;
  if (handle_tag(handle) != HANDLE_TAG_CHANNEL || proxy_handle_is(handle) || !core_has_tables()) {
    counter_add(CTR_INVALID_HANDLE, 1);
    return;
  }
  op_slot* s = op_enter(&g_core.ops, handle);
  if (s == NULL) {
    counter_add(CTR_STALE_HANDLE, 1);
    return;
  }
  channel_slot* ch = &s->ch[handle_channel(handle)];
  if (atomic_load_explicit(&ch->state, memory_order_relaxed) == CHANNEL_STARTED) {
    ch->gpu_stop_ns = gpu_stop_ns;
    bool recovering = atomic_load_explicit(&s->recov_state, memory_order_relaxed) != RECOV_OP_NONE;
    if (!recovering && gpu_stop_ns != 0 && read_late(s)) ch->read_late = 1;
    ch->cpu_record_ns = (verbose() || !op_timing_gpu_interval_ok(ch->gpu_start_ns, gpu_stop_ns)) ? clock_mono_ns() : 0;
    ch->record_sn = next_sn(s);
    atomic_store_explicit(&ch->state, CHANNEL_RECORDED, memory_order_relaxed);
    if (recovering) recov_channel_recorded(s, handle_channel(handle));
  } else {
    counter_add(CTR_DUPLICATE_STOP, 1);
  }
  if (op_leave(s, 0, 0)) finish_op(s, 0);
}

static void channel_stop(void* handle) {
  op_slot* s = op_enter(&g_core.ops, handle);
  if (s == NULL) {
    counter_add(CTR_STALE_HANDLE, 1);
    return;
  }
  channel_slot* ch = &s->ch[handle_channel(handle)];
  uint8_t state = atomic_load_explicit(&ch->state, memory_order_relaxed);
  uint32_t done = 0;
  if (state == CHANNEL_STARTED || state == CHANNEL_RECORDED) {
    ch->cpu_stop_ns = (verbose() || !op_timing_gpu_interval_ok(ch->gpu_start_ns, ch->gpu_stop_ns)) ? clock_mono_ns() : 0;
    if (s->channel_mode == CHANNELS_UNCOUNTED) {
      s->last_channel_stop_ns = ch->cpu_stop_ns ? ch->cpu_stop_ns : clock_mono_ns();
    }
    ch->stop_sn = next_sn(s);
    atomic_store_explicit(&ch->state, CHANNEL_STOPPED, memory_order_relaxed);
    done = 1;
  } else {
    counter_add(CTR_DUPLICATE_STOP, 1);
  }
  if (op_leave(s, 0, done)) finish_op(s, 0);
}

static void op_stop(void* handle) {
  op_slot* s = op_enter(&g_core.ops, handle);
  if (s == NULL) {
    counter_add(CTR_STALE_HANDLE, 1);
    return;
  }
  uint32_t flags = ctl_flags(atomic_load_explicit(&s->ctl, memory_order_relaxed));
  uint32_t add = 0;
  if (flags & OP_FLAG_STOPPED) {
    counter_add(CTR_DUPLICATE_STOP, 1);
  } else {
    /* The stop time matters for the verbose trace and for operations that complete at their
     * stop (no channels), whose CPU span it ends; other operations are timed by their channels. */
    s->stop_ns = (verbose() || s->expected_channels == 0) ? clock_mono_ns() : 0;
    s->stop_sn = next_sn(s);
    add = OP_FLAG_STOPPED;
    if (s->launch_id != 0) kernel_records_op_stopped(s->launch_id);
  }
  if (op_leave(s, add, 0)) finish_op(s, 0);
}

/* CollApi on the enqueuing thread. The call enters the API ledger (its handle then names the
 * entry, which carries the thread's tag); a graph capture, a call while the inspector takes nothing
 * or a full ledger gets the thread-tag handle. */
void* core_coll_api_start(void* context, const char* func_name, const char* datatype, uint64_t count,
                          int32_t root, bool graph_captured) {
  thread_tag tag = tags_of_current_thread();
  if (core_has_tables()) {
    comm_slot* c = comm_table_lookup(&g_core.comms, context);
    if (c != NULL) {
      uint8_t func = names_func_id(func_name);
      recov_note_api(c, func);
      if (!graph_captured && core_accepting()) {
        void* h = api_ledger_enter(&g_core.ledger, c, context, func, names_datatype_id(datatype), count, root,
                                   tag);
        if (h != NULL) return h;
      }
    }
  }
  return tags_encode(tag, graph_captured);
}

void* core_p2p_api_start(bool graph_captured) { return tags_encode(tags_of_current_thread(), graph_captured); }

void core_launch_note(void* context) {
  launch_clock_note();
  comm_slot* c = core_has_tables() ? comm_table_lookup(&g_core.comms, context) : NULL;
  if (c != NULL) recov_note_launch(c);
}

void* core_launch_start(void* context) {
  core_launch_note(context);
  /* With CUPTI kernel records on, the launch is named for CUPTI; its stop must come back to
   * unname it, so it gets a handle (NCCL calls stopEvent only for a non-NULL one). */
  return kernel_records_launch_start() ? KERNEL_LAUNCH_HANDLE : NULL;
}

void* core_event_start(void* context, const core_event* ev) {
  switch (ev->kind) {
    case CORE_EVENT_OP: return core_op_start(context, &ev->op);
    case CORE_EVENT_CHANNEL: return core_channel_start(ev->parent, ev->channel_id, ev->gpu_start_ns);
    default: return NULL; /* group, proxy and network events of v1-v3: no handle, so no children */
  }
}

void core_stop(void* handle) {
  if (handle == NULL) return;
  /* A launch named for CUPTI is unnamed whatever the core's state: CUPTI's stack of external ids
   * is the launching thread's, and one left on it would name that thread's later kernels. */
  if (handle == KERNEL_LAUNCH_HANDLE) {
    kernel_records_launch_stop();
    return;
  }
  if (!core_has_tables()) return;
  switch (handle_tag(handle)) {
    case HANDLE_TAG_OP: op_stop(handle); break;
    case HANDLE_TAG_CHANNEL:
      if (proxy_handle_is(handle)) {
        proxy_stop(handle);
      } else {
        channel_stop(handle);
      }
      break;
    case HANDLE_TAG_API: break;    /* a thread tag: nothing to stop */
    case HANDLE_TAG_LEDGER: /* a collective call: its operation event links it */
      if (!api_ledger_handle_in_range(&g_core.ledger, handle)) counter_add(CTR_INVALID_HANDLE, 1);
      break;
    default: counter_add(CTR_INVALID_HANDLE, 1); break;
  }
}
