package io.ncclinspector.internal;

import io.ncclinspector.InspectorStatus;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NCCL settings {@code enable()} changes so that known NCCL defects stay away from a profiled
 * job. Each is applied only where the program has not set the variable itself, through libc (NCCL
 * reads its variables with getenv, each once, the first time it needs it: the setting must come
 * before the first operation that reads it).
 *
 * <p>{@code NCCL_ALLGATHERV_ENABLE=0}: NCCL 2.29.2 and later route every ncclBroadcast through a new
 * AllGatherV path that emits no profiler event for it, and with a profiler asking for kernel
 * events, grouped broadcasts from several roots hang the job on 2.30.7 (measured; NCCL issue
 * 2278, PRs 2368/2369). With it at 0 NCCL keeps its classic Broadcast, which it profiles. Releases
 * before 2.29 do not know the variable and ignore it.
 */
public final class NcclWorkarounds {
  private static final Logger log = LoggerFactory.getLogger(NcclWorkarounds.class);

  public static final String ALLGATHERV_VARIABLE = "NCCL_ALLGATHERV_ENABLE";
  static final String ALLGATHERV_REASON = "NCCL 2.29-2.30 give ncclBroadcast (AllGatherV path) no profiler events "
      + "and can hang on grouped broadcasts under a profiler (NCCL issue 2278)";

  private NcclWorkarounds() {}

  /**
   * Applies the workarounds (when {@code wanted}) and says once, in the log, what was done. Returns
   * each workaround with whether it is in force.
   */
  public static List<InspectorStatus.Workaround> apply(NativeCore core, boolean wanted, boolean ncclLoaded) {
    List<InspectorStatus.Workaround> done = new ArrayList<>();
    String current = core.getenv(ALLGATHERV_VARIABLE);
    if (current != null && !current.isBlank()) {
      boolean off = current.trim().equals("0");
      done.add(new InspectorStatus.Workaround(ALLGATHERV_VARIABLE, current.trim(), false, off ? "set by the program"
          : "set by the program: on NCCL 2.29-2.30 broadcasts are recorded untimed (not profiled by NCCL), "
              + "and grouped broadcasts may hang under a profiler"));
      if (!off) {
        log.warn("NCCL Inspector: {}={} is set: on NCCL 2.29-2.30 every ncclBroadcast then runs without profiler "
            + "events (recorded untimed, not_profiled_by_nccl), and grouped broadcasts from several roots have "
            + "hung profiled jobs (NCCL issue 2278)", ALLGATHERV_VARIABLE, current.trim());
      }
      return done;
    }
    if (!wanted) {
      done.add(new InspectorStatus.Workaround(ALLGATHERV_VARIABLE, "", false,
          "not applied (ncclWorkarounds off): " + ALLGATHERV_REASON));
      log.info("NCCL Inspector: NCCL workarounds off; {} left unset ({})", ALLGATHERV_VARIABLE, ALLGATHERV_REASON);
      return done;
    }
    if (!core.setenv(ALLGATHERV_VARIABLE, "0")) {
      done.add(new InspectorStatus.Workaround(ALLGATHERV_VARIABLE, "", false, "could not be set: " + ALLGATHERV_REASON));
      log.warn("NCCL Inspector: could not set {}=0 in the process environment ({})", ALLGATHERV_VARIABLE,
          ALLGATHERV_REASON);
      return done;
    }
    done.add(new InspectorStatus.Workaround(ALLGATHERV_VARIABLE, "0", true, ALLGATHERV_REASON));
    log.info("NCCL Inspector: set {}=0 because {}; NCCL_INSPECTOR_NCCL_WORKAROUNDS=0 (ncclWorkarounds(false)) "
        + "leaves it alone{}", ALLGATHERV_VARIABLE, ALLGATHERV_REASON, ncclLoaded
        ? ". NCCL is already loaded: if it ran a Broadcast before this, it keeps its earlier setting (reported "
            + "at the first broadcast without events)" : "");
    return done;
  }
}
