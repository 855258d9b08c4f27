package io.ncclinspector.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Points NCCL at the inspector's own shared object: {@code NCCL_PROFILER_PLUGIN} is set in the
 * process environment through libc (NCCL reads it with getenv at the first communicator init of
 * each load cycle, facts doc 1.2). Java's own environment map is a copy taken at JVM start, so
 * both reading and writing go through the native core.
 */
public final class PluginEnvironment {
  public static final String PLUGIN_VARIABLE = "NCCL_PROFILER_PLUGIN";
  private static final Logger log = LoggerFactory.getLogger(PluginEnvironment.class);

  private PluginEnvironment() {}

  /**
   * Claims NCCL's profiler slot for {@code library}. Fails with a clear message if the variable
   * already names another plugin (including {@code none}), unless {@code override} is set.
   */
  public static void claim(NativeCore core, Path library, boolean override) {
    String current = core.getenv(PLUGIN_VARIABLE);
    if (current != null && !current.isEmpty() && !sameFile(current, library)) {
      if (!override) {
        throw new IllegalStateException(PLUGIN_VARIABLE + " already names another profiler plugin ('"
            + current + "'). NCCL loads one profiler plugin per process. Unset it, or enable the "
            + "inspector with overridePlugin(true) (NCCL_INSPECTOR_OVERRIDE_PLUGIN=1) to replace it.");
      }
      log.warn("{} was '{}': replaced by the NCCL Inspector's {}", PLUGIN_VARIABLE, current, library);
    }
    if (!core.setenv(PLUGIN_VARIABLE, library.toString())) {
      throw new IllegalStateException("could not set " + PLUGIN_VARIABLE + " in the process environment");
    }
    String envPlugin = core.getenv("NCCL_ENV_PLUGIN");
    if (envPlugin != null && !envPlugin.isEmpty()) {
      log.warn("NCCL_ENV_PLUGIN is set ('{}'): NCCL reads {} through that plugin, which may not see "
          + "the value set here", envPlugin, PLUGIN_VARIABLE);
    }
    if (core.ncclAlreadyLoaded()) {
      log.warn("libnccl is already loaded in this process. Communicators created before enable() are "
          + "not profiled, and if NCCL already looked for a profiler plugin it will only load this one "
          + "after all its communicators are destroyed (NCCL remembers a failed plugin load).");
    }
  }

  private static boolean sameFile(String value, Path library) {
    try {
      Path p = Path.of(value);
      return p.isAbsolute() && Files.exists(p) && Files.isSameFile(p, library);
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }
}
