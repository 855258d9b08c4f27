package io.ncclinspector.export;

import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.OperationRecord;
import java.util.Objects;

/**
 * One operation class of one communicator as the metric exporters label it: the communicator as
 * the exporter tells communicators apart, the operation, the collective's algorithm and protocol,
 * and the reference Inspector's message-size label ({@link MessageSizeLabel}). Unlike
 * {@link io.ncclinspector.OperationClass} (power-of-two size buckets, for statistics), two records
 * have the same key exactly when an exporter gives them the same labels.
 *
 * @param <C> how the exporter identifies a communicator: Micrometer and OpenTelemetry its serial
 *     (one series per communicator), Prometheus its name and shape (the reference merges
 *     communicators of the same name and shape on one GPU)
 * @param communicator the communicator's identity, as above
 * @param operation AllReduce, ..., Send, Recv
 * @param algorithm the collective's algorithm; null for point-to-point operations
 * @param protocol the collective's protocol; null for point-to-point operations
 * @param messageSize the reference's message-size label, e.g. {@code 8-9KB}
 */
public record ClassKey<C>(C communicator, String operation, String algorithm, String protocol,
    String messageSize) {

  public ClassKey {
    Objects.requireNonNull(communicator, "communicator");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(messageSize, "messageSize");
    if ((algorithm == null) != (protocol == null)) {
      throw new IllegalArgumentException("algorithm and protocol go together: " + algorithm + ", " + protocol);
    }
  }

  /** The key of a record: its algorithm and protocol if it is a collective. */
  public static <C> ClassKey<C> of(OperationRecord r, C communicator, String messageSize) {
    if (r instanceof CollectiveRecord c) {
      return new ClassKey<>(communicator, c.operation(), c.algorithm().name(), c.algorithm().protocol(),
          messageSize);
    }
    return new ClassKey<>(communicator, r.operation(), null, null, messageSize);
  }

  /** A collective's class (it has an algorithm), not a point-to-point one. */
  public boolean collective() {
    return algorithm != null;
  }

  /**
   * The reference's {@code algo_proto} label, {@code <algorithm>_<protocol>} (e.g.
   * {@code RING_SIMPLE}); null for point-to-point classes. NCCL's protocol names (LL, LL128,
   * SIMPLE) have no underscore, so distinct keys have distinct labels.
   */
  public String algoProto() {
    return algorithm == null ? null : algorithm + "_" + protocol;
  }
}
