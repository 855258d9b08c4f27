package io.ncclinspector.report;

import io.ncclinspector.report.analysis.ClockSync;
import io.ncclinspector.report.analysis.Overview;
import io.ncclinspector.report.analysis.RankLateness;
import io.ncclinspector.report.analysis.SizeBucketing;
import io.ncclinspector.report.ingest.FileImport;
import io.ncclinspector.report.ingest.RecordSchema;
import io.ncclinspector.report.input.SkippedInput;
import io.ncclinspector.report.output.NetworkSummaryLine;
import io.ncclinspector.report.output.OutputFiles;
import io.ncclinspector.report.output.chart.Format;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code nccl-inspector report LOG_DIR... --out DIR}: turns Inspector logs (this project's and
 * the reference Inspector's) into a Parquet export, CSV/JSON summaries, a cross-rank straggler
 * analysis and a self-contained HTML report.
 *
 * <p>{@link #main} receives the arguments after the word {@code report}; the command is named
 * {@code report}, as a subcommand of {@code nccl-inspector} names it, and {@link #run} (the
 * command on its own) names it {@code nccl-inspector report}. Exit status: 0 report
 * written; 1 the report could not be made (no logs, no usable record, I/O or engine error);
 * 2 the command line is wrong.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
    version = "nccl-inspector report",
    sortOptions = false,
    usageHelpWidth = 100,
    description = {
        "Reads NCCL Inspector logs (*.log, *.jsonl and their .gz, found recursively; this"
            + " project's and NVIDIA's reference Inspector's) and writes into --out:",
        "  report.html     self-contained report (charts, findings, tables; opens offline)",
        "  records/        every record as Parquet (schema: inspector-report/README.md)",
        "  *.csv, *.json   summaries per class/operation/size, communicator, rank; stragglers",
        "  report.json     overview and settings for pipelines",
        "Unusable lines are reported with file and line number and skipped."},
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {"0:report written",
        "1:no usable input, an input file that could not be read in full (corrupt gzip data,"
            + " no permission, a read error: the report is written from the rest), or an I/O or"
            + " engine error",
        "2:invalid command line"})
public final class ReportCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(ReportCommand.class);
  /** The command's name when it runs on its own rather than under {@code nccl-inspector}. */
  static final String STANDALONE_NAME = "nccl-inspector report";

  @Parameters(arity = "1..*", paramLabel = "LOG_DIR",
      description = "Directories (searched recursively) or log files.")
  List<String> inputs;

  @Option(names = {"-o", "--out"}, required = true, paramLabel = "DIR",
      description = "Output directory (created if missing; files of an earlier report in it"
          + " are replaced).")
  Path out;

  @Option(names = "--size-buckets", paramLabel = "pow2|exact", defaultValue = "pow2",
      description = "Group message sizes in power-of-two ranges or by exact size. Default:"
          + " ${DEFAULT-VALUE}.")
  SizeBucketing sizeBuckets;

  @Option(names = "--all-timing",
      description = "Also use CPU-timed records in the performance figures.")
  boolean allTiming;

  @Option(names = "--clock-sync", paramLabel = "auto|none", defaultValue = "auto",
      description = "auto: estimate and remove per-rank GPU clock offsets before comparing"
          + " arrivals; none: compare raw timestamps. Default: ${DEFAULT-VALUE}.")
  ClockSync clockSync;

  @Option(names = "--late-threshold-us", paramLabel = "US", defaultValue = "20",
      description = "A collective is held up by its last rank when that rank started at least"
          + " this long after the average of the others. Default: ${DEFAULT-VALUE}.")
  double lateThresholdUs;

  @Option(names = "--worst", paramLabel = "N", defaultValue = "1000",
      description = "Most delayed collectives to list. Default: ${DEFAULT-VALUE}.")
  int worst;

  @Option(names = "--engine", paramLabel = "duckdb|spark", defaultValue = "duckdb",
      description = "duckdb: the embedded engine, on this machine. spark: Apache Spark (module"
          + " inspector-report-spark), in local mode here, or on a cluster under spark-submit."
          + " Default: ${DEFAULT-VALUE}.")
  String engine;

  @Option(names = "--threads", paramLabel = "N",
      description = "DuckDB threads, or the cores of Spark's local mode: 1 to the number of"
          + " processors. Default: the number of processors.")
  Integer threads;

  @Option(names = "--memory-limit", paramLabel = "SIZE",
      description = "DuckDB memory limit, e.g. 512MB, 8GB, 1.5TiB. Default: DuckDB's (80%% of"
          + " RAM).")
  String memoryLimit;

  @Option(names = "--percentile-accuracy", paramLabel = "N", defaultValue = "10000",
      description = "Spark: accuracy of percentile_approx (rank error at most 1/N of a group's"
          + " records); 0 computes exact percentiles (memory grows with distinct values). DuckDB's"
          + " percentiles are always exact. Default: ${DEFAULT-VALUE}.")
  int percentileAccuracy;

  @Option(names = "--records", paramLabel = "all|core", defaultValue = "all",
      description = "Columns of the records export: all (71); core (42), those the analyses"
          + " read, the tags and NCCL's choices to group by and the labels that say how far a"
          + " time can be trusted, without the verbose, metadata, recovery detail and detailed"
          + " network fields: the import reads fewer fields and writes fewer columns, the"
          + " report takes about a sixth less time on clean logs. Default: ${DEFAULT-VALUE}.")
  RecordSchema.ColumnSet records;

  @Option(names = {"-q", "--quiet"}, description = "No progress on stderr.")
  boolean quiet;

  private PrintStream stdout = System.out;
  private PrintStream stderr = System.err;

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** This command writing to the given streams: the {@code report} subcommand of {@code nccl-inspector}. */
  public static ReportCommand forStreams(PrintStream out, PrintStream err) {
    ReportCommand command = new ReportCommand();
    command.stdout = out;
    command.stderr = err;
    return command;
  }

  /**
   * Runs the command and returns the exit status instead of exiting (for a Spark application,
   * which returns from {@code main} when it succeeds).
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    ReportCommand command = new ReportCommand();
    command.stdout = out;
    command.stderr = err;
    CommandLine cli = new CommandLine(command)
        .setCommandName(STANDALONE_NAME)
        .setCaseInsensitiveEnumValuesAllowed(true)
        .setUnmatchedOptionsAllowedAsOptionParameters(false) /* --out --outt: a typo, not a path */
        .setOut(new PrintWriter(out, true))
        .setErr(new PrintWriter(err, true))
        .setExecutionExceptionHandler((e, cmd, parsed) -> {
          LOG.debug("report failed", e);
          err.println(STANDALONE_NAME + ": " + e);
          return 1;
        });
    return cli.execute(args);
  }

  @Override
  public Integer call() {
    ReportOptions options;
    try {
      ReportOptions.Builder b = ReportOptions.builder(out).inputs(inputs)
          .sizeBucketing(sizeBuckets).allTiming(allTiming).clockSync(clockSync)
          .lateThresholdMicros(lateThresholdUs).worstCollectives(worst)
          .memoryLimit(memoryLimit).progress(!quiet).engine(engine)
          .percentileAccuracy(percentileAccuracy)
          .recordColumns(records);
      if (threads != null) {
        b.threads(threads);
      }
      options = b.build();
    } catch (IllegalArgumentException e) {
      stderr.println(STANDALONE_NAME + ": " + e.getMessage());
      return 2;
    }
    ReportResult result;
    try (Progress progress = new Progress(stderr, options.progress())) {
      result = new ReportRunner(options, progress).run();
    } catch (ReportException e) {
      LOG.debug("report failed", e);
      stderr.println(STANDALONE_NAME + ": " + e.getMessage());
      return 1;
    }
    printSummary(result);
    boolean incomplete = sayIncompleteInputs(result);
    return result.data().overview().records() > 0 && !incomplete ? 0 : 1;
  }

  /**
   * Says on stderr which input files hold data that could not be read (corrupt gzip data, read
   * errors, files that cannot be opened); returns whether there were any. A file that merely ends
   * early (a killed writer's) is in the report's inputs table only.
   */
  private boolean sayIncompleteInputs(ReportResult r) {
    List<String> problems = new ArrayList<>();
    r.data().imported().files().stream().filter(FileImport::corrupt)
        .forEach(f -> problems.add(f.file() + ": " + f.damage()));
    r.data().skipped().stream().filter(SkippedInput::unreadable)
        .forEach(s -> problems.add(s.displayName() + ": " + s.reason()));
    if (problems.isEmpty()) {
      return false;
    }
    stderr.printf(Locale.ROOT, "%s: %d input file%s could not be read in full (the report covers"
        + " what could be read; see %s):%n", STANDALONE_NAME, problems.size(),
        problems.size() == 1 ? "" : "s", r.outputDirectory().resolve(OutputFiles.INPUTS));
    problems.forEach(p -> stderr.printf(Locale.ROOT, "  %s%n", p));
    return true;
  }

  private void printSummary(ReportResult r) {
    Overview o = r.data().overview();
    long rejected = r.data().imported().rejected();
    stdout.printf(Locale.ROOT, "%s records from %d files (%s unusable lines skipped) in %.1f s%n",
        Format.count(o.records()), r.data().imported().files().size(), Format.count(rejected),
        r.seconds());
    stdout.printf(Locale.ROOT, "%s communicators, %s processes on %s hosts; %s records in the"
        + " figures%n", Format.count(o.communicators()), Format.count(o.processes()),
        Format.count(o.hosts()), Format.count(o.used()));
    List<RankLateness> suspects = r.data().stragglers().suspects();
    if (suspects.isEmpty()) {
      stdout.printf(Locale.ROOT, "stragglers: none (%s collectives lined up across ranks)%n",
          Format.count(r.data().stragglers().alignedCollectives()));
    }
    for (RankLateness s : suspects) {
      stdout.printf(Locale.ROOT, "straggler: rank %d of %s (%s pid %s) held up %s of its"
          + " collectives, median delay %s%n", s.rank(), s.commId(), s.hostname(), s.pid(),
          Format.percent(s.lateShare()), Format.micros(s.delayP50Us() == null ? Double.NaN
              : s.delayP50Us()));
    }
    stdout.println(NetworkSummaryLine.of(r.data().network()));
    if (rejected > 0) {
      stdout.printf(Locale.ROOT, "unusable lines: see %s%n",
          r.outputDirectory().resolve(OutputFiles.REJECTED));
    }
    if (o.records() == 0) {
      stderr.println(STANDALONE_NAME + ": no usable record in the input");
    }
    stdout.println("report: " + r.html());
    stdout.println("records: " + r.recordsDirectory() + " (" + r.data().imported().parts().size()
        + " Parquet files" + (records == RecordSchema.ColumnSet.CORE ? ", core columns"
            : "") + ")");
  }
}
