package io.ncclinspector.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A real browser for tests: headless Chromium (Debian's {@code chromium}, which .ci/run installs),
 * driven over the DevTools protocol on a local port: open a page, collect what it reports to its
 * console, evaluate script in it, take a full-page screenshot. No network is used beyond 127.0.0.1.
 */
final class HeadlessChromium implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private final Process process;
  private final Path profile;
  private final WebSocket socket;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
  private final List<JsonNode> events = new CopyOnWriteArrayList<>();
  private String session;

  private HeadlessChromium(Process process, Path profile, WebSocket socket) {
    this.process = process;
    this.profile = profile;
    this.socket = socket;
  }

  /** The browser binary: $CHROMIUM, or chromium / chromium-browser / google-chrome on PATH; null if none. */
  static Path find() {
    String env = System.getenv("CHROMIUM");
    if (env != null && Files.isExecutable(Path.of(env))) {
      return Path.of(env);
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      for (String name : new String[] {"chromium", "chromium-browser", "google-chrome"}) {
        Path p = Path.of(dir, name);
        if (Files.isExecutable(p)) {
          return p;
        }
      }
    }
    return null;
  }

  static HeadlessChromium start(Path binary) throws Exception {
    Path profile = Files.createTempDirectory("chromium-profile");
    Process p = new ProcessBuilder(binary.toString(), "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
        "--disable-default-apps", "--user-data-dir=" + profile, "--remote-debugging-address=127.0.0.1",
        "--remote-debugging-port=0", "about:blank")
        .redirectErrorStream(true).redirectOutput(profile.resolve("chromium.log").toFile()).start();
    Path portFile = profile.resolve("DevToolsActivePort");
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    List<String> lines = List.of();
    while (lines.size() < 2) {
      if (!p.isAlive() || System.nanoTime() > deadline) {
        p.destroyForcibly();
        throw new IOException("chromium did not start: " + Files.readString(profile.resolve("chromium.log")));
      }
      Thread.sleep(50);
      if (Files.exists(portFile)) {
        lines = Files.readAllLines(portFile);
      }
    }
    URI endpoint = URI.create("ws://127.0.0.1:" + lines.get(0).trim() + lines.get(1).trim());
    Holder holder = new Holder();
    WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder().connectTimeout(TIMEOUT)
        .buildAsync(endpoint, holder).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    HeadlessChromium browser = new HeadlessChromium(p, profile, ws);
    holder.browser = browser;
    return browser;
  }

  /** Opens a page (a file: URL) in a new tab of the given viewport size and waits until it has loaded. */
  void open(URI page, int width, int height) throws Exception {
    String target = call(null, "Target.createTarget", Map.of("url", "about:blank")).get("targetId").asText();
    session = call(null, "Target.attachToTarget", Map.of("targetId", target, "flatten", true)).get("sessionId").asText();
    call(session, "Page.enable", Map.of());
    call(session, "Runtime.enable", Map.of());
    call(session, "Log.enable", Map.of());
    viewport(width, height);
    int before = events.size();
    call(session, "Page.navigate", Map.of("url", page.toString()));
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    /* A snapshot each time: a sub-list view of the copy-on-write list fails when the socket's
     * thread adds an event while it is streamed. */
    while (List.copyOf(events).stream().skip(before)
        .noneMatch(e -> e.path("method").asText().equals("Page.loadEventFired"))) {
      if (System.nanoTime() > deadline) {
        throw new IOException("the page did not load within " + TIMEOUT);
      }
      Thread.sleep(20);
    }
  }

  void viewport(int width, int height) throws Exception {
    call(session, "Emulation.setDeviceMetricsOverride",
        Map.of("width", width, "height", height, "deviceScaleFactor", 1, "mobile", false));
  }

  /** Evaluates an expression in the page; returns its value (JSON). */
  JsonNode evaluate(String expression) throws Exception {
    JsonNode r = call(session, "Runtime.evaluate", Map.of("expression", expression, "returnByValue", true));
    if (r.has("exceptionDetails")) {
      throw new IOException("script failed: " + r.get("exceptionDetails"));
    }
    return r.path("result").path("value");
  }

  /** A PNG of the whole page. */
  byte[] screenshot() throws Exception {
    JsonNode r = call(session, "Page.captureScreenshot", Map.of("format", "png", "captureBeyondViewport", true));
    return java.util.Base64.getDecoder().decode(r.get("data").asText());
  }

  /**
   * What the page reported as errors or warnings: console calls of level error or warning,
   * uncaught exceptions, and browser log entries (a failed load, an invalid SVG attribute).
   */
  List<String> problems() {
    List<String> out = new ArrayList<>();
    for (JsonNode e : events) {
      String method = e.path("method").asText();
      JsonNode p = e.path("params");
      switch (method) {
        case "Runtime.consoleAPICalled" -> {
          String type = p.path("type").asText();
          if (type.equals("error") || type.equals("warning") || type.equals("assert")) {
            out.add("console." + type + ": " + p.path("args"));
          }
        }
        case "Runtime.exceptionThrown" -> out.add("exception: " + p.path("exceptionDetails"));
        case "Log.entryAdded" -> {
          String level = p.path("entry").path("level").asText();
          if (level.equals("error") || level.equals("warning")) {
            out.add("log." + level + ": " + p.path("entry").path("text").asText() + " ("
                + p.path("entry").path("url").asText() + ")");
          }
        }
        default -> { }
      }
    }
    return out;
  }

  private JsonNode call(String sessionId, String method, Map<String, Object> params) throws Exception {
    int id = ids.incrementAndGet();
    ObjectNode msg = JSON.createObjectNode();
    msg.put("id", id);
    msg.put("method", method);
    msg.set("params", JSON.valueToTree(params));
    if (sessionId != null) {
      msg.put("sessionId", sessionId);
    }
    CompletableFuture<JsonNode> reply = new CompletableFuture<>();
    pending.put(id, reply);
    socket.sendText(JSON.writeValueAsString(msg), true).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    JsonNode r = reply.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    if (r.has("error")) {
      throw new IOException(method + " failed: " + r.get("error"));
    }
    return r.path("result");
  }

  private void received(String text) {
    try {
      JsonNode m = JSON.readTree(text);
      if (m.has("id")) {
        CompletableFuture<JsonNode> f = pending.remove(m.get("id").asInt());
        if (f != null) {
          f.complete(m);
        }
      } else {
        events.add(m);
      }
    } catch (IOException e) {
      events.add(JSON.createObjectNode().put("method", "unreadable").put("text", text));
    }
  }

  @Override
  public void close() throws Exception {
    try {
      socket.sendClose(WebSocket.NORMAL_CLOSURE, "").get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      // the browser goes anyway
    }
    // Chromium's helpers (network service, renderers) may outlive it for a moment and still
    // write into the profile: wait for them too before the profile is deleted.
    List<ProcessHandle> helpers = process.descendants().toList();
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
    for (ProcessHandle h : helpers) {
      try {
        h.onExit().get(10, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        h.destroyForcibly();
      }
    }
    try (Stream<Path> walk = Files.walk(profile)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** Gathers the frames of each message (large ones, a screenshot, arrive in parts). */
  private static final class Holder implements WebSocket.Listener {
    volatile HeadlessChromium browser;
    private final StringBuilder text = new StringBuilder();

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      text.append(data);
      if (last) {
        String message = text.toString();
        text.setLength(0);
        HeadlessChromium b = browser;
        if (b != null) {
          b.received(message);
        }
      }
      ws.request(1);
      return null;
    }
  }
}
