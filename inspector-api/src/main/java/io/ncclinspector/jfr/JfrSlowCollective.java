package io.ncclinspector.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** A collective that ran slow against the baseline of its class. On by default. */
@Name(JfrEvents.SLOW_COLLECTIVE)
@Label("NCCL Slow Collective")
@Category({"NCCL Inspector"})
@Description("A collective that took much longer than the rolling median of its class")
@StackTrace(false)
class JfrSlowCollective extends JfrRecordEvent {
  @Label("Baseline Median") @Timespan(Timespan.NANOSECONDS) long baselineMedian;
  @Label("Baseline MAD") @Timespan(Timespan.NANOSECONDS) long baselineMad;
  @Label("Ratio To Median") double ratio;
  @Label("Robust Score") double score;
  @Label("Reason") String reason;
}
