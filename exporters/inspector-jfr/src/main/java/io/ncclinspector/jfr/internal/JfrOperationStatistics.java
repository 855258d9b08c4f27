package io.ncclinspector.jfr.internal;

import io.ncclinspector.jfr.JfrEvents;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * Periodic: one event per communicator and operation class, with the statistics since the
 * inspector was enabled. Every 10 s by default; the recording's {@code period} setting changes it.
 */
@Name(JfrEvents.OPERATION_STATISTICS)
@Label("NCCL Operation Statistics")
@Category({"NCCL Inspector"})
@Description("Execution time and bus bandwidth of one class of NCCL operations of one communicator")
@Period("10 s")
@StackTrace(false)
class JfrOperationStatistics extends JfrCommunicatorEvent {
  @Label("Ranks") int ranks;
  @Label("Live") boolean live;
  @Label("Operation") String operation;
  @Label("Algorithm") String algorithm;
  @Label("Protocol") String protocol;
  @Label("Size Bucket") @DataAmount long sizeBucket;
  @Label("Count") long count;
  @Label("Bytes") @DataAmount long bytes;
  @Label("Mean Execution Time") @Timespan(Timespan.NANOSECONDS) long executionMean;
  @Label("Median Execution Time") @Timespan(Timespan.NANOSECONDS) long executionP50;
  @Label("P99 Execution Time") @Timespan(Timespan.NANOSECONDS) long executionP99;
  @Label("Max Execution Time") @Timespan(Timespan.NANOSECONDS) long executionMax;
  @Label("Mean Bus Bandwidth (GB/s)") double busBandwidthMean;
  @Label("Median Bus Bandwidth (GB/s)") double busBandwidthP50;
}
