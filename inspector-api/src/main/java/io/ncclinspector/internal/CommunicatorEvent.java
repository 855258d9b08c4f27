package io.ncclinspector.internal;

import io.ncclinspector.CommunicatorInfo;

/** A communicator record from the ring: created (NCCL init) or destroyed (NCCL finalize). */
public record CommunicatorEvent(boolean created, CommunicatorInfo communicator, long wallNanos) {}
