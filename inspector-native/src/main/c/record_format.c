#include "record_format.h"

int record_layout_offset(int field) {
  switch (field) {
    case LAYOUT_KIND: return offsetof(op_record, kind);
    case LAYOUT_CELLS: return offsetof(op_record, cells);
    case LAYOUT_FUNC: return offsetof(op_record, func);
    case LAYOUT_DATATYPE: return offsetof(op_record, datatype);
    case LAYOUT_ALGO: return offsetof(op_record, algo);
    case LAYOUT_PROTO: return offsetof(op_record, proto);
    case LAYOUT_TIMING_SOURCE: return offsetof(op_record, timing_source);
    case LAYOUT_N_CHANNELS: return offsetof(op_record, n_channels);
    case LAYOUT_CHANNELS_SEEN: return offsetof(op_record, channels_seen);
    case LAYOUT_N_WARPS: return offsetof(op_record, n_warps);
    case LAYOUT_FLAGS: return offsetof(op_record, flags);
    case LAYOUT_COMM_SERIAL: return offsetof(op_record, comm_serial);
    case LAYOUT_COMM_ID: return offsetof(op_record, comm_id);
    case LAYOUT_RANK: return offsetof(op_record, rank);
    case LAYOUT_NRANKS: return offsetof(op_record, nranks);
    case LAYOUT_NNODES: return offsetof(op_record, nnodes);
    case LAYOUT_PEER_OR_ROOT: return offsetof(op_record, peer_or_root);
    case LAYOUT_SEQ: return offsetof(op_record, seq);
    case LAYOUT_COUNT: return offsetof(op_record, count);
    case LAYOUT_BYTES: return offsetof(op_record, bytes);
    case LAYOUT_EXEC_NS: return offsetof(op_record, exec_ns);
    case LAYOUT_START_WALL_NS: return offsetof(op_record, start_wall_ns);
    case LAYOUT_STOP_WALL_NS: return offsetof(op_record, stop_wall_ns);
    case LAYOUT_COMPLETE_WALL_NS: return offsetof(op_record, complete_wall_ns);
    case LAYOUT_GPU_START_NS: return offsetof(op_record, gpu_start_ns);
    case LAYOUT_GPU_SPAN_NS: return offsetof(op_record, gpu_span_ns);
    case LAYOUT_START_SN: return offsetof(op_record, start_sn);
    case LAYOUT_STOP_SN: return offsetof(op_record, stop_sn);
    case LAYOUT_ABI_VERSION: return offsetof(op_record, abi_version);
    case LAYOUT_CH_CHANNEL_ID: return offsetof(channel_record, channel_id);
    case LAYOUT_CH_STATE: return offsetof(channel_record, state);
    case LAYOUT_CH_START_SN: return offsetof(channel_record, start_sn);
    case LAYOUT_CH_RECORD_SN: return offsetof(channel_record, record_sn);
    case LAYOUT_CH_STOP_SN: return offsetof(channel_record, stop_sn);
    case LAYOUT_CH_START_WALL_NS: return offsetof(channel_record, start_wall_ns);
    case LAYOUT_CH_RECORD_WALL_NS: return offsetof(channel_record, record_wall_ns);
    case LAYOUT_CH_STOP_WALL_NS: return offsetof(channel_record, stop_wall_ns);
    case LAYOUT_CH_GPU_START_NS: return offsetof(channel_record, gpu_start_ns);
    case LAYOUT_CH_GPU_STOP_NS: return offsetof(channel_record, gpu_stop_ns);
    case LAYOUT_COMM_NAME_LENGTH: return offsetof(comm_record, name_length);
    case LAYOUT_COMM_ABI_VERSION: return offsetof(comm_record, abi_version);
    case LAYOUT_COMM_EVENT_WALL_NS: return offsetof(comm_record, event_wall_ns);
    case LAYOUT_COMM_NAME: return offsetof(comm_record, name);
    case LAYOUT_CELL_BYTES: return INSPECTOR_CELL_BYTES;
    case LAYOUT_COMM_NAME_MAX: return INSPECTOR_COMM_NAME_MAX;
    case LAYOUT_QUARANTINE_REASON: return offsetof(op_record, quarantine_reason);
    case LAYOUT_GPU_SKEW_NS: return offsetof(op_record, gpu_skew_ns);
    case LAYOUT_OP_HEADER_CELLS: return OP_RECORD_CELLS;
    case LAYOUT_STEP: return offsetof(op_record, step);
    case LAYOUT_PHASE: return offsetof(op_record, phase);
    case LAYOUT_COMM_CUDA_DEVICE: return offsetof(comm_record, cuda_device);
    case LAYOUT_COMM_GPU_UUID: return offsetof(comm_record, gpu_uuid);
    case LAYOUT_CHANNELS_DESYNCED: return offsetof(op_record, channels_desynced);
    case LAYOUT_LAUNCH_WALL_NS: return offsetof(op_record, launch_wall_ns);
    case LAYOUT_CH_DESYNC: return offsetof(channel_record, desync);
    default: return -1;
  }
}
