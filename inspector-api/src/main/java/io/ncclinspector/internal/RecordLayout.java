package io.ncclinspector.internal;

import io.ncclinspector.nativecore.InspectorNative;

/**
 * Byte offsets of the ring records (record_format.h), read from the native library rather than
 * written down twice. The field order mirrors {@code layout_field} in record_format.h; a count
 * mismatch (a library from another build) fails loudly at load.
 */
public final class RecordLayout {
  private static final String[] FIELDS = {
    "kind", "cells", "func", "datatype", "algo", "proto", "timing_source", "n_channels",
    "channels_seen", "n_warps", "flags", "comm_serial", "comm_id", "rank", "nranks", "nnodes",
    "peer_or_root", "seq", "count", "bytes", "exec_ns", "start_wall_ns", "stop_wall_ns",
    "complete_wall_ns", "gpu_start_ns", "gpu_span_ns", "start_sn", "stop_sn", "abi_version",
    "ch_channel_id", "ch_state", "ch_start_sn", "ch_record_sn", "ch_stop_sn", "ch_start_wall_ns",
    "ch_record_wall_ns", "ch_stop_wall_ns", "ch_gpu_start_ns", "ch_gpu_stop_ns",
    "comm_name_length", "comm_abi_version", "comm_event_wall_ns", "comm_name", "cell_bytes",
    "comm_name_max", "quarantine_reason", "gpu_skew_ns", "op_header_cells", "step", "phase",
    "comm_cuda_device", "comm_gpu_uuid", "channels_desynced", "launch_wall_ns", "ch_desync"
  };

  final int kind, cells, func, datatype, algo, proto, timingSource, nChannels, channelsSeen, nWarps,
      flags, commSerial, commId, rank, nranks, nnodes, peerOrRoot, seq, count, bytes, execNs,
      startWallNs, stopWallNs, completeWallNs, gpuStartNs, gpuSpanNs, startSn, stopSn, abiVersion,
      chChannelId, chState, chStartSn, chRecordSn, chStopSn, chStartWallNs, chRecordWallNs,
      chStopWallNs, chGpuStartNs, chGpuStopNs, commNameLength, commAbiVersion, commEventWallNs,
      commName, cellBytes, commNameMax, quarantineReason, gpuSkewNs, opHeaderCells, step, phase,
      commCudaDevice, commGpuUuid, channelsDesynced, launchWallNs, chDesync;

  private RecordLayout(int[] o) {
    int i = 0;
    kind = o[i++]; cells = o[i++]; func = o[i++]; datatype = o[i++]; algo = o[i++];
    proto = o[i++]; timingSource = o[i++]; nChannels = o[i++]; channelsSeen = o[i++];
    nWarps = o[i++]; flags = o[i++]; commSerial = o[i++]; commId = o[i++]; rank = o[i++];
    nranks = o[i++]; nnodes = o[i++]; peerOrRoot = o[i++]; seq = o[i++]; count = o[i++];
    bytes = o[i++]; execNs = o[i++]; startWallNs = o[i++]; stopWallNs = o[i++];
    completeWallNs = o[i++]; gpuStartNs = o[i++]; gpuSpanNs = o[i++]; startSn = o[i++];
    stopSn = o[i++]; abiVersion = o[i++]; chChannelId = o[i++]; chState = o[i++];
    chStartSn = o[i++]; chRecordSn = o[i++]; chStopSn = o[i++]; chStartWallNs = o[i++];
    chRecordWallNs = o[i++]; chStopWallNs = o[i++]; chGpuStartNs = o[i++]; chGpuStopNs = o[i++];
    commNameLength = o[i++]; commAbiVersion = o[i++]; commEventWallNs = o[i++]; commName = o[i++];
    cellBytes = o[i++]; commNameMax = o[i++]; quarantineReason = o[i++]; gpuSkewNs = o[i++];
    opHeaderCells = o[i++]; step = o[i++]; phase = o[i++];
    commCudaDevice = o[i++]; commGpuUuid = o[i++];
    channelsDesynced = o[i++]; launchWallNs = o[i++]; chDesync = o[i++];
  }

  static RecordLayout readFromNative() {
    int n = InspectorNative.layoutFieldCount();
    if (n != FIELDS.length) {
      throw new IllegalStateException("native record layout has " + n + " fields, this jar expects "
          + FIELDS.length + ": the jar and the native library come from different builds");
    }
    int[] offsets = new int[n];
    for (int i = 0; i < n; i++) {
      offsets[i] = InspectorNative.layoutOffset(i);
      if (offsets[i] < 0) {
        throw new IllegalStateException("native record layout has no offset for " + FIELDS[i]);
      }
    }
    return new RecordLayout(offsets);
  }

  /** Size in bytes of one ring cell. */
  public int cellBytes() {
    return cellBytes;
  }
}
