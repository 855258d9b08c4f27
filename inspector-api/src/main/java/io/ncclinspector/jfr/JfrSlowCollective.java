package io.ncclinspector.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;
import jdk.jfr.Timestamp;

/** A collective that ran slow against the baseline of its class. On by default. */
@Name(JfrEvents.SLOW_COLLECTIVE)
@Label("NCCL Slow Collective")
@Category({"NCCL Inspector"})
@Description("A collective that took much longer than the rolling median of its class")
@StackTrace(false)
class JfrSlowCollective extends jdk.jfr.Event {
  @Label("Communicator") String communicator;
  @Label("Communicator Id") String communicatorId;
  @Label("Rank") int rank;
  @Label("Operation") String operation;
  @Label("Algorithm") String algorithm;
  @Label("Protocol") String protocol;
  @Label("Sequence") long sequence;
  @Label("Message Size") @DataAmount long messageBytes;
  @Label("Execution Time") @Timespan(Timespan.NANOSECONDS) long executionTime;
  @Label("Baseline Median") @Timespan(Timespan.NANOSECONDS) long baselineMedian;
  @Label("Baseline MAD") @Timespan(Timespan.NANOSECONDS) long baselineMad;
  @Label("Ratio To Median") double ratio;
  @Label("Robust Score") double score;
  @Label("Reason") String reason;
  @Label("Enqueued") @Timestamp(Timestamp.MILLISECONDS_SINCE_EPOCH) long enqueued;
  @Label("Step") long step;
  @Label("Phase") String phase;
}
