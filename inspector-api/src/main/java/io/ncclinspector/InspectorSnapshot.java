package io.ncclinspector;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * An immutable view of everything the inspector knows at one moment: per communicator and class
 * of operation, counts, bytes and distributions of execution time and bus bandwidth, recent
 * records, and every drop, note and quarantine counter. Taking one never blocks NCCL.
 *
 * @param takenAt when it was taken
 * @param communicators live communicators and recently destroyed ones
 * @param counters drop, note and quarantine counters
 * @param recordsReceived records the JVM received from the native core
 * @param recordsWritten records written to the JSON Lines file
 * @param recordsQuarantined records written to the quarantine file
 * @param paused whether recording is paused
 */
public record InspectorSnapshot(
    Instant takenAt, List<CommunicatorSnapshot> communicators, EventCounters counters,
    long recordsReceived, long recordsWritten, long recordsQuarantined, boolean paused) {

  private static final ObjectMapper JSON = new ObjectMapper()
      .findAndRegisterModules()
      .setDefaultPropertyInclusion(JsonInclude.Value.construct(JsonInclude.Include.NON_NULL,
          JsonInclude.Include.USE_DEFAULTS))
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);

  public InspectorSnapshot {
    communicators = List.copyOf(communicators);
  }

  /** The communicator with this id, if the snapshot has it. */
  public Optional<CommunicatorSnapshot> communicator(long id) {
    return communicators.stream().filter(c -> c.communicator().id() == id).findFirst();
  }

  /** Operations over all communicators. */
  public long totalOperations() {
    return communicators.stream().mapToLong(CommunicatorSnapshot::operations).sum();
  }

  /** The snapshot as JSON. */
  public String toJson() {
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(this);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes the snapshot as JSON to a file (replacing it), creating its directory if needed. */
  public void writeJson(Path file) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
      writeJson(out);
    }
  }

  /** Writes the snapshot as JSON to a stream (which stays open). */
  public void writeJson(OutputStream out) throws IOException {
    JSON.writerWithDefaultPrettyPrinter().writeValue(out, this);
  }
}
