package io.ncclinspector.report.output;

import static io.ncclinspector.report.output.Html.esc;

import io.ncclinspector.report.analysis.NetLink;
import io.ncclinspector.report.analysis.NetRank;
import io.ncclinspector.report.analysis.NetWaitedFor;
import io.ncclinspector.report.analysis.NetworkResult;
import io.ncclinspector.report.analysis.WaitCause;
import io.ncclinspector.report.output.chart.Format;
import io.ncclinspector.report.output.chart.HeatmapChart;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The HTML report's network section: whose lateness the ranks waited for, the rank × peer
 * matrices (heatmaps of the attributed wait and, from verbose records, of the bandwidth per
 * peer), the slowest links and each rank's traffic.
 */
final class NetworkSection {
  static final String ID = "network";
  static final String TITLE = "Network";
  private static final int MAX_COMMUNICATORS = 4;
  private static final int MAX_MATRIX_RANKS = 48;
  private static final int MAX_ROWS = 300;
  private static final int SLOWEST_LINKS = 20;

  private final NetworkResult n;
  private final StringBuilder out = new StringBuilder();

  private NetworkSection(NetworkResult n) {
    this.n = n;
  }

  static String render(NetworkResult network) {
    return new NetworkSection(network).build();
  }

  private String build() {
    out.append("<section id=\"").append(ID).append("\"><h2>")
        .append(esc("Network: waits and bandwidth per peer")).append("</h2>");
    p("On network transports NCCL's proxy thread reports each chunk it moves; from that every"
        + " record has a network breakdown. Its slowest peer is the peer whose first chunk the"
        + " rank's receives waited for longest: the wait is attributed to that peer. Some peer is"
        + " always the slowest, so a wait counts as notable only when it is more than twice the"
        + " rank's usual (median) wait and at least " + Format.micros(n.lateThresholdUs())
        + " (the late threshold) longer. At a notable wait, the peer's own record of the same"
        + " operation says why it was late: if its wait for its own GPU's first chunk was longer"
        + " than its usual by at least half of the excess, its GPU was late (own GPU late);"
        + " otherwise the peer itself came to the operation late (arrived late: its host called"
        + " NCCL late, or its proxy or the network held the data).");
    for (String note : n.notes()) {
      note(note);
    }
    if (!n.found()) {
      return out.append("</section>").toString();
    }
    p(Format.count(n.withBreakdown() - n.implausible()) + " of " + Format.count(n.records())
        + " records have a network breakdown (" + Format.count(n.withProxyDetail())
        + " list their proxy operations); " + Format.count(n.waits())
        + " operations named a slowest peer, " + Format.count(n.notableWaits())
        + " of them waited notably.");
    waitedForTable();
    matrices();
    slowestLinksTable();
    ranksTable();
    return out.append("</section>").toString();
  }

  private void p(String text) {
    out.append("<p>").append(esc(text)).append("</p>");
  }

  private void note(String text) {
    out.append("<p class=\"note\">").append(esc(text)).append("</p>");
  }

  private void h3(String text) {
    out.append("<h3>").append(esc(text)).append("</h3>");
  }

  private void waitedForTable() {
    h3("Whose lateness the others waited for");
    List<NetWaitedFor> rows = new ArrayList<>(n.lateRanks());
    n.waitedFor().stream().filter(w -> w.notableWaits() == 0).forEach(rows::add);
    Html.Table t = new Html.Table("communicator", "#rank", "host", "#pid", "#waited for",
        "#wait total", "#wait p50", "#notable", "#excess total", "#excess p50",
        "#own GPU late", "#arrived late", "#unknown", "#own GPU excess p50", "verdict");
    for (NetWaitedFor w : rows.stream().limit(MAX_ROWS).toList()) {
      boolean late = w.notableWaits() > 0;
      t.rowWithClass(late ? "alert" : null, w.commId(), w.rank(), w.hostname(), w.pid(),
          Format.count(w.waitedOps()), Format.micros(w.waitTotalMs() * 1000),
          Format.micros(orNaN(w.waitP50Us())), Format.count(w.notableWaits()),
          Format.micros(w.excessTotalMs() * 1000), Format.micros(orNaN(w.excessP50Us())),
          Format.count(w.ownGpuLate()), Format.count(w.arrivedLate()),
          Format.count(w.unknown()), Format.micros(orNaN(w.ownGpuExcessP50Us())),
          WaitCause.of(w.verdict()).text());
    }
    p("Per rank that other ranks named as their slowest peer: how often, how long, how often"
        + " notably, and why (the verdict is the class of most of its notable waits). Ranks with"
        + " notable waits first. All rows: network_waited_for.csv / .json; every wait:"
        + " network_waits.parquet.");
    truncated(rows.size());
    out.append(t.render());
  }

  /** Per communicator (the most notably delayed first), the rank × peer heatmaps. */
  private void matrices() {
    Map<String, List<NetLink>> byComm = new LinkedHashMap<>();
    for (NetLink l : n.links()) {
      byComm.computeIfAbsent(l.commId(), k -> new ArrayList<>()).add(l);
    }
    Map<String, Double> excess = new HashMap<>();
    Map<String, Double> wait = new HashMap<>();
    byComm.forEach((c, links) -> {
      excess.put(c, links.stream().mapToDouble(NetLink::excessTotalMs).sum());
      wait.put(c, links.stream().mapToDouble(NetLink::waitTotalMs).sum());
    });
    List<String> comms = byComm.keySet().stream()
        .sorted(Comparator.comparingDouble((String c) -> excess.get(c)).reversed()
            .thenComparing(Comparator.comparingDouble((String c) -> wait.get(c)).reversed())
            .thenComparing(Comparator.naturalOrder()))
        .limit(MAX_COMMUNICATORS).toList();
    for (String comm : comms) {
      List<NetLink> links = byComm.get(comm);
      String name = links.stream().map(NetLink::commName)
          .filter(x -> x != null && !x.isEmpty() && !x.equals("unknown")).findFirst()
          .orElse("unnamed");
      String label = "communicator " + comm + " (" + name + ")";
      h3(label);
      List<Integer> ranks = shownRanks(links);
      if (ranks.size() < distinctRanks(links)) {
        note("Showing the " + ranks.size() + " ranks with the most attributed wait.");
      }
      List<HeatmapChart.Cell> waits = links.stream().filter(l -> l.slowestOps() > 0)
          .map(l -> new HeatmapChart.Cell(l.rank(), l.peer(), l.waitTotalMs(), waitTip(l)))
          .toList();
      out.append("<div class=\"pair\"><figure><figcaption>Wait attributed to each peer (total):"
          + " row = the rank that waited, column = the peer it waited for</figcaption>")
          .append(HeatmapChart.render(label + ": network wait matrix, rank × peer", "rank",
              "peer waited for", ranks, ranks, waits, HeatmapChart.WARM,
              v -> Format.micros(v * 1000), 540))
          .append("</figure>");
      List<HeatmapChart.Cell> bandwidth = links.stream().filter(l -> l.receiveGbs() != null)
          .map(l -> new HeatmapChart.Cell(l.rank(), l.peer(), l.receiveGbs(), bytesTip(l)))
          .toList();
      if (!bandwidth.isEmpty()) {
        out.append("<figure><figcaption>Receive bandwidth from each peer (bytes over the time"
            + " from first post to last done of its proxy operations, waits included): row ="
            + " receiving rank, column = sending peer</figcaption>")
            .append(HeatmapChart.render(label + ": per-peer bandwidth matrix, rank × peer",
                "rank", "peer sending", ranks, ranks, bandwidth, HeatmapChart.COOL,
                v -> Format.trim(v) + " GB/s", 540))
            .append("</figure>");
      }
      out.append("</div>");
      if (bandwidth.isEmpty()) {
        note("Per-peer bytes and bandwidth are not available for this communicator: its"
            + " records do not list their proxy operations (NCCL_INSPECTOR_DUMP_VERBOSE=1 writes"
            + " them).");
      }
    }
    if (byComm.size() > comms.size()) {
      note("Matrices of the " + comms.size() + " communicators with the most notable wait;"
          + " network_links.csv has every communicator's.");
    }
  }

  private static long distinctRanks(List<NetLink> links) {
    return links.stream().flatMap(l -> java.util.stream.Stream.of(l.rank(), l.peer()))
        .distinct().count();
  }

  /** The ranks of the matrix: all, or the most involved in attributed wait. */
  private static List<Integer> shownRanks(List<NetLink> links) {
    Map<Integer, Double> weight = new HashMap<>();
    for (NetLink l : links) {
      weight.merge(l.rank(), l.waitTotalMs(), Double::sum);
      weight.merge(l.peer(), l.waitTotalMs(), Double::sum);
    }
    return weight.entrySet().stream()
        .sorted(Map.Entry.<Integer, Double>comparingByValue().reversed()
            .thenComparing(Map.Entry.comparingByKey()))
        .limit(MAX_MATRIX_RANKS).map(Map.Entry::getKey).sorted().toList();
  }

  private static String waitTip(NetLink l) {
    return String.format(Locale.ROOT, "rank %d waited for peer %d: slowest peer in %s"
        + " operations, %s in total, median %s, longest %s; %s notable (%s over the usual)",
        l.rank(), l.peer(), Format.count(l.slowestOps()), Format.micros(l.waitTotalMs() * 1000),
        Format.micros(orNaN(l.waitP50Us())), Format.micros(orNaN(l.waitMaxUs())),
        Format.count(l.notableWaits()), Format.micros(l.excessTotalMs() * 1000));
  }

  private static String bytesTip(NetLink l) {
    return String.format(Locale.ROOT, "rank %d from peer %d: %s received at %s GB/s; %s sent to"
        + " it at %s GB/s", l.rank(), l.peer(), bytes(l.bytesFromPeer()),
        Format.trim(orNaN(l.receiveGbs())), bytes(l.bytesToPeer()),
        Format.trim(orNaN(l.sendGbs())));
  }

  private static String bytes(Long b) {
    return b == null ? "–" : Format.compact(b) + "B";
  }

  private void slowestLinksTable() {
    h3("Slowest links");
    List<NetLink> top = n.slowestLinks(SLOWEST_LINKS);
    Html.Table t = new Html.Table("communicator", "#rank", "#waited for peer", "#operations",
        "#wait total", "#wait p50", "#wait max", "#notable", "#excess total", "#bytes from peer",
        "#receive GB/s", "#bytes to peer", "#send GB/s");
    for (NetLink l : top) {
      t.rowWithClass(l.notableWaits() > 0 ? "alert" : null, l.commId(), l.rank(), l.peer(),
          Format.count(l.slowestOps()), Format.micros(l.waitTotalMs() * 1000),
          Format.micros(orNaN(l.waitP50Us())), Format.micros(orNaN(l.waitMaxUs())),
          Format.count(l.notableWaits()), Format.micros(l.excessTotalMs() * 1000),
          bytes(l.bytesFromPeer()), trimOrDash(l.receiveGbs()), bytes(l.bytesToPeer()),
          trimOrDash(l.sendGbs()));
    }
    p("The (rank, peer) pairs with the most wait attributed to the peer. Bytes and bandwidth"
        + " per peer come from verbose records only (– where not available). Every pair:"
        + " network_links.csv / .json.");
    out.append(t.render());
  }

  private void ranksTable() {
    h3("Network traffic per rank");
    Html.Table t = new Html.Table("communicator", "#rank", "host", "#pid", "#operations",
        "#bytes sent", "#bytes received", "#net time", "#send GB/s", "#receive GB/s",
        "#GPU wait p50", "#GPU wait max", "#recv wait p50", "#recv wait max");
    List<NetRank> rows = n.ranks();
    for (NetRank r : rows.stream().limit(MAX_ROWS).toList()) {
      t.row(r.commId(), r.rank(), r.hostname(), r.pid(), Format.count(r.operations()),
          Format.compact(r.bytesSent()) + "B", Format.compact(r.bytesReceived()) + "B",
          Format.micros(r.netTimeMs() * 1000), trimOrDash(r.sendGbs()),
          trimOrDash(r.receiveGbs()), Format.micros(orNaN(r.sendGpuWaitP50Us())),
          Format.micros(orNaN(r.sendGpuWaitMaxUs())), Format.micros(orNaN(r.recvWaitP50Us())),
          Format.micros(orNaN(r.recvWaitMaxUs())));
    }
    p("Effective bandwidth: bytes over net time (first chunk posted to the last proxy operation"
        + " done, waits included). GPU wait: the longest wait of a send for the rank's own GPU's"
        + " first chunk; recv wait: the longest wait of a receive for a peer's first chunk. All"
        + " rows: network_ranks.csv / .json.");
    truncated(rows.size());
    out.append(t.render());
  }

  private void truncated(int rows) {
    if (rows > MAX_ROWS) {
      note("Showing the first " + MAX_ROWS + " of " + Format.count(rows)
          + " rows; the CSV and JSON files have them all.");
    }
  }

  private static String trimOrDash(Double v) {
    return v == null ? "–" : Format.trim(v);
  }

  private static double orNaN(Double v) {
    return v == null ? Double.NaN : v;
  }
}
