package io.ncclinspector.report.output;

import io.ncclinspector.report.analysis.NetWaitedFor;
import io.ncclinspector.report.analysis.NetworkResult;
import io.ncclinspector.report.analysis.WaitCause;
import io.ncclinspector.report.output.chart.Format;
import java.util.List;
import java.util.Locale;

/** The console's one line about the network: whom the ranks waited for, and why. */
public final class NetworkSummaryLine {
  private NetworkSummaryLine() {}

  public static String of(NetworkResult n) {
    if (!n.found()) {
      return "network: no breakdown in the records (no proxy events: NVLink, shared memory, or"
          + " logs without it)";
    }
    String head = "network: " + Format.count(n.withBreakdown() - n.implausible())
        + " records with a breakdown";
    List<NetWaitedFor> late = n.lateRanks();
    if (late.isEmpty()) {
      return head + "; no notable wait for a peer";
    }
    NetWaitedFor top = late.get(0);
    String who = top.hostname() == null ? "" : " (" + top.hostname() + " pid " + top.pid() + ")";
    String line = String.format(Locale.ROOT, "%s, %s notable waits; most waited for: rank %d of"
        + " %s%s, %s notable waits, median excess %s: %s", head,
        Format.count(n.notableWaits()), top.rank(), top.commId(), who,
        Format.count(top.notableWaits()), Format.micros(top.excessP50Us() == null ? Double.NaN
            : top.excessP50Us()), WaitCause.of(top.verdict()).text());
    int more = late.size() - 1;
    return more == 0 ? line : line + String.format(Locale.ROOT, " (%d more rank%s waited for:"
        + " %s)", more, more == 1 ? "" : "s", OutputFiles.NETWORK_WAITED_FOR + ".csv");
  }
}
