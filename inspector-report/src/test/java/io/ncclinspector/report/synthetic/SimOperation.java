package io.ncclinspector.report.synthetic;

/**
 * One simulated operation and, for each participating member of its communicator, when that
 * member's kernel started (true time, before any clock offset) and how long it ran.
 *
 * <p>Package-private and never exposed: the arrays are filled once by the simulator and only read
 * by the writers afterwards.
 *
 * @param members communicator member indexes taking part (all members for a collective, the
 *     sender or the receiver for a point-to-point record)
 * @param peer for point-to-point records, the member index of the other side; else -1
 */
record SimOperation(
    int comm,
    boolean p2p,
    String name,
    long sequence,
    long messageBytes,
    String datatype,
    int elementBytes,
    String algorithm,
    String protocol,
    int channels,
    int root,
    int peer,
    long step,
    String phase,
    int[] members,
    long[] startNanos,
    long[] execNanos,
    long[] skewNanos) {}
