package io.ncclinspector.prometheus.internal;

/**
 * The labels of one series in a GPU's file, less those common to the file. The reference merges
 * communicators of the same name and shape on one GPU into one series (rank and communicator id
 * are not labels), and so does this.
 *
 * @param collective true for a collective, false for Send/Recv
 * @param operation {@code collective} or {@code p2p_operation} label
 * @param algoProto {@code <algo>_<proto>} for collectives, null for P2P
 */
record SeriesKey(boolean collective, String commName, int nodes, int ranks, String operation,
    String messageSize, String algoProto) {}
