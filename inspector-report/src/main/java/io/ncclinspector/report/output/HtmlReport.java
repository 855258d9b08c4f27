package io.ncclinspector.report.output;

import static io.ncclinspector.report.output.Html.esc;

import io.ncclinspector.report.analysis.ClassSummary;
import io.ncclinspector.report.analysis.ClockSync;
import io.ncclinspector.report.analysis.CollectiveSkew;
import io.ncclinspector.report.analysis.CommunicatorSummary;
import io.ncclinspector.report.analysis.Histogram;
import io.ncclinspector.report.analysis.Overview;
import io.ncclinspector.report.analysis.P2pCompletionResult;
import io.ncclinspector.report.analysis.P2pTransfer;
import io.ncclinspector.report.analysis.ProcessLateness;
import io.ncclinspector.report.analysis.RankLateness;
import io.ncclinspector.report.analysis.RankSummary;
import io.ncclinspector.report.analysis.SizeBucketing;
import io.ncclinspector.report.analysis.StragglerResult;
import io.ncclinspector.report.ingest.FileImport;
import io.ncclinspector.report.input.RejectedLine;
import io.ncclinspector.report.input.SkippedInput;
import io.ncclinspector.report.model.CommType;
import io.ncclinspector.report.model.Exclusion;
import io.ncclinspector.report.output.chart.BarChart;
import io.ncclinspector.report.output.chart.BoxPlotChart;
import io.ncclinspector.report.output.chart.Format;
import io.ncclinspector.report.output.chart.HistogramChart;
import io.ncclinspector.report.output.chart.LineChart;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The self-contained HTML report: one file, inline CSS and inline SVG charts, no script, no font,
 * no external reference of any kind, so that it opens offline and can be mailed or archived as
 * is. The markup is well-formed XML (tests parse it).
 */
public final class HtmlReport {
  private static final int MAX_TABLE_ROWS = 300;
  private static final int MAX_BOXES = 24;
  private static final int MAX_RANK_CHARTS = 4;
  private static final int MAX_BARS = 64;
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

  private final ReportData d;
  private final StringBuilder out = new StringBuilder(1 << 16);

  private HtmlReport(ReportData d) {
    this.d = d;
  }

  /** Writes the report to a file. */
  public static void write(ReportData data, Path file) throws IOException {
    Files.writeString(file, render(data), StandardCharsets.UTF_8);
  }

  /** The report's text. */
  public static String render(ReportData data) {
    return new HtmlReport(data).build();
  }

  private String build() {
    out.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>")
        .append("<title>NCCL Inspector report</title><style>").append(css())
        .append("</style></head><body>");
    header();
    findings();
    bandwidthBySize();
    histograms();
    boxPlots();
    stragglers();
    p2pCompletion();
    out.append(NetworkSection.render(d.network()));
    summaryTable();
    communicatorTable();
    rankTable();
    inputs();
    method();
    out.append("</body></html>\n");
    return out.toString();
  }

  private static String css() {
    try (InputStream in = HtmlReport.class.getResourceAsStream("report.css")) {
      if (in == null) {
        throw new IllegalStateException("report.css missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private void section(String id, String title) {
    out.append("<section id=\"").append(esc(id)).append("\"><h2>").append(esc(title))
        .append("</h2>");
  }

  private void endSection() {
    out.append("</section>");
  }

  private void p(String text) {
    out.append("<p>").append(esc(text)).append("</p>");
  }

  private void note(String text) {
    out.append("<p class=\"note\">").append(esc(text)).append("</p>");
  }

  private void header() {
    Overview o = d.overview();
    out.append("<header><h1>NCCL Inspector report</h1><p class=\"sub\">")
        .append(esc("Generated " + TIME.format(d.generatedAt()) + " from "
            + String.join(", ", d.inputs()) + " · " + d.engine().name() + " "
            + d.engine().version()))
        .append("</p><nav>");
    String[][] links = {{"findings", "Findings"}, {"bandwidth", "Bandwidth by size"},
        {"histograms", "Histograms"}, {"boxplots", "Box plots"}, {"stragglers", "Stragglers"}, {"p2p", "P2P completion"},
        {NetworkSection.ID, NetworkSection.TITLE},
        {"summary", "Summary"}, {"communicators", "Communicators"}, {"ranks", "Ranks"},
        {"inputs", "Inputs"}, {"method", "Method"}};
    for (String[] l : links) {
      out.append("<a href=\"#").append(l[0]).append("\">").append(esc(l[1])).append("</a>");
    }
    out.append("</nav></header>");
    out.append("<div class=\"cards\">");
    card("records", Format.count(o.records()), Format.count(o.collectives()) + " collective, "
        + Format.count(o.p2p()) + " point-to-point");
    card("used in figures", Format.count(o.used()), excludedText(o));
    card("communicators", Format.count(o.communicators()), Format.count(o.processes())
        + " processes on " + Format.count(o.hosts()) + " hosts");
    card("time span", span(o), o.firstDumpMicros() == null ? ""
        : TIME.format(Instant.ofEpochSecond(0, o.firstDumpMicros() * 1000)));
    card("input files", Format.count(d.imported().files().size()),
        Format.count(d.imported().rejected()) + " unusable lines skipped");
    StragglerResult s = d.stragglers();
    if (s.alignedCollectives() == 0) {
      card("stragglers", "n/a", "no collective could be lined up across ranks (see Findings)");
    } else {
      card("stragglers", Format.count(s.suspects().size()), Format.count(s.alignedCollectives())
          + " collectives lined up, " + Format.count(s.lateCollectives()) + " held up");
    }
    out.append("</div>");
  }

  private void card(String label, String value, String detail) {
    out.append("<div class=\"card\"><div class=\"card-label\">").append(esc(label))
        .append("</div><div class=\"card-value\">").append(esc(value))
        .append("</div><div class=\"card-detail\">").append(esc(detail)).append("</div></div>");
  }

  private static String excludedText(Overview o) {
    if (o.excluded().isEmpty()) {
      return "nothing excluded";
    }
    return o.excluded().entrySet().stream().map(e -> Format.count(e.getValue()) + " "
        + e.getKey()).collect(Collectors.joining(", ")) + " excluded";
  }

  private static String span(Overview o) {
    if (o.firstDumpMicros() == null || o.lastDumpMicros() == null) {
      return "–";
    }
    return Format.micros(o.lastDumpMicros() - o.firstDumpMicros());
  }

  private void findings() {
    section("findings", "Findings");
    List<String> items = new ArrayList<>();
    StragglerResult s = d.stragglers();
    Map<String, Double> execByComm = new LinkedHashMap<>();
    for (RankLateness r : s.suspects()) {
      double othersExec = s.ranks().stream()
          .filter(x -> x.commId().equals(r.commId()) && x.rank() != r.rank()
              && x.execMeanUs() != null)
          .mapToDouble(RankLateness::execMeanUs).average().orElse(Double.NaN);
      execByComm.put(r.commId(), othersExec);
      items.add(String.format(Locale.ROOT, "Straggler: rank %d of communicator %s (%s, %s, pid %s)"
          + " arrived last and held up %s of its collectives (%s of %s), by %s on median and %s"
          + " in total. Its own mean execution time (%s) is shorter than the other ranks' (%s):"
          + " they wait for it inside the collective, so their longer times are the symptom,"
          + " not the cause.", r.rank(), r.commId(), nameOr(r.commName()), r.hostname(),
          r.pid(), Format.percent(r.lateShare()), Format.count(r.lateCount()),
          Format.count(r.aligned()), Format.micros(orNaN(r.delayP50Us())),
          Format.micros(r.delayTotalMs() * 1000), Format.micros(orNaN(r.execMeanUs())),
          Format.micros(othersExec)));
    }
    List<ProcessLateness> multi = s.processes().stream().filter(p -> p.suspectIn() > 1).toList();
    for (ProcessLateness p : multi) {
      items.add(String.format(Locale.ROOT, "Process %s pid %s is the straggler in %d"
          + " communicators: one slow GPU or host, not a slow link.", p.hostname(), p.pid(),
          p.suspectIn()));
    }
    if (s.suspects().isEmpty()) {
      if (s.alignedCollectives() > 0) {
        items.add(String.format(Locale.ROOT, "No straggler: across %s collectives lined up over"
            + " ranks, no rank arrived last more often than chance (late threshold %s).",
            Format.count(s.alignedCollectives()), Format.micros(s.lateThresholdUs())));
      }
    }
    items.addAll(s.notes());
    long rejected = d.imported().rejected();
    if (rejected > 0) {
      long files = d.imported().files().stream().filter(f -> f.rejected() > 0).count();
      items.add(String.format(Locale.ROOT, "%s unusable lines in %d files were skipped; see"
          + " Inputs and rejected_lines.csv.", Format.count(rejected), files));
    }
    for (FileImport f : d.imported().files()) {
      if (f.damage() != null) {
        items.add(f.file() + ": " + f.damage() + ". The records before the damage were used.");
      }
    }
    for (SkippedInput k : d.skipped()) {
      if (k.unreadable()) {
        items.add(k.displayName() + " " + k.reason() + ": its records are not in the report.");
      }
    }
    Long invalid = d.overview().excluded().get("invalid_size");
    if (invalid != null && invalid > 0) {
      items.add(Format.count(invalid) + " records have an implausible message size (the"
          + " reference Inspector's near-2^64 sizes for 8-bit integer collectives); they are"
          + " in the Parquet export but not in the figures.");
    }
    List<String> absurd = new ArrayList<>();
    for (Exclusion e : List.of(Exclusion.INVALID_IDENTITY, Exclusion.INVALID_TIME,
        Exclusion.INVALID_BANDWIDTH)) {
      Long n = d.overview().excluded().get(e.label());
      if (n != null && n > 0) {
        absurd.add(Format.count(n) + " " + e.label());
      }
    }
    if (!absurd.isEmpty()) {
      items.add("Records with values out of any plausible range (" + String.join(", ", absurd)
          + ": a rank, count, time, timestamp or bandwidth no run produces) are in the Parquet"
          + " export with their excluded_reason, and not in the figures or the straggler"
          + " analysis.");
    }
    Long cpu = d.overview().excluded().get("cpu_timing");
    if (cpu != null && cpu > 0) {
      items.add(Format.count(cpu) + " records are CPU-timed and left out of the figures"
          + " (--all-timing includes them).");
    }
    items.addAll(d.imported().notices());
    if (items.isEmpty()) {
      items.add("Nothing unusual found.");
    }
    out.append("<ul class=\"findings\">");
    for (String i : items) {
      out.append("<li>").append(esc(i)).append("</li>");
    }
    out.append("</ul>");
    endSection();
  }

  private static String nameOr(String name) {
    return name == null || name.isEmpty() || name.equals("unknown") ? "unnamed" : name;
  }

  private static double orNaN(Double v) {
    return v == null ? Double.NaN : v;
  }

  /** One chart per class: bus bandwidth (median) against size, one line per operation. */
  private void bandwidthBySize() {
    section("bandwidth", "Bandwidth by message size");
    p("Median bus bandwidth of each operation per message-size bucket ("
        + bucketingText() + "), one chart per communication class. Hover a point for"
        + " p50/p90/p99 and the record count. Single-rank communicators cross no link (bus"
        + " bandwidth 0), so their chart shows the median execution time instead.");
    Map<String, List<ClassSummary>> byClass = byClass();
    if (byClass.isEmpty()) {
      note("No record qualifies for the performance figures.");
    }
    for (Map.Entry<String, List<ClassSummary>> e : byClass.entrySet()) {
      boolean single = e.getKey().equals(CommType.SINGLE_RANK.label());
      Map<String, List<LineChart.Point>> series = new LinkedHashMap<>();
      for (ClassSummary c : e.getValue()) {
        double x = Math.max(1, c.sizeBucketBytes());
        double y = single ? c.execP50Us() : c.busbwP50Gbs();
        String tip = single
            ? String.format(Locale.ROOT, "%s %s: exec p50 %s, p90 %s, p99 %s (%s records)",
                c.op(), c.sizeBucket(), Format.micros(c.execP50Us()),
                Format.micros(c.execP90Us()), Format.micros(c.execP99Us()),
                Format.count(c.records()))
            : String.format(Locale.ROOT, "%s %s: busbw p50 %s GB/s, p90 %s, p99 %s (%s records)",
                c.op(), c.sizeBucket(), Format.trim(c.busbwP50Gbs()),
                Format.trim(c.busbwP90Gbs()), Format.trim(c.busbwP99Gbs()),
                Format.count(c.records()));
        series.computeIfAbsent(c.kind().equals("p2p") ? c.op() + " (p2p)" : c.op(),
            k -> new ArrayList<>()).add(new LineChart.Point(x, y, tip));
      }
      List<LineChart.Series> list = series.entrySet().stream()
          .map(s -> new LineChart.Series(s.getKey(), s.getValue())).toList();
      out.append("<h3>").append(esc(e.getKey())).append("</h3><figure>");
      out.append(LineChart.render(e.getKey() + ": " + (single ? "execution time" : "bus bandwidth")
          + " by message size", "message size", single ? "exec time p50 (µs)" : "busbw p50 (GB/s)",
          list, v -> SizeBucketing.label((long) v), single));
      out.append("</figure>");
    }
    endSection();
  }

  private String bucketingText() {
    return d.options().sizeBucketing() == SizeBucketing.POW2
        ? "power-of-two ranges, named by their lower bound" : "exact sizes";
  }

  private Map<String, List<ClassSummary>> byClass() {
    Map<String, List<ClassSummary>> m = new LinkedHashMap<>();
    for (CommType t : CommType.values()) {
      List<ClassSummary> rows = d.classes().stream()
          .filter(c -> c.commType().equals(t.label())).toList();
      if (!rows.isEmpty()) {
        m.put(t.label(), rows);
      }
    }
    return m;
  }

  private void histograms() {
    section("histograms", "Execution-time histograms");
    p("Distribution of execution times of the busiest groups (class · operation · size): 30"
        + " equal bins from the minimum to the 99th percentile, and a grey bin for the slowest"
        + " 1 %. Two humps mean two behaviours (a protocol switch, a slow link some of the"
        + " time).");
    if (d.execHistograms().isEmpty()) {
      note("Not enough data for histograms.");
    }
    out.append("<div class=\"grid\">");
    for (Histogram h : d.execHistograms()) {
      out.append("<figure><figcaption>").append(esc(h.title())).append(" · ")
          .append(esc(Format.count(h.total()))).append(" records</figcaption>")
          .append(HistogramChart.render(h, 560, "execution time (µs)")).append("</figure>");
    }
    out.append("</div>");
    endSection();
  }

  private void boxPlots() {
    section("boxplots", "Bus bandwidth box plots per class");
    p("Per communication class, the spread of bus bandwidth of each operation and size bucket"
        + " (largest groups first, up to " + MAX_BOXES + "): box 25th–75th percentile with the"
        + " median, whiskers 5th–95th, dots minimum and maximum. A tall box or long lower whisker"
        + " is a group whose bandwidth is not stable.");
    boolean any = false;
    for (Map.Entry<String, List<ClassSummary>> e : byClass().entrySet()) {
      if (e.getKey().equals(CommType.SINGLE_RANK.label())) {
        continue;
      }
      List<ClassSummary> top = e.getValue().stream()
          .sorted(Comparator.comparingLong(ClassSummary::records).reversed())
          .limit(MAX_BOXES)
          .sorted(Comparator.comparing(ClassSummary::op)
              .thenComparingLong(ClassSummary::sizeBucketBytes))
          .toList();
      List<BoxPlotChart.Box> boxes = top.stream().map(c -> new BoxPlotChart.Box(
          c.op() + " " + SizeBucketing.label(c.sizeBucketBytes()), c.busbwMinGbs(),
          c.busbwP05Gbs(), c.busbwP25Gbs(), c.busbwP50Gbs(), c.busbwP75Gbs(), c.busbwP95Gbs(),
          c.busbwMaxGbs(), c.records())).toList();
      any = true;
      out.append("<h3>").append(esc(e.getKey())).append("</h3><figure>")
          .append(BoxPlotChart.render(e.getKey() + ": bus bandwidth by operation and size",
              "busbw (GB/s)", boxes, 1100))
          .append("</figure>");
    }
    if (!any) {
      note("No multi-rank group qualifies for the performance figures.");
    }
    endSection();
  }

  private void stragglers() {
    StragglerResult s = d.stragglers();
    section("stragglers", "Stragglers across ranks");
    stragglersExplained(s);
    if (s.alignedCollectives() == 0) {
      endSection();
      return;
    }
    stragglerChartsPerCommunicator(s);
    lateRanksTable(s);
    lateProcessesTable(s);
    mostDelayedCollectivesTable(s);
    endSection();
  }

  /** How collectives are lined up and when one counts as held up; the analysis' notes. */
  private void stragglersExplained(StragglerResult s) {
    p("Records of the same collective (communicator, operation, sequence number) are lined up"
        + " across ranks by their GPU start time. The rank that starts last holds everyone up:"
        + " the others wait for it inside the collective, so their execution times grow while"
        + " its own stays the shortest. Blame follows arrival, never execution time. A"
        + " collective counts as held up when its last rank started at least "
        + Format.micros(s.lateThresholdUs()) + " after the average of the others"
        + (s.clockSync() == ClockSync.AUTO
            ? "; per-rank GPU clock offsets, estimated from when symmetric collectives end, are"
                + " removed first." : "; timestamps are compared as they are (--clock-sync none)."));
    for (String n : s.notes()) {
      note(n);
    }
  }

  /**
   * Charts for the communicators whose collectives were held up, most delay first; if none was,
   * one chart still shows what "nobody late" looks like.
   */
  private void stragglerChartsPerCommunicator(StragglerResult s) {
    List<String> comms = s.ranks().stream().filter(r -> r.lateCount() > 0)
        .map(RankLateness::commId).distinct().limit(MAX_RANK_CHARTS).toList();
    if (comms.isEmpty()) {
      comms = s.ranks().stream().map(RankLateness::commId).distinct().limit(1).toList();
    }
    for (String comm : comms) {
      communicatorLatenessCharts(s, comm);
    }
  }

  /** One communicator's late arrivals and execution times per rank, and its delay histogram. */
  private void communicatorLatenessCharts(StragglerResult s, String comm) {
    List<RankLateness> rows = s.ranks().stream().filter(r -> r.commId().equals(comm))
        .sorted(Comparator.comparingInt(RankLateness::rank)).toList();
    String label = "communicator " + comm + " (" + nameOr(rows.get(0).commName()) + ", "
        + rows.get(0).commType() + ", " + rows.size() + " ranks)";
    List<RankLateness> shown = rows.size() <= MAX_BARS ? rows : rows.stream()
        .sorted(Comparator.comparingDouble(RankLateness::lateShare).reversed())
        .limit(MAX_BARS).sorted(Comparator.comparingInt(RankLateness::rank)).toList();
    List<BarChart.Bar> late = shown.stream().map(r -> new BarChart.Bar(
        Integer.toString(r.rank()), r.lateShare(), r.suspect(), String.format(Locale.ROOT,
            "rank %d (%s pid %s): held up %s of %s collectives (%s), median delay %s",
            r.rank(), r.hostname(), r.pid(), Format.count(r.lateCount()),
            Format.count(r.aligned()), Format.percent(r.lateShare()),
            Format.micros(orNaN(r.delayP50Us()))))).toList();
    List<BarChart.Bar> exec = shown.stream().map(r -> new BarChart.Bar(
        Integer.toString(r.rank()), orNaN(r.execMeanUs()), r.suspect(),
        String.format(Locale.ROOT, "rank %d: mean execution time %s over the aligned"
            + " collectives", r.rank(), Format.micros(orNaN(r.execMeanUs()))))).toList();
    out.append("<h3>").append(esc(label)).append("</h3>");
    if (shown.size() < rows.size()) {
      note("Showing the " + shown.size() + " ranks with the highest late share.");
    }
    out.append("<div class=\"pair\"><figure><figcaption>Held up the collective (share of its"
        + " collectives) — the culprit is tall here</figcaption>")
        .append(BarChart.render(label + ": late arrivals per rank", "rank",
            "share held up", late, 540, Format::percent))
        .append("</figure><figure><figcaption>Mean execution time — the victims are tall"
            + " here</figcaption>")
        .append(BarChart.render(label + ": mean execution time per rank", "rank",
            "mean exec (µs)", exec, 540, Format::compact))
        .append("</figure></div>");
    Histogram h = s.delayHistograms().get(comm);
    if (h != null) {
      out.append("<figure><figcaption>Arrival delay of each collective (last start − mean"
          + " start of the others), logarithmic bins</figcaption>")
          .append(HistogramChart.render(h, 1100, "delay (µs)")).append("</figure>");
    }
  }

  /** The ranks that held up collectives (at most 50). */
  private void lateRanksTable(StragglerResult s) {
    out.append("<h3>Ranks that held up collectives</h3>");
    Html.Table t = new Html.Table("communicator", "#rank", "host", "#pid", "#aligned",
        "#held up", "#share", "#median delay", "#total delay", "#mean arrival", "#mean exec",
        "#clock offset", "suspect");
    s.ranks().stream().filter(r -> r.lateCount() > 0).limit(50).forEach(r -> t.rowWithClass(
        r.suspect() ? "alert" : null, r.commId(), r.rank(), r.hostname(), r.pid(),
        Format.count(r.aligned()), Format.count(r.lateCount()), Format.percent(r.lateShare()),
        Format.micros(orNaN(r.delayP50Us())), Format.micros(r.delayTotalMs() * 1000),
        Format.micros(orNaN(r.meanArrivalUs())), Format.micros(orNaN(r.execMeanUs())),
        Format.micros(r.clockOffsetUs()), r.suspect() ? "yes" : ""));
    if (t.size() == 0) {
      note("No collective was held up by more than the threshold.");
    } else {
      out.append(t.render());
    }
  }

  /** The processes that held up collectives (at most 30), summed over their communicators. */
  private void lateProcessesTable(StragglerResult s) {
    out.append("<h3>Processes that held up collectives</h3>");
    Html.Table pt = new Html.Table("host", "#pid", "#communicators", "#aligned", "#held up",
        "#share", "#total delay", "#suspect in");
    s.processes().stream().filter(pr -> pr.lateCount() > 0).limit(30).forEach(pr ->
        pt.rowWithClass(pr.suspectIn() > 0 ? "alert" : null, pr.hostname(), pr.pid(),
            pr.communicators(), Format.count(pr.aligned()), Format.count(pr.lateCount()),
            Format.percent(pr.lateShare()), Format.micros(pr.delayTotalMs() * 1000),
            pr.suspectIn()));
    if (pt.size() == 0) {
      note("None.");
    } else {
      p("Summed over each process's communicators (one GPU in the usual one-GPU-per-process"
          + " setup). All processes: stragglers_by_process.csv / .json.");
      out.append(pt.render());
    }
  }

  /** The most delayed collectives, as the analysis lists them (the first 25). */
  private void mostDelayedCollectivesTable(StragglerResult s) {
    out.append("<h3>Most delayed collectives</h3>");
    Html.Table wt = new Html.Table("communicator", "op", "#sn", "#size", "#ranks", "#delay",
        "#skew", "#lead", "#last rank", "last host", "#last exec", "#mean exec");
    for (CollectiveSkew c : s.worst().stream().limit(25).toList()) {
      wt.row(c.commId(), c.op(), c.sn(), c.msgSizeBytes() == null ? "–"
              : SizeBucketing.label(c.msgSizeBytes()), c.ranksAligned() + "/" + c.nRanks(),
          Format.micros(c.delayUs()), Format.micros(c.skewUs()), Format.micros(c.leadUs()),
          c.lastRank(), c.lastHostname(), Format.micros(orNaN(c.lastExecUs())),
          Format.micros(orNaN(c.meanExecUs())));
    }
    out.append(wt.render());
  }

  private void p2pCompletion() {
    P2pCompletionResult c = d.p2pCompletion();
    if (c.receives() == 0) {
      return;
    }
    section("p2p", "Point-to-point completion");
    p("A P2P record's GPU time ends at its kernel's send-side stop (NCCL writes the stop from the"
        + " thread that sends), so a receive's logged time can end before its data arrived. With"
        + " both ranks' logs, the k-th receive at B from A is paired with the k-th send from A to"
        + " B; the data has arrived when both the receive's own stop and the sender's stop have"
        + " passed, the sender's stop taken onto the receiver's GPU clock"
        + ("auto".equals(c.clockSync()) ? " by removing both ranks' estimated clock offsets."
            : " as it is (--clock-sync none)."));
    p(Format.count(c.receives()) + " receives; completion worked out for "
        + Format.count(c.measured()) + ". Not measured: no matching send in the logs "
        + Format.count(c.noPeerRecord()) + ", sizes differ (a record missing on one side) "
        + Format.count(c.sizeMismatch()) + ", no GPU time on either side "
        + Format.count(c.untimed()) + ", no clock offset " + Format.count(c.noClockOffset())
        + ".");
    for (String n : c.notes()) {
      note(n);
    }
    if (!c.transfers().isEmpty()) {
      Html.Table t = new Html.Table("communicator", "name", "#rank", "#from", "#size", "#pairs",
          "#peer later", "#logged p50", "#completion p50", "#completion p99",
          "#extension p50", "#extension max");
      for (P2pTransfer x : c.transfers().stream().limit(MAX_TABLE_ROWS).toList()) {
        t.row(x.commId(), nameOr(x.commName()), x.rank(), x.peer(),
            SizeBucketing.label(x.msgSizeBytes()),
            Format.count(x.pairs()), Format.count(x.peerLater()),
            Format.micros(orNaN(x.reportedP50Us())), Format.micros(orNaN(x.completionP50Us())),
            Format.micros(orNaN(x.completionP99Us())), Format.micros(orNaN(x.extensionP50Us())),
            Format.micros(orNaN(x.extensionMaxUs())));
      }
      p("Logged: the receive's own GPU time. Completion: from its start to the data's arrival."
          + " Extension: how much later the data arrived than the logged time ends, over the"
          + " receives where it did. All rows: p2p_completion.csv / .json; every receive:"
          + " p2p_receives.parquet.");
      truncated(c.transfers().size());
      out.append(t.render());
    }
    endSection();
  }

  private void summaryTable() {
    section("summary", "Summary by class, operation and size");
    Html.Table t = new Html.Table("class", "op", "size", "#records", "#comms", "#exec p50",
        "#exec p90", "#exec p99", "#busbw p50", "#busbw p90", "#busbw p99");
    for (ClassSummary c : d.classes().stream().limit(MAX_TABLE_ROWS).toList()) {
      t.row(c.commType(), c.kind().equals("p2p") ? c.op() + " (p2p)" : c.op(), c.sizeBucket(),
          Format.count(c.records()), c.communicators(), Format.micros(c.execP50Us()),
          Format.micros(c.execP90Us()), Format.micros(c.execP99Us()),
          Format.trim(c.busbwP50Gbs()), Format.trim(c.busbwP90Gbs()),
          Format.trim(c.busbwP99Gbs()));
    }
    p("Bandwidths in GB/s. All rows and more columns: summary_by_class.csv / .json.");
    truncated(d.classes().size());
    out.append(t.render());
    endSection();
  }

  private void truncated(int rows) {
    if (rows > MAX_TABLE_ROWS) {
      note("Showing the first " + MAX_TABLE_ROWS + " of " + Format.count(rows)
          + " rows; the CSV and JSON files have them all.");
    }
  }

  private void communicatorTable() {
    section("communicators", "Communicators");
    Html.Table t = new Html.Table("id", "name", "class", "#ranks", "#nodes", "#ranks seen",
        "#records", "~operations", "#exec total", "#exec p50", "#busbw p50", "#aligned",
        "#held up", "#skew p99", "top late rank");
    for (CommunicatorSummary c : d.communicators().stream().limit(MAX_TABLE_ROWS).toList()) {
      t.row(c.commId(), c.commName(), c.commType(), c.nRanks(), c.nnodes(), c.ranksSeen(),
          Format.count(c.records()), c.operations(), Format.micros(c.execTotalMs() * 1000),
          Format.micros(orNaN(c.execP50Us())), Format.trim(orNaN(c.busbwP50Gbs())),
          c.alignedCollectives() == null ? "–" : Format.count(c.alignedCollectives()),
          c.lateCollectives() == null ? "–" : Format.count(c.lateCollectives()),
          c.skewP99Us() == null ? "–" : Format.micros(c.skewP99Us()),
          c.topLateRank() == null ? "" : c.topLateRank() + " (" + Format.percent(
              orNaN(c.topLateShare())) + ")");
    }
    p("Sorted by total execution time. All rows: communicators.csv / .json.");
    truncated(d.communicators().size());
    out.append(t.render());
    endSection();
  }

  private void rankTable() {
    section("ranks", "Ranks");
    Html.Table t = new Html.Table("communicator", "name", "#rank", "host", "#pid", "#records",
        "#exec p50", "#exec p99", "#exec mean", "#busbw p50", "#exec total");
    for (RankSummary r : d.ranks().stream().limit(MAX_TABLE_ROWS).toList()) {
      t.row(r.commId(), r.commName(), r.rank(), r.hostname(), r.pid(), Format.count(r.records()),
          Format.micros(orNaN(r.execP50Us())), Format.micros(orNaN(r.execP99Us())),
          Format.micros(orNaN(r.execMeanUs())), Format.trim(orNaN(r.busbwP50Gbs())),
          Format.micros(r.execTotalMs() * 1000));
    }
    p("Per communicator rank, over all its operations. All rows: ranks.csv / .json; lateness"
        + " per rank: stragglers_by_rank.csv / .json.");
    truncated(d.ranks().size());
    out.append(t.render());
    endSection();
  }

  private void inputs() {
    section("inputs", "Inputs");
    List<FileImport> files = d.imported().files().stream()
        .sorted(Comparator.comparing((FileImport f) -> f.rejected() == 0 && f.damage() == null)
            .thenComparing(FileImport::file)).toList();
    Html.Table t = new Html.Table("file", "compression", "#size", "#records", "#unusable lines",
        "~problem");
    for (FileImport f : files.stream().limit(MAX_TABLE_ROWS).toList()) {
      t.rowWithClass(f.rejected() > 0 || f.damage() != null ? "alert" : null, f.file(),
          f.compression().name().toLowerCase(Locale.ROOT), SizeBucketing.label(f.sizeBytes()),
          Format.count(f.records()), Format.count(f.rejected()), f.damage() == null
              ? (f.salvaged() ? "read line by line" : "") : f.damage());
    }
    p("Files with problems first. All files: inputs.csv.");
    truncated(files.size());
    out.append(t.render());
    if (!d.skipped().isEmpty()) {
      out.append("<h3>Files not imported</h3>");
      Html.Table s = new Html.Table("file", "~reason");
      for (SkippedInput k : d.skipped().stream().limit(MAX_TABLE_ROWS).toList()) {
        s.rowWithClass(k.unreadable() ? "alert" : null, k.displayName(), k.reason());
      }
      out.append(s.render());
    }
    List<RejectedLine> lines = d.imported().rejectedLines();
    if (!lines.isEmpty()) {
      out.append("<h3>Unusable lines</h3>");
      Html.Table r = new Html.Table("file", "#line", "~reason", "~beginning of the line");
      for (RejectedLine l : lines.stream().limit(100).toList()) {
        r.row(l.file(), l.line(), l.reason(), l.excerpt());
      }
      p("The first " + Math.min(100, lines.size()) + " listed; all in rejected_lines.csv.");
      out.append(r.render());
    }
    endSection();
  }

  private void method() {
    section("method", "Method and files");
    out.append("<ul class=\"method\">");
    String[] items = {
        "Communication class, as the reference exporter decides it from the header: single-rank"
            + " (n_ranks = 1), nvlink-only (nnodes = 1: all ranks on one node), hca-only"
            + " (n_ranks = nnodes: one rank per node), mixed otherwise.",
        "Execution time: our nanosecond field where present, else the whole microseconds of the"
            + " reference field. Percentiles: " + d.engine().percentiles() + ".",
        "Performance figures use GPU-timed records with a plausible message size and usable"
            + " timestamps" + (d.options().allTiming() ? ", CPU-timed ones included" : "")
            + "; the Parquet export has every record with an excluded_reason column.",
        "Stragglers need this project's coll_gpu_start_ns; the reference's logs do not have it.",
        "Files: report.html (this page), report.json (overview and settings), records/*.parquet"
            + " (every record), summary_by_class, communicators, ranks, stragglers_by_rank,"
            + " stragglers_by_process, worst_collectives, p2p_completion, network_ranks,"
            + " network_links, network_waited_for (.csv and .json), collectives.parquet"
            + " (every collective lined up across ranks), p2p_receives.parquet,"
            + " network_waits.parquet (every wait attributed to a slowest peer), inputs.csv,"
            + " rejected_lines.csv."};
    for (String i : items) {
      out.append("<li>").append(esc(i)).append("</li>");
    }
    out.append("</ul>");
    Html.Table t = new Html.Table("stage", "#seconds");
    d.stageSeconds().forEach((k, v) -> t.row(k, String.format(Locale.ROOT, "%.2f", v)));
    out.append(t.render());
    endSection();
  }
}
