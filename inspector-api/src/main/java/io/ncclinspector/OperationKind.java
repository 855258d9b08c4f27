package io.ncclinspector;

/** Whether an operation is a collective or a point-to-point send or receive. */
public enum OperationKind {
  COLLECTIVE,
  P2P
}
