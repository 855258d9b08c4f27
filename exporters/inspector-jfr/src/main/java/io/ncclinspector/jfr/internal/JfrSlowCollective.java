package io.ncclinspector.jfr.internal;

import io.ncclinspector.jfr.JfrEvents;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** A collective that ran slow against what is normal for its class. On by default. */
@Name(JfrEvents.SLOW_COLLECTIVE)
@Label("NCCL Slow Collective")
@Category({"NCCL Inspector"})
@Description("A collective that took far longer than anything normal for its class")
@StackTrace(false)
class JfrSlowCollective extends JfrRecordEvent {
  @Label("Baseline Median") @Timespan(Timespan.NANOSECONDS) long baselineMedian;
  @Label("Normal Upper Bound") @Description("The class's robust 99th percentile, or the bound of related classes")
  @Timespan(Timespan.NANOSECONDS) long baselineHigh;
  @Label("Threshold") @Timespan(Timespan.NANOSECONDS) long threshold;
  @Label("Baseline Samples") int samples;
  @Label("Ratio To Bound") double ratio;
  @Label("Reason") String reason;
  @Label("Kind") @Description("WAITING_FOR_PEERS, SLOW_TRANSFER or UNKNOWN") String kind;
  @Label("Delivered") @Description("Whether listeners heard of it (false: counted into a rate-limit summary)")
  boolean delivered;
}
