package io.ncclinspector.replay;

import io.ncclinspector.nativecore.NativeLayout;
import io.ncclinspector.testkit.driver.ProfilerTableDriver;

/**
 * Byte offsets of the table driver's packed event ({@code driver_event}), as the driver library
 * exports them by name ({@code driver_layout.c}), each checked against the width it is written or
 * read with. The trace reader packs events with them and the player scans them.
 */
final class DriverEventLayout {
  /** The layout as the driver library exports it ("driver.*"). */
  static final NativeLayout LAYOUT = NativeLayout.read("the table driver", ProfilerTableDriver.layoutCount(),
      ProfilerTableDriver::layoutName, ProfilerTableDriver::layoutOffset, ProfilerTableDriver::layoutSize);
  /** Bytes of one packed event ({@code driver_event}). */
  static final int EVENT_BYTES = LAYOUT.constant("driver_event_bytes");
  /** The largest handle or context id a trace may use ({@code DRIVER_MAX_ID}). */
  static final int MAX_ID = LAYOUT.constant("driver_max_id");

  static final int OP, N_CHANNELS, N_WARPS, CHANNEL_ID, TYPE, CTX, HANDLE, PARENT, PARENT_GROUP, RANK,
      PEER_OR_ROOT, T_MONO, T_WALL, A, COUNT, FUNC, DATATYPE, ALGO, PROTO, STATE, NNODES, NRANKS, I0, I1, I2, I3,
      GRAPH_CAPTURED, TID;
  static final int OP_INIT, OP_START, OP_STOP, OP_STATE, OP_FINI;

  static {
    NativeLayout l = LAYOUT;
    OP = l.field("driver.op", 1);
    N_CHANNELS = l.field("driver.n_channels", 1);
    N_WARPS = l.field("driver.n_warps", 1);
    CHANNEL_ID = l.field("driver.channel_id", 1);
    TYPE = l.field("driver.type", 4);
    CTX = l.field("driver.ctx", 4);
    HANDLE = l.field("driver.handle", 4);
    PARENT = l.field("driver.parent", 4);
    PARENT_GROUP = l.field("driver.parent_group", 4);
    RANK = l.field("driver.rank", 4);
    PEER_OR_ROOT = l.field("driver.peer_or_root", 4);
    T_MONO = l.field("driver.t_mono", 8);
    T_WALL = l.field("driver.t_wall", 8);
    A = l.field("driver.a", 8);
    COUNT = l.field("driver.count", 8);
    FUNC = l.field("driver.func", 2);
    DATATYPE = l.field("driver.datatype", 2);
    ALGO = l.field("driver.algo", 2);
    PROTO = l.field("driver.proto", 2);
    STATE = l.field("driver.state", 4);
    NNODES = l.field("driver.nnodes", 4);
    NRANKS = l.field("driver.nranks", 4);
    I0 = l.field("driver.i0", 4);
    I1 = l.field("driver.i1", 4);
    I2 = l.field("driver.i2", 4);
    I3 = l.field("driver.i3", 4);
    GRAPH_CAPTURED = l.field("driver.graph_captured", 1);
    TID = l.field("driver.tid", 4);
    OP_INIT = l.constant("driver_op_init");
    OP_START = l.constant("driver_op_start");
    OP_STOP = l.constant("driver_op_stop");
    OP_STATE = l.constant("driver_op_state");
    OP_FINI = l.constant("driver_op_fini");
  }

  private DriverEventLayout() {}
}
