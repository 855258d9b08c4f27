package io.ncclinspector;

/**
 * What a communicator's operations of one class did since the inspector was enabled.
 *
 * @param operationClass operation, algorithm, protocol and size bucket
 * @param count operations recorded
 * @param bytes their message bytes
 * @param executionNanos execution times of the operations with a trusted time (quarantined and
 *     untimed records count in {@code count} but not here, so this distribution's count can be lower)
 * @param busBandwidthGbs bus bandwidths of the same operations (recorded in MB/s steps)
 */
public record ClassStatistics(
    OperationClass operationClass, long count, long bytes, Distribution executionNanos,
    Distribution busBandwidthGbs) {}
