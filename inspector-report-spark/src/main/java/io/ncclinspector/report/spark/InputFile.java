package io.ncclinspector.report.spark;

import io.ncclinspector.report.input.Compression;
import io.ncclinspector.report.input.LogFile;
import java.io.Serializable;

/**
 * A log file as the executors see it.
 *
 * @param uri what Hadoop opens: a {@code file:} URI for a local path, else the URI as given
 * @param displayName how reports name it
 * @param compression from its first bytes
 * @param sizeBytes its size, to schedule the big files first
 */
record InputFile(String uri, String displayName, Compression compression, long sizeBytes)
    implements Serializable {
  static InputFile of(LogFile f) {
    return new InputFile(f.path() != null ? f.path().toUri().toString() : f.location(),
        f.displayName(), f.compression(), f.sizeBytes());
  }
}
