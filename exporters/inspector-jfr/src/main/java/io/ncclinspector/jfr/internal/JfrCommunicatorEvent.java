package io.ncclinspector.jfr.internal;

import io.ncclinspector.CommunicatorInfo;
import jdk.jfr.Label;

/** The fields every inspector event about a communicator has (abstract: not an event type itself). */
abstract class JfrCommunicatorEvent extends jdk.jfr.Event {
  @Label("Communicator") String communicator;
  @Label("Communicator Id") String communicatorId;
  @Label("Rank") int rank;

  void communicator(CommunicatorInfo c) {
    communicator = c.name();
    communicatorId = c.idHex();
    rank = c.rank();
  }
}
