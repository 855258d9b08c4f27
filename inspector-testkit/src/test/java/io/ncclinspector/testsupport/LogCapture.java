package io.ncclinspector.testsupport;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Captures what the code under test logs during each test (slf4j-simple, the tests' binding,
 * writes to {@code System.err}, which this replaces for the test's duration), so that expected
 * warnings and errors are asserted on instead of printed:
 *
 * <pre>{@code
 * @RegisterExtension final LogCapture logs = new LogCapture();
 * ...
 * logs.expect("ERROR", "cannot write NCCL Inspector output");
 * }</pre>
 *
 * <p>An expected entry (a log line with its stack trace) must have been logged by the end of the
 * test, or the test fails; entries that match an expectation are swallowed. Everything else is
 * passed on to the real {@code System.err} at the end of the test: nothing unexpected is hidden.
 */
public final class LogCapture implements BeforeEachCallback, AfterEachCallback {
  /** slf4j-simple's line: {@code [thread] LEVEL logger - message}. */
  private static final Pattern ENTRY = Pattern.compile("^\\[([^\\]]*)] (TRACE|DEBUG|INFO|WARN|ERROR) (\\S+) - (.*)$");

  /** One log entry: its first line's parts and the lines that followed it (a stack trace). */
  public record Entry(String thread, String level, String logger, String message, List<String> more) {
    public String text() {
      return message + (more.isEmpty() ? "" : "\n" + String.join("\n", more));
    }
  }

  private record Expectation(String level, String fragment, boolean required) {
    boolean matches(Entry e) {
      return e.level().equals(level) && (e.message().contains(fragment) || e.logger().endsWith(fragment));
    }
  }

  private final List<Expectation> expected = new ArrayList<>();
  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
  private PrintStream realErr;

  @Override
  public void beforeEach(ExtensionContext context) {
    expected.clear();
    synchronized (buffer) {
      buffer.reset();
    }
    realErr = System.err;
    System.setErr(new PrintStream(new OutputStream() {
      @Override
      public void write(int b) {
        synchronized (buffer) {
          buffer.write(b);
        }
      }

      @Override
      public void write(byte[] b, int off, int len) {
        synchronized (buffer) {
          buffer.write(b, off, len);
        }
      }
    }, true, StandardCharsets.UTF_8));
  }

  @Override
  public void afterEach(ExtensionContext context) {
    System.err.flush();
    System.setErr(realErr);
    List<Entry> all = entries();
    List<String> unmet = new ArrayList<>();
    for (Expectation x : expected) {
      if (x.required() && all.stream().noneMatch(x::matches)) {
        unmet.add(x.level() + " containing \"" + x.fragment() + "\"");
      }
    }
    for (Entry e : all) {
      if (expected.stream().noneMatch(x -> x.matches(e))) {
        realErr.println(e.level().isEmpty() ? e.text()
            : "[" + e.thread() + "] " + e.level() + " " + e.logger() + " - " + e.text());
      }
    }
    if (!unmet.isEmpty() && context.getExecutionException().isEmpty()) {
      fail("expected log entries not logged: " + unmet + "; logged: " + all);
    }
  }

  /**
   * Declares an entry of this level whose message contains {@code fragment} (or whose logger's
   * name ends with it) as expected: it must be logged during the test, and it is not printed.
   */
  public LogCapture expect(String level, String fragment) {
    expected.add(new Expectation(level, fragment, true));
    return this;
  }

  /**
   * Declares entries that may or may not be logged, depending on timing (a hang watchdog that may
   * fire during a slow test): not printed, not required.
   */
  public LogCapture allow(String level, String fragment) {
    expected.add(new Expectation(level, fragment, false));
    return this;
  }

  /** Entries of a level logged so far whose message contains the fragment. */
  public List<Entry> find(String level, String fragment) {
    return entries().stream().filter(e -> e.level().equals(level) && e.message().contains(fragment)).toList();
  }

  /** Waits until an entry of a level containing the fragment was logged (10 s at most); returns it. */
  public Entry await(String level, String fragment) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      List<Entry> found = find(level, fragment);
      if (!found.isEmpty()) {
        return found.get(0);
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no " + level + " entry containing \"" + fragment + "\" within 10 s; logged: " + entries());
      }
      Thread.sleep(5);
    }
  }

  /** Everything captured so far, as entries (lines before the first log line are entries of their own). */
  public List<Entry> entries() {
    String text;
    synchronized (buffer) {
      text = buffer.toString(StandardCharsets.UTF_8);
    }
    List<Entry> out = new ArrayList<>();
    Entry current = null;
    for (String line : text.split("\n", -1)) {
      if (line.isEmpty()) {
        continue;
      }
      Matcher m = ENTRY.matcher(line);
      if (m.matches()) {
        current = new Entry(m.group(1), m.group(2), m.group(3), m.group(4), new ArrayList<>());
        out.add(current);
      } else if (current != null) {
        current.more().add(line);
      } else {
        out.add(new Entry("", "", "", line, new ArrayList<>()));
      }
    }
    return out;
  }
}
