package io.ncclinspector.testsupport;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for what other threads (dump thread, listeners) deliver, with a deadline. */
public final class Await {
  private static final Duration DEADLINE = Duration.ofSeconds(10);

  private Await() {}

  /** Polls until the condition holds; fails after 10 s. */
  public static void until(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within " + DEADLINE.toSeconds() + " s");
      }
      Thread.sleep(5);
    }
  }
}
