package io.ncclinspector.report.spark;

import io.ncclinspector.report.input.FileDiagnosis;
import io.ncclinspector.report.input.LineReader;
import io.ncclinspector.report.input.LineScan;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.util.CollectionAccumulator;

/**
 * Runs on the executors: reads each file of a partition with the report's own line reader
 * ({@link LineScan}: gzip by its magic bytes, exact line numbers, every line checked) and yields
 * the usable lines as (file, bytes) rows for Spark's JSON parser. What each file held — records,
 * unusable lines with their numbers and reasons, a damaged stream — goes to an accumulator when
 * the file is done. Nothing is thrown for a bad file: a task that failed would be retried and
 * then fail the whole job.
 */
final class LineSource implements FlatMapFunction<Iterator<InputFile>, Row> {
  private static final long serialVersionUID = 1L;

  private final HadoopConf conf;
  private final int maxListed;
  private final CollectionAccumulator<FileDiagnosis> outcomes;

  LineSource(HadoopConf conf, int maxListed, CollectionAccumulator<FileDiagnosis> outcomes) {
    this.conf = conf;
    this.maxListed = maxListed;
    this.outcomes = outcomes;
  }

  @Override
  public Iterator<Row> call(Iterator<InputFile> files) {
    return new Iterator<>() {
      private LineScan scan;
      private InputFile current;
      private Row next;

      @Override
      public boolean hasNext() {
        while (next == null) {
          if (scan == null) {
            if (!files.hasNext()) {
              return false;
            }
            current = files.next();
            scan = open(current);
            if (scan == null) {
              continue;
            }
          }
          LineReader.Line line = scan.next();
          if (line == null) {
            outcomes.add(scan.diagnosis());
            closeQuietly(scan);
            scan = null;
            continue;
          }
          next = RowFactory.create(current.displayName(), Arrays.copyOfRange(line.bytes(),
              line.offset(), line.offset() + line.length()));
        }
        return true;
      }

      @Override
      public Row next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        Row r = next;
        next = null;
        return r;
      }
    };
  }

  /** The file's scan, or null (its outcome recorded) if it cannot be opened. */
  private LineScan open(InputFile f) {
    try {
      Path p = new Path(new URI(f.uri()));
      FileSystem fs = p.getFileSystem(conf.get());
      InputStream in = fs.open(p);
      return new LineScan(LineReader.open(in, f.sizeBytes(), f.compression(),
          LineReader.MAX_LINE_BYTES),
          f.displayName(), maxListed);
    } catch (IOException | java.net.URISyntaxException | RuntimeException e) {
      outcomes.add(FileDiagnosis.readFailed(f.displayName(), e.getClass().getSimpleName()
          + ": " + e.getMessage()));
      return null;
    }
  }

  private static void closeQuietly(LineScan s) {
    try {
      s.close();
    } catch (IOException e) {
      // Everything was read; a failing close loses nothing.
    }
  }
}
