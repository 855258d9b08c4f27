package io.ncclinspector;

/**
 * The kernel channels of an operation.
 *
 * @param announced channels NCCL announced for it
 * @param seen kernel channels that started
 * @param desynced channels left out of the timing because they carried other work items'
 *     timestamps (NCCL's kernel-channel counter desync); 0 normally
 */
public record Channels(int announced, int seen, int desynced) {}
