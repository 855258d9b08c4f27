package io.ncclinspector.jfr.internal;

import io.ncclinspector.jfr.JfrEvents;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;

/** Periodic: the inspector's own health (records, drops, quarantines). Every 10 s by default. */
@Name(JfrEvents.INSPECTOR_STATUS)
@Label("NCCL Inspector Status")
@Category({"NCCL Inspector"})
@Description("Records received and events dropped by the NCCL Inspector")
@Period("10 s")
@StackTrace(false)
class JfrInspectorStatus extends jdk.jfr.Event {
  @Label("Records Received") long recordsReceived;
  @Label("Dropped") long dropped;
  @Label("Quarantined") long quarantined;
  @Label("Live Communicators") int communicators;
  @Label("Paused") boolean paused;
}
