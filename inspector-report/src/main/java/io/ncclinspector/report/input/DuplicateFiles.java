package io.ncclinspector.report.input;

import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds input files of identical content (a log copied under a second name, or found through two
 * arguments that are not the same path): each is read once, the copies passed over with the name
 * of the file read. Otherwise every record of such a log would count twice in the summaries and
 * tables. Only files of equal size and storage are compared, by a SHA-256 of their bytes.
 */
public final class DuplicateFiles {
  /** Opens a file's bytes. */
  @FunctionalInterface
  public interface Opener {
    InputStream open(LogFile f) throws IOException;
  }

  private DuplicateFiles() {}

  /**
   * The inputs with every copy of an earlier file (in display-name order) moved to the files
   * passed over.
   */
  public static InputSet readOnce(InputSet inputs, Opener opener) {
    Map<String, List<LogFile>> bySize = new HashMap<>();
    for (LogFile f : inputs.logs()) {
      bySize.computeIfAbsent(f.sizeBytes() + "/" + f.compression(), k -> new ArrayList<>()).add(f);
    }
    Set<LogFile> copies = new HashSet<>();
    List<SkippedInput> skipped = new ArrayList<>(inputs.skipped());
    for (List<LogFile> same : bySize.values()) {
      if (same.size() < 2) {
        continue;
      }
      Map<String, LogFile> firstByDigest = new HashMap<>();
      for (LogFile f : same) {
        String digest = digest(f, opener);
        if (digest == null) {
          continue; /* unreadable: the import says so */
        }
        LogFile first = firstByDigest.putIfAbsent(digest, f);
        if (first != null) {
          copies.add(f);
          skipped.add(new SkippedInput(f.displayName(), "the same content as " + first.displayName()
              + ", which is read (a log read twice would count every record twice)"));
        }
      }
    }
    if (copies.isEmpty()) {
      return inputs;
    }
    return new InputSet(inputs.logs().stream().filter(f -> !copies.contains(f)).toList(), skipped);
  }

  private static String digest(LogFile f, Opener opener) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
    byte[] buf = new byte[1 << 16];
    try (InputStream in = opener.open(f)) {
      int n;
      while ((n = in.read(buf)) >= 0) {
        sha.update(buf, 0, n);
      }
    } catch (IOException e) {
      return null;
    }
    return HexFormat.of().formatHex(sha.digest());
  }
}
