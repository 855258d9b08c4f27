package io.ncclinspector.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.testsupport.LogCapture;
import io.ncclinspector.testsupport.TestData;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real full disk: a 48 KiB tmpfs for the JSON output and a 4 KiB one for the recording, mounted where the machine allows it (root with the mount
 * capability, as in CI); elsewhere skipped with one NOT CHECKED line (the unit tests cover the same
 * accounting on a simulated disk). The replay must say exactly how many records reached the file,
 * leave no cut line, exit non-zero, and report a recording that hit the full disk as such.
 */
class FullDiskTest {
  @TempDir Path dir;
  @RegisterExtension final LogCapture logs = new LogCapture();
  private Path disk;
  private Path small;
  private boolean diskMounted;
  private boolean smallMounted;

  private static int sh(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    return p.waitFor(30, TimeUnit.SECONDS) ? p.exitValue() : -1;
  }

  @BeforeEach
  void mountSmallDisk() throws Exception {
    disk = Files.createDirectory(dir.resolve("disk"));
    small = Files.createDirectory(dir.resolve("small"));
    diskMounted = sh("mount", "-t", "tmpfs", "-o", "size=48k", "tmpfs", disk.toString()) == 0;
    smallMounted = diskMounted && sh("mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", small.toString()) == 0;
    if (!smallMounted) {
      String line = "NOT CHECKED: replay onto a real full file system (FullDiskTest: cannot mount a small tmpfs"
          + " here; needs root with the mount capability, as CI has)";
      System.out.println(line);
      Assumptions.abort(line);
    }
  }

  @AfterEach
  void unmount() throws Exception {
    if (smallMounted) {
      sh("umount", small.toString());
    }
    if (diskMounted) {
      sh("umount", disk.toString());
    }
  }

  @Test
  void aFullDiskIsCountedExactlyAndTheReplayFails() throws Exception {
    logs.expect("ERROR", "No space left on device").expect("ERROR", "output lost");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc = NcclInspectorCommand.run(new String[] {"replay", "--trace", TestData.traceFiles("h3_mix").get(0).toString(),
        "--dump-dir", disk.resolve("out").toString(), "--record", small.resolve("rec").toString(), "--min-size", "0"},
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    String stdout = out.toString(StandardCharsets.UTF_8);
    String stderr = err.toString(StandardCharsets.UTF_8);
    assertEquals(1, rc, stdout + stderr);
    Matcher m = Pattern.compile("(\\d+) records -> (\\S+)").matcher(stdout);
    assertTrue(m.find(), stdout);
    long written = Long.parseLong(m.group(1));
    if (m.group(2).startsWith("(")) {
      /* the recording took all the space first: the log, never written to, is not left behind */
      assertEquals(0, written, stdout);
    } else {
      Path log = Path.of(m.group(2));
      List<String> lines = Files.readAllLines(log);
      assertEquals(written, lines.size(), "the count is what the file holds");
      byte[] bytes = Files.readAllBytes(log);
      assertTrue(bytes.length == 0 || bytes[bytes.length - 1] == '\n', "no cut line at the end");
    }
    assertTrue(stderr.contains("record(s) NOT written") && stderr.contains("No space left on device"), stderr);
    assertTrue(stderr.contains("recorded callback(s) lost, the recording could not be written: IOException: No space"),
        stdout + stderr);
    assertTrue(!stdout.contains("past the size bound"), "a full disk is not the size bound: " + stdout);
    try (var files = Stream.concat(Files.walk(disk), Files.walk(small))) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        assertTrue(Files.size(f) > 0, "no empty file left behind: " + f);
      }
    }
  }
}
