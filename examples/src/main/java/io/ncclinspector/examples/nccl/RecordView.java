package io.ncclinspector.examples.nccl;

import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.KernelChannelTrace;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.P2pRecord;
import java.util.List;

/**
 * The facts of one inspector record that the GPU validation compares, as plain values. Timing
 * source, quarantine reason and flags are kept as their enum names ({@code KERNEL_GPU},
 * {@code KERNEL_CHANNEL_DESYNC}, {@code SEND_SIDE_STOP}, ...), not as constants, so that this code
 * reads records of any version of the API, including values added after it was written.
 *
 * @param desyncedChannels kernel channels the inspector left out as out of step with NCCL's
 *     counters ({@code Channels.desynced()})
 * @param lastCallbackWallNanos wall time of the record's last callback that is known (verbose
 *     mode: the latest kernel-channel stop; else the operation's stop event, 0 if not taken)
 */
record RecordView(String operation, long sequence, int peer, long messageBytes, long executionNanos,
    double busBandwidthGbs, String timingSource, String quarantine, List<String> flags, int desyncedChannels, int channelsSeen,
    int announcedChannels, long step, String algorithm, String protocol, long gpuStartNanos, long startWallNanos,
    long lastCallbackWallNanos) {

  RecordView {
    flags = List.copyOf(flags);
  }

  static RecordView of(OperationRecord r) {
    long last = r.timing().stopWallNanos();
    for (KernelChannelTrace ch : r.trace().channels()) {
      last = Math.max(last, Math.max(ch.stopWallNanos(), ch.recordWallNanos()));
    }
    int peer = r instanceof P2pRecord p ? p.peer() : -1;
    String algo = r instanceof CollectiveRecord c ? c.algorithm().name() : null;
    String proto = r instanceof CollectiveRecord c ? c.algorithm().protocol() : null;
    return new RecordView(r.operation(), r.sequence(), peer, r.transfer().messageBytes(), r.timing().executionNanos(),
        r.transfer().busBandwidthGbs(), r.timing().source().name(), r.timing().quarantine().name(),
        r.flags().stream().map(Enum::name).sorted().toList(), r.channels().desynced(), r.channels().seen(),
        r.channels().announced(), r.tags().step(), algo, proto, r.timing().gpuStartNanos(),
        r.timing().startWallNanos(), last);
  }

  /** An execution time at all: not the "no time" source given to operations whose channels all lagged. */
  boolean timed() {
    return !"NONE".equals(timingSource);
  }

  boolean quarantined() {
    return !"NONE".equals(quarantine);
  }

  /** Timed, not quarantined: a figure a user is given. */
  boolean reported() {
    return timed() && !quarantined();
  }

  /** Reported and measured by GPU timestamps: its channels', or its kernel's CUPTI record. */
  boolean gpuTimed() {
    return reported() && ("KERNEL_GPU".equals(timingSource) || "KERNEL_CUPTI".equals(timingSource)
        || "KERNEL_CUPTI_GROUP".equals(timingSource));
  }

  boolean hasFlag(String name) {
    return flags.contains(name);
  }

  boolean selfP2p() {
    return hasFlag("SELF_P2P");
  }

  boolean isP2p() {
    return "Send".equals(operation) || "Recv".equals(operation);
  }
}
