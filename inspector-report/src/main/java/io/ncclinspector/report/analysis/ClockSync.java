package io.ncclinspector.report.analysis;

/** Whether the straggler analysis corrects GPU timestamps for per-rank clock offsets. */
public enum ClockSync {
  /**
   * Estimate each rank's clock offset and subtract it before comparing arrivals. The estimate
   * uses the end of symmetric collectives (AllReduce, AllGather, ReduceScatter, AlltoAll): no rank
   * can finish before the last one has arrived and the data has gone round, so all ranks finish
   * together in true time, whoever arrived late. A rank whose ends are consistently off by the
   * same amount has an offset clock, not a late arrival. The offset is the median, over the
   * communicator's symmetric collectives, of the rank's end minus the collective's median end.
   */
  AUTO,
  /** Trust the timestamps as they are (all GPUs known to share one synchronised clock). */
  NONE
}
