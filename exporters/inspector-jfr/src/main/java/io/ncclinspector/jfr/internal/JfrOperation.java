package io.ncclinspector.jfr.internal;

import io.ncclinspector.jfr.JfrEvents;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

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
class JfrOperation extends JfrRecordEvent {
  @Label("Ranks") int ranks;
  @Label("GPU") String gpu;
  @Label("Bus Bandwidth (GB/s)") double busBandwidth;
  @Label("Algorithm Bandwidth (GB/s)") double algorithmBandwidth;
  @Label("Timing Source") String timingSource;
}
