package io.ncclinspector.report;

import java.io.PrintStream;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Progress on stderr. Quiet for short runs: nothing is printed before two seconds have passed;
 * after that, each stage is announced and a running stage reports its status every two seconds
 * from a daemon thread (the stages themselves block in DuckDB).
 */
public final class Progress implements AutoCloseable {
  private static final long QUIET_NANOS = 2_000_000_000L;
  private static final long INTERVAL_NANOS = 2_000_000_000L;

  private final PrintStream err;
  private final boolean enabled;
  private final long startNanos = System.nanoTime();
  private final Thread ticker;
  private volatile String stage = "starting";
  private volatile Supplier<String> status = () -> null;
  private volatile boolean announced;
  private long lastPrint;

  public Progress(PrintStream err, boolean enabled) {
    this.err = err;
    this.enabled = enabled;
    this.ticker = new Thread(this::tick, "report-progress");
    this.ticker.setDaemon(true);
    if (enabled) {
      ticker.start();
    }
  }

  /** A progress that prints nothing. */
  public static Progress silent() {
    return new Progress(System.err, false);
  }

  /** Starts a stage; {@code status} describes how far it is when asked. */
  public synchronized void stage(String name, Supplier<String> status) {
    this.stage = name;
    this.status = status;
    this.announced = false;
    if (enabled && elapsed() > QUIET_NANOS) {
      print(null);
    }
  }

  public void stage(String name) {
    stage(name, () -> null);
  }

  /** Seconds since the run started. */
  public double seconds() {
    return elapsed() / 1e9;
  }

  private long elapsed() {
    return System.nanoTime() - startNanos;
  }

  private void tick() {
    while (!Thread.currentThread().isInterrupted()) {
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        return;
      }
      synchronized (this) {
        long now = elapsed();
        if (now > QUIET_NANOS && now - lastPrint >= INTERVAL_NANOS) {
          String s;
          try {
            s = status.get();
          } catch (RuntimeException e) {
            s = null;
          }
          print(s);
        }
      }
    }
  }

  private void print(String detail) {
    lastPrint = elapsed();
    if (detail == null && announced) {
      return;
    }
    announced = true;
    err.printf(Locale.ROOT, "[%6.1f s] %s%s%n", seconds(), stage,
        detail == null || detail.isEmpty() ? "" : ": " + detail);
    err.flush();
  }

  @Override
  public void close() {
    ticker.interrupt();
  }
}
