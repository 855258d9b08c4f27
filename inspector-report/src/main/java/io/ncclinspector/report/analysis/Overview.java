package io.ncclinspector.report.analysis;

import io.ncclinspector.report.model.Exclusion;
import java.util.Map;

/**
 * Totals over all records.
 *
 * @param records records imported
 * @param collectives collective records
 * @param p2p point-to-point records
 * @param used records the performance figures use
 * @param excluded records left out of the figures, by {@link Exclusion} label
 * @param communicators distinct communicator ids
 * @param processes distinct (hostname, pid)
 * @param hosts distinct hostnames
 * @param firstDumpMicros earliest dump timestamp (µs since the epoch), or null
 * @param lastDumpMicros latest dump timestamp, or null
 * @param producers records per producer
 * @param timingSources records per timing source
 * @param communicationClasses records per communication class
 * @param gpuStartRecords collective records with a GPU start timestamp (needed to line ranks up)
 */
public record Overview(long records, long collectives, long p2p, long used,
    Map<String, Long> excluded, long communicators, long processes, long hosts,
    Long firstDumpMicros, Long lastDumpMicros, Map<String, Long> producers,
    Map<String, Long> timingSources, Map<String, Long> communicationClasses,
    long gpuStartRecords) {
  public Overview {
    excluded = Rows.ordered(excluded);
    producers = Rows.ordered(producers);
    timingSources = Rows.ordered(timingSources);
    communicationClasses = Rows.ordered(communicationClasses);
  }
}
