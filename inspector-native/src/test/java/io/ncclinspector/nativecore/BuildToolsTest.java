package io.ncclinspector.nativecore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The build names a missing compiler before JavaCPP runs into it: on a machine with gcc but no
 * g++, {@code make tools} (the first step of the native build) fails saying what to install.
 */
class BuildToolsTest {
  /* Not a JUnit @TempDir: it would warn about deleting the links to tools outside it. */
  private Path bin;

  @BeforeEach
  void makeBin() throws IOException {
    bin = Files.createTempDirectory("tools");
  }

  @AfterEach
  void removeBin() throws IOException {
    try (var entries = Files.list(bin)) {
      for (Path p : entries.toList()) {
        Files.delete(p); /* the link, not its target */
      }
    }
    Files.delete(bin);
  }

  private record Result(int exit, String output) {}

  private static Result makeTools(String path) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(which("make").toString(), "-s", "--no-print-directory", "-C",
        Path.of("").toAbsolutePath().toString(), "tools").redirectErrorStream(true);
    pb.environment().put("PATH", path);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    return new Result(p.exitValue(), out);
  }

  private static Path which(String tool) {
    for (String dir : System.getenv("PATH").split(":")) {
      Path p = Path.of(dir, tool);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    throw new AssertionError(tool + " is not on PATH: the build could not have run");
  }

  @Test
  void aMissingGxxIsNamedWithWhatToInstall() throws Exception {
    for (String tool : new String[] {"sh", "gcc", "cc"}) {
      Files.createSymbolicLink(bin.resolve(tool), which(tool));
    }
    Result r = makeTools(bin.toString());
    assertNotEquals(0, r.exit());
    assertTrue(r.output().contains("g++ not found") && r.output().contains("apt-get install g++"), r.output());
  }

  @Test
  void aMissingGccIsNamedToo() throws Exception {
    Files.createSymbolicLink(bin.resolve("sh"), which("sh"));
    Result r = makeTools(bin.toString());
    assertNotEquals(0, r.exit());
    assertTrue(r.output().contains("not found") && r.output().contains("apt-get install gcc"), r.output());
  }

  @Test
  void passesWhereTheBuildRuns() throws Exception {
    Result r = makeTools(System.getenv("PATH"));
    assertEquals(0, r.exit(), r.output());
  }
}
