package io.ncclinspector.spi;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A typed view of the environment, for the inspector's own variables and the ones an
 * {@link ExporterProvider} reads: each reader fails with an {@link IllegalArgumentException} naming
 * the variable where it is set but malformed, and is empty where it is unset or blank.
 */
public final class EnvironmentView {
  private final Map<String, String> environment;

  private EnvironmentView(Map<String, String> environment) {
    this.environment = Objects.requireNonNull(environment, "environment");
  }

  /** A view of these variables (not copied). */
  public static EnvironmentView of(Map<String, String> environment) {
    return new EnvironmentView(environment);
  }

  /** The variable as it is set, unless unset or blank. */
  public Optional<String> string(String name) {
    String v = environment.get(name);
    return v == null || v.isBlank() ? Optional.empty() : Optional.of(v);
  }

  /**
   * A switch, {@code 0} or {@code 1} ({@link EnvironmentFlag#read}).
   *
   * @throws IllegalArgumentException "NAME must be 0 or 1, got '...'"
   */
  public Optional<Boolean> flag(String name) {
    return EnvironmentFlag.read(environment, name);
  }

  /**
   * An integer (surrounding blanks aside).
   *
   * @throws IllegalArgumentException "NAME must be an integer, got '...'"
   */
  public OptionalLong integer(String name) {
    return integer(name, Long.MIN_VALUE, Long.MAX_VALUE);
  }

  /**
   * An integer that fits in [min, max] (the bounds of a Java integer type: a value outside them is
   * no integer of that type, not a value out of a setting's range).
   *
   * @throws IllegalArgumentException "NAME must be an integer, got '...'"
   */
  public OptionalLong integer(String name, long min, long max) {
    Optional<String> v = string(name);
    if (v.isEmpty()) {
      return OptionalLong.empty();
    }
    long n;
    try {
      n = Long.parseLong(v.get().trim());
      if (n < min || n > max) {
        throw new NumberFormatException("out of [" + min + ", " + max + "]: " + n);
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be an integer, got '" + v.get() + "'", e);
    }
    return OptionalLong.of(n);
  }
}
