package io.ncclinspector.internal;

import io.ncclinspector.nativecore.NativeLayout;

/**
 * Byte offsets of the raw event recording's {@code trace_event} (trace_recorder.h), as the native
 * core exports them by name ("trace.*"), each checked against the width it is read with.
 */
final class TraceEventLayout {
  static final int EV, ABI_VERSION, TID, TYPE, T_MONO, T_WALL, CONTEXT, HANDLE, PARENT, PARENT_GROUP, RANK, PEER_OR_ROOT, A,
    COUNT, N_CHANNELS, N_WARPS, CHANNEL_ID, GRAPH_CAPTURED, STATE, NNODES, NRANKS, I0, I1, I2, I3, STREAM, FUNC,
    DATATYPE, ALGO, PROTO, COMM_NAME, EVENT_BYTES, EV_INIT, EV_START, EV_STOP, EV_STATE;
  /** Bytes of each name field (func, datatype, algo, proto) and of the communicator name. */
  static final int STRING_BYTES, COMM_NAME_BYTES;

  static {
    NativeLayout l = NativeCore.get().layoutTable();
    EV = l.field("trace.ev", 1);
    ABI_VERSION = l.field("trace.abi_version", 1);
    TID = l.field("trace.tid", 4);
    TYPE = l.field("trace.type", 4);
    T_MONO = l.field("trace.t_mono", 8);
    T_WALL = l.field("trace.t_wall", 8);
    CONTEXT = l.field("trace.context", 8);
    HANDLE = l.field("trace.handle", 8);
    PARENT = l.field("trace.parent", 8);
    PARENT_GROUP = l.field("trace.parent_group", 8);
    RANK = l.field("trace.rank", 4);
    PEER_OR_ROOT = l.field("trace.peer_or_root", 4);
    A = l.field("trace.a", 8);
    COUNT = l.field("trace.count", 8);
    N_CHANNELS = l.field("trace.n_channels", 1);
    N_WARPS = l.field("trace.n_warps", 1);
    CHANNEL_ID = l.field("trace.channel_id", 1);
    GRAPH_CAPTURED = l.field("trace.graph_captured", 1);
    STATE = l.field("trace.state", 4);
    NNODES = l.field("trace.nnodes", 4);
    NRANKS = l.field("trace.nranks", 4);
    I0 = l.field("trace.i0", 4);
    I1 = l.field("trace.i1", 4);
    I2 = l.field("trace.i2", 4);
    I3 = l.field("trace.i3", 4);
    STREAM = l.field("trace.stream", 8);
    FUNC = l.field("trace.func", -1);
    STRING_BYTES = l.size("trace.func");
    DATATYPE = l.field("trace.datatype", STRING_BYTES);
    ALGO = l.field("trace.algo", STRING_BYTES);
    PROTO = l.field("trace.proto", STRING_BYTES);
    COMM_NAME = l.field("trace.comm_name", -1);
    COMM_NAME_BYTES = l.size("trace.comm_name");
    EVENT_BYTES = l.constant("trace_event_bytes");
    EV_INIT = l.constant("trace_ev_init");
    EV_START = l.constant("trace_ev_start");
    EV_STOP = l.constant("trace_ev_stop");
    EV_STATE = l.constant("trace_ev_state");
  }

  private TraceEventLayout() {}
}
