package io.ncclinspector;

import java.util.Objects;

/**
 * Which communicators a listener hears about: all of them, one by its 64-bit id, or those with a
 * name (the name given to NCCL, {@code "unknown"} when none was).
 */
public record CommunicatorSelector(Long id, String name) {

  private static final CommunicatorSelector ALL = new CommunicatorSelector(null, null);

  public static CommunicatorSelector all() {
    return ALL;
  }

  public static CommunicatorSelector byId(long id) {
    return new CommunicatorSelector(id, null);
  }

  public static CommunicatorSelector byName(String name) {
    return new CommunicatorSelector(null, Objects.requireNonNull(name, "name"));
  }

  public boolean matches(CommunicatorInfo c) {
    return (id == null || id == c.id()) && (name == null || name.equals(c.name()));
  }
}
