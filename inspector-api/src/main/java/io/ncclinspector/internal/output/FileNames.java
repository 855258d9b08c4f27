package io.ncclinspector.internal.output;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The names an output file may take: {@code <stem><suffix>}, then {@code <stem>-1<suffix>},
 * {@code <stem>-2<suffix>}, ... The first one free is created. So a file left by an earlier run
 * with the same host and pid (a restarted container), or anything planted at the predictable name,
 * is never opened or truncated, and two outputs of one process never merge into one file.
 */
public record FileNames(Path directory, String stem, String suffix) {
  /** How many names are tried before giving up. */
  public static final int TRIES = 1000;

  public Path first() {
    return directory.resolve(stem + suffix);
  }

  public List<Path> candidates() {
    List<Path> out = new ArrayList<>(TRIES);
    out.add(first());
    for (int i = 1; i < TRIES; i++) {
      out.add(directory.resolve(stem + "-" + i + suffix));
    }
    return out;
  }
}
