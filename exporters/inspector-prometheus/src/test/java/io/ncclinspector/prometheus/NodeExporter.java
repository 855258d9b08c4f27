package io.ncclinspector.prometheus;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * The real consumer of textfiles: Prometheus node_exporter with only its textfile collector,
 * started on a free local port over a directory. Its Go text parser reads the files; a file it
 * cannot parse shows as {@code node_textfile_scrape_error 1}. What it re-exposes is in canonical
 * form, which {@link #samples} reads.
 */
public final class NodeExporter implements AutoCloseable {
  private static final String[] CANDIDATES = {"prometheus-node-exporter", "node_exporter"};
  private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})? (\\S+)$");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\",?");

  private final Process process;
  private final URI metrics;
  private final HttpClient http = HttpClient.newHttpClient();
  private final Path log;

  /** One sample of the scrape. */
  public record Sample(String name, Map<String, String> labels, double value) {}

  private NodeExporter(Process process, URI metrics, Path log) {
    this.process = process;
    this.metrics = metrics;
    this.log = log;
  }

  /**
   * Skips the calling test, with one line saying what was not checked, where node_exporter is
   * not installed (.ci/run installs it; a user's machine may not have it).
   */
  public static void assumeInstalled(String whatIsNotChecked) {
    if (find() == null) {
      String line = "NOT CHECKED: " + whatIsNotChecked + " (Prometheus node_exporter is not installed:"
          + " apt-get install prometheus-node-exporter, or set NODE_EXPORTER; .ci/run installs it)";
      System.out.println(line); /* Maven shows a test's output, not an assumption's message */
      Assumptions.abort(line);
    }
  }

  public static Path binary() {
    Path p = find();
    if (p == null) {
      throw new IllegalStateException("Prometheus node_exporter not found: install it (Debian/Ubuntu: "
          + "apt-get install prometheus-node-exporter; .ci/run does) or set NODE_EXPORTER to its path");
    }
    return p;
  }

  private static Path find() {
    String fromEnv = System.getenv("NODE_EXPORTER");
    if (fromEnv != null && Files.isExecutable(Path.of(fromEnv))) {
      return Path.of(fromEnv);
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      for (String name : CANDIDATES) {
        Path p = Path.of(dir, name);
        if (Files.isExecutable(p)) {
          return p;
        }
      }
    }
    for (String p : new String[] {"/usr/bin/prometheus-node-exporter", "/usr/local/bin/node_exporter"}) {
      if (Files.isExecutable(Path.of(p))) {
        return Path.of(p);
      }
    }
    return null;
  }

  public static NodeExporter start(Path textfileDirectory) throws IOException, InterruptedException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path log = Files.createTempFile("node-exporter", ".log");
    Process p = new ProcessBuilder(binary().toString(), "--collector.disable-defaults", "--collector.textfile",
        "--collector.textfile.directory=" + textfileDirectory.toAbsolutePath(),
        "--web.listen-address=127.0.0.1:" + port)
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    NodeExporter n = new NodeExporter(p, URI.create("http://127.0.0.1:" + port + "/metrics"), log);
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (true) {
      try {
        n.scrape();
        return n;
      } catch (IOException e) {
        if (!p.isAlive() || System.nanoTime() > deadline) {
          n.close();
          throw new IOException("node_exporter did not start: " + Files.readString(log), e);
        }
        Thread.sleep(50);
      }
    }
  }

  public String scrape() throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException("node_exporter answered " + r.statusCode() + ": " + r.body());
    }
    return r.body();
  }

  /** Scrapes and fails if node_exporter could not read a textfile (with its log as the reason). */
  public List<Sample> samplesOrFail() throws IOException, InterruptedException {
    List<Sample> all = samples(scrape());
    for (Sample s : all) {
      if (s.name().equals("node_textfile_scrape_error") && s.value() != 0) {
        throw new AssertionError("node_exporter could not parse a textfile: " + Files.readString(log));
      }
    }
    return all;
  }

  public String log() throws IOException {
    return Files.readString(log);
  }

  /** Reads the canonical exposition node_exporter serves. */
  public static List<Sample> samples(String text) {
    List<Sample> out = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      Matcher m = SAMPLE.matcher(line);
      if (!m.matches()) {
        throw new AssertionError("not an exposition line: " + line);
      }
      Map<String, String> labels = new LinkedHashMap<>();
      if (m.group(3) != null) {
        Matcher l = LABEL.matcher(m.group(3));
        while (l.find()) {
          labels.put(l.group(1), l.group(2).replace("\\\"", "\"").replace("\\n", "\n").replace("\\\\", "\\"));
        }
      }
      String v = m.group(4);
      double value = switch (v) {
        case "+Inf" -> Double.POSITIVE_INFINITY;
        case "-Inf" -> Double.NEGATIVE_INFINITY;
        case "NaN" -> Double.NaN;
        default -> Double.parseDouble(v);
      };
      out.add(new Sample(m.group(1), labels, value));
    }
    return out;
  }

  @Override
  public void close() {
    process.destroy();
    try {
      process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
