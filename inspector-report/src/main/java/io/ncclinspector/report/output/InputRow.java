package io.ncclinspector.report.output;

import io.ncclinspector.report.ingest.FileImport;
import io.ncclinspector.report.input.SkippedInput;
import java.util.ArrayList;
import java.util.List;

/**
 * One row of {@code inputs.csv}: a file the report found, imported or passed over.
 *
 * @param file display name
 * @param path where it was read (imported files)
 * @param compression storage (imported files)
 * @param sizeBytes size on disk (imported files)
 * @param records records imported
 * @param rejected lines skipped as unusable
 * @param rejectedListed how many of them are in {@code rejected_lines.csv}
 * @param damage a problem of the whole file (truncated or corrupt gzip, read error)
 * @param corrupt whether data the file holds could not be read (corrupt data, a read error, a
 *     file that cannot be opened): the report exits with status 1
 * @param salvaged whether the report read it line by line rather than the engine
 * @param passedOver why it was not imported, for a file passed over
 */
public record InputRow(String file, String path, String compression, Long sizeBytes,
    long records, long rejected, long rejectedListed, String damage, boolean corrupt,
    boolean salvaged, String passedOver) {

  /** The imported files, then the files passed over. */
  public static List<InputRow> of(List<FileImport> imported, List<SkippedInput> skipped) {
    List<InputRow> rows = new ArrayList<>();
    for (FileImport f : imported) {
      rows.add(new InputRow(f.file(), f.path(), f.compression().name(), f.sizeBytes(),
          f.records(), f.rejected(), f.rejectedListed(), f.damage(), f.corrupt(), f.salvaged(),
          null));
    }
    for (SkippedInput s : skipped) {
      rows.add(new InputRow(s.displayName(), null, null, null, 0, 0, 0, null, s.unreadable(),
          false, s.reason()));
    }
    return rows;
  }
}
