package io.ncclinspector.jfr.internal;

import io.ncclinspector.jfr.JfrEvents;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;
import jdk.jfr.Timestamp;

/** An operation in flight longer than the hang timeout. On by default. */
@Name(JfrEvents.SUSPECTED_HANG)
@Label("NCCL Suspected Hang")
@Category({"NCCL Inspector"})
@Description("An NCCL operation still in flight after the hang timeout")
@StackTrace(false)
class JfrSuspectedHang extends JfrCommunicatorEvent {
  @Label("Operation") String operation;
  @Label("Sequence") long sequence;
  @Label("Enqueued") @Timestamp(Timestamp.MILLISECONDS_SINCE_EPOCH) long enqueued;
  @Label("Age") @Timespan(Timespan.NANOSECONDS) long age;
  @Label("Channels Started") int channelsStarted;
  @Label("Channels Done") int channelsDone;
  @Label("Channels Announced") int announcedChannels;
  @Label("Enqueue Done") boolean enqueueDone;
  @Label("Step") long step;
  @Label("Phase") String phase;
}
