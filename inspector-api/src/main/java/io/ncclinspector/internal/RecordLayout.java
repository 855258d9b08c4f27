package io.ncclinspector.internal;

import io.ncclinspector.nativecore.NativeLayout;

/**
 * Byte offsets of the structures read from native memory (record_format.h, inflight_query.h), as
 * the native library exports them by field name, never written down on this side: every field is
 * looked up by its name and its size checked against the width it is read with, once, at load. A
 * library from another build that lacks a field, or changed its width, fails loudly here.
 */
public final class RecordLayout {
  private final NativeLayout table;

  /* Operation records: op.* */
  final int kind, cells, func, datatype, algo, proto, timingSource, nChannels, channelsSeen, nWarps,
      flags, commSerial, commId, rank, nranks, nnodes, peerOrRoot, seq, count, bytes, execNs,
      startWallNs, stopWallNs, completeWallNs, gpuStartNs, gpuSpanNs, startSn, stopSn, abiVersion,
      quarantineReason, gpuSkewNs, step, phase, channelsDesynced, launchWallNs, untimedReason, apiSn,
      timeRecovery, channelsRecovered, maxChannelLag, withheldReason, recoveryOffReason,
      netCells, launchId;
  /* CUPTI kernel records: kernel.* (one cell) */
  final int krOps, krLaunchId, krStartNs, krEndNs;
  /* Their network cells: the summary (net.*), then verbose proxy details (proxy.*) */
  final int netBytesSent, netBytesReceived, netFirstPostWallNs, netLastDoneWallNs, netSendGpuWaitNs,
      netRecvWaitNs, netLastArrivalWallNs, netSlowestPeer, netSlowestChannel, netProxyOps,
      netProxyOpsTracked, netDetailCells;
  final int pxPeer, pxChannelId, pxIsSend, pxStepsDone, pxNSteps, pxSteps, pxBytes, pxFirstPostWallNs,
      pxFirstReadyWallNs, pxLastReadyWallNs, pxDoneWallNs, pxRingSteps;
  /* The summary's second cell (netwait.*) and the verbose steps (step.*, two per cell). */
  final int nwSendPeerWaitNs, nwRecvFlushNs, nwProxyLagNs, nwSendPeerWaitMaxNs, nwRecvFlushMaxNs,
      nwProxyLagMaxNs, nwPeerWaitPeer, nwPeerWaitChannel, nwKnown, nwStepCells, nwSteps;
  final int stDetail, stState, stStep, stStartWallNs, stPostNs, stWaitNs, stMoveNs, stDoneNs, stepRecordBytes;
  /* Their verbose channel cells: channel.* */
  final int chChannelId, chState, chStartSn, chRecordSn, chStopSn, chStartWallNs, chRecordWallNs,
      chStopWallNs, chGpuStartNs, chGpuStopNs, chDesync;
  /* Communicator records: comm.* */
  final int commNameLength, commAbiVersion, commNcclVersion, commEventWallNs, commCudaDevice, commGpuUuid, commName;
  /* In-flight entries (the hang watchdog): inflight.* */
  final int inflightCommSerial, inflightCommId, inflightSeq, inflightStartWallNs, inflightAgeNs,
      inflightStep, inflightPhase, inflightKind, inflightFunc, inflightChannelsStarted,
      inflightChannelsDone, inflightStopped, inflightNChannels, inflightPeerOrRoot;
  /* Constants. */
  final int cellBytes, opHeaderCells, commNameMax, inflightEntryBytes, kindColl, kindP2p,
      kindCommCreated, kindCommDestroyed, kindKernel, gpuUuidMax;

  RecordLayout(NativeLayout table) {
    this.table = table;
    kind = field("op.kind", 2);
    cells = field("op.cells", 2);
    func = field("op.func", 1);
    datatype = field("op.datatype", 1);
    algo = field("op.algo", 1);
    proto = field("op.proto", 1);
    timingSource = field("op.timing_source", 1);
    nChannels = field("op.n_channels", 1);
    channelsSeen = field("op.channels_seen", 1);
    nWarps = field("op.n_warps", 1);
    flags = field("op.flags", 4);
    commSerial = field("op.comm_serial", 8);
    commId = field("op.comm_id", 8);
    rank = field("op.rank", 4);
    nranks = field("op.nranks", 4);
    nnodes = field("op.nnodes", 4);
    peerOrRoot = field("op.peer_or_root", 4);
    seq = field("op.seq", 8);
    count = field("op.count", 8);
    bytes = field("op.bytes", 8);
    execNs = field("op.exec_ns", 8);
    startWallNs = field("op.start_wall_ns", 8);
    stopWallNs = field("op.stop_wall_ns", 8);
    completeWallNs = field("op.complete_wall_ns", 8);
    gpuStartNs = field("op.gpu_start_ns", 8);
    gpuSpanNs = field("op.gpu_span_ns", 8);
    startSn = field("op.start_sn", 2);
    stopSn = field("op.stop_sn", 2);
    abiVersion = field("op.abi_version", 1);
    quarantineReason = field("op.quarantine_reason", 1);
    gpuSkewNs = field("op.gpu_skew_ns", 8);
    step = field("op.step", 8);
    phase = field("op.phase", 2);
    channelsDesynced = field("op.channels_desynced", 1);
    launchWallNs = field("op.launch_wall_ns", 8);
    untimedReason = field("op.untimed_reason", 1);
    apiSn = field("op.api_sn", 4);
    netCells = field("op.net_cells", 1);
    timeRecovery = field("op.time_recovery", 1);
    channelsRecovered = field("op.channels_recovered", 1);
    maxChannelLag = field("op.max_channel_lag", 1);
    withheldReason = field("op.withheld_reason", 1);
    recoveryOffReason = field("op.recovery_off_reason", 1);
    launchId = field("op.launch_id", 8);
    krOps = field("kernel.ops", 4);
    krLaunchId = field("kernel.launch_id", 8);
    krStartNs = field("kernel.start_ns", 8);
    krEndNs = field("kernel.end_ns", 8);
    netBytesSent = field("net.bytes_sent", 8);
    netBytesReceived = field("net.bytes_received", 8);
    netFirstPostWallNs = field("net.first_post_wall_ns", 8);
    netLastDoneWallNs = field("net.last_done_wall_ns", 8);
    netSendGpuWaitNs = field("net.send_gpu_wait_ns", 8);
    netRecvWaitNs = field("net.recv_wait_ns", 8);
    netLastArrivalWallNs = field("net.last_arrival_wall_ns", 8);
    netSlowestPeer = field("net.slowest_peer", 4);
    netSlowestChannel = field("net.slowest_channel", 1);
    netProxyOps = field("net.proxy_ops", 1);
    netProxyOpsTracked = field("net.proxy_ops_tracked", 1);
    netDetailCells = field("net.detail_cells", 1);
    pxPeer = field("proxy.peer", 4);
    pxChannelId = field("proxy.channel_id", 1);
    pxIsSend = field("proxy.is_send", 1);
    pxStepsDone = field("proxy.steps_done", 2);
    pxNSteps = field("proxy.n_steps", 2);
    pxSteps = field("proxy.steps", 4);
    pxBytes = field("proxy.bytes", 8);
    pxFirstPostWallNs = field("proxy.first_post_wall_ns", 8);
    pxFirstReadyWallNs = field("proxy.first_ready_wall_ns", 8);
    pxLastReadyWallNs = field("proxy.last_ready_wall_ns", 8);
    pxDoneWallNs = field("proxy.done_wall_ns", 8);
    pxRingSteps = field("proxy.ring_steps", 1);
    nwSendPeerWaitNs = field("netwait.send_peer_wait_ns", 8);
    nwRecvFlushNs = field("netwait.recv_flush_ns", 8);
    nwProxyLagNs = field("netwait.proxy_lag_ns", 8);
    nwSendPeerWaitMaxNs = field("netwait.send_peer_wait_max_ns", 4);
    nwRecvFlushMaxNs = field("netwait.recv_flush_max_ns", 4);
    nwProxyLagMaxNs = field("netwait.proxy_lag_max_ns", 4);
    nwPeerWaitPeer = field("netwait.peer_wait_peer", 4);
    nwPeerWaitChannel = field("netwait.peer_wait_channel", 1);
    nwKnown = field("netwait.known", 1);
    nwStepCells = field("netwait.step_cells", 2);
    nwSteps = field("netwait.steps", 4);
    stDetail = field("step.detail", 1);
    stState = field("step.state", 1);
    stStep = field("step.step", 4);
    stStartWallNs = field("step.start_wall_ns", 8);
    stPostNs = field("step.post_ns", 4);
    stWaitNs = field("step.wait_ns", 4);
    stMoveNs = field("step.move_ns", 4);
    stDoneNs = field("step.done_ns", 4);
    chChannelId = field("channel.channel_id", 1);
    chState = field("channel.state", 1);
    chStartSn = field("channel.start_sn", 2);
    chRecordSn = field("channel.record_sn", 2);
    chStopSn = field("channel.stop_sn", 2);
    chStartWallNs = field("channel.start_wall_ns", 8);
    chRecordWallNs = field("channel.record_wall_ns", 8);
    chStopWallNs = field("channel.stop_wall_ns", 8);
    chGpuStartNs = field("channel.gpu_start_ns", 8);
    chGpuStopNs = field("channel.gpu_stop_ns", 8);
    chDesync = field("channel.desync", 1);
    field("comm.kind", 2);
    field("comm.cells", 2);
    commNameLength = field("comm.name_length", 4);
    commAbiVersion = field("comm.abi_version", 4);
    commNcclVersion = field("comm.nccl_version", 4);
    field("comm.comm_serial", 8);
    field("comm.comm_id", 8);
    field("comm.rank", 4);
    field("comm.nranks", 4);
    field("comm.nnodes", 4);
    commEventWallNs = field("comm.event_wall_ns", 8);
    commCudaDevice = field("comm.cuda_device", 4);
    commGpuUuid = field("comm.gpu_uuid", -1);
    gpuUuidMax = size("comm.gpu_uuid");
    commName = field("comm.name", -1);
    inflightCommSerial = field("inflight.comm_serial", 8);
    inflightCommId = field("inflight.comm_id", 8);
    inflightSeq = field("inflight.seq", 8);
    inflightStartWallNs = field("inflight.start_wall_ns", 8);
    inflightAgeNs = field("inflight.age_ns", 8);
    inflightStep = field("inflight.step", 8);
    inflightPhase = field("inflight.phase", 2);
    inflightKind = field("inflight.kind", 1);
    inflightFunc = field("inflight.func", 1);
    inflightChannelsStarted = field("inflight.channels_started", 1);
    inflightChannelsDone = field("inflight.channels_done", 1);
    inflightStopped = field("inflight.stopped", 1);
    inflightNChannels = field("inflight.n_channels", 1);
    inflightPeerOrRoot = field("inflight.peer_or_root", 4);
    cellBytes = constant("cell_bytes");
    stepRecordBytes = constant("step_record_bytes");
    opHeaderCells = constant("op_header_cells");
    commNameMax = constant("comm_name_max");
    inflightEntryBytes = constant("inflight_entry_bytes");
    kindColl = constant("kind_coll");
    kindP2p = constant("kind_p2p");
    kindCommCreated = constant("kind_comm_created");
    kindCommDestroyed = constant("kind_comm_destroyed");
    kindKernel = constant("kind_kernel");
    /* The communicator record shares the header the decoder reads first. */
    if (field("comm.kind", 2) != kind || field("comm.cells", 2) != cells) {
      throw new IllegalStateException("native records do not share their kind/cells header");
    }
  }

  private int field(String name, int width) {
    return table.field(name, width);
  }

  private int size(String name) {
    return table.size(name);
  }

  private int constant(String name) {
    return table.constant(name);
  }

  /** Size in bytes of one ring cell. */
  public int cellBytes() {
    return cellBytes;
  }
}
