package io.ncclinspector.report.output;

import io.ncclinspector.report.analysis.ClassSummary;
import io.ncclinspector.report.analysis.CollectiveSkew;
import io.ncclinspector.report.analysis.CommunicatorSummary;
import io.ncclinspector.report.analysis.NetLink;
import io.ncclinspector.report.analysis.NetRank;
import io.ncclinspector.report.analysis.NetWaitedFor;
import io.ncclinspector.report.analysis.P2pTransfer;
import io.ncclinspector.report.analysis.ProcessLateness;
import io.ncclinspector.report.analysis.RankLateness;
import io.ncclinspector.report.analysis.RankSummary;
import io.ncclinspector.report.input.RejectedLine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The names of the report's files, and writing the tabular ones. */
public final class OutputFiles {
  public static final String HTML = "report.html";
  public static final String MANIFEST = "report.json";
  public static final String RECORDS_DIR = "records";
  public static final String COLLECTIVES = "collectives.parquet";
  public static final String CLASSES = "summary_by_class";
  public static final String COMMUNICATORS = "communicators";
  public static final String RANKS = "ranks";
  public static final String RANK_LATENESS = "stragglers_by_rank";
  public static final String PROCESS_LATENESS = "stragglers_by_process";
  public static final String WORST = "worst_collectives";
  public static final String P2P_COMPLETION = "p2p_completion";
  public static final String P2P_RECEIVES = "p2p_receives.parquet";
  public static final String NETWORK_RANKS = "network_ranks";
  public static final String NETWORK_LINKS = "network_links";
  public static final String NETWORK_WAITED_FOR = "network_waited_for";
  public static final String NETWORK_WAITS = "network_waits.parquet";
  public static final String INPUTS = "inputs.csv";
  public static final String REJECTED = "rejected_lines.csv";

  /** Files (relative to the output directory) a report writes, for cleaning a previous run. */
  public static final List<String> ALL = List.of(HTML, MANIFEST, COLLECTIVES, P2P_RECEIVES,
      CLASSES + ".csv", CLASSES + ".json", COMMUNICATORS + ".csv", COMMUNICATORS + ".json",
      RANKS + ".csv", RANKS + ".json", RANK_LATENESS + ".csv", RANK_LATENESS + ".json",
      PROCESS_LATENESS + ".csv", PROCESS_LATENESS + ".json", WORST + ".csv", WORST + ".json",
      P2P_COMPLETION + ".csv", P2P_COMPLETION + ".json", NETWORK_WAITS,
      NETWORK_RANKS + ".csv", NETWORK_RANKS + ".json", NETWORK_LINKS + ".csv",
      NETWORK_LINKS + ".json", NETWORK_WAITED_FOR + ".csv", NETWORK_WAITED_FOR + ".json", INPUTS,
      REJECTED);

  private OutputFiles() {}

  /** Writes every CSV/JSON table of the report data. */
  public static void writeTables(Path dir, ReportData d) throws IOException {
    TableFiles.write(dir, CLASSES, ClassSummary.class, d.classes());
    TableFiles.write(dir, COMMUNICATORS, CommunicatorSummary.class, d.communicators());
    TableFiles.write(dir, RANKS, RankSummary.class, d.ranks());
    TableFiles.write(dir, RANK_LATENESS, RankLateness.class, d.stragglers().ranks());
    TableFiles.write(dir, PROCESS_LATENESS, ProcessLateness.class, d.stragglers().processes());
    TableFiles.write(dir, WORST, CollectiveSkew.class, d.stragglers().worst());
    TableFiles.write(dir, P2P_COMPLETION, P2pTransfer.class, d.p2pCompletion().transfers());
    TableFiles.write(dir, NETWORK_RANKS, NetRank.class, d.network().ranks());
    TableFiles.write(dir, NETWORK_LINKS, NetLink.class, d.network().links());
    TableFiles.write(dir, NETWORK_WAITED_FOR, NetWaitedFor.class, d.network().waitedFor());
    TableFiles.writeCsv(dir.resolve(INPUTS), InputRow.class,
        InputRow.of(d.imported().files(), d.skipped()));
    TableFiles.writeCsv(dir.resolve(REJECTED), RejectedLine.class,
        d.imported().rejectedLines());
  }

  /**
   * The report's own names in {@code dir} that are symbolic links, relative to {@code dir}. The
   * report never writes or deletes through a link: a planted {@code records} link to another
   * directory would have its part files deleted and replaced there.
   */
  public static List<String> symbolicLinks(Path dir) {
    List<String> links = new java.util.ArrayList<>();
    for (String f : ALL) {
      if (Files.isSymbolicLink(dir.resolve(f))) {
        links.add(f);
      }
    }
    if (Files.isSymbolicLink(dir.resolve(RECORDS_DIR))) {
      links.add(RECORDS_DIR);
    }
    return links;
  }

  /**
   * Removes the files of an earlier report in {@code dir}; nothing else is touched. The caller
   * has made sure that none of the names is a link ({@link #symbolicLinks}). The Spark
   * engine writes {@code collectives.parquet} as a directory of parts, and leaves Hadoop's
   * {@code _SUCCESS} markers and {@code .crc} checksums beside its parts: those go too.
   */
  public static void cleanPrevious(Path dir) throws IOException {
    for (String f : ALL) {
      Path p = dir.resolve(f);
      if (Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        removeParts(p);
        Files.deleteIfExists(p);
      } else {
        Files.deleteIfExists(p);
      }
    }
    Path records = dir.resolve(RECORDS_DIR);
    if (Files.isDirectory(records, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      removeParts(records);
    }
  }

  /** Deletes part files and their Hadoop companions in a directory; keeps anything else. */
  private static void removeParts(Path dir) throws IOException {
    try (var s = Files.list(dir)) {
      for (Path p : s.toList()) {
        String name = p.getFileName().toString();
        boolean part = name.startsWith("part-") && name.endsWith(".parquet");
        boolean hadoop = name.equals("_SUCCESS") || (name.startsWith(".")
            && name.endsWith(".crc")
            && (name.startsWith(".part-") || name.equals("._SUCCESS.crc")));
        if (part || hadoop) {
          Files.delete(p);
        }
      }
    }
  }
}
