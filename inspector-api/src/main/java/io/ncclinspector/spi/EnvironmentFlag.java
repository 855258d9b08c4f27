package io.ncclinspector.spi;

import java.util.Map;
import java.util.Optional;

/**
 * Reads an on/off environment variable the way every {@code NCCL_INSPECTOR_*} switch is read,
 * the core's and the exporters' alike: {@code 1} is on, {@code 0} is off, unset or blank is
 * neither; anything else ({@code -1}, {@code 2}, {@code 2147483648}, {@code yes}) fails, naming
 * the variable, rather than being taken for "on".
 */
public final class EnvironmentFlag {
  private EnvironmentFlag() {}

  /**
   * The switch's value, if it is set.
   *
   * @throws IllegalArgumentException naming the variable, if it is set to anything but 0 or 1
   *     (surrounding blanks aside)
   */
  public static Optional<Boolean> read(Map<String, String> environment, String name) {
    String v = environment.get(name);
    if (v == null || v.isBlank()) {
      return Optional.empty();
    }
    return switch (v.strip()) {
      case "0" -> Optional.of(false);
      case "1" -> Optional.of(true);
      default -> throw new IllegalArgumentException(name + " must be 0 or 1, got '" + v + "'");
    };
  }
}
