package io.ncclinspector;

import java.util.List;

/**
 * One communicator in a snapshot.
 *
 * @param communicator what NCCL said about it
 * @param live whether it is still alive (destroyed ones are kept for a while)
 * @param operations operations recorded
 * @param bytes their message bytes
 * @param classes statistics by operation class
 * @param phases operations by phase tag
 * @param lastStep the highest step tag seen on its operations, -1 if none
 * @param lastRecords its most recent records, oldest first
 */
public record CommunicatorSnapshot(
    CommunicatorInfo communicator, boolean live, long operations, long bytes,
    List<ClassStatistics> classes, List<PhaseStatistics> phases, long lastStep,
    List<OperationRecord> lastRecords) {

  public CommunicatorSnapshot {
    classes = List.copyOf(classes);
    phases = List.copyOf(phases);
    lastRecords = List.copyOf(lastRecords);
  }
}
