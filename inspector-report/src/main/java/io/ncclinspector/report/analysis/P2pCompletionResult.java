package io.ncclinspector.report.analysis;

import java.util.List;

/**
 * True completion of point-to-point receives, from both ranks' logs.
 *
 * @param clockSync how the two ranks' GPU clocks were reconciled
 * @param receives every Recv record of a communicator with a peer other than itself
 * @param measured receives whose completion was worked out
 * @param noPeerRecord receives without the matching send in the logs (the peer's log not given,
 *     or its record dropped or filtered by size)
 * @param sizeMismatch receives whose paired send has another size: a record missing on one side
 *     shifts the pairing, so the pair is not used
 * @param untimed receives where either side has no usable GPU time (CPU-timed, quarantined)
 * @param noClockOffset receives where the two ranks' GPU clocks could not be related (no chain
 *     of communicators with enough symmetric collectives joins their processes)
 * @param transfers per communicator and message size
 */
public record P2pCompletionResult(
    String clockSync,
    long receives,
    long measured,
    long noPeerRecord,
    long sizeMismatch,
    long untimed,
    long noClockOffset,
    List<P2pTransfer> transfers,
    List<String> notes) {
  public P2pCompletionResult {
    transfers = List.copyOf(transfers);
    notes = List.copyOf(notes);
  }

  /** The result when the logs hold no receive. */
  public static P2pCompletionResult none(String clockSync) {
    return new P2pCompletionResult(clockSync, 0, 0, 0, 0, 0, 0, List.of(), List.of());
  }
}
