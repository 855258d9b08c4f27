package io.ncclinspector.report.analysis;

/**
 * One communicator rank's network traffic, from the summary fields of its records that carry a
 * network breakdown (see {@link NetworkAnalysis}).
 *
 * @param operations records with a breakdown (a record read twice counts once)
 * @param bytesSent bytes its proxy handed to the network
 * @param bytesReceived bytes its proxy received
 * @param netTimeMs total of {@code net_time}: first chunk posted to the last proxy operation done
 *     (over the records where every proxy operation finished)
 * @param sendGbs effective bandwidth: bytes sent over the net time of the same records (GB/s);
 *     null without timed records
 * @param receiveGbs the same for bytes received
 * @param sendGpuWaitP50Us median wait for the own GPU's first chunk, over records with sends
 * @param sendGpuWaitMaxUs the longest such wait
 * @param recvWaitP50Us median longest wait for a peer's first chunk, over records that name a
 *     slowest peer
 * @param recvWaitMaxUs the longest such wait
 */
public record NetRank(
    String commId,
    String commName,
    int rank,
    String hostname,
    Long pid,
    long operations,
    long bytesSent,
    long bytesReceived,
    double netTimeMs,
    Double sendGbs,
    Double receiveGbs,
    Double sendGpuWaitP50Us,
    Double sendGpuWaitMaxUs,
    Double recvWaitP50Us,
    Double recvWaitMaxUs) {}
