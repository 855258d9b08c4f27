package io.ncclinspector;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where an inspector stands, in one value: whether it profiles, whether NCCL ever reached it,
 * what it received and wrote, where its files are, and whether anything was lost.
 *
 * @param state active, disabled by configuration, or closed
 * @param libraryPath the shared object NCCL is pointed at (empty when disabled)
 * @param paused whether tracking of new operations is paused ({@link NcclInspector#pause()})
 * @param communicatorsSeen NCCL communicators the inspector heard of (0: NCCL never called it)
 * @param records what became of the records
 * @param output the JSON Lines output, if it is on
 * @param recording the raw event recording, if it is on and could start
 * @param listenersAbandoned listeners that did not finish in time at close or removal
 * @param nccl what the inspector knows of NCCL in this process, and what it changed in NCCL's settings
 * @param problems each problem in one sentence (empty when there is none)
 * @param kernelRecords CUPTI kernel records, when the configuration asks for them
 */
public record InspectorStatus(
    State state,
    Optional<Path> libraryPath,
    boolean paused,
    long communicatorsSeen,
    Records records,
    Optional<Output> output,
    Optional<Recording> recording,
    long listenersAbandoned,
    Nccl nccl,
    List<String> problems,
    Optional<KernelRecords> kernelRecords) {

  /** What the inspector is doing. */
  public enum State { ACTIVE, DISABLED, CLOSED }

  public InspectorStatus {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(libraryPath, "libraryPath");
    Objects.requireNonNull(records, "records");
    Objects.requireNonNull(output, "output");
    Objects.requireNonNull(recording, "recording");
    Objects.requireNonNull(nccl, "nccl");
    problems = List.copyOf(problems);
    Objects.requireNonNull(kernelRecords, "kernelRecords");
  }

  /** A status without kernel records (they were not asked for). */
  public InspectorStatus(State state, Optional<Path> libraryPath, boolean paused, long communicatorsSeen,
      Records records, Optional<Output> output, Optional<Recording> recording, long listenersAbandoned, Nccl nccl,
      List<String> problems) {
    this(state, libraryPath, paused, communicatorsSeen, records, output, recording, listenersAbandoned, nccl,
        problems, Optional.empty());
  }

  /**
   * CUPTI kernel records ({@link InspectorConfig#kernelRecords()}): whether CUPTI could be had, what
   * its kernels timed, and how their times compare with the channel times of the collectives both
   * timed (kernel minus channels: in step, 2.8-3.6 µs on H200, the kernel's launch and teardown).
   *
   * @param active whether CUPTI delivered kernel records (false: {@code reason} says why not)
   * @param reason {@code active}, {@code stopped}, or why CUPTI could not be had
   * @param timed operations timed by their kernel ({@link TimingSource#KERNEL_CUPTI})
   * @param groupTimed point-to-point operations without a GPU time of their own that ran in a kernel
   *     shared with the rest of their group: timed by it as a group ({@link TimingSource#KERNEL_CUPTI_GROUP})
   * @param shared other operations that waited and ran in a kernel shared with others: left as they were
   * @param missing operations that waited and got no kernel record in time: left as they were
   * @param compared collectives timed both by their channels and by their kernel alone
   * @param minKernelMinusChannelsNanos the smallest kernel-minus-channels difference among those
   * @param maxKernelMinusChannelsNanos the largest
   * @param meanKernelMinusChannelsNanos the mean
   * @param disagreeing those whose difference is beyond 10 µs either way, plus 25 ppm of the kernel
   *     (the drift between NCCL's GPU timer and CUPTI's clock)
   */
  public record KernelRecords(boolean active, String reason, long timed, long groupTimed, long shared, long missing,
      long compared, long minKernelMinusChannelsNanos, long maxKernelMinusChannelsNanos,
      double meanKernelMinusChannelsNanos, long disagreeing) {
    public KernelRecords {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /**
   * NCCL as the inspector sees it.
   *
   * @param releases the NCCL releases its communicators ran on ({@code 2.30.7}), in the order first
   *     seen; {@code unknown} for a communicator whose NCCL did not say
   * @param interfaceVersions the profiler interface versions NCCL picked, in the order first seen
   * @param workarounds the NCCL settings {@code enable()} looked at ({@link InspectorConfig#ncclWorkarounds()})
   * @param notProfiledByNccl collective calls NCCL gave no operation event, recorded untimed from the call
   * @param kernelEventsStopped communicators (hex id and rank) whose operations stopped getting the
   *     kernel events they used to get
   */
  public record Nccl(List<String> releases, List<Integer> interfaceVersions, List<Workaround> workarounds,
      long notProfiledByNccl, List<String> kernelEventsStopped) {
    public static final Nccl NONE = new Nccl(List.of(), List.of(), List.of(), 0, List.of());

    public Nccl {
      releases = List.copyOf(releases);
      interfaceVersions = List.copyOf(interfaceVersions);
      workarounds = List.copyOf(workarounds);
      kernelEventsStopped = List.copyOf(kernelEventsStopped);
    }
  }

  /**
   * An NCCL setting that keeps a known NCCL defect away from the profiled job.
   *
   * @param variable the environment variable ({@code NCCL_ALLGATHERV_ENABLE})
   * @param value its value in the process ({@code ""} when unset)
   * @param applied whether {@code enable()} set it
   * @param reason why it matters, and what was or was not done
   */
  public record Workaround(String variable, String value, boolean applied, String reason) {
    public Workaround {
      Objects.requireNonNull(variable, "variable");
      Objects.requireNonNull(value, "value");
      Objects.requireNonNull(reason, "reason");
    }
  }

  /**
   * What became of the records the inspector received.
   *
   * @param received records drained from the native core
   * @param written records whose line is in the JSON output file
   * @param quarantined records whose line is in the quarantine file
   * @param notWritten records that will never be in either file (output failed)
   */
  public record Records(long received, long written, long quarantined, long notWritten) {
    public static final Records NONE = new Records(0, 0, 0, 0);
  }

  /**
   * The JSON Lines output.
   *
   * @param file the output file: the one created, or, before the first record, the name it will get
   * @param created whether the file was created (it is created at the first record)
   * @param quarantineFile the quarantine file beside it (it exists once a record was quarantined)
   * @param error why output cannot be written now (while active) or the first reason it ever could
   *     not (after close), if any
   */
  public record Output(Path file, boolean created, Path quarantineFile, Optional<String> error) {}

  /**
   * The raw event recording.
   *
   * @param file the recording file: the one created, or the name it will get at the first event
   * @param eventsWritten callbacks in the file
   * @param eventsDroppedAtLimit callbacks not written because the recording reached its size bound
   * @param eventsNotWritten callbacks lost because the file could not be written (a full disk)
   * @param error the first reason the file could not be written, if it ever could not
   */
  public record Recording(Path file, long eventsWritten, long eventsDroppedAtLimit, long eventsNotWritten,
      Optional<String> error) {}

  /** Whether the inspector profiles (neither disabled nor closed). */
  public boolean active() {
    return state == State.ACTIVE;
  }

  /** The JSON output file, once created. */
  public Optional<Path> outputFile() {
    return output.filter(Output::created).map(Output::file);
  }

  /** Whether output was lost: records or recorded events that will never be in their files. */
  public boolean outputLost() {
    return records.notWritten() > 0 || recording.map(r -> r.eventsNotWritten() > 0).orElse(false);
  }
}
