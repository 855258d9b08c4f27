package io.ncclinspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.testsupport.TestData;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The artifacts as modules: the example program {@code examples/module-path} is compiled against
 * the inspector's jars on the module path and run there in a JVM of its own. It must find the
 * exporters by service binding, play a trace through the core (JavaCPP loading the native library
 * from a named module), get the records, the Prometheus textfiles and the JFR events, see only
 * the exported packages, and be refused the internals. The other tests run on the class path.
 */
class ModulePathTest {
  /** The jars (or, before packaging, class directories) that make the program's module path. */
  private static final Pattern MODULES = Pattern.compile(".*/(inspector-(format|api|native|testkit|prometheus|jfr)"
      + "(-[0-9][^/]*\\.jar|/target/classes)|(javacpp|jackson-(core|databind|annotations|datatype-jsr310)"
      + "|slf4j-(api|simple)|prometheus-metrics-[a-z-]+)-[0-9][^/]*\\.jar)$");

  @TempDir Path dir;

  @Test
  void aModularProgramSeesTheApiAndTheExportersAndNotTheInternals() throws Exception {
    List<String> modulePath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .filter(e -> MODULES.matcher(e.replace(File.separatorChar, '/')).matches() && !e.endsWith("-tests.jar"))
        .toList();
    for (String module : List.of("inspector-format", "inspector-api", "inspector-native", "inspector-testkit",
        "inspector-prometheus", "inspector-jfr")) {
      assertEquals(1, modulePath.stream().filter(e -> e.contains(module)).count(), module + " in " + modulePath);
    }
    Path sources = TestData.root().getParent().resolve("examples/module-path/src");
    List<String> files;
    try (Stream<Path> s = Files.walk(sources)) {
      files = s.filter(p -> p.toString().endsWith(".java")).map(Path::toString).toList();
    }
    Path classes = Files.createDirectories(dir.resolve("classes"));
    List<String> args = new ArrayList<>(List.of("-d", classes.toString(), "--module-path",
        String.join(File.pathSeparator, modulePath)));
    args.addAll(files);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
    assertEquals(0, javac.run(null, diagnostics, diagnostics, args.toArray(String[]::new)), diagnostics::toString);

    Path out = dir.resolve("out");
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "--module-path", classes + File.pathSeparator + String.join(File.pathSeparator, modulePath),
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
        "-Dorg.bytedeco.javacpp.cachedir=" + System.getProperty("org.bytedeco.javacpp.cachedir",
            Path.of(System.getProperty("user.home"), ".javacpp", "cache").toString()),
        "-m", "io.ncclinspector.examples.modular/io.ncclinspector.examples.modular.ModularReplay",
        TestData.traceFiles("h3_mix").get(0).toString(), out.toString())
        .redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(120, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), output);
    List<String> lines = output.lines().toList();
    assertTrue(lines.contains("exporters [jfr, prometheus]"), "JFR found by service binding: " + output);
    String records = lines.stream().filter(l -> l.startsWith("records received ")).findFirst().orElseThrow();
    long received = Long.parseLong(records.split(" ")[2]);
    assertTrue(received > 200, output);
    assertTrue(records.endsWith(" heard " + received), "the listener heard every record: " + output);
    assertTrue(lines.contains("jfr operation events " + received), output);
    assertTrue(lines.contains("prometheus textfiles 2"), "a GPU file and the process file: " + output);
    assertTrue(lines.contains("module io.ncclinspector exports [io.ncclinspector, io.ncclinspector.export, io.ncclinspector.spi]"), output);
    assertTrue(lines.contains("internals hidden"), output);
    assertEquals(List.of(), lines.stream().filter(l -> l.contains("WARN") || l.contains("ERROR"))
        .collect(Collectors.toList()), "nothing logged at WARN or above");
  }
}
