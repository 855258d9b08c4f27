package io.ncclinspector.report;

import io.ncclinspector.report.analysis.ClassSummary;
import io.ncclinspector.report.analysis.CommunicatorSkew;
import io.ncclinspector.report.analysis.CommunicatorSummary;
import io.ncclinspector.report.analysis.Histogram;
import io.ncclinspector.report.analysis.NetworkAnalysis;
import io.ncclinspector.report.analysis.NetworkResult;
import io.ncclinspector.report.analysis.Overview;
import io.ncclinspector.report.analysis.RankSummary;
import io.ncclinspector.report.analysis.RecordGroups;
import io.ncclinspector.report.analysis.P2pCompletion;
import io.ncclinspector.report.analysis.P2pCompletionResult;
import io.ncclinspector.report.analysis.StragglerAnalysis;
import io.ncclinspector.report.analysis.StragglerResult;
import io.ncclinspector.report.analysis.SummaryQueries;
import io.ncclinspector.report.engine.Engines;
import io.ncclinspector.report.engine.ReportEngine;
import io.ncclinspector.report.engine.ReportEngineProvider;
import io.ncclinspector.report.engine.SqlEngine;
import io.ncclinspector.report.ingest.ImportResult;
import io.ncclinspector.report.input.InputSet;
import io.ncclinspector.report.input.SkippedInput;
import io.ncclinspector.report.output.HtmlReport;
import io.ncclinspector.report.output.OutputFiles;
import io.ncclinspector.report.output.ReportData;
import io.ncclinspector.report.output.ReportManifest;
import io.ncclinspector.report.output.TableFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a report: discovery, import into Parquet, summaries, straggler analysis, and the output
 * files. Each stage is timed; the timings are part of the report. The engine (DuckDB, or Spark
 * when its module is on the class path) reads the logs and runs the analyses' SQL; everything
 * else is the same for every engine.
 */
public final class ReportRunner {
  private static final Logger LOG = LoggerFactory.getLogger(ReportRunner.class);
  private static final int HISTOGRAM_GROUPS = 8;

  private final ReportOptions options;
  private final Progress progress;
  private final Map<String, Double> stageSeconds = new LinkedHashMap<>();
  private long stageStart;
  private String stageName;

  public ReportRunner(ReportOptions options, Progress progress) {
    this.options = options;
    this.progress = progress;
  }

  public ReportResult run() throws ReportException {
    long start = System.nanoTime();
    Path out = options.outputDirectory().toAbsolutePath().normalize();
    ReportEngineProvider provider;
    try {
      provider = Engines.provider(options.engine());
    } catch (IllegalArgumentException e) {
      throw new ReportException(e.getMessage(), e);
    }
    Path staging = out.resolve(".staging-" + UUID.randomUUID());
    begin("starting the engine");
    try (ReportEngine engine = provider.open(options, staging)) {
      end();
      InputSet inputs = discover(engine, out);
      Files.createDirectories(out);
      refuseLinks(out);
      OutputFiles.cleanPrevious(out);
      Files.createDirectories(staging);
      ReportData data = analyse(engine, inputs, out, staging);
      begin("writing outputs");
      OutputFiles.writeTables(out, data);
      writeManifest(out, data);
      end();
      begin("writing report.html");
      HtmlReport.write(data, out.resolve(OutputFiles.HTML));
      end();
      return new ReportResult(data, out, (System.nanoTime() - start) / 1e9);
    } catch (SQLException e) {
      throw new ReportException("the " + provider.name() + " engine failed: " + e.getMessage(),
          e);
    } catch (IOException e) {
      throw new ReportException("I/O error: " + e, e);
    } finally {
      if (Files.exists(staging)) {
        deleteQuietly(staging);
      }
    }
  }

  /** Fails, before anything is deleted or written, if an output name in {@code out} is a link. */
  private static void refuseLinks(Path out) throws ReportException {
    List<String> links = OutputFiles.symbolicLinks(out);
    if (!links.isEmpty()) {
      throw new ReportException(links.stream().map(l -> out.resolve(l).toString())
          .collect(Collectors.joining(", ")) + (links.size() == 1 ? " is a symbolic link"
              : " are symbolic links") + ": the report does not write or delete through links"
          + " in its output directory; remove " + (links.size() == 1 ? "it" : "them")
          + " or choose another --out");
    }
  }

  private InputSet discover(ReportEngine engine, Path out) throws ReportException {
    begin("finding log files");
    try {
      InputSet inputs = engine.discover(options.inputs(), out);
      end();
      if (inputs.logs().isEmpty()) {
        StringJoiner why = new StringJoiner("; ");
        inputs.skipped().stream().limit(5).forEach(s -> why.add(s.displayName() + ": "
            + s.reason()));
        throw new ReportException("no Inspector logs (*.log, *.jsonl, or .gz of either) found in "
            + String.join(", ", options.inputs()) + (inputs.skipped().isEmpty() ? ""
                : " (passed over: " + why + ")"));
      }
      return inputs;
    } catch (NoSuchFileException e) {
      throw new ReportException(e.getFile() + ": no such file or directory", e);
    } catch (IOException e) {
      throw new ReportException("cannot search the inputs: " + e, e);
    }
  }

  private ReportData analyse(ReportEngine engine, InputSet inputs, Path out, Path staging)
      throws SQLException, IOException {
    begin("importing");
    ImportResult imported = engine.importRecords(inputs, out, staging, progress);
    end();

    SqlEngine sql = engine.sql();
    begin("summaries");
    RecordGroups groups = RecordGroups.create(sql);
    SummaryQueries summaries = new SummaryQueries(sql, groups, options.analysis());
    Overview overview = summaries.overview();
    List<ClassSummary> classes = summaries.classSummaries();
    List<RankSummary> ranks = summaries.ranks();
    List<Histogram> histograms = summaries.execHistograms(classes, HISTOGRAM_GROUPS);
    end();

    begin("straggler analysis");
    StragglerResult stragglers = new StragglerAnalysis(sql, options.analysis())
        .run(out.resolve(OutputFiles.COLLECTIVES));
    end();

    begin("point-to-point completion");
    P2pCompletionResult p2p = new P2pCompletion(sql, options.analysis())
        .run(out.resolve(OutputFiles.P2P_RECEIVES));
    end();

    begin("network");
    NetworkResult network = new NetworkAnalysis(sql, groups, options.analysis())
        .run(out.resolve(OutputFiles.NETWORK_WAITS));
    end();

    begin("communicators");
    Map<String, CommunicatorSkew> skews = stragglers.communicators().stream()
        .collect(Collectors.toMap(CommunicatorSkew::commId, Function.identity()));
    List<CommunicatorSummary> comms = summaries.communicators(skews);
    end();

    List<SkippedInput> skipped = new ArrayList<>(inputs.skipped());
    skipped.addAll(imported.skipped());
    return new ReportData(Instant.now(), options.inputs(), engine.info(), options.analysis(),
        imported, skipped, overview, classes, comms, ranks, histograms, stragglers,
        p2p, network, stageSeconds);
  }

  private void writeManifest(Path out, ReportData d) throws IOException {
    StragglerResult s = d.stragglers();
    long problems = d.imported().files().stream()
        .filter(f -> f.rejected() > 0 || f.damage() != null).count()
        + d.skipped().stream().filter(SkippedInput::unreadable).count();
    List<String> outputs = new ArrayList<>();
    outputs.add(OutputFiles.HTML);
    outputs.add(OutputFiles.MANIFEST);
    d.imported().parts().forEach(p -> outputs.add(out.relativize(p).toString()));
    OutputFiles.ALL.stream().filter(f -> !outputs.contains(f) && Files.exists(out.resolve(f)))
        .forEach(outputs::add);
    ReportManifest m = new ReportManifest("nccl-inspector report " + version(),
        d.generatedAt().toString(), d.inputs(), d.engine(), d.options(),
        new ReportManifest.Import(d.imported().files().size(), d.imported().records(),
            d.imported().rejected(), problems, d.skipped(), d.imported().notices(),
            options.recordColumns().label()),
        d.overview(),
        new ReportManifest.Stragglers(s.clockSync().name().toLowerCase(java.util.Locale.ROOT),
            s.lateThresholdUs(), s.alignedCollectives(), s.lateCollectives(),
            s.incompleteCollectives(), s.duplicateRecords(), s.suspects(), s.notes()),
        d.p2pCompletion(), ReportManifest.Network.of(d.network()),
        stageSeconds, outputs);
    TableFiles.json().writeValue(out.resolve(OutputFiles.MANIFEST).toFile(), m);
  }

  static String version() {
    String v = ReportRunner.class.getPackage().getImplementationVersion();
    return v == null ? "(development build)" : v;
  }

  private void begin(String name) {
    stageName = name;
    stageStart = System.nanoTime();
    progress.stage(name);
  }

  private void end() {
    double seconds = (System.nanoTime() - stageStart) / 1e9;
    stageSeconds.merge(stageName, seconds, Double::sum);
    LOG.debug("stage {}: {} ms", stageName, Math.round(seconds * 1000));
  }

  private static void deleteQuietly(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // Leftover scratch files are harmless; the next run's temp directory has another name.
    }
  }
}
