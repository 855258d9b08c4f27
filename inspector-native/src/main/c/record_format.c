#include "record_format.h"

#include "inflight_query.h"
#include "trace_recorder.h"

typedef struct layout_entry {
  const char* name;
  int offset;
  int size;
} layout_entry;

#define FIELD(prefix, type, f) {prefix "." #f, (int)offsetof(type, f), (int)sizeof(((type*)0)->f)}
#define OP(f) FIELD("op", op_record, f)
#define CH(f) FIELD("channel", channel_record, f)
#define NET(f) FIELD("net", net_record, f)
#define PX(f) FIELD("proxy", proxy_detail_record, f)
#define NW(f) FIELD("netwait", net_wait_record, f)
#define PS(f) FIELD("step", proxy_step_record, f)
#define COMM(f) FIELD("comm", comm_record, f)
#define KR(f) FIELD("kernel", kernel_record, f)
#define INFLIGHT(f) FIELD("inflight", inflight_entry, f)
#define TRACE(f) FIELD("trace", trace_event, f)
#define CONSTANT(name, value) {name, (int)(value), 0}

static const layout_entry layout[] = {
    OP(kind), OP(cells), OP(func), OP(datatype), OP(algo), OP(proto), OP(timing_source),
    OP(n_channels), OP(channels_seen), OP(n_warps), OP(flags), OP(comm_serial), OP(comm_id),
    OP(rank), OP(nranks), OP(nnodes), OP(peer_or_root), OP(seq), OP(count), OP(bytes), OP(exec_ns),
    OP(start_wall_ns), OP(stop_wall_ns), OP(complete_wall_ns), OP(gpu_start_ns), OP(gpu_span_ns),
    OP(start_sn), OP(stop_sn), OP(abi_version), OP(quarantine_reason), OP(gpu_skew_ns), OP(step),
    OP(phase), OP(channels_desynced), OP(launch_wall_ns), OP(untimed_reason), OP(api_sn), OP(net_cells),
    OP(time_recovery), OP(channels_recovered), OP(max_channel_lag), OP(withheld_reason), OP(recovery_off_reason),
    OP(launch_id), KR(ops), KR(launch_id), KR(start_ns), KR(end_ns), KR(device), KR(stream), KR(correlation_id),
    NET(bytes_sent), NET(bytes_received), NET(first_post_wall_ns), NET(last_done_wall_ns),
    NET(send_gpu_wait_ns), NET(recv_wait_ns), NET(last_arrival_wall_ns), NET(slowest_peer),
    NET(slowest_channel), NET(proxy_ops), NET(proxy_ops_tracked), NET(detail_cells),
    PX(peer), PX(channel_id), PX(is_send), PX(steps_done), PX(n_steps), PX(steps), PX(bytes),
    PX(first_post_wall_ns), PX(first_ready_wall_ns), PX(last_ready_wall_ns), PX(done_wall_ns),
    PX(ring_steps),
    NW(send_peer_wait_ns), NW(recv_flush_ns), NW(proxy_lag_ns), NW(send_peer_wait_max_ns),
    NW(recv_flush_max_ns), NW(proxy_lag_max_ns), NW(peer_wait_peer), NW(peer_wait_channel), NW(known),
    NW(step_cells), NW(steps), NW(peer_wait_steps), NW(flush_steps), NW(lag_steps),
    PS(detail), PS(state), PS(step), PS(start_wall_ns), PS(post_ns), PS(wait_ns), PS(move_ns), PS(done_ns),
    CONSTANT("step_record_bytes", sizeof(proxy_step_record)),
    CH(channel_id), CH(state), CH(start_sn), CH(record_sn), CH(stop_sn), CH(start_wall_ns),
    CH(record_wall_ns), CH(stop_wall_ns), CH(gpu_start_ns), CH(gpu_stop_ns), CH(desync),
    COMM(kind), COMM(cells), COMM(name_length), COMM(abi_version), COMM(nccl_version), COMM(comm_serial), COMM(comm_id),
    COMM(rank), COMM(nranks), COMM(nnodes), COMM(event_wall_ns), COMM(cuda_device), COMM(gpu_uuid),
    COMM(name),
    INFLIGHT(comm_serial), INFLIGHT(comm_id), INFLIGHT(seq), INFLIGHT(start_wall_ns),
    INFLIGHT(age_ns), INFLIGHT(step), INFLIGHT(phase), INFLIGHT(kind), INFLIGHT(func),
    INFLIGHT(channels_started), INFLIGHT(channels_done), INFLIGHT(stopped), INFLIGHT(n_channels),
    INFLIGHT(peer_or_root),
    CONSTANT("cell_bytes", INSPECTOR_CELL_BYTES), CONSTANT("op_header_cells", OP_RECORD_CELLS),
    CONSTANT("comm_name_max", INSPECTOR_COMM_NAME_MAX), CONSTANT("inflight_entry_bytes", sizeof(inflight_entry)),
    CONSTANT("kind_coll", RECORD_KIND_COLL), CONSTANT("kind_p2p", RECORD_KIND_P2P),
    CONSTANT("kind_comm_created", RECORD_KIND_COMM_CREATED),
    CONSTANT("kind_comm_destroyed", RECORD_KIND_COMM_DESTROYED), CONSTANT("kind_kernel", RECORD_KIND_KERNEL),
    /* The raw event recording's events (trace_recorder.h). */
    TRACE(ev), TRACE(abi_version), TRACE(n_channels), TRACE(n_warps), TRACE(tid), TRACE(type),
    TRACE(t_mono), TRACE(t_wall), TRACE(context), TRACE(handle), TRACE(parent), TRACE(parent_group),
    TRACE(rank), TRACE(peer_or_root), TRACE(a), TRACE(count), TRACE(channel_id),
    TRACE(graph_captured), TRACE(state), TRACE(nnodes), TRACE(nranks), TRACE(i0), TRACE(i1),
    TRACE(i2), TRACE(i3), TRACE(stream), TRACE(func), TRACE(datatype), TRACE(algo), TRACE(proto),
    TRACE(comm_name),
    CONSTANT("trace_event_bytes", sizeof(trace_event)), CONSTANT("trace_ev_init", TRACE_EV_INIT),
    CONSTANT("trace_ev_start", TRACE_EV_START), CONSTANT("trace_ev_stop", TRACE_EV_STOP),
    CONSTANT("trace_ev_state", TRACE_EV_STATE), CONSTANT("trace_ev_fini", TRACE_EV_FINI),
};

_Static_assert(sizeof(layout) / sizeof(layout[0]) < 256, "a small table");
/* Fields whose common header the decoder reads before it knows the record's kind. */
_Static_assert(sizeof(kernel_record) == INSPECTOR_CELL_BYTES, "a kernel record is one cell");
_Static_assert(offsetof(op_record, kind) == offsetof(kernel_record, kind) &&
                   offsetof(op_record, cells) == offsetof(kernel_record, cells),
               "every record starts with its kind and cell count");
_Static_assert(offsetof(op_record, kind) == offsetof(comm_record, kind) &&
                   offsetof(op_record, cells) == offsetof(comm_record, cells),
               "every record starts with its kind and cell count");

int record_layout_count(void) { return (int)(sizeof(layout) / sizeof(layout[0])); }

const char* record_layout_name(int i) {
  return (i < 0 || i >= record_layout_count()) ? NULL : layout[i].name;
}

int record_layout_offset(int i) { return (i < 0 || i >= record_layout_count()) ? -1 : layout[i].offset; }

int record_layout_size(int i) { return (i < 0 || i >= record_layout_count()) ? -1 : layout[i].size; }
