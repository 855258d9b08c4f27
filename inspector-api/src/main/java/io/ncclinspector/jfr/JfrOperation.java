package io.ncclinspector.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;
import jdk.jfr.Timestamp;

/**
 * One completed collective or Send/Recv. Off by default (a busy job completes thousands per
 * second); enable {@value JfrEvents#OPERATION} in the recording's settings to get them.
 */
@Name(JfrEvents.OPERATION)
@Label("NCCL Operation")
@Category({"NCCL Inspector"})
@Description("A completed NCCL collective or point-to-point operation")
@Enabled(false)
@StackTrace(false)
class JfrOperation extends jdk.jfr.Event {
  @Label("Communicator") String communicator;
  @Label("Communicator Id") String communicatorId;
  @Label("Rank") int rank;
  @Label("Ranks") int ranks;
  @Label("GPU") String gpu;
  @Label("Operation") String operation;
  @Label("Algorithm") String algorithm;
  @Label("Protocol") String protocol;
  @Label("Sequence") long sequence;
  @Label("Message Size") @DataAmount long messageBytes;
  @Label("Execution Time") @Timespan(Timespan.NANOSECONDS) long executionTime;
  @Label("Bus Bandwidth (GB/s)") double busBandwidth;
  @Label("Algorithm Bandwidth (GB/s)") double algorithmBandwidth;
  @Label("Timing Source") String timingSource;
  @Label("Enqueued") @Timestamp(Timestamp.MILLISECONDS_SINCE_EPOCH) long enqueued;
  @Label("Step") long step;
  @Label("Phase") String phase;
}
